package machine

import (
	"os"
	"path"
	"strconv"
	"strings"
	"syscall"
)

func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// processLimit is the least of the limits the system puts on this process's memory: its address space and data
// segment (setrlimit, `ulimit -v`), and its control group's memory limit (cgroup v2 memory.max, v1
// memory.limit_in_bytes, for the group and every group above it); 0 when none is set. Beyond them the system
// refuses the process memory (Go's "fatal error: out of memory") or kills it.
func processLimit() int64 {
	limit := int64(0)
	least := func(n int64) {
		if n > 0 && (limit == 0 || n < limit) {
			limit = n
		}
	}
	for _, res := range []int{syscall.RLIMIT_AS, syscall.RLIMIT_DATA} {
		var rl syscall.Rlimit
		if syscall.Getrlimit(res, &rl) == nil && rl.Cur != ^uint64(0) && rl.Cur < 1<<62 {
			least(int64(rl.Cur))
		}
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err == nil {
		least(cgroupLimit(string(own), func(p string) ([]byte, error) { return os.ReadFile(p) }))
	}
	return limit
}

// cgroupLimit is the least memory limit of the control groups that /proc/self/cgroup's content own names, read
// through read from /sys/fs/cgroup: for cgroup v2 (the line "0::/path") memory.max of the group and each group
// above it, for v1 (the "memory" controller's line) memory.limit_in_bytes likewise; 0 when none is set. Inside a
// container the group's path may not exist under the mount, whose own files are then the container's.
func cgroupLimit(own string, read func(string) ([]byte, error)) int64 {
	limit := int64(0)
	for _, line := range strings.Split(own, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var root, file string
		switch {
		case parts[0] == "0" && parts[1] == "":
			root, file = "/sys/fs/cgroup", "memory.max"
		case containsWord(parts[1], "memory"):
			root, file = "/sys/fs/cgroup/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		for dir := path.Clean("/" + parts[2]); ; dir = path.Dir(dir) {
			if data, err := read(path.Join(root, dir, file)); err == nil {
				s := strings.TrimSpace(string(data))
				// "max" (v2) or a huge number (v1: the page-rounded largest int64) means no limit
				if n, err := strconv.ParseInt(s, 10, 64); err == nil && n > 0 && n < 1<<62 && (limit == 0 || n < limit) {
					limit = n
				}
			}
			if dir == "/" {
				break
			}
		}
	}
	return limit
}

// containsWord says whether the comma-separated list holds w.
func containsWord(list, w string) bool {
	for _, x := range strings.Split(list, ",") {
		if x == w {
			return true
		}
	}
	return false
}
