// Package atomicfile writes files so that a failure never leaves half a file: the content goes to a temporary
// file in the target's folder, is synced to disk, and is renamed over the target. On any error the temporary file
// is removed and a file already at the path is left as it was, and the error names the path and says what to do
// (a full disk, a read-only or missing folder). Save files, scenes, presets, screenshots and particle caches are
// all written through it.
//
// A write replaces the directory entry at the path and never writes through it: a symbolic link, a folder, a
// device or a pipe at the path is refused with a message saying what is there, so that a link planted in an
// output folder cannot redirect a write elsewhere. A write that was killed leaves its temporary file (.NAME.NNN.tmp)
// behind; RemoveStale clears those once they are old enough that no write can still be using them.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/slosh/slosh/internal/safeio"
)

// Write writes path with what write puts into the writer it is given: a new file, or one that replaces the
// regular file at path, keeping its permissions (a new file gets 0644). It refuses to write when path is a
// symbolic link, a folder, a device, a pipe or a socket (see Check).
func Write(path string, write func(w io.Writer) error) (err error) {
	perm := fs.FileMode(0o644)
	fi, err := Check(path)
	if err != nil {
		return err
	}
	if fi != nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := CreateTemp(path)
	if err != nil {
		return err
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
	return Commit(tmp, path, perm)
}

// CreateTemp makes a new, private temporary file for a write of path, in path's folder and named as RemoveStale
// knows it (.NAME.NNN.tmp). The caller writes it and puts it in place with Commit, or removes it; the error
// names path and says what to do (Explain).
func CreateTemp(path string) (*os.File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPattern(filepath.Base(path)))
	if err != nil {
		return nil, Explain(path, err)
	}
	return tmp, nil
}

// Commit puts tmp, a file CreateTemp made for path and now written, in place of path: it gives it permissions
// perm, syncs and closes it and renames it over whatever is at path (the directory entry is replaced, never
// written through). On an error tmp is closed and left where it is, for the caller to remove; the error is the
// system's (wrap it with Explain).
func Commit(tmp *os.File, path string, perm fs.FileMode) error {
	_ = tmp.Chmod(perm) // best effort: CreateTemp made it private; some file systems have no modes
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// Check says whether Write may write path: nothing is there (fi is nil), or a regular file that it will replace
// (fi describes it). A symbolic link is refused even when it names a regular file, since replacing it would
// surprise whoever made it and writing through it would write outside the folder asked for; so are folders,
// devices, pipes and sockets. The errors name the path and what is there.
func Check(path string) (fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, Explain(path, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return nil, fmt.Errorf("saving %s: it is a symbolic link (to %s); slosh does not write through links: remove the link or choose another name", path, target)
	case fi.IsDir():
		return nil, fmt.Errorf("saving %s: it is a folder, not a file: choose a file name", path)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("saving %s: it is %s, not a file: choose a file name", path, safeio.Kind(fi.Mode()))
	}
	return fi, nil
}

// tempPattern is os.CreateTemp's pattern for the temporary file of base: ".base.NNN.tmp", where CreateTemp puts
// decimal digits in place of the star.
func tempPattern(base string) string { return "." + base + ".*.tmp" }

// StaleAge is how old a temporary file must be before RemoveStale removes it: older than any write slosh makes,
// so that a write still in progress (in this or another process) keeps its file.
const StaleAge = 10 * time.Minute

// IsTemp reports whether name is a temporary file name Write makes, and for which target base name.
func IsTemp(name string) (base string, ok bool) {
	rest, ok := strings.CutSuffix(name, ".tmp")
	if !ok || !strings.HasPrefix(rest, ".") {
		return "", false
	}
	dot := strings.LastIndexByte(rest, '.')
	digits := rest[dot+1:]
	if dot <= 1 || digits == "" || len(digits) > 10 {
		return "", false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return "", false
		}
	}
	return rest[1:dot], true
}

// RemoveStale removes the temporary files that writes of dir/base killed before they finished left in dir:
// regular files named as Write names them for the target base, last modified more than StaleAge before now. It
// returns the paths it removed, and an error naming those it found but could not remove (they are left where
// they are). base must not be empty; RemoveStaleOf takes a set of targets.
func RemoveStale(dir, base string, now time.Time) ([]string, error) {
	if base == "" {
		panic("atomicfile: RemoveStale: no target name")
	}
	return RemoveStaleOf(dir, func(b string) bool { return b == base }, now)
}

// RemoveStaleOf is RemoveStale for every target base name that ours accepts. A folder holds other people's files
// too, and a name like .notes.123.tmp is theirs to keep: ours must accept only names the caller writes.
func RemoveStaleOf(dir string, ours func(base string) bool, now time.Time) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("looking for unfinished temporary files in %s: %w", dir, err)
	}
	var removed, kept []string
	for _, e := range entries {
		b, ok := IsTemp(e.Name())
		if !ok || !ours(b) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil || now.Sub(fi.ModTime()) < StaleAge {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			kept = append(kept, p)
			continue
		}
		removed = append(removed, p)
	}
	if len(kept) > 0 {
		return removed, fmt.Errorf("temporary files left by unfinished writes could not be removed: %s", strings.Join(kept, ", "))
	}
	return removed, nil
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
