//go:build unix

package testdir

import (
	"syscall"
	"testing"
)

// FIFO makes a named pipe at path, for tests that a reader or writer refuses it rather than blocking. Failing to
// make one fails the test: the case is never skipped.
func FIFO(t testing.TB, path string) string {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatalf("making the named pipe %s: %v", path, err)
	}
	return path
}
