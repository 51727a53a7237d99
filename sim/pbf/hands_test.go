package pbf

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

const handsScene = simtest.HandsScene

func parseScene(t testing.TB, js string) *scene.Scene { return simtest.Parse(t, js) }

func newReset(t testing.TB, sc *scene.Scene) *Solver {
	t.Helper()
	s := New()
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	return s
}

func stepN(t testing.TB, s *Solver, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := s.Step(1.0 / 240); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
}

// sameFrames fails unless two frames hold the same particles bit for bit.
func sameFrames(t *testing.T, what string, a, b *Solver) {
	t.Helper()
	var fa, fb sim.Frame
	a.Frame(&fa)
	b.Frame(&fb)
	if fa.N != fb.N || fa.Time != fb.Time || fa.Steps != fb.Steps {
		t.Fatalf("%s: %d particles at t=%g (step %d) vs %d at t=%g (step %d)", what, fa.N, fa.Time, fa.Steps, fb.N, fb.Time, fb.Steps)
	}
	for i := 0; i < fa.N; i++ {
		if fa.Pos[i] != fb.Pos[i] || fa.Vel[i] != fb.Vel[i] || fa.ID[i] != fb.ID[i] {
			t.Fatalf("%s: particle %d differs: %v %v id %d vs %v %v id %d", what, i, fa.Pos[i], fa.Vel[i], fa.ID[i], fb.Pos[i], fb.Vel[i], fb.ID[i])
		}
	}
	for k := range fa.Bodies {
		if fa.Bodies[k] != fb.Bodies[k] {
			t.Fatalf("%s: body %d differs: %+v vs %+v", what, k, fa.Bodies[k], fb.Bodies[k])
		}
	}
}

// Save → load reproduces the state bit for bit, and the steps after it match the steps of the run that saved it.
func TestStateRoundTripContinuesBitForBit(t *testing.T) {
	sc := parseScene(t, handsScene)
	a := newReset(t, sc)
	stepN(t, a, 37) // off the 30-step snapshot rhythm, with emitted particles and a moved obstacle
	var buf bytes.Buffer
	if err := a.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	saved := append([]byte(nil), buf.Bytes()...)

	b := newReset(t, sc)
	if err := b.ReadState(bytes.NewReader(saved)); err != nil {
		t.Fatal(err)
	}
	sameFrames(t, "after load", a, b)
	var again bytes.Buffer
	if err := b.WriteState(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), saved) {
		t.Fatal("writing a loaded state again gives different bytes")
	}
	stepN(t, a, 25)
	stepN(t, b, 25)
	sameFrames(t, "25 steps after load", a, b)
	if n := len(a.x); n <= 0 || a.steps != 62 {
		t.Fatalf("%d particles, %d steps", n, a.steps)
	}
}

