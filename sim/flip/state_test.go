package flip

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
	"github.com/slosh/slosh/sim/simtest"
)

// handsSolver is the sandbox's hands scene (a pool with a floating sphere, a moving obstacle and an emitter) at a
// coarse grid.
func handsSolver(t testing.TB) *Solver {
	return newSolver(t, simtest.Parse(t, simtest.HandsScene), "flip.cell=0.04")
}

// sameState fails unless two solvers hold bit-identical particles and bodies.
func sameState(t *testing.T, a, b *Solver, what string) {
	t.Helper()
	if len(a.x) != len(b.x) {
		t.Fatalf("%s: %d particles against %d", what, len(a.x), len(b.x))
	}
	for i := range a.x {
		if a.x[i] != b.x[i] || a.v[i] != b.v[i] || a.id[i] != b.id[i] {
			t.Fatalf("%s: particle %d differs: %v %v %d against %v %v %d", what, i, a.x[i], a.v[i], a.id[i], b.x[i], b.v[i], b.id[i])
		}
	}
	if len(a.bodies) != len(b.bodies) {
		t.Fatalf("%s: %d bodies against %d", what, len(a.bodies), len(b.bodies))
	}
	for i := range a.bodies {
		p, q := &a.bodies[i], &b.bodies[i]
		if p.C != q.C || p.Q != q.Q || p.V != q.V || p.W != q.W {
			t.Fatalf("%s: body %d differs: %v %v against %v %v", what, i, p.C, p.V, q.C, q.V)
		}
	}
	if a.time != b.time || a.steps != b.steps {
		t.Fatalf("%s: at t=%g step %d against t=%g step %d", what, a.time, a.steps, b.time, b.steps)
	}
}

// A saved state continues bit for bit: bodies, emitters, a moving obstacle, the solves' warm starts.
func TestStateContinuesBitForBit(t *testing.T) {
	a := handsSolver(t)
	frames(t, a, 12)
	var buf bytes.Buffer
	if err := a.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	b := handsSolver(t)
	if err := b.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	sameState(t, a, b, "after the load")
	frames(t, a, 6)
	frames(t, b, 6)
	sameState(t, a, b, "6 frames after the load")
	if a.Stats().Steps == 0 || len(a.bodies) != 1 {
		t.Fatal("the scene lost its body")
	}
}

// A state from another cell size or scene is refused with a clear message, and the solver keeps its own.
func TestStateRefusesAnotherRun(t *testing.T) {
	a := handsSolver(t)
	frames(t, a, 2)
	var buf bytes.Buffer
	if err := a.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	b := newSolver(t, simtest.Parse(t, simtest.HandsScene), "flip.cell=0.05")
	frames(t, b, 1)
	before := len(b.x)
	err := b.ReadState(bytes.NewReader(buf.Bytes()))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("flip.cell")) {
		t.Fatalf("loading a state of another cell size: %v, want an error naming flip.cell", err)
	}
	if len(b.x) != before {
		t.Fatal("a refused state changed the solver")
	}
	for _, cut := range []int{0, 10, 100, buf.Len() / 2, buf.Len() - 1} {
		if err := a.ReadState(bytes.NewReader(buf.Bytes()[:cut])); err == nil {
			t.Errorf("a state cut at %d bytes loaded", cut)
		}
	}
}

// A step that produces non-finite state reports it and restores the last good state, which is kept every
// shell.SaveEvery steps: the error says the time it went back to.
func TestNonFiniteStepIsRestored(t *testing.T) {
	s := newSolver(t, builtin(t, "dambreak"), "flip.cell=0.08")
	for s.steps <= shell.SaveEvery {
		frames(t, s, 1)
	}
	if s.good.Steps != shell.SaveEvery {
		t.Fatalf("at step %d the last good state is step %d's, want step %d's", s.steps, s.good.Steps, shell.SaveEvery)
	}
	good := State{Header: s.good.Header}
	good.Pos, good.Vel = slices.Clone(s.good.Pos), slices.Clone(s.good.Vel)
	s.v[len(s.v)/2][1] = float32(math.NaN())
	err := s.Step(sim.FrameDt / 2)
	var nf *sim.NonFiniteError
	if !errors.As(err, &nf) {
		t.Fatalf("a NaN velocity gave %v, want a NonFiniteError", err)
	}
	if nf.Count < 1 {
		t.Errorf("the error counts %d non-finite particles; the step had one", nf.Count)
	}
	if nf.Restored != good.Time {
		t.Errorf("the error says it restored t=%g, the last good state is t=%g", nf.Restored, good.Time)
	}
	if s.time != good.Time || s.steps != good.Steps || len(s.x) != len(good.Pos) {
		t.Fatalf("restored t=%g step %d with %d particles, want t=%g step %d with %d", s.time, s.steps, len(s.x), good.Time, good.Steps, len(good.Pos))
	}
	for i := range s.x {
		if s.x[i] != good.Pos[i] || s.v[i] != good.Vel[i] {
			t.Fatalf("particle %d is not the last good state's", i)
		}
	}
	if err := s.Step(sim.FrameDt / 2); err != nil {
		t.Fatalf("the step after the restore: %v", err)
	}
}

