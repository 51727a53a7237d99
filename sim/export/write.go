package export

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// WritePLY writes n particles as a binary little-endian PLY point cloud: the header (with one comment line per
// comment), then n records holding cols in order. Every column must hold exactly n values of one type, and names
// must be unique and made of ASCII letters, digits and underscores, not starting with a digit (valid PLY
// property names that are also valid attribute names in Blender and Houdini). Comments must not hold line
// breaks. Nothing is written unless the columns and comments are valid.
func WritePLY(w io.Writer, n int, cols []Column, comments ...string) error {
	if err := checkColumns(n, cols, comments); err != nil {
		return fmt.Errorf("writing PLY: %w", err)
	}
	var h strings.Builder
	h.WriteString("ply\nformat binary_little_endian 1.0\n")
	for _, c := range comments {
		h.WriteString("comment " + c + "\n")
	}
	fmt.Fprintf(&h, "element vertex %d\n", n)
	for _, c := range cols {
		fmt.Fprintf(&h, "property %s %s\n", c.Type(), c.Name)
	}
	h.WriteString("end_header\n")
	if _, err := io.WriteString(w, h.String()); err != nil {
		return fmt.Errorf("writing PLY: %w", err)
	}

	// Every column is 4 bytes a value; records go out in chunks of about 64 KiB.
	rec := 4 * len(cols)
	chunk := max(1, (64<<10)/rec)
	buf := make([]byte, min(n, chunk)*rec)
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		b := buf[:(hi-lo)*rec]
		for j, c := range cols {
			off := 4 * j
			switch {
			case c.F32 != nil:
				for i, v := range c.F32[lo:hi] {
					binary.LittleEndian.PutUint32(b[i*rec+off:], math.Float32bits(v))
				}
			case c.U32 != nil:
				for i, v := range c.U32[lo:hi] {
					binary.LittleEndian.PutUint32(b[i*rec+off:], v)
				}
			default:
				for i, v := range c.I32[lo:hi] {
					binary.LittleEndian.PutUint32(b[i*rec+off:], uint32(v))
				}
			}
		}
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("writing PLY: %w", err)
		}
	}
	return nil
}

// checkColumns says what is wrong with a WritePLY call, or nil.
func checkColumns(n int, cols []Column, comments []string) error {
	if n < 0 {
		return fmt.Errorf("negative vertex count %d", n)
	}
	if len(cols) == 0 {
		return errors.New("no columns to write")
	}
	seen := make(map[string]bool, len(cols))
	for i, c := range cols {
		if !validName(c.Name) {
			return fmt.Errorf("column %d: name %q is not a letter or underscore followed by letters, digits and underscores", i, c.Name)
		}
		if seen[c.Name] {
			return fmt.Errorf("column %d: name %q is used twice", i, c.Name)
		}
		seen[c.Name] = true
		if c.Type() == "" {
			return fmt.Errorf("column %s: exactly one of F32, U32 and I32 must be set (non-nil)", c.Name)
		}
		if c.Len() != n {
			return fmt.Errorf("column %s has %d values, want %d", c.Name, c.Len(), n)
		}
	}
	for i, c := range comments {
		if strings.ContainsAny(c, "\r\n") {
			return fmt.Errorf("comment %d holds a line break: %q", i, c)
		}
	}
	return nil
}

// validName reports whether s is a letter or underscore followed by letters, digits and underscores (ASCII).
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
