package particles

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// fluid is a mode's particles as a test declares them: a material (state, checked), a pressure (state), a density
// (carried) and a cell index (scratch).
type fluid struct {
	Store
	Pos, Vel [][4]float32
	ID       []uint32
	mat      []uint8
	pres     []float32
	rho      []float32
	cell     []int32
}

func newFluid(n int) *fluid {
	f := &fluid{}
	f.Bind(&f.Pos, &f.Vel, &f.ID)
	Add(&f.Store, &f.mat, Spec[uint8]{Name: "material", Role: State, Check: func(m uint8) error {
		if m >= 3 {
			return fmt.Errorf("material %d of 3", m)
		}
		return nil
	}})
	Add(&f.Store, &f.pres, Spec[float32]{Name: "pressure", Role: State, Default: -1})
	Add(&f.Store, &f.rho, Spec[float32]{Name: "density", Role: Carried, Default: 1})
	Add(&f.Store, &f.cell, Spec[int32]{Name: "cell", Role: Scratch})
	f.Reset(n)
	for i := range n {
		f.Pos[i] = [4]float32{float32(i), 0, 0, 0}
		f.Vel[i] = [4]float32{0, float32(i), 0, 0}
		f.mat[i] = uint8(i % 3)
		f.pres[i] = 10 * float32(i)
		f.rho[i] = 1 + float32(i)/100
	}
	return f
}

// byID returns, for each id, the particle's x position (which the test set to its first id), material and pressure.
func (f *fluid) byID() map[uint32][3]float32 {
	out := map[uint32][3]float32{}
	for i, id := range f.ID {
		out[id] = [3]float32{f.Pos[i][0], float32(f.mat[i]), f.pres[i]}
	}
	return out
}

// Every column follows the particles through appends, removals and a sort; ids stay 0..N−1, renumbered in the
// order of the old ids; new particles get the columns' defaults and the next ids; scratch only changes length.
func TestColumnsFollowTheParticles(t *testing.T) {
	f := newFluid(6)
	at := f.Grow(2)
	if at != 6 || f.Len() != 8 || f.ID[7] != 7 || f.mat[6] != 0 || f.pres[7] != -1 || f.rho[6] != 1 || len(f.cell) != 8 {
		t.Fatalf("grow: at %d, %d particles, ids %v, materials %v, pressures %v", at, f.Len(), f.ID, f.mat, f.pres)
	}
	f.Pos[6][0], f.Pos[7][0] = 6, 7
	// a sort: reverse order
	perm := []int32{7, 6, 5, 4, 3, 2, 1, 0}
	before := f.byID()
	rho := slices.Clone(f.rho)
	f.Permute(perm)
	if got := f.byID(); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Fatalf("a permutation changed what belongs to which id:\n%v\n%v", before, got)
	}
	for i, p := range perm {
		if f.rho[i] != rho[p] {
			t.Fatalf("the carried density did not follow: %v from %v", f.rho, rho)
		}
	}
	// remove ids 1 and 4 (wherever they are now): the rest keep their order and are renumbered by old id
	gone := map[uint32]bool{1: true, 4: true}
	order := []float32{}
	for i := range f.Len() {
		if !gone[f.ID[i]] {
			order = append(order, f.Pos[i][0])
		}
	}
	oldID := slices.Clone(f.ID)
	if k := f.Remove(func(i int) bool { return gone[oldID[i]] }); k != 2 || f.Len() != 6 || len(f.cell) != 6 || len(f.rho) != 6 {
		t.Fatalf("removed %d, %d left, columns %d %d", k, f.Len(), len(f.cell), len(f.rho))
	}
	for i := range f.Len() {
		if f.Pos[i][0] != order[i] {
			t.Fatalf("the order after a removal: %v, want %v", f.Pos, order)
		}
		// the x position is the particle's first id: its new id counts the remaining ids below it
		want := uint32(0)
		for old := range uint32(f.Pos[i][0]) {
			if !gone[old] {
				want++
			}
		}
		wantMat := uint8(int(f.Pos[i][0]) % 3)
		if f.Pos[i][0] >= 6 {
			wantMat = 0 // grown: the default
		}
		if f.ID[i] != want || f.mat[i] != wantMat {
			t.Fatalf("particle %d (first id %g): id %d, material %d; want id %d", i, f.Pos[i][0], f.ID[i], f.mat[i], want)
		}
	}
}

