package sph

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// handsScene is a small pool with a sphere obstacle moving back and forth, an emitter pouring into it and a blast
// under its surface at 0.1 s: every kind of state the tools and save files carry, small enough to step quickly
// (simtest.HandsScene without its body, which this mode does not have yet).
const handsScene = `{
  "name": "hands", "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.2]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.2, 0.075, 0.1], "size": [0.4, 0.15, 0.2]}],
  "obstacles": [{"shape": "sphere", "center": [0.05, 0.1, 0.1], "radius": 0.03,
    "motion": {"axis": [1, 0, 0], "amplitude": 0.02, "period": 0.5}}],
  "emitters": [{"center": [0.2, 0.33, 0.1], "direction": [0, -1, 0], "radius": 0.02, "speed": 1}],
  "blasts": [{"time": 0.1, "center": [0.3, 0.05, 0.1], "radius": 0.08, "speed": 1}]
}`

// layersScene is two fluids, a light oil (800 kg/m³, 0.05 Pa·s) over water, with the oil's block beside a water
// column, so that they move and mix their interface.
const layersScene = `{
  "name": "layers", "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.2]},
  "particles": {"spacing": 0.025},
  "materials": [{"name": "oil", "density": 800, "viscosity": 0.05, "color": [0.9, 0.7, 0.1]}],
  "fluid": [{"shape": "box", "center": [0.1, 0.1, 0.1], "size": [0.2, 0.2, 0.2]},
    {"shape": "box", "center": [0.3, 0.1, 0.1], "size": [0.2, 0.2, 0.2], "material": "oil"}]
}`

// tools are a paddle in the pool and a pouring emitter above it.
func tools() sim.Tools {
	return sim.Tools{
		Paddle:  &sim.Paddle{Center: [3]float32{0.3, 0.1, 0.1}, Radius: 0.04},
		Emitter: &scene.Emitter{Center: scene.Vec3{0.1, 0.3, 0.1}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.02, Speed: 0.7},
	}
}

// sameState fails unless two solvers hold bit-identical states.
func sameState(t *testing.T, a, b *Solver, what string) {
	t.Helper()
	var x, y State
	a.SaveState(&x)
	b.SaveState(&y)
	if x.N() != y.N() || x.Time != y.Time || x.Steps != y.Steps {
		t.Fatalf("%s: %d particles at t=%g step %d against %d at t=%g step %d", what, x.N(), x.Time, x.Steps, y.N(), y.Time, y.Steps)
	}
	xp, yp := x.Pres(), y.Pres()
	for i := range x.Pos {
		if x.Pos[i] != y.Pos[i] || x.Vel[i] != y.Vel[i] || x.ID[i] != y.ID[i] || x.Mat[i] != y.Mat[i] || xp[i] != yp[i] {
			t.Fatalf("%s: particle %d differs: %v %v %d %d %g against %v %v %d %d %g", what, i,
				x.Pos[i], x.Vel[i], x.ID[i], x.Mat[i], xp[i], y.Pos[i], y.Vel[i], y.ID[i], y.Mat[i], yp[i])
		}
	}
	var bx, by bytes.Buffer
	if err := a.WriteState(&bx); err != nil {
		t.Fatal(err)
	}
	if err := b.WriteState(&by); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bx.Bytes(), by.Bytes()) {
		t.Fatalf("%s: the states differ (materials, emitters, bodies or the last step's acceleration): %+v %g %v against %+v %g %v",
			what, x.Materials, x.Amax, x.Emitted, y.Materials, y.Amax, y.Emitted)
	}
}

// A state written mid-run and read into a fresh solver continues bit for bit: the moving obstacle, the scene's
// emitter and blast, the pouring tool's stream and the paddle, PCISPH's warm-start pressures, the last step's
// acceleration where it sets the next frame's substeps, WCSPH, several fluids with their interface tension,
// parameters changed before the save and after it, and a spacing parameter changed since the run's reset.
func TestStateContinuesBitForBit(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	for _, c := range []struct {
		name, scene string
		sets        []string
		loadSets    []string // the loading solver's, when they differ
	}{
		{"pcisph warm start", handsScene, []string{"sph.warm_start=true"}, nil},
		{"pcisph", handsScene, []string{"sph.warm_start=false"}, nil},
		{"steps by the force condition", handsScene, []string{"sph.cfl=5"}, nil},
		{"wcsph", handsScene, []string{"sph.pressure=wcsph", "sph.stiffness=2e4"}, nil},
		{"two fluids", layersScene, []string{"sph.warm_start=true", "sph.tension=5"}, nil},
		{"loaded where sph.spacing changed", handsScene, nil, []string{"sph.spacing=0.03"}},
		{"a floating body", simtest.HandsScene, nil, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newSolver(t, c.scene, c.sets...)
			runFrames(t, a, 4, nil)
			if err := a.Params().Assign("sph.max_iterations=40"); err != nil { // a change mid-run rebuilds the constants
				t.Fatal(err)
			}
			a.SetTools(tools())
			runFrames(t, a, 5, nil)
			var buf bytes.Buffer
			if err := a.WriteState(&buf); err != nil {
				t.Fatal(err)
			}
			// b is set up as a save file's header sets it up: a's parameters as they are now
			b := newSolver(t, c.scene, append(append(c.sets, "sph.max_iterations=40"), c.loadSets...)...)
			if err := b.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
				t.Fatal(err)
			}
			b.SetTools(tools())
			sameState(t, a, b, "after the load")
			for _, s := range []*Solver{a, b} {
				runFrames(t, s, 3, nil)
				if err := s.Params().Assign("sph.viscosity=0.02"); err != nil {
					t.Fatal(err)
				}
				runFrames(t, s, 3, nil)
			}
			sameState(t, a, b, "6 frames after the load")
			var fa, fb sim.Frame
			a.Frame(&fa)
			b.Frame(&fb)
			for i := range fa.Rho {
				if fa.Rho[i] != fb.Rho[i] {
					t.Fatalf("particle %d's density %g against %g", i, fa.Rho[i], fb.Rho[i])
				}
			}
			if a.sh.ToolAcc == 0 && len(a.sc.Emitters) > 0 && a.sh.Emitted[0] == 0 {
				t.Error("the emitters' streams are between layers nowhere: the test does not see their travel")
			}
		})
	}
}

