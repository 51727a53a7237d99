// Package binio reads the arrays of slosh's binary state files: counts come from files made by strangers, so an
// array grows as its data arrives and a short input claiming billions of elements costs no more memory than it
// holds.
package binio

import (
	"encoding/binary"
	"errors"
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
