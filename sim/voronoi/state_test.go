package voronoi

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/shell"
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
	if testing.Short() {
		t.Skip("about 7 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
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
			if a.hands.ToolAcc == 0 && a.hands.Emitted[0] == 0 {
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
	for _, cut := range []int{0, 10, layout(0, 0).emitters, len(good) / 2, len(good) - 1} {
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
		if err := st.Encode(&buf); err == nil { // arrays of other lengths are not written
			if err := s.ReadState(bytes.NewReader(buf.Bytes())); err == nil {
				t.Errorf("%s: ReadState took it", c.name)
			}
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
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
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

// stateLayout is where the fields of a version 2 state begin, for tests that damage one.
type stateLayout struct{ spacing, emitters, count, columns, positions, pressures, extra int }

// layout is the stateLayout of a state of n particles and ne emitters: the shell's header, the emitters' travel,
// the particles' block (its version, count and table of two columns, pressure and material, then the arrays) and
// the bodies.
func layout(n, ne int) stateLayout {
	m := len(stateFormat.Magic)
	block := m + 4 + 4*8 + 4*ne + 4
	pos := block + 4 + 8 + 4 + 2 + len("pressure") + 4 + 2 + len(shell.MaterialColumn) + 4
	return stateLayout{spacing: m + 4, emitters: m + 28, count: block + 4, columns: block + 12, positions: pos,
		pressures: pos + 36*n, extra: pos + 45*n}
}

// encodeVersion1 writes st as slosh wrote states before the particle store (version 1).
func encodeVersion1(t testing.TB, st *State) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := binio.Write(&b, "voronoi", []byte(stateFormat.Magic), uint32(1), st.Spacing, st.Time, int64(st.Steps),
		int64(len(st.Pos)), int64(len(st.Emitted)), st.Pos, st.Vel, st.ID, st.Pres, st.Emitted, st.ToolAcc,
		int64(len(st.Bodies)), st.Bodies); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// sameArrays says whether two states hold the same values.
func sameArrays(a, b *State) bool {
	return a.Spacing == b.Spacing && a.Time == b.Time && a.Steps == b.Steps && slices.Equal(a.Pos, b.Pos) &&
		slices.Equal(a.Vel, b.Vel) && slices.Equal(a.ID, b.ID) && slices.Equal(a.Pres, b.Pres) &&
		slices.Equal(a.Material, b.Material) &&
		slices.Equal(a.Emitted, b.Emitted) && a.ToolAcc == b.ToolAcc && bytes.Equal(a.Bodies, b.Bodies)
}

// A state written before the particle store (version 1) is converted: it decodes to the state it holds, loads, and
// continues bit for bit against the run that wrote it and against the same state written as version 2; a damaged
// one is refused with a message.
func TestStateVersion1Converted(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	a := newSolver(t, simtest.HandsScene)
	a.SetTools(tools())
	runFrames(t, a, 3, nil)
	var st State
	a.SaveState(&st)
	var bodies bytes.Buffer
	if err := a.bodies.Write(&bodies, a.sc, "voronoi state"); err != nil {
		t.Fatal(err)
	}
	st.Bodies = bodies.Bytes()
	old := encodeVersion1(t, &st)
	got, err := DecodeState(bytes.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if !sameArrays(&st, got) {
		t.Fatal("the version 1 state decodes to another")
	}
	b, c := newSolver(t, simtest.HandsScene), newSolver(t, simtest.HandsScene)
	if err := b.ReadState(bytes.NewReader(old)); err != nil {
		t.Fatal(err)
	}
	if err := c.ReadState(bytes.NewReader(encoded(t, a))); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*Solver{b, c} {
		s.SetTools(tools())
	}
	sameState(t, a, b, "after loading version 1")
	for _, s := range []*Solver{a, b, c} {
		runFrames(t, s, 2, nil)
	}
	sameState(t, a, b, "2 frames after loading version 1")
	sameState(t, c, b, "2 frames after loading version 1 and 2")
	if v := binary.LittleEndian.Uint32(encoded(t, b)[len(stateFormat.Magic):]); v != stateFormat.Version {
		t.Errorf("a converted run saves version %d, want %d", v, stateFormat.Version)
	}

	before := stateBytes(t, b)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", old[:len(old)/2], "truncated"},
		{"more particles than it holds", func() []byte {
			d := bytes.Clone(old)
			binary.LittleEndian.PutUint64(d[len(stateFormat.Magic)+28:], 1<<20)
			return d
		}(), "truncated or damaged"},
		{"a byte after the end", append(bytes.Clone(old), 0), "after the end"},
		{"a pressure not finite", func() []byte {
			d := bytes.Clone(old)
			at := len(stateFormat.Magic) + 44 + 36*st.N()
			binary.LittleEndian.PutUint64(d[at:], math.Float64bits(math.NaN()))
			return d
		}(), "pressure"},
	} {
		if err := b.ReadState(bytes.NewReader(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("version 1 %s: %v, want an error saying %q", c.name, err, c.want)
		} else {
			t.Logf("version 1 %s: %v", c.name, err)
		}
	}
	if !bytes.Equal(before, stateBytes(t, b)) {
		t.Error("the refused states changed the solver")
	}
}

// A version 2 state with a column this slosh does not keep, a particle count its bytes do not hold, a column table
// of the wrong size, or a version it does not know is refused with a message saying so, and the solver keeps its
// state.
func TestStateVersion2Refusals(t *testing.T) {
	s := newSolver(t, handsScene)
	runFrames(t, s, 2, nil)
	good := encoded(t, s)
	at := layout(len(s.x), len(s.hands.Emitted))
	// the layout the damage below relies on
	le := binary.LittleEndian
	if int(le.Uint64(good[at.count:])) != len(s.x) || math.Float64frombits(le.Uint64(good[at.pressures:])) != s.p[0] ||
		le.Uint64(good[at.extra:]) != uint64(len(good)-at.extra-8) || string(good[at.columns+6:at.columns+14]) != "pressure" {
		t.Fatal("the state's layout is not the one these tests damage")
	}
	damage := func(f func(d []byte)) []byte {
		d := bytes.Clone(good)
		f(d)
		return d
	}
	before := stateBytes(t, s)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"an unknown column", damage(func(d []byte) { d[at.columns+13] = 'X' }), `column "pressurX" is not one this slosh keeps`},
		{"a column of another size", damage(func(d []byte) { le.PutUint32(d[at.columns+14:], 4) }), "values of 4 bytes"},
		{"a count over the bytes", damage(func(d []byte) { le.PutUint64(d[at.count:], uint64(len(s.x)+5)) }), "truncated or damaged"},
		{"a count over the limit", damage(func(d []byte) { le.PutUint64(d[at.count:], 1<<40) }), "outside"},
		{"a negative count", damage(func(d []byte) { le.PutUint64(d[at.count:], math.MaxUint64) }), "outside"},
		{"version 3", damage(func(d []byte) { le.PutUint32(d[len(stateFormat.Magic):], 3) }), "version 3"},
		{"another mode's", []byte("slosh sph state\n\x02\x00\x00\x00"), "not a voronoi state"},
	} {
		if err := s.ReadState(bytes.NewReader(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if !bytes.Equal(before, stateBytes(t, s)) {
		t.Error("the refused states changed the solver")
	}
}