// A snapshot restores the particles and the state columns exactly; carried and scratch columns come back at their
// defaults, sized to the particles.
func TestSnapshot(t *testing.T) {
	f := newFluid(5)
	var snap Snapshot
	f.Save(&snap)
	want := f.byID()
	f.Grow(3)
	f.pres[0], f.mat[1] = 99, 2
	f.Remove(func(i int) bool { return i == 2 })
	if err := f.Load(&snap); err != nil {
		t.Fatal(err)
	}
	if got := f.byID(); fmt.Sprint(got) != fmt.Sprint(want) || len(f.rho) != 5 || f.rho[3] != 1 || len(f.cell) != 5 {
		t.Fatalf("after Load: %v, want %v; density %v", got, want, f.rho)
	}
	h := &fluid{} // a store with a state column the snapshot lacks
	h.Bind(&h.Pos, &h.Vel, &h.ID)
	Add(&h.Store, &h.rho, Spec[float32]{Name: "temperature", Role: State})
	if err := h.Load(&snap); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Errorf("loading a snapshot without a declared state column: %v", err)
	}
}

// Encode and Decode round trip the particles and the state columns only; the table is by name, so a reader with a
// column the file lacks gives it its default, and one that lacks a column the file has refuses it by name.
func TestEncodeDecode(t *testing.T) {
	f := newFluid(7)
	f.Permute([]int32{3, 1, 2, 0, 6, 5, 4})
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	g := newFluid(0)
	if err := g.Decode(reader(data), int64(len(data)), 100, "test"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.Pos, f.Pos) || !slices.Equal(g.Vel, f.Vel) || !slices.Equal(g.ID, f.ID) || !slices.Equal(g.mat, f.mat) ||
		!slices.Equal(g.pres, f.pres) || len(g.rho) != 7 || g.rho[0] != 1 || len(g.cell) != 7 {
		t.Fatalf("decoded differently:\n%+v\n%+v", g.Store, f.Store)
	}

	// a newer store with a temperature reads it at its default
	type hot struct {
		fluid
		temp []float32
	}
	h := &hot{}
	h.Bind(&h.Pos, &h.Vel, &h.ID)
	Add(&h.Store, &h.mat, Spec[uint8]{Name: "material", Role: State})
	Add(&h.Store, &h.pres, Spec[float32]{Name: "pressure", Role: State})
	Add(&h.Store, &h.temp, Spec[float32]{Name: "temperature", Role: State, Default: 293})
	if err := h.Decode(reader(data), int64(len(data)), 100, "test"); err != nil || len(h.temp) != 7 || h.temp[6] != 293 {
		t.Fatalf("an older file into a store with a new column: %v, temperatures %v", err, h.temp)
	}
	var hb bytes.Buffer
	if err := h.Encode(&hb); err != nil {
		t.Fatal(err)
	}
	// ... and an older store refuses the newer file's column by name
	g2 := newFluid(2)
	err := g2.Decode(reader(hb.Bytes()), int64(hb.Len()), 100, "test")
	if err == nil || !strings.Contains(err.Error(), `column "temperature" is not one this slosh keeps (material, pressure)`) {
		t.Errorf("a newer column: %v", err)
	}
	if g2.Len() != 2 {
		t.Errorf("a refused decode changed the store: %d particles", g2.Len())
	}
}

// Damaged and hostile inputs are refused with what is wrong, before anything is allocated for their counts, and
// leave the store as it was.
func TestDecodeRefuses(t *testing.T) {
	f := newFluid(4)
	var b bytes.Buffer
	if err := f.Encode(&b); err != nil {
		t.Fatal(err)
	}
	good := b.Bytes()
	le := binary.LittleEndian
	edit := func(fn func(d []byte) []byte) []byte { return fn(slices.Clone(good)) }
	// offsets: version 0, count 4, columns 12, table from 16: "material" (2+8+4), "pressure" (2+8+4), data from 44
	const data = 16 + 14 + 14
	posAt := func(i, a int) int { return data + 16*i + 4*a }
	idAt := func(i int) int { return data + 2*16*4 + 4*i }
	matAt := func(i int) int { return data + 2*16*4 + 4*4 + i }
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"version", edit(func(d []byte) []byte { le.PutUint32(d, 9); return d }), "version 9; this slosh reads version 1"},
		{"count over the limit", edit(func(d []byte) []byte { le.PutUint64(d[4:], 1<<40); return d }), "count 1099511627776 is outside [0, 100]"},
		{"count over the data", edit(func(d []byte) []byte { le.PutUint64(d[4:], 90); return d }), "90 particles and 2 columns take"},
		{"columns", edit(func(d []byte) []byte { le.PutUint32(d[12:], 1000); return d }), "1000 columns, at most 64"},
		{"a column twice", edit(func(d []byte) []byte { copy(d[16+14+2:], "material"); return d }), "column material is given twice"},
		{"a column's size", edit(func(d []byte) []byte { le.PutUint32(d[16+2+8:], 4); return d }), "column material holds values of 4 bytes, this slosh's of 1"},
		{"truncated", good[:len(good)-3], "truncated"},
		{"ids", edit(func(d []byte) []byte { le.PutUint32(d[idAt(2):], 0); return d }), "particle 2 has id 0"},
		{"a NaN", edit(func(d []byte) []byte { le.PutUint32(d[posAt(1, 2):], math.Float32bits(float32(math.NaN()))); return d }), "particle 1: a position or velocity that is not a finite number"},
		{"a column's check", edit(func(d []byte) []byte { d[matAt(3)] = 7; return d }), "particle 3: material: material 7 of 3"},
	} {
		g := newFluid(3)
		before := g.byID()
		err := g.Decode(reader(c.in), int64(len(c.in)), 100, "sph")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "sph state: particles: ") {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if fmt.Sprint(g.byID()) != fmt.Sprint(before) || len(g.rho) != 3 || len(g.cell) != 3 {
			t.Errorf("%s: a refused decode changed the store", c.name)
		}
	}
}

