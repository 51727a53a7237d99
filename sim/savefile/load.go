package savefile

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"

	"github.com/slosh/slosh/internal/jsonmsg"
	"github.com/slosh/slosh/sim/scene"
)

// Load reads a save file. It is strict: a file that is not a zip archive, lacks an entry, has a newer or unknown
// format version, a header that does not decode (the error names the field), a scene that does not validate, a
// damaged or truncated entry, or an entry over the size limits is refused with an error that names the file and
// what was wrong. Nothing running is touched; Restore applies the file.
func Load(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("save file %s does not exist", path)
		}
		return nil, fmt.Errorf("reading save file: %w", err)
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading save file: %w", err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a save file", path)
	}
	var magic [4]byte
	if n, _ := io.ReadFull(fh, magic[:]); n == 0 {
		return nil, fmt.Errorf("%s: empty file, not a slosh save file", path)
	}
	if string(magic[:]) != "PK\x03\x04" {
		return nil, fmt.Errorf("%s: not a slosh save file (a save file is a zip archive; this is not one)", path)
	}
	zr, err := zip.NewReader(fh, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: the save file is damaged or truncated (%v)", path, err)
	}

	entries := map[string]*zip.File{}
	for _, e := range zr.File {
		if e.Name != HeaderEntry && e.Name != StateEntry {
			continue // room for later additions (a thumbnail) that older versions may skip
		}
		if entries[e.Name] != nil {
			return nil, fmt.Errorf("%s: the save file holds %s twice: it is damaged", path, e.Name)
		}
		entries[e.Name] = e
	}
	for _, name := range []string{HeaderEntry, StateEntry} {
		if entries[name] == nil {
			return nil, fmt.Errorf("%s: not a complete slosh save file: it has no %s", path, name)
		}
	}

	hdr, err := readEntry(entries[HeaderEntry], MaxHeader)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := decodeHeader(path, hdr)
	if err != nil {
		return nil, err
	}
	if f.State, err = readEntry(entries[StateEntry], MaxState); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// readEntry reads an entry of at most limit bytes uncompressed, checking its CRC.
func readEntry(e *zip.File, limit int64) ([]byte, error) {
	tooBig := func(n uint64) error {
		return fmt.Errorf("%s is over the %s limit uncompressed (%d bytes or more): refusing it (the file is damaged or not a slosh save file)",
			e.Name, size(limit), n)
	}
	if e.UncompressedSize64 > uint64(limit) {
		return nil, tooBig(e.UncompressedSize64)
	}
	rc, err := e.Open()
	if err != nil {
		return nil, entryError(e.Name, err)
	}
	defer rc.Close()
	// The declared size is checked against what inflates (archive/zip does), but the buffer is only sized up
	// front as far as the compressed bytes can really inflate (deflate's ratio is at most 1032:1).
	n := min(int64(e.UncompressedSize64), int64(min(e.CompressedSize64, math.MaxInt64/1100))*1032+512)
	buf := bytes.NewBuffer(make([]byte, 0, n))
	if _, err := io.Copy(buf, io.LimitReader(rc, limit+1)); err != nil {
		return nil, entryError(e.Name, err)
	}
	if int64(buf.Len()) > limit {
		return nil, tooBig(uint64(buf.Len()))
	}
	return buf.Bytes(), nil
}

func entryError(name string, err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, zip.ErrChecksum):
		return fmt.Errorf("%s: checksum mismatch: the save file is damaged", name)
	case errors.Is(err, zip.ErrAlgorithm):
		return fmt.Errorf("%s: compressed with a method slosh does not read (it writes deflate)", name)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &corrupt) || errors.Is(err, zip.ErrFormat):
		return fmt.Errorf("%s: the save file is damaged or truncated (%v)", name, err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// decodeHeader checks and decodes slosh.json: software and version first (so that a newer file says so rather
// than failing on a field it added), then every field strictly, then the scene.
func decodeHeader(path string, data []byte) (*File, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s: %s", path, HeaderEntry, fmt.Sprintf(format, args...))
	}
	var id struct {
		Format   *int    `json:"format"`
		Software *string `json:"software"`
	}
	if err := json.Unmarshal(data, &id); err != nil {
		return nil, bad("%s", jsonmsg.Explain(data, err, "empty: the header is a JSON object"))
	}
	switch {
	case id.Software == nil || *id.Software != Software:
		sw := "none"
		if id.Software != nil {
			sw = fmt.Sprintf("%q", *id.Software)
		}
		return nil, bad("not a slosh save file (software %s)", sw)
	case id.Format == nil:
		return nil, bad("no format version")
	case *id.Format > Format:
		return nil, bad("format version %d is newer than this slosh reads (%d): update slosh to load it", *id.Format, Format)
	case *id.Format < 1:
		return nil, bad("unknown format version %d", *id.Format)
	}

	var h header
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return nil, bad("%s", jsonmsg.Explain(data, err, "empty: the header is a JSON object"))
	}
	if dec.More() {
		return nil, bad("unexpected data after the header object")
	}
	switch {
	case h.Mode == "":
		return nil, bad("mode: missing")
	case h.Kind == "":
		return nil, bad("kind: missing")
	case h.Steps < 0:
		return nil, bad("steps: %d is negative", h.Steps)
	case h.Particles < 0:
		return nil, bad("particles: %d is negative", h.Particles)
	case len(h.Scene) == 0 || string(h.Scene) == "null":
		return nil, bad("scene: missing")
	}
	sc, err := scene.Parse(h.Scene, path+":scene")
	if err != nil {
		return nil, err // scene.Parse names the source and the field
	}
	return &File{
		Mode:      h.Mode,
		Kind:      h.Kind,
		Time:      h.Time,
		Steps:     h.Steps,
		Particles: h.Particles,
		Params:    h.Params,
		Scene:     sc,
		Saved:     h.Saved,
		Path:      path,
	}, nil
}
