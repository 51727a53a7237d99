package savefile

import (
	"archive/zip"
	"compress/flate"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
)

// Save writes f to path atomically: into a temporary file in the same folder, synced to disk, then renamed over
// path. On any error the temporary file is removed and a file already at path is left as it was. Errors name the
// path and say what to do about them (a full disk, a folder that cannot be written). A symbolic link or anything
// but a regular file at path is refused. After saving, the temporary files that earlier saves of path left when
// they were killed are removed (atomicfile.RemoveStale).
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

	state, err := f.StateBytes() // a loaded File saved again
	if err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { return writeArchive(w, hdr, state, saved) }); err != nil {
		return err
	}
	// A save of this file that was killed left its temporary file; the save that succeeded replaces it. One that
	// cannot be removed (another user's, in a shared folder) is left: the save itself worked.
	_, _ = atomicfile.RemoveStale(filepath.Dir(path), filepath.Base(path), time.Now())
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
