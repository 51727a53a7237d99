package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteReplacesOrLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if err := WriteBytes(path, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(path, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Fatalf("the file holds %q", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("permissions %v, want the file's own 0600", fi.Mode().Perm())
	}
	// a writer that fails half way: the old content stays, no temporary file is left
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "thr")
		return errors.New("the encoder broke")
	})
	if err == nil || !strings.Contains(err.Error(), "the encoder broke") || !strings.Contains(err.Error(), path) {
		t.Fatalf("a failing writer: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "two" {
		t.Fatalf("after a failed write the file holds %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("%d entries in the folder, want only the file", len(entries))
	}
	// a parent that is a file, a missing folder, a target that is a folder
	for _, c := range []struct{ path, want string }{
		{filepath.Join(path, "x"), "not a folder"},
		{filepath.Join(dir, "missing", "x"), "does not exist"},
		{dir, "not a file"},
	} {
		if err := WriteBytes(c.path, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("writing %s: %v, want %q", c.path, err, c.want)
		}
	}
}

func TestExplainSaysWhatToDo(t *testing.T) {
	full := &fs.PathError{Op: "write", Path: "/x/.run.slosh.1.tmp", Err: syscall.ENOSPC}
	err := Explain("/x/run.slosh", full)
	if !strings.Contains(err.Error(), "/x/run.slosh") || !strings.Contains(err.Error(), "disk full") || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("disk full: %v", err)
	}
}
