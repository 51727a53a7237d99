// Package safeio opens files that other people wrote (scenes, meshes, save files, replays, presets, particle
// caches) so that a bad path cannot hang slosh or take all its memory: only regular files are opened — a named
// pipe (FIFO) would block forever, a device like /dev/zero never ends, a folder is not a file — and no more than a
// byte budget is ever read.
//
// Open checks what the path names before opening it (so a device is never opened), opens it without blocking
// where the system allows (so a pipe put there in the meantime cannot block), and checks the opened file again.
// ReadFile and ReadFS read a whole file within a budget; ReadAll does the same for a reader. Errors name the path
// and say what to do; *NotRegularError and *TooLargeError let callers word their own advice (errors.As), and
// errors from the file system (a missing file: fs.ErrNotExist) are wrapped so errors.Is still finds them.
package safeio

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is a path that names something other than a regular file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	if e.Mode.IsDir() {
		return fmt.Sprintf("%s is a folder, not a file: give the path of a file in it", e.Path)
	}
	return fmt.Sprintf("%s is %s, not a regular file: slosh reads only regular files; save the data to a file and give its path", e.Path, Kind(e.Mode))
}

// Kind names what a file that is not a regular file is, for messages: "a named pipe (FIFO)", "a device", ...
func Kind(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeDir != 0:
		return "a folder"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a device"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// TooLargeError is a file over its byte budget. Size is the file's size when it is known, else -1 (a file that
// grew while it was read, or a reader that went on past Limit).
type TooLargeError struct {
	Path  string
	Size  int64
	Limit int64
}

func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return fmt.Sprintf("%s: the file is over the limit of %s for this kind of file", e.Path, Bytes(e.Limit))
	}
	return fmt.Sprintf("%s: the file is %s, over the limit of %s for this kind of file", e.Path, Bytes(e.Size), Bytes(e.Limit))
}

// Bytes words a size for messages: "512 bytes", "3.2 KiB", "64.0 MiB", "1.5 GiB".
func Bytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// Open opens path for reading when it is a regular file (a symbolic link to one is fine) of at most limit bytes
// (limit ≤ 0: any size), and returns it with its size. Anything else is refused before it is opened: a folder, a
// pipe, a device, a socket (*NotRegularError), or a larger file (*TooLargeError). The caller closes the file and
// must still not read more than limit bytes from it (ReadFile does both), since a file can grow after Open.
func Open(path string, limit int64) (*os.File, int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err // *fs.PathError: names the path and the reason
	}
	if err := check(path, fi, limit); err != nil {
		return nil, 0, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, 0, err
	}
	// the path may have been replaced between Stat and OpenFile: what counts is what was opened
	fi, err = f.Stat()
	if err == nil {
		err = check(path, fi, limit)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}

func check(path string, fi fs.FileInfo, limit int64) error {
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	if limit > 0 && fi.Size() > limit {
		return &TooLargeError{Path: path, Size: fi.Size(), Limit: limit}
	}
	return nil
}

// ReadFile reads the regular file at path, at most limit bytes (limit > 0). A file that is larger, or grows past
// limit while it is read, is a *TooLargeError; see Open for what else is refused.
func ReadFile(path string, limit int64) ([]byte, error) {
	if limit <= 0 {
		panic("safeio: ReadFile: limit must be positive")
	}
	f, size, err := Open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readAll(f, size, limit, path)
}

// ReadFS is ReadFile for a file in fsys (embedded assets, os.DirFS): the same checks, through fs.Stat before
// opening and Stat on the opened file. An fs.FS cannot open without blocking, so a pipe swapped in between the
// two checks could still block; ReadFile has no such gap.
func ReadFS(fsys fs.FS, name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		panic("safeio: ReadFS: limit must be positive")
	}
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := check(name, fi, limit); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err == nil {
		err = check(name, fi, limit)
	}
	if err != nil {
		return nil, err
	}
	return readAll(f, fi.Size(), limit, name)
}

// ReadAll reads r to its end, at most limit bytes (limit > 0): more is a *TooLargeError naming name. For data
// that does not come from a file of known size, such as a zip entry whose header may lie about its size.
func ReadAll(r io.Reader, limit int64, name string) ([]byte, error) {
	if limit <= 0 {
		panic("safeio: ReadAll: limit must be positive")
	}
	return readAll(r, -1, limit, name)
}

// readAll reads r up to limit bytes, with room for size bytes (when known, ≤ limit) up front.
func readAll(r io.Reader, size, limit int64, name string) ([]byte, error) {
	var b bytes.Buffer
	if size >= 0 && size <= limit {
		b.Grow(int(size) + 1) // + 1: the read that finds the end
	}
	n, err := b.ReadFrom(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	if n > limit {
		return nil, &TooLargeError{Path: name, Size: -1, Limit: limit}
	}
	return b.Bytes(), nil
}
