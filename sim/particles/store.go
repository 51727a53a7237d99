// Package particles is the particle store of the particle modes (pbf-cpu, flip, sph, voronoi): positions,
// velocities and ids, and the per-particle columns a mode declares once — a material, a pressure, a temperature —
// each saying whether it is state (saved, restored, carried along when the particles are sorted, added or
// removed), carried but recomputed every step (kept in the particles' order, not saved), or scratch (sized with the
// particles, nothing more). The store does for every column what each mode used to write by hand for each of its
// arrays: append within the budget, remove with one renumbering rule, permute on a sort, snapshot and restore, and
// encode and decode with a table of the columns by name, so that a new attribute is one declaration and changes
// the file format only by a named, versioned entry.
//
// A store is not safe for concurrent use; a step may read and write the columns' slices directly (they are the
// mode's own fields, declared by pointer) as long as it does not change their lengths.
package particles

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/grow"
)

// Role says what the store does with a column.
type Role uint8

const (
	// State columns are saved, restored and follow the particles: what a step reads and does not recompute.
	State Role = iota
	// Carried columns follow the particles (sorts, appends, removals) but are recomputed by the steps and not
	// saved: a density kept in the particles' order for the frame.
	Carried
	// Scratch columns are sized with the particles and nothing more.
	Scratch
)

func (r Role) String() string {
	switch r {
	case State:
		return "state"
	case Carried:
		return "carried"
	case Scratch:
		return "scratch"
	}
	return fmt.Sprintf("Role(%d)", int(r))
}

// Store holds the particles in the mode's own slices: the positions, velocities and ids every mode has (Bind; xyz
// in the first three components), and the columns the mode declared with Add. Ids are 0..Len−1, a permutation,
// after every operation of the store. The mode's code reads and writes its slices as before; the store changes
// their lengths and order.
type Store struct {
	pos, vel *[][4]float32
	id       *[]uint32

	cols   []column
	byName map[string]column
	done   []bool // Permute's marks
}

// column is a declared per-particle array; col[T] is the only kind.
type column interface {
	name() string
	role() Role
	resize(n int)
	permute(perm []int32, done []bool)
	fill(from, to int) // default values in [from, to)
	compact(keep []bool)
	snapshot(dst *Snapshot)
	restore(src *Snapshot) error
	size() int // bytes of one value in the binary form
	check(i int) error
	data() any // the slice, for Encode
	setData(v any) error
}

// Spec declares a column: its name (in files and messages), its role, the value new particles get, and a check of
// one value read from a file ("material 7 of 3"), nil for none. T must be a fixed-size type (numbers, arrays of
// them, structs of them) for a State column: its values are written little-endian.
type Spec[T any] struct {
	Name    string
	Role    Role
	Default T
	Check   func(v T) error
}

// Bind makes the mode's slices of positions, velocities and ids the store's, before any column is added.
func (s *Store) Bind(pos, vel *[][4]float32, id *[]uint32) {
	if pos == nil || vel == nil || id == nil || len(s.cols) > 0 {
		panic("particles: Bind needs the three slices, before any column")
	}
	s.pos, s.vel, s.id = pos, vel, id
}

// Add declares a column of s held in *ptr, a field of the mode, and sizes it to the particles there are.
func Add[T any](s *Store, ptr *[]T, spec Spec[T]) {
	if s.pos == nil {
		panic("particles: Add before Bind")
	}
	if spec.Name == "" || ptr == nil {
		panic("particles: a column needs a name and a slice")
	}
	if s.byName == nil {
		s.byName = map[string]column{}
	}
	if _, dup := s.byName[spec.Name]; dup || reserved(spec.Name) {
		panic("particles: column " + spec.Name + " declared twice")
	}
	c := &col[T]{spec: spec, ptr: ptr}
	if spec.Role == State && c.size() <= 0 {
		panic("particles: state column " + spec.Name + " is not of a fixed-size type")
	}
	s.cols = append(s.cols, c)
	s.byName[spec.Name] = c
	c.resize(s.Len())
	c.fill(0, s.Len())
}

// reserved says whether name is one of the arrays every store has.
func reserved(name string) bool { return name == "position" || name == "velocity" || name == "id" }

// Len is the number of particles.
func (s *Store) Len() int { return len(*s.pos) }