func TestDecodeStateRejectsBadData(t *testing.T) {
	s := newReset(t, parseScene(t, handsScene))
	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.Bytes()
	var st State
	s.SaveState(&st)
	_, pos := frameAt(len(st.Emitted))
	for _, f := range []struct {
		name string
		data []byte
		id   int // where the first id sits: after the header and the position and velocity arrays
		want string
	}{
		{"version 3", good, pos + 2*16*len(s.x), "the ids are not 0.."},
		{"version 2", encodeV2(t, &st, 2), len(Format.Magic) + 4 + 8*3 + 8*4 + 2*16*len(s.x), "ids must be"},
	} {
		corruptID := bytes.Clone(f.data)
		corruptID[f.id] = 0xff
		corruptID[f.id+1] = 0xff
		for _, c := range []struct {
			name string
			data []byte
			want string
		}{
			{"empty", nil, "not a pbf state"},
			{"other file", []byte("{\"name\": \"a scene\"}"), "not a pbf state"},
			{"truncated", f.data[:len(f.data)/2], "truncated"},
			{"trailing", append(bytes.Clone(f.data), 1, 2, 3), "after the end"},
			{"bad id", corruptID, f.want},
		} {
			if _, err := DecodeState(bytes.NewReader(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: got %v, want an error containing %q", f.name, c.name, err, c.want)
			}
		}
	}
	// a state for another scene is refused and the running state is kept
	other := newReset(t, parseScene(t, poolScene))
	before := len(other.x)
	if err := other.ReadState(bytes.NewReader(good)); err == nil || !strings.Contains(err.Error(), "emitters") {
		t.Fatalf("loading a state with an emitter into a scene without: %v", err)
	}
	if len(other.x) != before {
		t.Fatal("a refused state changed the solver")
	}
}

const poolScene = `{
  "name": "pool", "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.2]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.2, 0.075, 0.1], "size": [0.4, 0.15, 0.2]}]
}`

// checkDense fails unless ids are 0..N−1 and each body's particles hold its id range.
func checkDense(t *testing.T, s *Solver) {
	t.Helper()
	var st State
	s.SaveState(&st)
	if err := st.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestDrainAndUndo(t *testing.T) {
	sc := parseScene(t, handsScene)
	s := newReset(t, sc)
	stepN(t, s, 5)
	n0 := len(s.x)
	c, r := [3]float32{0.3, 0.05, 0.1}, float32(0.06)
	gone, err := s.Drain(c, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(gone) == 0 || len(s.x) != n0-len(gone) {
		t.Fatalf("drained %d of %d, %d left", len(gone), n0, len(s.x))
	}
	for _, p := range gone {
		d := math.Sqrt(float64(sq(p.Pos[0]-c[0]) + sq(p.Pos[1]-c[1]) + sq(p.Pos[2]-c[2])))
		if d > float64(r) {
			t.Fatalf("drained a particle %g m from the centre", d)
		}
	}
	for i, p := range s.x {
		if s.body[i] < 0 && sq(p[0]-c[0])+sq(p[1]-c[1])+sq(p[2]-c[2]) < r*r {
			t.Fatalf("fluid particle %d is still inside the drain", i)
		}
	}
	if len(s.bodies) != 1 || s.bodies[0].Count == 0 {
		t.Fatal("draining touched the body")
	}
	checkDense(t, s)
	stepN(t, s, 3)
	// undo: the drained particles come back as fluid
	pos, vel := make([][3]float32, len(gone)), make([][3]float32, len(gone))
	for i, p := range gone {
		pos[i], vel[i] = p.Pos, p.Vel
	}
	if k := s.AddFluid(pos, vel); k != len(gone) {
		t.Fatalf("undo added %d of %d", k, len(gone))
	}
	checkDense(t, s)
	stepN(t, s, 3)
}

func sq(x float32) float32 { return x * x }

// A body dropped into a pool displaces the fluid where it lands instead of exploding, and removing it leaves a
// consistent state.
func TestAddBodyDisplacesFluidAndRemoveBody(t *testing.T) {
	sc := parseScene(t, poolScene)
	s := newReset(t, sc)
	stepN(t, s, 10)
	n0 := len(s.x)
	b := scene.Body{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{0.2, 0.08, 0.1}, Size: scene.Vec3{0.08, 0.08, 0.08}}, Density: 700}
	idx, displaced, err := s.AddBody(b)
	if err != nil {
		t.Fatal(err)
	}
	if idx != 0 || len(s.bodies) != 1 || len(displaced) == 0 {
		t.Fatalf("body %d of %d, %d displaced", idx, len(s.bodies), len(displaced))
	}
	if got := len(s.x); got != n0-len(displaced)+s.bodies[0].Count {
		t.Fatalf("%d particles, want %d − %d + %d", got, n0, len(displaced), s.bodies[0].Count)
	}
	checkDense(t, s)
	for i := 0; i < 40; i++ {
		stepN(t, s, 1)
		if v := s.Stats().MaxSpeed; v > 2 {
			t.Fatalf("step %d after the drop: the fluid reached %.2f m/s (an explosion)", i, v)
		}
	}
	// a second body, then remove the first: the second moves down to index 0
	b2 := b
	b2.Center = scene.Vec3{0.1, 0.3, 0.1}
	if i, _, err := s.AddBody(b2); err != nil || i != 1 {
		t.Fatalf("second body: %d, %v", i, err)
	}
	c2 := s.bodies[1].Center
	if err := s.RemoveBody(0); err != nil {
		t.Fatal(err)
	}
	if len(s.bodies) != 1 || s.bodies[0].Center != c2 {
		t.Fatalf("after removing body 0: %d bodies, centre %v, want %v", len(s.bodies), s.bodies[0].Center, c2)
	}
	checkDense(t, s)
	stepN(t, s, 3)
	if err := s.RemoveBody(5); err == nil {
		t.Fatal("removing a body that does not exist succeeded")
	}
}

// Emitters add one disc per spacing travelled, and stop at the budget with a notice.
func TestEmitterRateAndBudget(t *testing.T) {
	sc := parseScene(t, `{
	  "name": "pour", "domain": {"min": [0, 0, 0], "max": [0.4, 0.6, 0.4]},
	  "particles": {"spacing": 0.02},
	  "fluid": [{"shape": "box", "center": [0.2, 0.02, 0.2], "size": [0.4, 0.04, 0.4]}],
	  "emitters": [{"center": [0.2, 0.5, 0.2], "direction": [0, -1, 0], "radius": 0.03, "speed": 1.2, "stop": 0.2}]
	}`)
	s := newReset(t, sc)
	n0 := len(s.x)
	disc := len(sc.Emitters[0].Disc(0.02))
	steps := 48 // 0.2 s at 1/240 s
	stepN(t, s, steps+8)
	layers := int(1.2 * 0.2 / 0.02) // the stream moves 0.24 m while on: 12 layers (to rounding of the last)
	if got := (len(s.x) - n0) / disc; got < layers-1 || got > layers || (len(s.x)-n0)%disc != 0 {
		t.Fatalf("emitted %d particles = %d discs of %d, want about %d discs", len(s.x)-n0, got, disc, layers)
	}
	// a budget just above the start: the emitter stops with a notice and the count stays within it
	s2 := New()
	s2.Cfg.Budget = int32(n0 + 3*disc + 1)
	if err := s2.Reset(sc); err != nil {
		t.Fatal(err)
	}
	notice := ""
	for i := 0; i < steps; i++ {
		stepN(t, s2, 1)
		if st := s2.Stats(); st.Notice != "" {
			notice = st.Notice
		}
	}
	if len(s2.x) != n0+3*disc || !strings.Contains(notice, "budget") {
		t.Fatalf("budget %d: %d particles, notice %q", s2.Budget(), len(s2.x), notice)
	}
	if k := s2.AddFluid([][3]float32{{0.2, 0.3, 0.2}, {0.2, 0.32, 0.2}}, make([][3]float32, 2)); k != 1 {
		t.Fatalf("AddFluid at one below the budget added %d", k)
	}
}

// A moving obstacle and the paddle push the fluid: it gains momentum along the push.
func TestKinematicObstaclesPushFluid(t *testing.T) {
	momentum := func(s *Solver) float64 {
		m := 0.0
		for _, v := range s.v {
			m += float64(v[0])
		}
		return m
	}
	// the paddle sweeps through the pool along +x
	s := newReset(t, parseScene(t, poolScene))
	stepN(t, s, 10)
	for i := 0; i < 24; i++ {
		x := 0.05 + 0.005*float32(i)
		s.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: [3]float32{x, 0.07, 0.1}, Radius: 0.05}})
		stepN(t, s, 1)
	}
	if m := momentum(s); m <= 0.5 {
		t.Fatalf("the paddle moving along +x gave the fluid Σv_x = %.3f", m)
	}
	for i, p := range s.x {
		if d := math.Sqrt(float64(sq(p[0]-0.165) + sq(p[1]-0.07) + sq(p[2]-0.1))); d < 0.05 {
			t.Fatalf("particle %d is %g m inside the paddle", i, 0.05-d)
		}
	}
	s.SetTools(sim.Tools{})
	stepN(t, s, 1)
	if len(s.col.Obstacles) != 0 {
		t.Fatal("the paddle stayed after the tool was put away")
	}
}

