package voronoi

import (
	"bytes"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
	"github.com/slosh/slosh/sim/simtest"
)

// oilAndWater is the shipped oil-and-water scene (water in x < 0.3 m, oil in x > 0.7 m, material 1) at 5 cm:
// 768 particles. No particle is removed for coming close (voronoi.min_gap=0), so the ids stay the particles'.
func oilAndWater(t testing.TB) *Solver {
	return newSolverOn(t, simtest.Builtin(t, "oil-and-water"), "voronoi.spacing=0.05", "voronoi.min_gap=0")
}

// materialsByID is each particle's material in the frame, indexed by id; it fails when the frame has none.
func materialsByID(t *testing.T, s *Solver) []uint8 {
	t.Helper()
	var f sim.Frame
	s.Frame(&f)
	if len(f.Material) != f.N {
		t.Fatalf("the frame has %d materials for %d particles", len(f.Material), f.N)
	}
	out := make([]uint8, f.N)
	for i := range f.N {
		out[f.ID[i]] = f.Material[i]
	}
	return out
}

// sameMaterials fails unless every particle id has the material it had.
func sameMaterials(t *testing.T, want, got []uint8, what string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d particles, want %d", what, len(got), len(want))
	}
	for id := range want {
		if got[id] != want[id] {
			t.Fatalf("%s: particle %d is of material %d, want %d", what, id, got[id], want[id])
		}
	}
}

// The scene's blocks come out in their materials' colours, where the scene put them; every particle keeps its
// material through steps, a save and load, and a drain undone; a poured stream is water, the scene's default
// (emitters name no material). Checked against the scene file, not the code: water fills x < 0.3 m, oil x > 0.7 m
// with colour (0.95, 0.68, 0.12), and the two blocks are the same size, so they hold as many particles give or take a
// lattice layer.
func TestMaterialsAreColouredAndKept(t *testing.T) {
	s := oilAndWater(t)
	var f sim.Frame
	s.Frame(&f)
	if len(f.Palette) != 2 || f.Palette[1] != [3]float32{0.95, 0.68, 0.12} || f.Palette[0] != sim.ScenePalette(s.sc)[0] {
		t.Fatalf("palette %v: want water's colour and then oil's (0.95, 0.68, 0.12)", f.Palette)
	}
	if len(f.Material) != f.N {
		t.Fatalf("the frame has %d materials for %d particles", len(f.Material), f.N)
	}
	count := [2]int{}
	for i := range f.N {
		m, x := f.Material[i], f.Pos[i][0]
		if m > 1 || (m == 0) != (x < 0.3) || (m == 1) != (x > 0.7) {
			t.Fatalf("particle %d at x=%.3f m is of material %d: want water (0) left of 0.3 m, oil (1) right of 0.7 m", i, x, m)
		}
		count[m]++
	}
	if count[0] == 0 || count[1] < count[0]*4/5 || count[1] > count[0]*5/4 {
		t.Fatalf("%d water and %d oil particles: the blocks are the same size, six lattice layers across give or take one", count[0], count[1])
	}
	want := materialsByID(t, s)

	runFrames(t, s, 2, nil)
	sameMaterials(t, want, materialsByID(t, s), "2 frames on")

	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	b := oilAndWater(t)
	if err := b.ReadState(&buf); err != nil {
		t.Fatal(err)
	}
	sameMaterials(t, want, materialsByID(t, b), "saved and loaded")
	var st State
	b.SaveState(&st)
	c := oilAndWater(t)
	if err := c.LoadState(&st); err != nil {
		t.Fatal(err)
	}
	sameMaterials(t, want, materialsByID(t, c), "SaveState and LoadState")

	// drain the oil's corner and undo it: the particles come back as oil (ids renumber, so count them)
	gone, err := b.Drain([3]float32{0.9, 0.1, 0.2}, 0.12)
	if err != nil {
		t.Fatal(err)
	}
	oil := 0
	for _, q := range gone {
		oil += int(q.Material)
	}
	if len(gone) == 0 || oil != len(gone) {
		t.Fatalf("drained %d particles, %d of them oil: want all oil", len(gone), oil)
	}
	n := len(b.x)
	if k := sim.Refill(b, gone); k != len(gone) {
		t.Fatalf("refilled %d of %d", k, len(gone))
	}
	byID := materialsByID(t, b)
	for id := n; id < len(byID); id++ { // the next ids
		if byID[id] != 1 {
			t.Fatalf("refilled particle %d is of material %d, want oil (1)", id, byID[id])
		}
	}

	// pour water onto the oil
	b.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.85, 0.5, 0.2}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.08, Speed: 2}})
	n = len(b.x)
	runFrames(t, b, 2, nil)
	if len(b.x) <= n {
		t.Fatalf("the pouring tool added no particles (%d before, %d after)", n, len(b.x))
	}
	byID = materialsByID(t, b)
	for id := n; id < len(b.x); id++ {
		if byID[id] != 0 {
			t.Fatalf("poured particle %d is of material %d, want water (0)", id, byID[id])
		}
	}
}

// A state written before voronoi kept materials (version 2 without the material column, as the compat fixture)
// loads into a scene with materials as material 0; one whose materials the scene does not have is refused.
func TestStateMaterialsOldAndUnknown(t *testing.T) {
	a := oilAndWater(t)
	var old shell.Shell // the particle store as it was: positions, velocities, ids and pressures
	var x, v [][4]float32
	var id []uint32
	var p []float64
	old.Bind(&x, &v, &id)
	particles.Add(&old.P, &p, particles.Spec[float64]{Name: "pressure", Role: particles.State})
	old.P.Reset(len(a.x))
	copy(x, a.x)
	copy(v, a.v)
	copy(id, a.id)
	var buf bytes.Buffer
	if err := old.Encode(&buf, stateFormat, a.header(), nil); err != nil {
		t.Fatal(err)
	}
	if err := a.ReadState(&buf); err != nil {
		t.Fatalf("a state without the material column: %v", err)
	}
	for id, m := range materialsByID(t, a) {
		if m != 0 {
			t.Fatalf("particle %d is of material %d, want 0", id, m)
		}
	}
	runFrames(t, a, 1, nil)

	var st State
	a.SaveState(&st)
	st.Material[0] = 2 // oil-and-water has materials 0 and 1
	if err := a.LoadState(&st); err == nil {
		t.Fatal("a state with material 2 loaded into a scene of two materials")
	}
}
