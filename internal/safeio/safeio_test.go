package safeio

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/slosh/slosh/internal/testdir"
)

func TestReadFileRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(p, 5)
	if err != nil || string(got) != "hello" {
		t.Fatalf("ReadFile = %q, %v", got, err)
	}
	// a symbolic link to a regular file is read like the file
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(p, link); err == nil {
		if got, err := ReadFile(link, 5); err != nil || string(got) != "hello" {
			t.Fatalf("ReadFile(link) = %q, %v", got, err)
		}
	}
	f, size, err := Open(p, 0)
	if err != nil || size != 5 {
		t.Fatalf("Open = %d, %v", size, err)
	}
	f.Close()
}

func TestTooLarge(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.txt")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p, 9)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != 10 || tl.Limit != 9 || !strings.Contains(err.Error(), p) ||
		!strings.Contains(err.Error(), "10 bytes, over the limit of 9 bytes") {
		t.Fatalf("ReadFile over the limit: %v", err)
	}
	// a reader that goes on past the limit (a zip entry that inflates further than it said)
	_, err = ReadAll(strings.NewReader("0123456789"), 4, "entry")
	if !errors.As(err, &tl) || tl.Size != -1 || !strings.Contains(err.Error(), "entry: the file is over the limit of 4 bytes") {
		t.Fatalf("ReadAll over the limit: %v", err)
	}
	if got, err := ReadAll(strings.NewReader("0123"), 4, "entry"); err != nil || string(got) != "0123" {
		t.Fatalf("ReadAll at the limit: %q, %v", got, err)
	}
}

func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	check := func(path, want string) {
		t.Helper()
		_, err := ReadFile(path, 1<<20)
		var nr *NotRegularError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile(%s): %v, want a *NotRegularError saying %q", path, err, want)
		}
	}
	check(dir, "is a folder, not a file")
	if runtime.GOOS == "linux" {
		check("/dev/zero", "a character device") // never ends: must not be read at all
	}
	fifo := filepath.Join(dir, "pipe")
	testdir.FIFO(t, fifo)
	check(fifo, "a named pipe (FIFO)") // would block forever in os.ReadFile
	if _, _, err := Open(fifo, 0); err == nil {
		t.Error("Open(fifo) succeeded")
	}
	if _, err := ReadFS(os.DirFS(dir), "pipe", 10); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("ReadFS(fifo): %v", err)
	}
}

// TestOpenFlagsDoNotBlock opens a pipe with no writer the way Open does, for the case where a pipe replaces the
// file between Stat and opening: the open must return at once (without openFlags it would wait for a writer, and
// this test would hang until go test's -timeout), and the check on the opened file refuses it.
func TestOpenFlagsDoNotBlock(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	testdir.FIFO(t, fifo)
	f, err := os.OpenFile(fifo, os.O_RDONLY|openFlags, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := check(fifo, fi, 0).(*NotRegularError); !ok {
		t.Fatalf("the opened pipe passed the check")
	}
}

func TestReadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"a.obj":  {Data: []byte("v 0 0 0\n")},
		"dir":    {Mode: fs.ModeDir},
		"big":    {Data: make([]byte, 100)},
		"socket": {Mode: fs.ModeSocket},
	}
	if got, err := ReadFS(fsys, "a.obj", 8); err != nil || string(got) != "v 0 0 0\n" {
		t.Fatalf("ReadFS = %q, %v", got, err)
	}
	var tl *TooLargeError
	if _, err := ReadFS(fsys, "big", 99); !errors.As(err, &tl) {
		t.Errorf("ReadFS(big): %v", err)
	}
	var nr *NotRegularError
	for _, name := range []string{"dir", "socket"} {
		if _, err := ReadFS(fsys, name, 99); !errors.As(err, &nr) {
			t.Errorf("ReadFS(%s): %v", name, err)
		}
	}
	if _, err := ReadFS(fsys, "missing", 99); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFS(missing): %v, want fs.ErrNotExist", err)
	}
}

func TestMissingFile(t *testing.T) {
	_, err := ReadFile(filepath.Join(t.TempDir(), "nope"), 10)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadFile(missing): %v, want fs.ErrNotExist", err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 bytes", 3 << 10: "3.0 KiB", 64 << 20: "64.0 MiB", 3 << 29: "1.5 GiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