// A driven body moves at the drive velocity and keeps it when let go: how a body is thrown.
func TestDriveBodyThrows(t *testing.T) {
	sc := parseScene(t, `{
	  "name": "throw", "domain": {"min": [0, 0, 0], "max": [1, 0.6, 0.4]},
	  "particles": {"spacing": 0.025},
	  "fluid": [{"shape": "box", "center": [0.5, 0.0375, 0.2], "size": [1, 0.075, 0.4]}],
	  "bodies": [{"shape": "sphere", "center": [0.2, 0.3, 0.2], "radius": 0.05, "density": 500}]
	}`)
	s := newReset(t, sc)
	c0 := s.bodies[0].Center
	s.DriveBody(0, [3]float32{2, 0.5, 0}, true)
	stepN(t, s, 24) // 0.1 s
	c1 := s.bodies[0].Center
	if dx, dy := c1[0]-c0[0], c1[1]-c0[1]; math.Abs(float64(dx)-0.2) > 0.01 || math.Abs(float64(dy)-0.05) > 0.01 {
		t.Fatalf("driven at (2, 0.5) m/s for 0.1 s, the body moved (%.3f, %.3f)", dx, dy)
	}
	s.DriveBody(0, [3]float32{}, false)
	stepN(t, s, 4)
	var vx float64
	for i := range s.v {
		if s.body[i] == 0 {
			vx += float64(s.v[i][0])
		}
	}
	vx /= float64(s.bodies[0].Count)
	if vx < 1.8 {
		t.Fatalf("after letting go the body moves at %.2f m/s along x, want the 2 m/s it was thrown at", vx)
	}
}