// The tools: pour, drain (and undo), drop a body and remove it, drag and throw it.
func TestHands(t *testing.T) {
	s := handsSolver(t)
	frames(t, s, 2)
	n := len(s.x)
	got := s.AddFluid([][3]float32{{0.2, 0.3, 0.1}, {0.21, 0.3, 0.1}}, [][3]float32{{}, {}})
	if got != 2 || len(s.x) != n+2 {
		t.Fatalf("AddFluid took %d, holds %d, want 2 and %d", got, len(s.x), n+2)
	}
	drained, err := s.Drain([3]float32{0.2, 0.05, 0.1}, 0.06)
	if err != nil || len(drained) == 0 {
		t.Fatalf("Drain: %d particles, %v", len(drained), err)
	}
	checkIDs(t, s)
	if len(s.x) != n+2-len(drained) {
		t.Fatalf("after draining %d: %d particles", len(drained), len(s.x))
	}
	i, displaced, err := s.AddBody(scene.Body{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{0.1, 0.05, 0.1}, Size: scene.Vec3{0.06, 0.06, 0.06}}, Density: 2000})
	if err != nil || i != 1 || len(displaced) == 0 {
		t.Fatalf("AddBody: index %d, %d displaced, %v", i, len(displaced), err)
	}
	checkIDs(t, s)
	s.DriveBody(1, [3]float32{0.5, 0, 0}, true)
	frames(t, s, 3)
	if v := s.bodies[1].V; v != [3]float64{0.5, 0, 0} {
		t.Fatalf("a dragged body moves at %v, want 0.5 m/s along x", v)
	}
	s.DriveBody(1, [3]float32{0.5, 0, 0}, false)
	frames(t, s, 1)
	if v := s.bodies[1].V[0]; !(v > 0.05) {
		t.Fatalf("a thrown body stopped at once: %v", s.bodies[1].V)
	}
	// saving with a dropped body leaves the scene's own bodies alone (a scene made in code, or shipped, is not
	// copied by Portable: the state's encoder once wrote the run's bodies into it, and the next reset had two)
	s.sc.Source = "" // as made in code
	nb := len(s.sc.Bodies)
	if err := s.WriteState(io.Discard); err != nil || len(s.sc.Bodies) != nb {
		t.Fatalf("WriteState: %v; the scene had %d bodies and has %d", err, nb, len(s.sc.Bodies))
	}
	if err := s.RemoveBody(1); err != nil || len(s.bodies) != 1 {
		t.Fatalf("RemoveBody: %v, %d bodies", err, len(s.bodies))
	}
	if err := s.RemoveBody(7); err == nil {
		t.Fatal("removing a body that is not there succeeded")
	}
	s.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: [3]float32{0.2, 0.1, 0.1}, Radius: 0.05}})
	frames(t, s, 2)
	s.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: [3]float32{0.25, 0.1, 0.1}, Radius: 0.05}})
	frames(t, s, 2)
	for p, x := range s.x {
		q := scene.Vec3{float64(x[0]) - 0.25, float64(x[1]) - 0.1, float64(x[2]) - 0.1}
		if q.Len() < 0.05-1e-4 {
			t.Fatalf("particle %d is %.4f m from the paddle's centre, inside its 0.05 m", p, q.Len())
		}
	}
}

// checkIDs fails unless the ids are 0..N−1 each once.
func checkIDs(t *testing.T, s *Solver) {
	t.Helper()
	seen := make([]bool, len(s.id))
	for _, id := range s.id {
		if int(id) >= len(seen) || seen[id] {
			t.Fatalf("ids are not 0..%d each once (%d)", len(seen)-1, id)
		}
		seen[id] = true
	}
}

// A state's reader refuses what does not fit its budget before allocating, and survives any bytes.
func FuzzDecodeState(f *testing.F) {
	s := handsSolver(f)
	frames(f, s, 2)
	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:64])
	if old, err := savefile.Load("../../app/testdata/compat/flip.slosh"); err == nil {
		if v1, err := old.StateBytes(); err == nil {
			f.Add(v1) // version 1, through the converter
		}
	}
	f.Add([]byte(format.Magic))
	sc := s.sc
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := DecodeState(bytes.NewReader(data), sc)
		if err != nil {
			return
		}
		if err := st.Validate(); err != nil {
			t.Fatalf("DecodeState returned a state that does not validate: %v", err)
		}
	})
}

