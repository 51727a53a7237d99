//go:build !linux

package machine

func physicalMemory() int64 { return 0 }

func processLimit() int64 { return 0 }
