// Package atomicfile writes files so that a failure never leaves half a file: the content goes to a temporary
// file in the target's folder, is synced to disk, and is renamed over the target. On any error the temporary file
// is removed and a file already at the path is left as it was, and the error names the path and says what to do
// (a full disk, a read-only or missing folder). Save files, scenes, presets, screenshots and particle caches are
// all written through it.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write writes path with what write puts into the writer it is given. It writes through a symbolic link to the
// file it names and keeps an existing file's permissions (a new file gets 0644).
func Write(path string, write func(w io.Writer) error) (err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("saving %s: it is a folder or a device, not a file: choose a file name", path)
		}
		perm = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return Explain(path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = Explain(path, err)
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	_ = tmp.Chmod(perm) // best effort: CreateTemp made it private; some file systems have no modes
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// WriteBytes writes data to path atomically.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Explain says why writing path failed and what to do about it; the previous file, if any, is unchanged.
func Explain(path string, err error) error {
	var hint string
	switch {
	case errors.Is(err, syscall.ENOSPC):
		hint = "disk full: free some space or choose another folder"
	case errors.Is(err, syscall.EROFS):
		hint = "the folder is on a read-only file system: choose another folder"
	case errors.Is(err, fs.ErrPermission):
		hint = "permission denied: choose a folder you can write to"
	case errors.Is(err, syscall.ENOTDIR):
		hint = fmt.Sprintf("%s is not a folder (a part of it is a file): choose another folder", filepath.Dir(path))
	case errors.Is(err, fs.ErrNotExist):
		hint = fmt.Sprintf("the folder %s does not exist: create it or choose another", filepath.Dir(path))
	default:
		hint = "the write failed"
	}
	return fmt.Errorf("saving %s: %s (%w); an existing file there is unchanged", path, hint, err)
}

// syncDir makes the rename durable where the system allows syncing a folder; where it does not (Windows), the
// rename is as durable as the system makes it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
