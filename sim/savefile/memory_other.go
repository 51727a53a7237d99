//go:build !linux

package savefile

// physicalMemory is the machine's memory in bytes, or 0 when it cannot be told (here: never; the state's budget
// is then MaxState).
func physicalMemory() int64 { return 0 }
