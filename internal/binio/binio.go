// Package binio reads the arrays of slosh's binary state files: counts come from files made by strangers, so an
// array grows as its data arrives and a short input claiming billions of elements costs no more memory than it
// holds.
package binio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ReadArray reads n little-endian values of T, growing the slice as the data arrives; a truncated input is
// io.ErrUnexpectedEOF.
func ReadArray[T any](r io.Reader, n int64) ([]T, error) {
	const chunk = 1 << 16
	if n < 0 {
		return nil, errors.New("negative array length")
	}
	out := make([]T, 0, min(n, chunk))
	for int64(len(out)) < n {
		k := int(min(n-int64(len(out)), chunk))
		start := len(out)
		out = slices.Grow(out, k)[:start+k]
		if err := binary.Read(r, binary.LittleEndian, out[start:]); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
	return out, nil
}

// Open starts reading a binary state that begins with magic: it returns a buffered reader after the magic and how
// many bytes r held, the magic included (−1 when r cannot say; a bytes.Reader can), so counts read next can be
// checked against the input before anything is allocated for them. kind names the state in the error ("pbf").
func Open(r io.Reader, magic, kind string) (*bufio.Reader, int64, error) {
	left := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok {
		left = int64(l.Len())
	}
	br := bufio.NewReaderSize(r, 1<<16)
	got := make([]byte, len(magic))
	if _, err := io.ReadFull(br, got); err != nil || string(got) != magic {
		return nil, 0, fmt.Errorf("not a %s state (the data does not start with the %s state header)", kind, kind)
	}
	return br, left, nil
}

// Write writes values little-endian, in order, through a buffer; kind names the state in the error ("pbf").
func Write(w io.Writer, kind string, values ...any) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, v := range values {
		if err := binary.Write(bw, binary.LittleEndian, v); err != nil {
			return fmt.Errorf("writing the %s state: %w", kind, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the %s state: %w", kind, err)
	}
	return nil
}

// End checks that br, after a state's last field, holds nothing more.
func End(br *bufio.Reader, kind string) error {
	switch _, err := br.ReadByte(); {
	case err == io.EOF:
		return nil
	case err != nil:
		return fmt.Errorf("%s state: %w", kind, err) // the data under it was damaged (a save file's checksum)
	}
	return fmt.Errorf("%s state: unexpected data after the end", kind)
}

// ReadParticles reads the arrays every particle state begins with: n positions, n velocities (xyz, w unused) and
// n ids. An error names the array that ran short ("truncated velocities: ...").
func ReadParticles(r io.Reader, n int64) (pos, vel [][4]float32, id []uint32, err error) {
	if pos, err = ReadArray[[4]float32](r, n); err != nil {
		return nil, nil, nil, fmt.Errorf("truncated positions: %w", err)
	}
	if vel, err = ReadArray[[4]float32](r, n); err != nil {
		return nil, nil, nil, fmt.Errorf("truncated velocities: %w", err)
	}
	if id, err = ReadArray[uint32](r, n); err != nil {
		return nil, nil, nil, fmt.Errorf("truncated ids: %w", err)
	}
	return pos, vel, id, nil
}
