// Package testdir gives tests folders with properties that are awkward to set up portably.
package testdir

import (
	"os"
	"path/filepath"
	"testing"
)

// Unwritable returns a folder in which no file can be created, for tests of "cannot write here" errors. It is a
// fresh folder with mode 0555; where the test runs as root, which writes there regardless, it is sysfs's
// /sys/kernel, which refuses new files to everyone. No such folder at all fails the test: the case is never
// skipped silently.
func Unwritable(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "read-only")
	if err := os.Mkdir(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	for _, d := range []string{dir, "/sys/kernel"} {
		if !canCreate(d) {
			return d
		}
	}
	t.Fatal("no folder refuses new files here (a 0555 folder and /sys/kernel both took one)")
	return ""
}

// canCreate reports whether a new file can be made in dir (and removes it).
func canCreate(dir string) bool {
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}