// A scene's blast throws the water above it up in the step that holds its time, and only then; the bodies'
// particles are left to the shape matching.
func TestBlastThrowsWaterUp(t *testing.T) {
	const pool = `"name": "blast", "domain": {"min": [0, 0, 0], "max": [0.4, 0.6, 0.4]},
	  "particles": {"spacing": 0.02},
	  "fluid": [{"shape": "box", "center": [0.2, 0.1, 0.2], "size": [0.4, 0.2, 0.4]}],
	  "bodies": [{"shape": "sphere", "center": [0.3, 0.15, 0.2], "radius": 0.04, "density": 900}]`
	quiet := newReset(t, parseScene(t, `{`+pool+`}`))
	loud := newReset(t, parseScene(t, `{`+pool+`, "blasts": [{"time": 0.051, "center": [0.2, 0.08, 0.2], "radius": 0.15, "speed": 3}]}`))
	up := func(s *Solver) (fastest float64) {
		for i, v := range s.v {
			if s.body[i] < 0 {
				fastest = max(fastest, float64(v[1]))
			}
		}
		return fastest
	}
	stepN(t, quiet, 12) // to 0.05 s
	stepN(t, loud, 12)
	sameFrames(t, "before the blast", quiet, loud)
	// the blast by itself, as Step fires it: fluid particles inside move outward, body particles do not
	v0 := append([][4]float32(nil), loud.v...)
	loud.blast(1.0 / 240)
	pushed := 0
	for i := range v0 {
		d := [3]float32{loud.x[i][0] - 0.2, loud.x[i][1] - 0.08, loud.x[i][2] - 0.2}
		r := math.Sqrt(float64(d[0]*d[0] + d[1]*d[1] + d[2]*d[2]))
		dv := [3]float32{loud.v[i][0] - v0[i][0], loud.v[i][1] - v0[i][1], loud.v[i][2] - v0[i][2]}
		switch {
		case loud.body[i] >= 0 || r >= 0.15:
			if dv != [3]float32{} {
				t.Fatalf("particle %d (body %d, %.3f m from the centre) was pushed by %v", i, loud.body[i], r, dv)
			}
		case dv[0]*d[0]+dv[1]*d[1]+dv[2]*d[2] <= 0:
			t.Fatalf("fluid particle %d, %.3f m from the centre, was pushed by %v, not outward", i, r, dv)
		default:
			pushed++
		}
	}
	if pushed < 100 {
		t.Fatalf("the blast pushed %d particles", pushed)
	}
	copy(loud.v, v0)
	// through Step: the water jumps, and a later step adds nothing
	stepN(t, quiet, 1)
	stepN(t, loud, 1)
	if q, l := up(quiet), up(loud); l < q+1.5 {
		t.Fatalf("fastest upward fluid after the blast's step: %.3f m/s without the blast, %.3f m/s with it", q, l)
	}
	v1 := append([][4]float32(nil), loud.v...)
	loud.blast(1.0 / 240)
	for i := range v1 {
		if loud.v[i] != v1[i] {
			t.Fatalf("the blast fired again at %.4f s", loud.time)
		}
	}
}
