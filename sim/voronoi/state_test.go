package voronoi

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/simtest"
)

var (
	_ sim.Hands    = (*Solver)(nil)
	_ sim.Stateful = (*Solver)(nil)
)

// A state written mid-run and read into a fresh solver continues bit for bit against the run that was not
// interrupted: the moving obstacle, the scene's emitter and blast, the pouring tool's stream and the paddle, the
// warm-start pressures, a floating body and a dragged one, parameters changed before the save and after it, and a
// spacing parameter changed since the run's reset.
func TestStateContinuesBitForBit(t *testing.T) {
	for _, c := range []struct {
		name, scene string
		sets        []string
		loadSets    []string // the loading solver's, when they differ
		drive       bool     // drag the body when saving
	}{
		{"warm start", handsScene, nil, nil, false},
		{"cold start, the paper's gradient", handsScene, []string{"voronoi.warm_start=false", "voronoi.gradient=paper", "voronoi.volume_correction=0"}, nil, false},
		{"loaded where voronoi.spacing changed", handsScene, nil, []string{"voronoi.spacing=0.03"}, false},
		{"a floating body", simtest.HandsScene, nil, nil, false},
		{"a dragged body", simtest.HandsScene, nil, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newSolver(t, c.scene, c.sets...)
			runFrames(t, a, 2, nil)
			if err := a.Params().Assign("voronoi.max_iterations=60"); err != nil { // a change mid-run
				t.Fatal(err)
			}
			a.SetTools(tools())
			if c.drive {
				a.DriveBody(0, [3]float32{0.3, 0.1, 0}, true)
			}
			runFrames(t, a, 2, nil)
			buf := encoded(t, a)
			// b is set up as a save file's header sets it up: a's parameters as they are now
			b := newSolver(t, c.scene, append(append(c.sets, "voronoi.max_iterations=60"), c.loadSets...)...)
			if err := b.ReadState(bytes.NewReader(buf)); err != nil {
				t.Fatal(err)
			}
			b.SetTools(tools())
			sameState(t, a, b, "after the load")
			for _, s := range []*Solver{a, b} {
				runFrames(t, s, 1, nil)
				if c.drive {
					s.DriveBody(0, [3]float32{0.3, 0.1, 0}, false)
				}
				if err := s.Params().Assign("voronoi.neighbours=12"); err != nil {
					t.Fatal(err)
				}
				runFrames(t, s, 2, nil)
			}
			sameState(t, a, b, "3 frames after the load")
			var fa, fb sim.Frame
			a.Frame(&fa)
			b.Frame(&fb)
			for i := range fa.Rho {
				if fa.Rho[i] != fb.Rho[i] {
					t.Fatalf("particle %d: liquid %g against %g", i, fa.Rho[i], fb.Rho[i])
				}
			}
			if a.toolAcc == 0 && a.emitAcc[0] == 0 {
				t.Error("the emitters' streams are between layers nowhere: the test does not see their travel")
			}
			moving := false
			for _, p := range a.p {
				moving = moving || p != 0
			}
			if !moving {
				t.Error("every pressure is 0: the test does not see the warm start")
			}
			if strings.Contains(c.scene, "bodies") {
				if p, _ := a.Body(0); p.V == ([3]float64{}) || p.C == p.Origin {
					t.Errorf("the body has not moved (at %v, velocity %v): the test does not see it", p.C, p.V)
				}
			}
		})
	}
}

// stateBytes is a solver's particle state encoded without its bodies, to compare before and after a refusal.
func stateBytes(t *testing.T, s *Solver) []byte {
	t.Helper()
	var st State
	s.SaveState(&st)
	var b bytes.Buffer
	if err := st.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return append(b.Bytes(), encoded(t, s)...)
}

