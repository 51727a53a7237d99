package savefile

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"

	"github.com/slosh/slosh/internal/jsonmsg"
	"github.com/slosh/slosh/internal/safeio"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// Load reads a save file. It is strict: a file that is not a zip archive, lacks an entry, has a newer or unknown
// format version, a header that does not decode (the error names the field), a scene that does not validate, a
// damaged or truncated entry, or an entry over the size limits is refused with an error that names the file and
// what was wrong. Sizes and counts are checked before anything is allocated for them: the archive's directory
// (MaxDirectory), the header (MaxHeader), and the state against what the particles the header declares can take
// (StateBudget), both as the archive declares it and as it inflates. Nothing running is touched; Restore applies
// the file.
func Load(path string) (*File, error) {
	fh, length, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return read(fh, length, path)
}

// read reads a save file of length bytes from r; path names it in messages.
func read(r io.ReaderAt, length int64, path string) (*File, error) {
	var magic [4]byte
	if n, _ := r.ReadAt(magic[:], 0); n == 0 {
		return nil, fmt.Errorf("%s: empty file, not a slosh save file", path)
	}
	if string(magic[:]) != "PK\x03\x04" {
		return nil, fmt.Errorf("%s: not a slosh save file (a save file is a zip archive; this is not one)", path)
	}
	if err := checkDirectory(r, length); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	zr, err := zip.NewReader(r, length)
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

	hdr, err := readEntry(entries[HeaderEntry], MaxHeader, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := decodeHeader(path, hdr)
	if err != nil {
		return nil, err
	}
	noun := "particles"
	if f.Particles == 1 {
		noun = "particle"
	}
	why := fmt.Sprintf(" (what the %d %s %s declares can take)", f.Particles, noun, HeaderEntry)
	if f.packed, err = readPacked(entries[StateEntry], StateBudget(f.Particles), why); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// packedState is the state entry as Load found it: its bytes as stored (deflated), inflated only as a solver reads
// them (File.StateReader), so that loading holds the compressed state and what the solver decodes, never the
// whole inflated state: a state of zeros that inflates to gigabytes is refused at its first bytes.
type packedState struct {
	method uint16
	data   []byte // the entry's bytes as stored
	size   int64  // the declared uncompressed size
	crc    uint32
}

// readPacked reads the state entry as stored after checking what the archive declares of it, before inflating
// anything: its uncompressed size within limit (why says where the limit comes from), its stored size no larger
// than deflate makes of that, and a method slosh writes.
func readPacked(e *zip.File, limit int64, why string) (*packedState, error) {
	if e.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("%s holds %d bytes or more uncompressed, over its limit of %s%s: refusing it (the file is damaged or not a slosh save file)",
			e.Name, e.UncompressedSize64, size(limit), why)
	}
	n := int64(e.UncompressedSize64)
	if e.Method != zip.Deflate && e.Method != zip.Store {
		return nil, entryError(e.Name, zip.ErrAlgorithm)
	}
	// deflate stores what it cannot compress in blocks of at most 64 KiB with 5 bytes each
	if most := uint64(n) + uint64(n)/8192 + 1024; e.CompressedSize64 > most {
		return nil, fmt.Errorf("%s is stored in %d bytes, more than its %s could take: the file is damaged", e.Name, e.CompressedSize64, size(n))
	}
	rc, err := e.OpenRaw()
	if err != nil {
		return nil, entryError(e.Name, err)
	}
	data := make([]byte, e.CompressedSize64)
	if _, err := io.ReadFull(rc, data); err != nil {
		return nil, entryError(e.Name, err)
	}
	return &packedState{method: e.Method, data: data, size: n, crc: e.CRC32}, nil
}

// reader inflates the state as it is read, and at its end checks that it was as long as declared and its
// checksum; Len is what is left to read, as binio.Open asks.
func (p *packedState) reader() *stateReader {
	var r io.Reader = bytes.NewReader(p.data)
	if p.method == zip.Deflate {
		r = flate.NewReader(r)
	}
	return &stateReader{r: r, left: p.size, want: p.crc, sum: crc32.NewIEEE()}
}

// stateReader is packedState.reader's reader.
type stateReader struct {
	r    io.Reader
	left int64 // declared bytes not read yet
	want uint32
	sum  hash.Hash32
	err  error
}

func (s *stateReader) Len() int { return int(max(s.left, 0)) }

func (s *stateReader) Read(b []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if int64(len(b)) > s.left {
		b = b[:s.left+1] // one byte more shows a state longer than declared
	}
	n, err := s.r.Read(b)
	s.sum.Write(b[:n])
	s.left -= int64(n)
	switch {
	case s.left < 0:
		s.err = fmt.Errorf("%s: longer than the archive declares: the save file is damaged", StateEntry)
		return 0, s.err
	case err == io.EOF && s.left > 0:
		s.err = entryError(StateEntry, io.ErrUnexpectedEOF)
	case err == io.EOF:
		s.err = io.EOF
		if s.sum.Sum32() != s.want {
			s.err = entryError(StateEntry, zip.ErrChecksum)
		}
	case err != nil:
		s.err = entryError(StateEntry, err)
	}
	if n > 0 {
		return n, nil
	}
	return 0, s.err
}

// openRegular opens path for reading if it is a regular file no larger than a save file can be: a folder, a
// named pipe (which would block until something writes to it) or a device is refused with what it is
// (internal/safeio).
func openRegular(path string) (*os.File, int64, error) {
	fh, n, err := safeio.Open(path, MaxArchive)
	var tooLarge *safeio.TooLargeError
	switch {
	case err == nil:
		return fh, n, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, fmt.Errorf("save file %s does not exist", path)
	case errors.As(err, &tooLarge):
		return nil, 0, fmt.Errorf("%s is %s, over the %s a save file can take: it is not a slosh save file", path, size(tooLarge.Size), size(MaxArchive))
	}
	var notRegular *safeio.NotRegularError
	if errors.As(err, &notRegular) {
		return nil, 0, err // names the path and what it is
	}
	return nil, 0, fmt.Errorf("reading save file: %w", err)
}

// The end of a zip archive: the end-of-central-directory record (22 bytes and a comment of up to 64 KiB) and,
// in a zip64 archive, a locator of 20 bytes before it that points at a 56-byte zip64 record.
const (
	eocdLen        = 22
	maxComment     = 1<<16 - 1
	zip64LocLen    = 20
	zip64RecordLen = 56
)

// checkDirectory reads the archive's end record and refuses an archive whose central directory declares more
// than MaxDirectory bytes or more entries than fit in them, before archive/zip makes a structure for each. An
// archive without a readable end record is left to archive/zip, which says it is damaged.
func checkDirectory(r io.ReaderAt, length int64) error {
	tail := make([]byte, min(length, eocdLen+maxComment))
	if _, err := r.ReadAt(tail, length-int64(len(tail))); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("reading the archive's end: %w", err)
	}
	at := bytes.LastIndex(tail, []byte("PK\x05\x06"))
	if at < 0 || at+eocdLen > len(tail) {
		return nil
	}
	le := binary.LittleEndian
	entries, dirSize := uint64(le.Uint16(tail[at+10:])), uint64(le.Uint32(tail[at+12:]))
	if entries == 0xffff || dirSize == 0xffffffff {
		// zip64: the real counts are in the zip64 record the locator before the end record points at; without
		// one, the saturated values stand (and a directory of 4 GiB is refused)
		if e, d, ok := zip64Counts(r, length-int64(len(tail))+int64(at)); ok {
			entries, dirSize = e, d
		}
	}
	const minRecord = 46 // a central directory record without its name
	switch {
	case dirSize > MaxDirectory:
		return fmt.Errorf("the archive's directory is %s, over the %s a save file's may take: it is damaged or not a slosh save file",
			size64(dirSize), size(MaxDirectory))
	case entries > dirSize/minRecord+1:
		return fmt.Errorf("the archive declares %d entries in a directory of %s: it is damaged or not a slosh save file", entries, size64(dirSize))
	}
	return nil
}

