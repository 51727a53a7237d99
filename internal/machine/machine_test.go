package machine

import (
	"github.com/slosh/slosh/internal/testenv"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// On Linux the memory is found, is at least what this process holds and at most the physical memory; the budget
// is half of it less half the live heap, all of it counted when held says the heap is the caller's own.
func TestMemory(t *testing.T) {
	m := Memory()
	if runtime.GOOS != "linux" {
		t.Logf("memory %d (unknown off Linux)", m)
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if m < int64(ms.Sys) || m > physicalMemory() {
		t.Fatalf("memory %d bytes: less than this process holds (%d) or more than the machine's %d", m, ms.Sys, physicalMemory())
	}
	if b := MemoryBudget(7, 1<<62); b != m/2 {
		t.Errorf("budget %d with the whole heap held, want half of %d", b, m)
	}
	if b := MemoryBudget(7, 0); b > m/2 || b < m/2-liveHeap() {
		t.Errorf("budget %d, want half of %d less at most the live heap %d", b, m, liveHeap())
	}
}

// A second simulation gets half of what the first one's arrays leave: 256 MB held live lowers the budget of
// anything else by 128 MB, and not the budget of the holder itself.
func TestMemoryBudgetCountsTheLiveHeap(t *testing.T) {
	if Memory() <= 0 {
		skipUnlessRequired(t, "no memory figure on this system")
	}
	runtime.GC()
	before := MemoryBudget(0, 0)
	held := make([]byte, 256<<20)
	for i := range held {
		held[i] = byte(i)
	}
	runtime.GC()
	after, own := MemoryBudget(0, 0), MemoryBudget(0, int64(len(held)))
	runtime.KeepAlive(held)
	if d := before - after; d < 120<<20 || d > 140<<20 {
		t.Errorf("256 MB more live heap lowered the budget by %d MB, want 128", d>>20)
	}
	if d := before - own; d < -8<<20 || d > 8<<20 {
		t.Errorf("the holder's own 256 MB changed its budget by %d MB, want 0", d>>20)
	}
}

// The control group's limit is found for cgroup v2 (memory.max, "max" for none, the least of the group and those
// above it) and v1 (memory.limit_in_bytes, the page-rounded largest int64 for none).
func TestCgroupLimit(t *testing.T) {
	files := map[string]string{
		"/sys/fs/cgroup/user.slice/app/memory.max":        "max\n",
		"/sys/fs/cgroup/user.slice/memory.max":            "8589934592\n",
		"/sys/fs/cgroup/memory.max":                       "17179869184\n",
		"/sys/fs/cgroup/memory/box/memory.limit_in_bytes": "4294967296\n",
		"/sys/fs/cgroup/memory/memory.limit_in_bytes":     "9223372036854771712\n",
	}
	read := func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
	}
	for _, c := range []struct {
		own  string
		want int64
	}{
		{"0::/user.slice/app\n", 8 << 30},
		{"0::/\n", 16 << 30},
		{"4:memory:/box\n0::/elsewhere\n", 4 << 30},
		{"11:cpu,memory:/nowhere\n", 0},
		{"4:memory:/\n", 0},
		{"garbage", 0},
	} {
		if got := cgroupLimit(c.own, read); got != c.want {
			t.Errorf("%q: %d, want %d", c.own, got, c.want)
		}
	}
}

// Under `ulimit -v` Memory is the limit, not the machine's memory: what a run under an 8 GB limit must budget for.
func TestMemoryUnderUlimit(t *testing.T) {
	if os.Getenv("SLOSH_MACHINE_CHILD") != "" {
		os.Stdout.WriteString("memory " + strconv.FormatInt(Memory(), 10) + "\n")
		return
	}
	if runtime.GOOS != "linux" {
		skipUnlessRequired(t, "ulimit -v is a Linux test here")
	}
	kb := min(6<<20, physicalMemory()>>11) // 6 GiB in KiB, or half the machine's memory where that is less
	cmd := exec.Command("sh", "-c", "ulimit -v "+strconv.FormatInt(kb, 10)+" && exec \"$0\" -test.run '^TestMemoryUnderUlimit$'", os.Args[0])
	cmd.Env = append(os.Environ(), "SLOSH_MACHINE_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "memory "+strconv.FormatInt(kb<<10, 10)+"\n") {
		t.Errorf("under ulimit -v %d KiB the child said %q, want %d bytes", kb, out, kb<<10)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{12: "12 bytes", 1500: "1.5 kB", 34_400_000_000: "34.4 GB", 2_500_000: "2.5 MB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// skipUnlessRequired skips where tests may skip, and fails where they must not (make test, CI: internal/testenv).
func skipUnlessRequired(t *testing.T, why string) {
	t.Helper()
	if testenv.Required() {
		t.Fatal(why + ", and make test and CI run every test")
	}
	t.Skip(why)
}
