// Package machine says what the computer can hold, so that counts read from files and flags are checked against a
// budget that scales with it before anything is allocated from them.
package machine

import "fmt"

// Memory is the machine's physical memory in bytes, or 0 where it cannot be found.
func Memory() int64 { return physicalMemory() }

// MemoryBudget is how many bytes one simulation's arrays may take: half the physical memory (the rest is the
// window's, the renderer's and the system's), or fallback where the memory cannot be found.
func MemoryBudget(fallback int64) int64 {
	if m := Memory(); m > 0 {
		return m / 2
	}
	return fallback
}

// Bytes writes a size for people: "34.4 GB".
func Bytes(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d bytes", n)
}
