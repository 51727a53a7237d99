package pbf

import (
	"bytes"
	"testing"

	"github.com/slosh/slosh/sim"
	cpbf "github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/scene"
)

// materialsByID is each particle's material in s's frame, indexed by id; it fails when the frame has none.
func materialsByID(t *testing.T, s sim.Solver) []uint8 {
	t.Helper()
	var f sim.Frame
	s.Frame(&f)
	if len(f.Material) != f.N {
		t.Fatalf("%s: the frame has %d materials for %d particles", s.Name(), len(f.Material), f.N)
	}
	out := make([]uint8, f.N)
	for i := range f.N {
		out[f.ID[i]] = f.Material[i]
	}
	return out
}

// sameMaterials fails unless every particle id has the material it has in want.
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

// On the GPU, oil-and-water's particles are of the materials the CPU solver gives them (sim/pbf's
// TestMaterialsAreColouredAndKept checks those against the scene file): water left of x = 0.3 m, oil right of
// 0.7 m, with the scene's palette, in the frame and in the buffers the renderer draws. Each particle keeps its
// material through steps (the grid's reorder pass permutes the packed bytes), a save and load, and a drain undone;
// a poured stream is water. (The GPU solver drew the oil blue: it had no material buffer.)
func TestGPUMaterialsAreColouredAndKept(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a GPU run on the shared context; make test runs it")
	}
	sc := builtin(t, "oil-and-water")
	c := cpbf.New()
	assign(t, c, "pbf.spacing=0.05")
	if err := c.Reset(sc); err != nil {
		t.Fatal(err)
	}
	g := newGPU(t)
	assign(t, g, "pbf.spacing=0.05")
	if err := g.Reset(sc); err != nil {
		t.Fatal(err)
	}
	want := materialsByID(t, c)
	sameMaterials(t, want, materialsByID(t, g), "at the reset")
	var f sim.Frame
	g.Frame(&f)
	if len(f.Palette) != 2 || f.Palette[1] != [3]float32{0.95, 0.68, 0.12} {
		t.Fatalf("palette %v: want water's colour and then oil's (0.95, 0.68, 0.12)", f.Palette)
	}
	oil := 0
	for i := range f.N {
		if m, x := f.Material[i], f.Pos[i][0]; m > 1 || (m == 0) != (x < 0.3) || (m == 1) != (x > 0.7) {
			t.Fatalf("particle %d at x=%.3f m is of material %d: want water (0) left of 0.3 m, oil (1) right of 0.7 m", i, x, m)
		}
		oil += int(f.Material[i])
	}
	if oil == 0 || oil == f.N {
		t.Fatalf("%d of %d particles are oil", oil, f.N)
	}
	if p := g.Particles(); p.Material == nil || p.Material.Size() < g.n || len(p.Palette) != 2 {
		t.Fatalf("the renderer's particles have no materials (buffer %v, palette %v)", p.Material, p.Palette)
	}

	for i := 0; i < 6; i++ {
		if err := g.Step(frameDt / 2); err != nil {
			t.Fatal(err)
		}
	}
	g.Frame(&f)
	moved := 0
	for i := range f.N {
		if f.ID[i] != uint32(i) {
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("the steps left every particle in its slot: the test cannot see the reorder")
	}
	sameMaterials(t, want, materialsByID(t, g), "6 steps on")

	var buf bytes.Buffer
	if err := g.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	b := newGPU(t)
	assign(t, b, "pbf.spacing=0.05")
	if err := b.Reset(sc); err != nil {
		t.Fatal(err)
	}
	if err := b.Step(frameDt); err != nil { // somewhere else, so the load has to move every particle
		t.Fatal(err)
	}
	if err := b.ReadState(&buf); err != nil {
		t.Fatal(err)
	}
	sameMaterials(t, want, materialsByID(t, b), "saved and loaded")

	// drain the oil's corner and undo it: the particles come back as oil (ids renumber, so count them)
	gone, err := b.Drain([3]float32{0.9, 0.05, 0.2}, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	oil = 0
	for _, q := range gone {
		oil += int(q.Material)
	}
	if len(gone) == 0 || oil != len(gone) {
		t.Fatalf("drained %d particles, %d of them oil: want all oil", len(gone), oil)
	}
	n := len(materialsByID(t, b))
	if k := sim.Refill(b, gone); k != len(gone) {
		t.Fatalf("refilled %d of %d", k, len(gone))
	}
	byID := materialsByID(t, b)
	for id := n; id < len(byID); id++ {
		if byID[id] != 1 {
			t.Fatalf("refilled particle %d is of material %d, want oil (1)", id, byID[id])
		}
	}

	// pour water onto the oil, through steps that sort the new particles among the old
	b.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.85, 0.5, 0.2}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.1, Speed: 2}})
	n = len(byID)
	for i := 0; i < 8; i++ {
		if err := b.Step(frameDt / 2); err != nil {
			t.Fatal(err)
		}
	}
	after := materialsByID(t, b)
	if len(after) <= n {
		t.Fatalf("the pouring tool added no particles (%d before, %d after)", n, len(after))
	}
	sameMaterials(t, byID, after[:n], "the particles before the pour")
	for id := n; id < len(after); id++ {
		if after[id] != 0 {
			t.Fatalf("poured particle %d is of material %d, want water (0)", id, after[id])
		}
	}
}
