package pbf

import (
	"bytes"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
)

// oilAndWater is the shipped oil-and-water scene (water in x < 0.3 m, oil in x > 0.7 m, material 1) at a coarse
// spacing: about 700 particles.
func oilAndWater(t testing.TB) *Solver { return newSolver(t, "oil-and-water", "pbf.spacing=0.05") }

// materialsByID is each particle's material in the frame, indexed by id; it fails when the frame has none.
func materialsByID(t *testing.T, s sim.Solver) []uint8 {
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

// checkSceneMaterials fails unless f holds oil-and-water's materials where its file puts them: the palette water's
// colour and then oil's (0.95, 0.68, 0.12), water (0) left of x = 0.3 m and oil (1) right of 0.7 m, and as many
// of each within a quarter (the two blocks are the same size, six lattice layers across at this spacing: the
// lattice may fit one layer fewer into one of them). Checked against the scene file, not the code.
func checkSceneMaterials(t *testing.T, f *sim.Frame, sc *scene.Scene) {
	t.Helper()
	if len(f.Palette) != 2 || f.Palette[1] != [3]float32{0.95, 0.68, 0.12} || f.Palette[0] != sim.ScenePalette(sc)[0] {
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
	if count[0] == 0 || count[1] < count[0]*3/4 || count[1] > count[0]*4/3 {
		t.Fatalf("%d water and %d oil particles: the blocks are the same size", count[0], count[1])
	}
}

// The scene's blocks come out in their materials' colours, where the scene put them; every particle keeps its
// material through steps (which sort the particles by cell every step), a save and load, and a drain undone; a
// poured stream is water, the scene's default (emitters name no material). (pbf-cpu drew the oil blue: it dropped
// the sampled materials.)
func TestMaterialsAreColouredAndKept(t *testing.T) {
	s := oilAndWater(t)
	var f sim.Frame
	s.Frame(&f)
	checkSceneMaterials(t, &f, builtin(t, "oil-and-water"))
	want := materialsByID(t, s)

	run(t, s, 4)
	sameMaterials(t, want, materialsByID(t, s), "4 frames on")

	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	b := oilAndWater(t)
	run(t, b, 1) // somewhere else, so the load has to move every particle
	if err := b.ReadState(&buf); err != nil {
		t.Fatal(err)
	}
	sameMaterials(t, want, materialsByID(t, b), "saved and loaded")
	run(t, b, 1)
	sameMaterials(t, want, materialsByID(t, b), "a frame after the load")

	// drain the oil's corner and undo it: the particles come back as oil (ids renumber, so count them)
	gone, err := b.Drain([3]float32{0.9, 0.05, 0.2}, 0.1)
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
	n := len(materialsByID(t, b))
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
	b.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.85, 0.5, 0.2}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.1, Speed: 2}})
	n = len(byID)
	run(t, b, 2)
	byID = materialsByID(t, b)
	if len(byID) <= n {
		t.Fatalf("the pouring tool added no particles (%d before, %d after)", n, len(byID))
	}
	for id := n; id < len(byID); id++ {
		if byID[id] != 0 {
			t.Fatalf("poured particle %d is of material %d, want water (0)", id, byID[id])
		}
	}
}

// A scene without materials gives frames without them (the renderer's one water colour), and its state file
// round-trips with a State whose Material is nil.
func TestNoMaterialsNoColumn(t *testing.T) {
	s := newReset(t, parseScene(t, poolScene))
	var f sim.Frame
	s.Frame(&f)
	if f.Material != nil || f.Palette != nil {
		t.Fatalf("a scene without materials gave %d materials and a palette of %d", len(f.Material), len(f.Palette))
	}
	var st State
	s.SaveState(&st)
	back, err := DecodeState(bytes.NewReader(encoded(t, &st)))
	if err != nil {
		t.Fatal(err)
	}
	if st.Material != nil || back.Material != nil {
		t.Fatalf("materials of %d and %d particles without a material in the scene", len(st.Material), len(back.Material))
	}
}

// A state written before PBF kept materials (the frame without the material column, as app/testdata/compat's
// pbf-cpu.slosh) loads into a scene with materials as material 0, and continues.
func TestStateWithoutMaterialsLoadsAsWater(t *testing.T) {
	a := oilAndWater(t)
	var old shell.Shell // the columns as they were: the bodies' only
	var x, v, rest [][4]float32
	var id []uint32
	var body []int32
	var wInv []float32
	old.Bind(&x, &v, &id)
	particles.Add(&old.P, &body, particles.Spec[int32]{Name: colBody, Role: particles.State, Default: fluidBody})
	particles.Add(&old.P, &rest, particles.Spec[[4]float32]{Name: colRest, Role: particles.State})
	particles.Add(&old.P, &wInv, particles.Spec[float32]{Name: colWInv, Role: particles.State, Default: fluidWInv})
	old.P.Reset(len(a.x))
	copy(x, a.x)
	copy(v, a.v)
	copy(id, a.id)
	var buf bytes.Buffer
	if err := old.Encode(&buf, Format, shell.Header{Spacing: a.dv.From}, encodeOwn(nil, nil)); err != nil {
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
	run(t, a, 1)
}

// A state whose materials the scene does not have is refused: the renderer indexes the palette by them.
func TestStateRefusesUnknownMaterial(t *testing.T) {
	a := oilAndWater(t)
	var st State
	a.SaveState(&st)
	st.Material[0] = 2 // oil-and-water has materials 0 and 1
	b := oilAndWater(t)
	if err := b.ReadState(bytes.NewReader(encoded(t, &st))); err == nil || !strings.Contains(err.Error(), "material 2") {
		t.Fatalf("a state with material 2 loaded into a scene of two materials: %v", err)
	}
}