// Reset makes the store hold n particles with ids 0..n−1, every column at its default; the caller sets positions,
// velocities and what else it knows.
func (s *Store) Reset(n int) {
	*s.pos, *s.vel, *s.id = grow.Resize(*s.pos, n), grow.Resize(*s.vel, n), grow.Resize(*s.id, n)
	for i := range *s.id {
		(*s.id)[i] = uint32(i)
	}
	clear(*s.pos)
	clear(*s.vel)
	for _, c := range s.cols {
		c.resize(n)
		c.fill(0, n)
	}
}

// Grow appends k particles with the next ids and every column at its default, and returns the index of the first;
// the caller sets their positions, velocities and columns. The budget is the caller's: the store holds what it is
// given.
func (s *Store) Grow(k int) int {
	n := s.Len()
	m := n + max(k, 0)
	*s.pos, *s.vel, *s.id = growKeep(*s.pos, m), growKeep(*s.vel, m), growKeep(*s.id, m)
	pos, vel, id := *s.pos, *s.vel, *s.id
	for i := n; i < m; i++ {
		pos[i], vel[i], id[i] = [4]float32{}, [4]float32{}, uint32(i)
	}
	for _, c := range s.cols {
		c.resize(m)
		c.fill(n, m)
	}
	return n
}

// growKeep is grow.Resize keeping the values below the old length.
func growKeep[T any](b []T, n int) []T {
	if cap(b) >= n {
		return b[:n]
	}
	out := grow.Resize([]T(nil), max(n, cap(b)*3/2))[:n]
	copy(out, b)
	return out
}

// Remove removes the particles gone selects (called once for each, in order) and returns how many went. The order
// of those that stay is kept, and their ids are renumbered 0..Len−1 in the order of their old ids: the one rule
// every mode follows, so that a removal and its undo (the particles appended again, after the others) replay alike.
func (s *Store) Remove(gone func(i int) bool) int {
	n := s.Len()
	keep := make([]bool, n)
	goneID := make([]bool, n)
	k := 0
	for i := range n {
		keep[i] = !gone(i)
		if keep[i] {
			k++
		} else {
			goneID[(*s.id)[i]] = true
		}
	}
	if k == n {
		return 0
	}
	*s.pos, *s.vel, *s.id = compact(*s.pos, keep), compact(*s.vel, keep), compact(*s.id, keep)
	Renumber(*s.id, goneID)
	for _, c := range s.cols {
		if c.role() == Scratch {
			c.resize(k)
		} else {
			c.compact(keep)
		}
	}
	return n - k
}

// Renumber gives the ids that remain after particles were removed the numbers 0..N'−1 in their old order: gone
// says, by old id (0..len(gone)−1), which were removed, and id holds the ids that remain.
func Renumber(id []uint32, gone []bool) {
	below := make([]uint32, len(gone)+1) // below[id]: the remaining ids smaller than id
	for k, g := range gone {
		below[k+1] = below[k]
		if !g {
			below[k+1]++
		}
	}
	for i := range id {
		id[i] = below[id[i]]
	}
}

func compact[T any](b []T, keep []bool) []T {
	k := 0
	for i, ok := range keep {
		if ok {
			b[k] = b[i]
			k++
		}
	}
	return b[:k]
}

// Permute reorders the particles so that particle i is the one that was at perm[i] (a sort by cell): positions,
// velocities, ids and every State and Carried column. perm must be a permutation of 0..Len−1.
func (s *Store) Permute(perm []int32) {
	if len(perm) != s.Len() {
		panic(fmt.Sprintf("particles: a permutation of %d for %d particles", len(perm), s.Len()))
	}
	s.done = grow.Resize(s.done, len(perm))
	applyPerm(*s.pos, perm, s.done)
	applyPerm(*s.vel, perm, s.done)
	applyPerm(*s.id, perm, s.done)
	for _, c := range s.cols {
		if c.role() != Scratch {
			c.permute(perm, s.done)
		}
	}
}

// applyPerm puts b[perm[i]] at i in place, following the permutation's cycles: no copy of b (a column's worth of
// memory per column, which a copy-and-gather would keep), one pass. done marks the places filled; its values on
// entry do not matter.
func applyPerm[T any](b []T, perm []int32, done []bool) {
	clear(done)
	for i := range b {
		if done[i] {
			continue
		}
		first := b[i]
		j := i
		for {
			done[j] = true
			k := int(perm[j])
			if k == i {
				b[j] = first
				break
			}
			b[j] = b[k]
			j = k
		}
	}
}