// zip64Counts reads the entry count and directory size of a zip64 archive whose end record is at eocd.
func zip64Counts(r io.ReaderAt, eocd int64) (entries, dirSize uint64, ok bool) {
	le := binary.LittleEndian
	var buf [zip64RecordLen]byte
	loc := eocd - zip64LocLen
	if loc < 0 {
		return 0, 0, false
	}
	if _, err := r.ReadAt(buf[:zip64LocLen], loc); err != nil || string(buf[:4]) != "PK\x06\x07" {
		return 0, 0, false
	}
	off := le.Uint64(buf[8:])
	if off > uint64(max(loc-zip64RecordLen, 0)) {
		return 0, 0, false
	}
	if _, err := r.ReadAt(buf[:], int64(off)); err != nil || string(buf[:4]) != "PK\x06\x06" {
		return 0, 0, false
	}
	return le.Uint64(buf[32:]), le.Uint64(buf[40:]), true
}

// readEntry reads an entry of at most limit bytes uncompressed, checking its CRC. why says where the limit comes
// from, for the message.
func readEntry(e *zip.File, limit int64, why string) ([]byte, error) {
	tooBig := func(n uint64) error {
		return fmt.Errorf("%s holds %d bytes or more uncompressed, over its limit of %s%s: refusing it (the file is damaged or not a slosh save file)",
			e.Name, n, size(limit), why)
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
	data, err := jsonmsg.Text(data) // a byte-order mark, as every JSON reader takes it
	if err != nil {
		return nil, bad("%v", err)
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
	case len(h.Scene) == 0 || string(h.Scene) == "null":
		return nil, bad("scene: missing")
	}
	if err := checkCounts(h.Time, h.Steps, h.Particles); err != nil {
		return nil, bad("%v", err)
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
		Params:    param.Preset{Mode: h.Params.Mode, Params: h.Params.Params, Source: path + ": " + HeaderEntry + ": params"},
		Scene:     sc,
		Saved:     h.Saved,
		Path:      path,
	}, nil
}
