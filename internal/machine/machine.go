// Package machine says what the computer can hold, so that counts read from files and flags are checked against a
// budget that scales with it before anything is allocated from them.
package machine

import (
	"fmt"
	"runtime/metrics"
)

// Memory is the most memory this process can hold in bytes: the machine's physical memory, or less where the
// system limits the process (`ulimit -v`, a control group's limit: a container, systemd-run -p MemoryMax); 0
// where none of them can be found.
func Memory() int64 {
	m, l := physicalMemory(), processLimit()
	if m <= 0 || l > 0 && l < m {
		m = l
	}
	return m
}

// MemoryBudget is how many bytes one simulation's arrays may take: half of what this process may hold (the rest is
// the window's, the renderer's and the system's), less half of what its live heap holds beyond held — the bytes of
// the simulation being sized now, which it reuses or lets go of. So a second simulation beside the first (B of an
// A/B pair) gets half of what the first leaves. Where the memory cannot be found, fallback stands for half of it.
func MemoryBudget(fallback, held int64) int64 {
	m := Memory()
	if m <= 0 {
		m = 2 * fallback
	}
	return max(0, m-max(0, liveHeap()-held)) / 2
}

// liveHeap is what the live objects took at the last garbage collection, bytes.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
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
