package particles

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/slosh/slosh/internal/binio"
)

// The binary form of the particles, inside a mode's state:
//
//	version uint32 (Version), particle count int64, column count uint32,
//	per column: its name (uint16 length, bytes) and the bytes of one value (uint32),
//	then positions, velocities and ids, then each column's values, in the table's order; little-endian.
//
// Only State columns are written. A reader matches the table to its declared columns by name: a column it does
// not know is refused by name (a newer slosh wrote it), a declared column the file lacks takes its default (an
// older slosh wrote it), and a column whose values are of another size is refused. Adding a column is one
// declaration and changes the format only by an entry of the table.
const (
	Version = 1
	// MaxColumns bounds a table read from a file; maxName a column's name.
	MaxColumns = 64
	maxName    = 64
	// particleBytes is what every particle takes besides its columns: position, velocity, id.
	particleBytes = 16 + 16 + 4
)

// Encode writes the particles and their State columns.
func (s *Store) Encode(w io.Writer) error {
	var state []column
	for _, c := range s.cols {
		if c.role() == State {
			state = append(state, c)
		}
	}
	vals := []any{uint32(Version), int64(s.Len()), uint32(len(state))}
	for _, c := range state {
		vals = append(vals, uint16(len(c.name())), []byte(c.name()), uint32(c.size()))
	}
	vals = append(vals, *s.pos, *s.vel, *s.id)
	for _, c := range state {
		vals = append(vals, c.data())
	}
	return binio.Write(w, "particle", vals...)
}

// Decode reads what Encode wrote into the store, replacing its particles, from br, where left bytes remain (−1 when
// not known: arrays then grow as their data arrives). The count is checked against limit (the most the mode can
// hold) and against left before anything is allocated, each value read against its column's check, and the ids
// must be a permutation. On error the store is unchanged. kind names the state in messages ("sph").
func (s *Store) Decode(br *bufio.Reader, left int64, limit int, kind string) error {
	le := binary.LittleEndian
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s state: particles: %s", kind, fmt.Sprintf(format, args...))
	}
	var version, ncols uint32
	var n int64
	for _, v := range []any{&version, &n, &ncols} {
		if err := binary.Read(br, le, v); err != nil {
			return bad("truncated header: %v", err)
		}
	}
	switch {
	case version != Version:
		return bad("version %d; this slosh reads version %d", version, Version)
	case n < 0 || n > int64(limit):
		return bad("count %d is outside [0, %d]", n, limit)
	case ncols > MaxColumns:
		return bad("%d columns, at most %d", ncols, MaxColumns)
	}
	type entry struct {
		c    column
		size int
	}
	table := make([]entry, ncols)
	need := 4 + 8 + 4 + n*particleBytes
	seen := map[string]bool{}
	for k := range table {
		var ln uint16
		if err := binary.Read(br, le, &ln); err != nil || ln == 0 || ln > maxName {
			return bad("column %d: a name of %d bytes (or none): the state is damaged", k, ln)
		}
		name := make([]byte, ln)
		var size uint32
		if _, err := io.ReadFull(br, name); err != nil {
			return bad("column %d: truncated name", k)
		}
		if err := binary.Read(br, le, &size); err != nil {
			return bad("column %s: truncated size", name)
		}
		c, ok := s.byName[string(name)]
		switch {
		case !ok || c.role() != State:
			return bad("column %q is not one this slosh keeps (%s): it was written by a newer slosh", name, s.columnNames())
		case seen[string(name)]:
			return bad("column %s is given twice: the state is damaged", name)
		case int(size) != c.size():
			return bad("column %s holds values of %d bytes, this slosh's of %d: the state is damaged or of another version", name, size, c.size())
		}
		seen[string(name)] = true
		table[k] = entry{c, int(size)}
		need += 2 + int64(ln) + 4 + n*int64(size)
	}
	if left >= 0 && need > left {
		return bad("%d particles and %d columns take %d bytes, but %d remain: it is truncated or damaged", n, ncols, need, left)
	}
	pos, vel, id, err := binio.ReadParticles(br, n)
	if err != nil {
		return bad("%v (%d declared)", err, n)
	}
	if err := checkIDs(id); err != nil {
		return bad("%v", err)
	}
	for i := range pos {
		for a := range 3 {
			if !Finite(float64(pos[i][a])) || !Finite(float64(vel[i][a])) {
				return bad("particle %d: a position or velocity that is not a finite number", i)
			}
		}
	}
	// read into fresh columns, then swap them in only when everything checked
	fresh := map[string]column{}
	for _, e := range table {
		v, err := readColumn(br, e.c, n)
		if err != nil {
			return bad("column %s: %v", e.c.name(), err)
		}
		fresh[e.c.name()] = v
	}
	old := s.keep()
	*s.pos, *s.vel, *s.id = pos, vel, id
	for _, c := range s.cols {
		if v, ok := fresh[c.name()]; ok {
			_ = c.setData(v.data())
		} else {
			c.resize(int(n))
			c.fill(0, int(n))
		}
	}
	for _, c := range s.cols {
		if c.role() != State {
			continue
		}
		for i := range int(n) {
			if err := c.check(i); err != nil {
				s.restoreKept(old)
				return bad("particle %d: %s: %v", i, c.name(), err)
			}
		}
	}
	return nil
}

// readColumn reads n values of c's type into a detached column of the same type.
func readColumn(br io.Reader, c column, n int64) (column, error) {
	return c.(interface {
		read(io.Reader, int64) (column, error)
	}).read(br, n)
}

func (c *col[T]) read(r io.Reader, n int64) (column, error) {
	v, err := binio.ReadArray[T](r, n)
	if err != nil {
		return nil, fmt.Errorf("truncated: %w", err)
	}
	return &col[T]{spec: c.spec, ptr: &v}, nil
}

// kept is what Decode puts back when a value fails its check.
type kept struct {
	pos, vel [][4]float32
	id       []uint32
	cols     []any
}

func (s *Store) keep() kept {
	k := kept{pos: *s.pos, vel: *s.vel, id: *s.id}
	for _, c := range s.cols {
		k.cols = append(k.cols, c.data())
	}
	return k
}

func (s *Store) restoreKept(k kept) {
	*s.pos, *s.vel, *s.id = k.pos, k.vel, k.id
	for i, c := range s.cols {
		_ = c.setData(k.cols[i])
	}
}

// checkIDs says whether id is a permutation of 0..len−1.
func checkIDs(id []uint32) error {
	seen := make([]bool, len(id))
	for i, v := range id {
		if int64(v) >= int64(len(id)) || seen[v] {
			return fmt.Errorf("particle %d has id %d: the ids are not 0..%d each once", i, v, len(id)-1)
		}
		seen[v] = true
	}
	return nil
}

// columnNames lists the State columns, for messages.
func (s *Store) columnNames() string {
	out := ""
	for _, c := range s.cols {
		if c.role() == State {
			if out != "" {
				out += ", "
			}
			out += c.name()
		}
	}
	if out == "" {
		return "none"
	}
	return out
}

// binarySize is the bytes of v in the binary form, or −1 when it has none of a fixed size.
func binarySize(v any) int { return binary.Size(v) }

// DecodeSnapshot is Decode into dst instead of the store, which keeps its particles: a mode checks what it read
// (against its scene and budget) before it loads it.
func (s *Store) DecodeSnapshot(br *bufio.Reader, left int64, limit int, kind string, dst *Snapshot) error {
	old := s.keep()
	defer s.restoreKept(old)
	if err := s.Decode(br, left, limit, kind); err != nil {
		return err
	}
	s.Save(dst)
	return nil
}
