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
	"time"

	"github.com/slosh/slosh/internal/testdir"
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

// A link, a pipe or a device at the path is refused and nothing is written through it: the file a link names
// outside the folder keeps its content.
func TestWriteRefusesLinksAndSpecialFiles(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "frame_000001.ply")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "slosh-export.json")
	if err := os.Symlink(filepath.Join(outside, "new.json"), dangling); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	testdir.FIFO(t, fifo)
	for _, c := range []struct{ path, want string }{
		{link, "symbolic link (to " + victim + ")"},
		{dangling, "symbolic link"},
		{fifo, "named pipe"},
		{"/dev/null", "character device"},
	} {
		err := WriteBytes(c.path, []byte("overwritten"))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.path) {
			t.Errorf("writing %s: %v, want an error saying %q", c.path, err, c.want)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("the link's target holds %q: written through the link", b)
	}
	if _, err := os.Lstat(filepath.Join(outside, "new.json")); err == nil {
		t.Error("the dangling link's target was created")
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("%d entries in the folder, want the two links and the pipe (no temporary files)", len(entries))
	}
}

func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	old := now.Add(-2 * StaleAge)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk(".run.slosh.123456.tmp", old)
	staleOther := mk(".frame_000001.ply.42.tmp", old)
	keep := []string{
		mk(".run.slosh.987.tmp", now),         // a write in progress
		mk(".run.slosh.12a.tmp", old),         // not CreateTemp's digits
		mk(".run.slosh.tmp", old),             // no digits
		mk("run.slosh.123.tmp", old),          // not hidden
		mk(".run.slosh.12345678901.tmp", old), // more digits than a uint32
		mk("..5.tmp", old),                    // no target name
		mk("run.slosh", old),                  // the file itself
		mk(".run.slosh.55.tmp.bak", old),      // another suffix
		mk(".notes.123.tmp", old),             // another target's: the user's, maybe
	}
	// a link named like a temporary file is not ours to remove
	link := filepath.Join(dir, ".run.slosh.77.tmp")
	if err := os.Symlink(filepath.Join(dir, "run.slosh"), link); err != nil {
		t.Fatal(err)
	}
	keep = append(keep, link)
	// so is a pipe
	fifo := filepath.Join(dir, ".run.slosh.78.tmp")
	testdir.FIFO(t, fifo)
	if err := os.Chtimes(fifo, old, old); err != nil {
		t.Fatal(err)
	}
	keep = append(keep, fifo)

	removed, err := RemoveStale(dir, "run.slosh", now)
	if err != nil || len(removed) != 1 || removed[0] != stale {
		t.Fatalf("RemoveStale(run.slosh) = %v, %v; want only %s", removed, err, stale)
	}
	frames := func(b string) bool { return strings.HasPrefix(b, "frame_") }
	removed, err = RemoveStaleOf(dir, frames, now)
	if err != nil || len(removed) != 1 || removed[0] != staleOther {
		t.Fatalf("RemoveStaleOf(frames) = %v, %v; want only %s", removed, err, staleOther)
	}
	for _, p := range keep {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", filepath.Base(p))
		}
	}
	if removed, err := RemoveStale(filepath.Join(dir, "missing"), "run.slosh", now); err != nil || removed != nil {
		t.Errorf("a missing folder: %v, %v", removed, err)
	}
}