// Snapshot is a copy of the particles and their State columns: the last good state a step restores after non-finite
// numbers, or what a test compares.
type Snapshot struct {
	Pos, Vel [][4]float32
	ID       []uint32
	cols     map[string]any
}

// Save copies the particles and their State columns into dst, reusing its storage.
func (s *Store) Save(dst *Snapshot) {
	dst.Pos = append(dst.Pos[:0], *s.pos...)
	dst.Vel = append(dst.Vel[:0], *s.vel...)
	dst.ID = append(dst.ID[:0], *s.id...)
	if dst.cols == nil {
		dst.cols = map[string]any{}
	}
	for _, c := range s.cols {
		if c.role() == State {
			c.snapshot(dst)
		}
	}
}

// Load puts the particles and State columns of src back (a Snapshot this store saved); Carried and Scratch columns
// are sized to them and set to their defaults.
func (s *Store) Load(src *Snapshot) error {
	for _, c := range s.cols {
		if _, ok := src.cols[c.name()]; c.role() == State && !ok {
			return fmt.Errorf("particles: the snapshot has no column %s", c.name())
		}
	}
	n := len(src.Pos)
	*s.pos = append((*s.pos)[:0], src.Pos...)
	*s.vel = append((*s.vel)[:0], src.Vel...)
	*s.id = append((*s.id)[:0], src.ID...)
	for _, c := range s.cols {
		if c.role() == State {
			if err := c.restore(src); err != nil {
				return err
			}
			continue
		}
		c.resize(n)
		c.fill(0, n)
	}
	return nil
}

// col is a column of values of T.
type col[T any] struct {
	spec Spec[T]
	ptr  *[]T
}

func (c *col[T]) name() string { return c.spec.Name }
func (c *col[T]) role() Role   { return c.spec.Role }
func (c *col[T]) resize(n int) { *c.ptr = growKeep(*c.ptr, n) }
func (c *col[T]) fill(from, to int) {
	b := *c.ptr
	for i := from; i < to; i++ {
		b[i] = c.spec.Default
	}
}
func (c *col[T]) compact(keep []bool)               { *c.ptr = compact(*c.ptr, keep) }
func (c *col[T]) permute(perm []int32, done []bool) { applyPerm(*c.ptr, perm, done) }
func (c *col[T]) snapshot(dst *Snapshot) {
	old, _ := dst.cols[c.spec.Name].([]T)
	dst.cols[c.spec.Name] = append(old[:0], *c.ptr...)
}
func (c *col[T]) restore(src *Snapshot) error {
	v, ok := src.cols[c.spec.Name].([]T)
	if !ok || len(v) != len(src.Pos) {
		return fmt.Errorf("particles: the snapshot's column %s is not this store's", c.spec.Name)
	}
	*c.ptr = append((*c.ptr)[:0], v...)
	return nil
}
func (c *col[T]) size() int {
	var v T
	return binarySize(v)
}
func (c *col[T]) check(i int) error {
	if c.spec.Check == nil {
		return nil
	}
	return c.spec.Check((*c.ptr)[i])
}
func (c *col[T]) data() any { return *c.ptr }
func (c *col[T]) setData(v any) error {
	b, ok := v.([]T)
	if !ok {
		return fmt.Errorf("particles: column %s: %T is not its type", c.spec.Name, v)
	}
	*c.ptr = b
	return nil
}

// Finite says whether x is a finite number, for columns' checks.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Pos, Vel and ID are the bound slices as they are now (their lengths and order change with the store's
// operations: take them again after one).
func (s *Store) Pos() [][4]float32 { return *s.pos }

// Vel is the velocities; see Pos.
func (s *Store) Vel() [][4]float32 { return *s.vel }

// ID is the ids; see Pos.
func (s *Store) ID() []uint32 { return *s.id }

// Len is the particle count of the snapshot.
func (sn *Snapshot) Len() int { return len(sn.Pos) }

// Put sets a column of the snapshot, for a mode that converts an older state of its own into one: the values must
// be as many as the snapshot's particles, of the column's declared type (Load refuses others).
func Put[T any](sn *Snapshot, name string, v []T) {
	if sn.cols == nil {
		sn.cols = map[string]any{}
	}
	sn.cols[name] = v
}

// Get is a column of the snapshot, nil when it has none of that name and type.
func Get[T any](sn *Snapshot, name string) []T {
	v, _ := sn.cols[name].([]T)
	return v
}
