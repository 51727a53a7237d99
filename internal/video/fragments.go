package video

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxMoof is the largest movie fragment header PlayableFrames reads. ffmpeg's are a few hundred bytes plus about
// 16 bytes a frame, so this is far beyond any fragment a recording makes; a larger one means a damaged file.
const maxMoof = 16 << 20

// PlayableFrames reads the fragmented MP4 at path (as an MP4 recording writes it: ftyp, an empty moov, then a
// moof and its mdat per fragment) and counts the frames of its complete fragments: those a player shows. A file
// cut short, by a killed ffmpeg or a full disk, counts up to its last fragment whose moof and mdat are both
// whole. A file without a complete fragment holds 0 frames; a missing file is an error that wraps
// os.ErrNotExist. It reads only box headers and fragment headers, not the video data.
func PlayableFrames(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return playableIn(f, fi.Size(), path)
}

// playableIn is PlayableFrames for the size bytes of f; path names them in errors.
func playableIn(f io.ReaderAt, size int64, path string) (int, error) {
	frames, pending, moof := 0, 0, false // pending: the frames of the moof just read, counted once its mdat is whole
	for off := int64(0); ; {
		typ, start, end, err := boxAt(f, off, size)
		if err != nil {
			return frames, fmt.Errorf("reading %s: %w", path, err)
		}
		if end < 0 || end > size { // the end of the file, or a box cut short: nothing after it plays
			return frames, nil
		}
		switch typ {
		case "moof":
			if end-start > maxMoof {
				return frames, fmt.Errorf("reading %s: a fragment header of %d bytes at byte %d: the file is damaged", path, end-start, off)
			}
			body := make([]byte, end-start)
			if _, err := f.ReadAt(body, start); err != nil {
				return frames, fmt.Errorf("reading %s: %w", path, err)
			}
			if pending, err = moofSamples(body); err != nil {
				return frames, fmt.Errorf("reading %s: the fragment header at byte %d: %w", path, off, err)
			}
			moof = true
		case "mdat":
			if moof {
				frames += pending
			}
			moof = false
		default:
			moof = false
		}
		off = end
	}
}

// boxAt reads the header of the box at off in a file of size bytes: its type, where its content starts and where it
// ends. end is -1 at the end of the file or when the header itself is cut short; a box that claims more bytes than
// the file has ends past size.
func boxAt(r io.ReaderAt, off, size int64) (typ string, start, end int64, err error) {
	if size-off < 8 {
		return "", 0, -1, nil
	}
	var h [16]byte
	if _, err := r.ReadAt(h[:8], off); err != nil {
		return "", 0, 0, err
	}
	n, typ, hdr := uint64(binary.BigEndian.Uint32(h[:4])), string(h[4:8]), int64(8)
	switch n {
	case 0: // to the end of the file
		n = uint64(size - off)
	case 1: // a 64-bit size follows
		if size-off < 16 {
			return "", 0, -1, nil
		}
		if _, err := r.ReadAt(h[8:16], off+8); err != nil {
			return "", 0, 0, err
		}
		n, hdr = binary.BigEndian.Uint64(h[8:16]), 16
	}
	if n < uint64(hdr) {
		return "", 0, 0, fmt.Errorf("a %q box of %d bytes at byte %d: not an MP4, or a damaged one", typ, n, off)
	}
	if n > uint64(size-off) {
		return typ, off + hdr, size + 1, nil
	}
	return typ, off + hdr, off + int64(n), nil
}

// moofSamples is the number of samples (frames) a moof's track runs (trun, in traf) describe; body is the moof's
// content. A recording has one track, so this is its frames in the fragment.
func moofSamples(body []byte) (int, error) {
	n := 0
	err := children(body, func(typ string, traf []byte) error {
		if typ != "traf" {
			return nil
		}
		return children(traf, func(typ string, trun []byte) error {
			if typ != "trun" {
				return nil
			}
			if len(trun) < 8 { // version and flags, then the sample count
				return errors.New("a track run too short for its sample count")
			}
			n += int(binary.BigEndian.Uint32(trun[4:8]))
			return nil
		})
	})
	return n, err
}

// children calls fn with the type and content of each box in b, a box's content held in memory.
func children(b []byte, fn func(typ string, content []byte) error) error {
	for len(b) > 0 {
		if len(b) < 8 {
			return errors.New("a box header cut short")
		}
		n, hdr := uint64(binary.BigEndian.Uint32(b[:4])), uint64(8)
		switch n {
		case 0:
			n = uint64(len(b))
		case 1:
			if len(b) < 16 {
				return errors.New("a box header cut short")
			}
			n, hdr = binary.BigEndian.Uint64(b[8:16]), 16
		}
		if n < hdr || n > uint64(len(b)) {
			return fmt.Errorf("a %q box of %d bytes in %d", b[4:8], n, len(b))
		}
		if err := fn(string(b[4:8]), b[hdr:n]); err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}
