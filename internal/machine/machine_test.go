package machine

import (
	"runtime"
	"testing"
)

// On Linux the memory is found and is at least what this process holds; the budget is half of it.
func TestMemory(t *testing.T) {
	m := Memory()
	if runtime.GOOS != "linux" {
		t.Logf("memory %d (unknown off Linux)", m)
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if m < int64(ms.Sys) {
		t.Fatalf("physical memory %d bytes, less than this process holds (%d)", m, ms.Sys)
	}
	if b := MemoryBudget(7); b != m/2 {
		t.Errorf("budget %d, want half of %d", b, m)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{12: "12 bytes", 1500: "1.5 kB", 34_400_000_000: "34.4 GB", 2_500_000: "2.5 MB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