func reader(b []byte) *bufio.Reader { return bufio.NewReader(bytes.NewReader(b)) }

// A column of a type without a fixed size cannot be state; a name cannot be given twice or be one of the store's.
func TestDeclarations(t *testing.T) {
	for _, c := range []struct {
		name string
		add  func(s *Store)
	}{
		{"a slice", func(s *Store) { var v [][]int; Add(s, &v, Spec[[]int]{Name: "x", Role: State}) }},
		{"twice", func(s *Store) {
			var a, b []int32
			Add(s, &a, Spec[int32]{Name: "x"})
			Add(s, &b, Spec[int32]{Name: "x"})
		}},
		{"reserved", func(s *Store) { var v []float32; Add(s, &v, Spec[float32]{Name: "id"}) }},
	} {
		func() {
			defer func() {
				if r := recover(); r == nil {
					t.Errorf("%s: accepted", c.name)
				}
			}()
			f := &fluid{}
			f.Bind(&f.Pos, &f.Vel, &f.ID)
			c.add(&f.Store)
		}()
	}
	f := &fluid{}
	f.Bind(&f.Pos, &f.Vel, &f.ID)
	var v [][]int
	Add(&f.Store, &v, Spec[[]int]{Name: "neighbours", Role: Scratch}) // scratch of any type
}

func FuzzDecode(f *testing.F) {
	g := newFluid(5)
	var b bytes.Buffer
	if err := g.Encode(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:20])
	f.Fuzz(func(t *testing.T, data []byte) {
		s := newFluid(2)
		err := s.Decode(reader(data), int64(len(data)), 1<<16, "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz state: particles: ") {
				t.Fatalf("an error that does not name the state: %v", err)
			}
			if s.Len() != 2 || len(s.mat) != 2 {
				t.Fatal("a refused decode changed the store")
			}
			return
		}
		if err := checkIDs(s.ID); err != nil || len(s.mat) != s.Len() || len(s.pres) != s.Len() {
			t.Fatalf("accepted a store with ids %v and columns %d, %d", s.ID, len(s.mat), len(s.pres))
		}
		var out bytes.Buffer
		if err := s.Encode(&out); err != nil {
			t.Fatal(err)
		}
		back := newFluid(0)
		if err := back.Decode(reader(out.Bytes()), int64(out.Len()), 1<<16, "fuzz"); err != nil || !slices.Equal(back.ID, s.ID) {
			t.Fatalf("what it accepted does not round trip: %v", err)
		}
	})
}

// The in-place permutation gives what a gather from a copy gives, for permutations of every cycle structure.
func TestPermuteMatchesGather(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 2, 7, 100, 1000} {
		for range 5 {
			perm := make([]int32, n)
			for i, p := range rng.Perm(n) {
				perm[i] = int32(p)
			}
			f := newFluid(n)
			want := make([][4]float32, n)
			wantPres := make([]float32, n)
			for i, p := range perm {
				want[i], wantPres[i] = f.Pos[p], f.pres[p]
			}
			f.Permute(perm)
			if !slices.Equal(f.Pos, want) || !slices.Equal(f.pres, wantPres) {
				t.Fatalf("n %d: the permutation %v gave %v", n, perm, f.Pos)
			}
		}
	}
}
