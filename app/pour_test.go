package app

import (
	"slices"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// pourScene is a small tank of water with the materials a mode simulating kinds can run: oil, and sand where the
// mode simulates it, and extra (an emitter, params) appended to the scene's JSON.
func pourScene(t testing.TB, kinds []scene.Kind, extra string) *scene.Scene {
	t.Helper()
	mats := `{"name": "oil", "density": 800, "color": [0.9, 0.7, 0.1]}`
	if slices.Contains(kinds, scene.KindGranular) {
		mats += `, {"name": "sand", "kind": "granular", "density": 1600, "color": [0.8, 0.7, 0.4], "friction_angle": 40, "cohesion": 3, "wall_friction": 0.2}`
	}
	js := `{"name": "pour", "domain": {"min": [0, 0, 0], "max": [0.3, 0.3, 0.3]}, "particles": {"spacing": 0.03},
		"materials": [` + mats + `],
		"fluid": [{"shape": "box", "center": [0.15, 0.045, 0.15], "size": [0.3, 0.09, 0.3]}]` + extra + `}`
	sc, err := scene.Parse([]byte(js), "pour.json")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// pourSolver is a solver of mode m reset with the scene pourScene makes for it.
func pourSolver(t testing.TB, m Mode, extra string) (sim.Solver, *scene.Scene) {
	t.Helper()
	s, err := m.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := pourScene(t, sim.KindsOf(s), extra)
	if err := sim.Reset(s, sc); err != nil {
		t.Fatal(err)
	}
	return s, sc
}

// newMaterials are the materials (and phases, where the frame has them) of the particles with ids from n on.
func newMaterials(f *sim.Frame, n int) (mats map[uint8]int, phases map[scene.Phase]int) {
	mats, phases = map[uint8]int{}, map[scene.Phase]int{}
	for i := range f.N {
		if int(f.ID[i]) < n {
			continue
		}
		if f.Material != nil {
			mats[f.Material[i]]++
		}
		if f.Phase != nil {
			phases[f.Phase[i]]++
		}
	}
	return mats, phases
}

// Every 3D particle mode pours what the pouring tool names: particles of that material (sand in flip makes grains);
// and a scene's emitter naming sand pours sand in flip.
func TestContractPoursTheToolsMaterial(t *testing.T) {
	for _, m := range contractModes() {
		if m.Flat {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			s, sc := pourSolver(t, m, "")
			h := s.(sim.Hands)
			for _, name := range []string{"oil", "sand", ""} {
				if name == "sand" && sc.FirstGranular() == 0 {
					continue
				}
				n := frameOf(s).N
				want, _ := sc.MaterialNumber(name)
				h.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.15, 0.25, 0.15}, Direction: scene.Vec3{0, -1, 0},
					Radius: 0.04, Speed: 2, Material: name}})
				for frame := 0; frame < 20 && frameOf(s).N == n; frame++ {
					stepFrames(t, s, 1)
				}
				h.SetTools(sim.Tools{})
				f := frameOf(s)
				if f.N == n {
					t.Fatalf("pouring %q added nothing", name)
				}
				mats, phases := newMaterials(f, n)
				if f.Material == nil {
					t.Fatalf("%s's frame has no materials for a scene with materials", m.Name)
				}
				if len(mats) != 1 || mats[uint8(want)] != f.N-n {
					t.Errorf("pouring %q (material %d) made %d particles of materials %v", name, want, f.N-n, mats)
				}
				if wantPhase := sc.PhaseOf(want); f.Phase != nil && (len(phases) != 1 || phases[wantPhase] != f.N-n) {
					t.Errorf("pouring %q made particles of phases %v, want %s", name, phases, wantPhase)
				}
			}
		})
	}

	// a scene's emitter of sand, in the mode that simulates it
	m, _ := findMode(Modes(), "flip")
	s, sc := pourSolver(t, m, `, "emitters": [{"center": [0.15, 0.25, 0.15], "direction": [0, -1, 0], "radius": 0.04, "speed": 2, "material": "sand"}]`)
	n := frameOf(s).N
	stepFrames(t, s, 6)
	f := frameOf(s)
	mats, phases := newMaterials(f, n)
	if sand := uint8(sc.FirstGranular()); f.N == n || len(mats) != 1 || mats[sand] != f.N-n || phases[scene.PhaseGranular] != f.N-n {
		t.Errorf("the sand emitter made %d particles of materials %v, phases %v", f.N-n, mats, phases)
	}
}