// A state of another scene, another set of fluids or over the budget is refused with a message, and the solver
// keeps its own; so is a truncated or damaged one.
func TestStateRefusesAnotherRun(t *testing.T) {
	a := newSolver(t, handsScene)
	runFrames(t, a, 2, nil)
	var buf bytes.Buffer
	if err := a.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	for _, c := range []struct {
		name, scene string
		sets        []string
		want        string
	}{
		{"another scene's emitters", damBreak, nil, "emitters"},
		{"two fluids", strings.Replace(handsScene, `"fluid": [`, `"materials": [{"name": "oil", "density": 800, "color": [1, 1, 0]}], "fluid": [`, 1), nil, "fluids"},
		{"over the budget", handsScene, []string{"sph.budget=500"}, "sph.budget"},
		{"another domain", strings.Replace(handsScene, `"max": [0.4, 0.4, 0.2]`, `"max": [0.32, 0.4, 0.2]`, 1), nil, "another scene"},
	} {
		b := newSolver(t, c.scene, c.sets...)
		runFrames(t, b, 1, nil)
		var before State
		b.SaveState(&before)
		err := b.ReadState(bytes.NewReader(good))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
		var after State
		b.SaveState(&after)
		var x, y bytes.Buffer
		before.Encode(&x)
		after.Encode(&y)
		if !bytes.Equal(x.Bytes(), y.Bytes()) {
			t.Errorf("%s: the refused state changed the solver", c.name)
		}
	}
	// fluids of other densities
	oil := newSolver(t, layersScene)
	var st State
	oil.SaveState(&st)
	other := newSolver(t, strings.Replace(layersScene, `"density": 800`, `"density": 900`, 1))
	if err := other.LoadState(&st); err == nil || !strings.Contains(err.Error(), "rest density 800") {
		t.Errorf("a state of oil at 800 kg/m³ into a run of oil at 900: %v", err)
	}
	for _, cut := range []int{0, 10, len(stateMagic) + 4 + 5*8, len(good) / 2, len(good) - 1} {
		if err := a.ReadState(bytes.NewReader(good[:cut])); err == nil {
			t.Errorf("a state cut at %d bytes loaded", cut)
		}
	}
	if err := a.ReadState(bytes.NewReader(append(bytes.Clone(good), 0))); err == nil {
		t.Error("a state with a byte after its end loaded")
	}
}

// A state whose particles are piled on one point, or whose particles are of a material the state lacks, is refused
// before a step could meet it.
func TestStateRefusesDamagedParticles(t *testing.T) {
	s := newSolver(t, handsScene)
	for _, c := range []struct {
		name   string
		damage func(st *State)
		want   string
	}{
		{"piled", func(st *State) {
			for i := range st.Pos {
				st.Pos[i] = st.Pos[0]
			}
		}, "particles lie in one"},
		{"unknown material", func(st *State) { st.Mat[3] = 1 }, "material 1"},
		{"negative pressure", func(st *State) { st.Pres()[2] = -1 }, "pressure"},
		{"emitter travel", func(st *State) { st.Emitted[0] = 1e30 }, "travel"},
		{"viscosity", func(st *State) { st.Materials[0].Viscosity = 1e30 }, "viscosity"},
		{"spacing", func(st *State) { st.Spacing = 1e-5 }, "spacing"},
	} {
		var st State
		s.SaveState(&st)
		c.damage(&st)
		var buf bytes.Buffer
		if err := st.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		n := len(s.x)
		err := s.ReadState(bytes.NewReader(buf.Bytes()))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
		if len(s.x) != n {
			t.Fatalf("%s: the refused state changed the solver", c.name)
		}
	}
}

// A step that produces non-finite state reports it and restores the last good state, which then steps on.
func TestNonFiniteStepIsRestored(t *testing.T) {
	s := newSolver(t, handsScene, "sph.warm_start=true")
	runFrames(t, s, 3, nil)
	s.save()
	var good State
	s.SaveState(&good)
	s.v[len(s.v)/2][1] = float32(math.NaN())
	err := s.Step(sim.FrameDt / 4)
	var nf *sim.NonFiniteError
	if !errors.As(err, &nf) || nf.Count < 1 {
		t.Fatalf("a NaN velocity gave %v, want a NonFiniteError counting it", err)
	}
	var now State
	s.SaveState(&now)
	var x, y bytes.Buffer
	good.Encode(&x)
	now.Encode(&y)
	if !bytes.Equal(x.Bytes(), y.Bytes()) {
		t.Fatalf("restored t=%g with %d particles, not the last good state at t=%g with %d", now.Time, now.N(), good.Time, good.N())
	}
	if err := s.Step(sim.FrameDt / 4); err != nil {
		t.Fatalf("the step after the restore: %v", err)
	}
}
