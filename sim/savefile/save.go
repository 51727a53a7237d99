package savefile

import (
	"archive/zip"
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Save writes f to path atomically: into a temporary file in the same folder, synced to disk, then renamed over
// path. On any error the temporary file is removed and a file already at path is left as it was. Errors name the
// path and say what to do about them (a full disk, a folder that cannot be written).
func Save(path string, f *File) error {
	if f == nil {
		return fmt.Errorf("saving %s: nothing to save", path)
	}
	if err := f.check(); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	saved := f.saved()
	hdr, err := f.marshalHeader(saved)
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}

	// Save through a symbolic link to the file it names, and keep an existing file's permissions.
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
		return saveError(path, err)
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := writeArchive(tmp, hdr, f.State, saved); err != nil {
		return saveError(path, err)
	}
	_ = tmp.Chmod(perm) // best effort: CreateTemp made it private; some file systems have no modes
	if err := tmp.Sync(); err != nil {
		return saveError(path, err)
	}
	if err := tmp.Close(); err != nil {
		return saveError(path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return saveError(path, err)
	}
	done = true
	syncDir(dir)
	return nil
}

// marshalHeader writes slosh.json.
func (f *File) marshalHeader(saved time.Time) ([]byte, error) {
	sc, err := marshalScene(f.Scene)
	if err != nil {
		return nil, fmt.Errorf("writing the scene: %w", err)
	}
	h := header{
		Format:    Format,
		Software:  Software,
		Mode:      f.Mode,
		Kind:      f.Kind,
		Saved:     saved,
		Time:      f.Time,
		Steps:     f.Steps,
		Particles: f.Particles,
		Params:    f.Params,
		Scene:     sc,
	}
	if h.Params.Params == nil {
		h.Params.Params = map[string]json.RawMessage{}
	}
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("writing the header: %w", err)
	}
	if len(b) > MaxHeader {
		return nil, fmt.Errorf("the header is %s, over the %s a save file may hold", size(int64(len(b))), size(MaxHeader))
	}
	return append(b, '\n'), nil
}

// saved is when f was saved: f.Saved, or now.
func (f *File) saved() time.Time {
	if f.Saved.IsZero() {
		return now()
	}
	return f.Saved.Round(0)
}

// writeArchive writes the zip archive: the header stored as is (so that it reads in any pager), the state
// deflated at the fastest level (particle data hardly compresses; saving should not stall the sandbox).
func writeArchive(w io.Writer, hdr, state []byte, saved time.Time) error {
	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestSpeed)
	})
	for _, e := range []struct {
		name   string
		method uint16
		data   []byte
	}{
		{HeaderEntry, zip.Store, hdr},
		{StateEntry, zip.Deflate, state},
	} {
		ew, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method, Modified: saved})
		if err != nil {
			return err
		}
		if _, err := ew.Write(e.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// saveError explains why a save failed and what to do about it. The previous file, if any, is unchanged.
func saveError(path string, err error) error {
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
		hint = "the save failed"
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