// A state whose particles are piled on one point is refused before a step could try to separate them.
func TestStateRefusesPiledParticles(t *testing.T) {
	s, piled := handsSolver(t), handsSolver(t)
	for i := range piled.x {
		piled.x[i] = piled.x[0]
	}
	var buf bytes.Buffer
	if err := piled.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	n := len(s.x)
	err := s.ReadState(bytes.NewReader(buf.Bytes()))
	if err == nil || !strings.Contains(err.Error(), "particles lie in one") {
		t.Fatalf("a state with every particle on one point: %v", err)
	}
	if len(s.x) != n {
		t.Fatal("the refused state changed the solver")
	}
}

// The compatibility fixture's save file, state version 1 written by the code before the particle store, converts:
// it loads, is written again as version 2, and both continue alike, bit for bit.
func TestStateConvertsVersion1(t *testing.T) {
	f, err := savefile.Load("../../app/testdata/compat/flip.slosh")
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.StateBytes()
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(data[len(format.Magic):]); v != stateVersion1 {
		t.Fatalf("the fixture's state is version %d, want %d", v, stateVersion1)
	}
	open := func() *Solver {
		s := New()
		if err := s.Params().ApplyPreset(f.Params, Name); err != nil {
			t.Fatal(err)
		}
		if err := s.Reset(f.Scene); err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := open(), open()
	if err := a.ReadState(bytes.NewReader(data)); err != nil {
		t.Fatalf("the version-1 state: %v", err)
	}
	if a.steps != f.Steps || len(a.x) != f.Particles {
		t.Fatalf("the version-1 state holds %d particles at step %d; its file says %d at step %d", len(a.x), a.steps, f.Particles, f.Steps)
	}
	var v2 bytes.Buffer
	if err := a.WriteState(&v2); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(v2.Bytes()[len(format.Magic):]); v != format.Version {
		t.Fatalf("a state is written as version %d, want %d", v, format.Version)
	}
	if err := b.ReadState(bytes.NewReader(v2.Bytes())); err != nil {
		t.Fatalf("the version-2 state: %v", err)
	}
	sameState(t, a, b, "version 1 against its version 2")
	frames(t, a, 3)
	frames(t, b, 3)
	sameState(t, a, b, "3 frames on")
}

// A version-2 state that a newer slosh might write — a column this one does not keep — or that is damaged — a
// particle count the file does not hold, a version not known — is refused with a message that says which, and
// the solver keeps its state.
func TestStateRefusesUnknownOrDamaged(t *testing.T) {
	s := handsSolver(t)
	frames(t, s, 1)
	var good bytes.Buffer
	if err := s.WriteState(&good); err != nil {
		t.Fatal(err)
	}
	// a newer flip's state: one more column, declared as flip would declare it
	newer := handsSolver(t)
	var temp []float32
	particles.Add(&newer.sh.P, &temp, particles.Spec[float32]{Name: "temperature", Role: particles.State, Default: 293})
	var unknown bytes.Buffer
	if err := newer.WriteState(&unknown); err != nil {
		t.Fatal(err)
	}
	// the particle count, after the frame's header, the emitters' travel, the tool's and the table's version
	at := len(format.Magic) + 4 + 4*8 + 4*len(s.sc.Emitters) + 4 + 4
	if n := int64(binary.LittleEndian.Uint64(good.Bytes()[at:])); n != int64(len(s.x)) {
		t.Fatalf("the particle count at byte %d reads %d, the solver holds %d", at, n, len(s.x))
	}
	damaged := func(count int64) []byte {
		b := bytes.Clone(good.Bytes())
		binary.LittleEndian.PutUint64(b[at:], uint64(count))
		return b
	}
	version := bytes.Clone(good.Bytes())
	binary.LittleEndian.PutUint32(version[len(format.Magic):], 7)
	for _, c := range []struct {
		what string
		data []byte
		want string
	}{
		{"an unknown column", unknown.Bytes(), `column "temperature" is not one this slosh keeps`},
		{"a count over the data", damaged(1000 * int64(len(s.x))), "truncated or damaged"},
		{"a negative count", damaged(-1), "count -1 is outside"},
		{"an unknown version", version, "version 7; this slosh reads versions 1 and 2"},
	} {
		n, at := len(s.x), s.time
		err := s.ReadState(bytes.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.what, err, c.want)
		}
		if len(s.x) != n || s.time != at {
			t.Errorf("%s: the refused state changed the solver", c.what)
		}
	}
	if err := s.ReadState(bytes.NewReader(good.Bytes())); err != nil {
		t.Fatalf("the undamaged state: %v", err)
	}
}