// A state of another scene, another domain or over the budget is refused with a message naming the problem, and
// the solver keeps its own state; so is a truncated one, one with bytes after its end and one whose bodies are
// damaged.
func TestStateRefusesAnotherRun(t *testing.T) {
	a := newSolver(t, simtest.HandsScene)
	runFrames(t, a, 2, nil)
	good := encoded(t, a)
	if a.BodyCount() != 1 {
		t.Fatalf("%d bodies, want the scene's sphere", a.BodyCount())
	}
	for _, c := range []struct {
		name, scene string
		sets        []string
		want        string
	}{
		{"another scene's emitters", damBreak, nil, "emitters"},
		{"over the budget", simtest.HandsScene, []string{"voronoi.budget=500"}, "voronoi.budget"},
		{"another domain", strings.Replace(simtest.HandsScene, `"max": [0.4, 0.4, 0.2]`, `"max": [0.32, 0.4, 0.2]`, 1), nil, "another scene"},
	} {
		b := newSolver(t, c.scene, c.sets...)
		runFrames(t, b, 1, nil)
		before := stateBytes(t, b)
		err := b.ReadState(bytes.NewReader(good))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
		if !bytes.Equal(before, stateBytes(t, b)) {
			t.Errorf("%s: the refused state changed the solver", c.name)
		}
	}
	before := stateBytes(t, a)
	for _, cut := range []int{0, 10, headBytes, len(good) / 2, len(good) - 1} {
		if err := a.ReadState(bytes.NewReader(good[:cut])); err == nil {
			t.Errorf("a state cut at %d bytes loaded", cut)
		}
	}
	if err := a.ReadState(bytes.NewReader(append(bytes.Clone(good), 0))); err == nil {
		t.Error("a state with a byte after its end loaded")
	}
	// the bodies' part damaged: its count says 40 bodies where there is one
	st, err := DecodeState(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	st.Bodies = bytes.Clone(st.Bodies)
	st.Bodies[0] = 40
	if err := a.LoadState(st); err == nil {
		t.Error("a state with 40 bodies declared and one written loaded")
	} else {
		t.Logf("40 bodies declared: %v", err)
	}
	if !bytes.Equal(before, stateBytes(t, a)) {
		t.Error("the refused states changed the solver")
	}
	if err := New().ReadState(bytes.NewReader(good)); err == nil || !strings.Contains(err.Error(), "reset") {
		t.Errorf("a state read before a reset: %v, want an error saying to reset", err)
	}
}

// A state whose particles are piled on one point, outside the domain, with ids not 0..N−1, with a non-finite or
// absurd value, is refused with a message naming it, before a step could meet it, and the solver keeps its state.
func TestStateRefusesDamagedParticles(t *testing.T) {
	s := newSolver(t, handsScene)
	runFrames(t, s, 1, nil)
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
		{"outside the domain", func(st *State) { st.Pos[5][1] = 3 }, "outside"},
		{"ids repeated", func(st *State) { st.ID[3] = st.ID[4] }, "id"},
		{"a pressure not finite", func(st *State) { st.Pres[2] = math.NaN() }, "pressure"},
		{"a pressure too large", func(st *State) { st.Pres[2] = 1e20 }, "pressure"},
		{"pressures missing", func(st *State) { st.Pres = st.Pres[:3] }, "pressures"}, // the file's length says it first
		{"emitter travel", func(st *State) { st.Emitted[0] = 1e30 }, "travel"},
		{"pouring tool's travel", func(st *State) { st.ToolAcc = -1 }, "pouring tool"},
		{"spacing", func(st *State) { st.Spacing, st.Emitted[0], st.ToolAcc = 1e-5, 0, 0 }, "spacing"},
		{"negative spacing", func(st *State) { st.Spacing = -0.025 }, "particle spacing"},
		{"time", func(st *State) { st.Time = -1 }, "time"},
		{"a velocity not finite", func(st *State) { st.Vel[7][0] = float32(math.Inf(1)) }, "velocity"},
	} {
		var st State
		s.SaveState(&st)
		c.damage(&st)
		before := stateBytes(t, s)
		var buf bytes.Buffer
		if err := st.Encode(&buf); err != nil {
			t.Fatal(err)
		}
		if err := s.ReadState(bytes.NewReader(buf.Bytes())); err == nil {
			t.Errorf("%s: ReadState took it", c.name)
		}
		if err := s.LoadState(&st); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
		if !bytes.Equal(before, stateBytes(t, s)) {
			t.Fatalf("%s: the refused state changed the solver", c.name)
		}
	}
	runFrames(t, s, 1, nil)
}

// A step that produces non-finite state reports it and restores the last good state, which then steps on.
func TestNonFiniteStepIsRestored(t *testing.T) {
	s := newSolver(t, simtest.HandsScene)
	runFrames(t, s, 3, nil)
	s.save()
	good := stateBytes(t, s)
	s.v[len(s.v)/2][1] = float32(math.NaN())
	err := s.Step(sim.FrameDt / 2)
	var nf *sim.NonFiniteError
	if !errors.As(err, &nf) || nf.Count < 1 {
		t.Fatalf("a NaN velocity gave %v, want a NonFiniteError counting it", err)
	}
	if !bytes.Equal(good, stateBytes(t, s)) {
		t.Fatal("the failed step did not restore the last good state")
	}
	if err := s.Step(sim.FrameDt / 2); err != nil {
		t.Fatalf("the step after the restore: %v", err)
	}
}

// A step depends on the state alone, not on the solver's history: at each of six frames of a run with a body,
// the scene's emitter and obstacle and the tools, a fresh solver given the run's state steps the next frame to the
// same state bit for bit. (Any scratch a step reads before writing it — a per-cell array left from the last step —
// makes a loaded run, a replay from a save and the window drift apart.)
func TestStepDependsOnlyOnTheState(t *testing.T) {
	a := newSolver(t, simtest.HandsScene)
	a.SetTools(tools())
	for f := 0; f < 6; f++ {
		b := newSolver(t, simtest.HandsScene)
		if err := b.ReadState(bytes.NewReader(encoded(t, a))); err != nil {
			t.Fatal(err)
		}
		b.SetTools(tools()) // the paddle is still in a: b's, new, is still too
		runFrames(t, a, 1, nil)
		runFrames(t, b, 1, nil)
		sameState(t, a, b, fmt.Sprintf("frame %d stepped from a loaded state", f+1))
	}
}
