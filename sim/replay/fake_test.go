package replay

import (
	"errors"
	"fmt"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// fakeSolver is a sim.Solver with Hands that writes down what it was asked, for the Log and Player tests.
type fakeSolver struct {
	params *param.Set
	v      fakeValues
	steps  int
	calls  []string // "step 3: drain ..." for every Hands call and every step
	failAt int      // Drain, AddBody and RemoveBody fail while steps == failAt
}

type fakeValues struct {
	substeps int32
	eps      float32
	gravity  [3]float32
	on       bool
	color    int32
}

func newFake() *fakeSolver {
	f := &fakeSolver{params: param.NewSet(), failAt: -1}
	f.v = fakeValues{substeps: 2, eps: 0.5, gravity: [3]float32{0, -9.81, 0}, color: 1}
	f.params.Int(&f.v.substeps, param.Spec{Name: "fake.substeps", Min: 1, Max: 64})
	f.params.Float(&f.v.eps, param.Spec{Name: "fake.eps", Min: -1e30, Max: 1e30})
	f.params.Vec3(&f.v.gravity, param.Spec{Name: "fake.gravity", Min: -1e30, Max: 1e30})
	f.params.Bool(&f.v.on, param.Spec{Name: "fake.on"})
	f.params.Choice(&f.v.color, param.Spec{Name: "fake.color", Items: []string{"plain", "speed", "density"}})
	return f
}

func (f *fakeSolver) Name() string             { return "fake" }
func (f *fakeSolver) Params() *param.Set       { return f.params }
func (f *fakeSolver) Reset(*scene.Scene) error { f.steps, f.calls = 0, nil; return nil }
func (f *fakeSolver) Frame(*sim.Frame)         {}
func (f *fakeSolver) Stats() sim.Stats         { return sim.Stats{Steps: f.steps} }

// BeginFrame steps frames of fake.substeps steps, as a solver whose CFL rule gives that many.
func (f *fakeSolver) BeginFrame(float64) int { return int(f.v.substeps) }

func (f *fakeSolver) Step(dt float64) error {
	f.note("step dt=%v eps=%v", dt, f.v.eps)
	f.steps++
	return nil
}

func (f *fakeSolver) note(format string, args ...any) {
	f.calls = append(f.calls, fmt.Sprintf("%d: ", f.steps)+fmt.Sprintf(format, args...))
}

func (f *fakeSolver) fail() error {
	if f.steps == f.failAt {
		return errors.New("fake failure")
	}
	return nil
}

func (f *fakeSolver) Budget() int { return 1000 }

func (f *fakeSolver) AddFluid(pos, vel [][3]float32) int {
	f.note("add_fluid %v %v", pos, vel)
	return len(pos)
}

func (f *fakeSolver) Drain(c [3]float32, r float32) ([]sim.Particle, error) {
	if err := f.fail(); err != nil {
		return nil, err
	}
	f.note("drain %v %v", c, r)
	return nil, nil
}

func (f *fakeSolver) AddBody(b scene.Body) (int, []sim.Particle, error) {
	if err := f.fail(); err != nil {
		return 0, nil, err
	}
	f.note("add_body %v %v", b.String(), b.Density)
	return 1, nil, nil
}

func (f *fakeSolver) RemoveBody(i int) error {
	if err := f.fail(); err != nil {
		return err
	}
	f.note("remove_body %d", i)
	return nil
}

func (f *fakeSolver) DriveBody(i int, v [3]float32, on bool) { f.note("drive_body %d %v %v", i, v, on) }

func (f *fakeSolver) SetTools(t sim.Tools) {
	s := "set_tools"
	if t.Paddle != nil {
		s += fmt.Sprintf(" paddle %v", *t.Paddle)
	}
	if t.Emitter != nil {
		s += fmt.Sprintf(" emitter %v", *t.Emitter)
	}
	if t.Heat != nil {
		s += fmt.Sprintf(" heat %v", *t.Heat)
	}
	f.note("%s", s)
}

// bareSolver hides fakeSolver's Hands.
type bareSolver struct{ f *fakeSolver }

func (b bareSolver) Name() string                { return b.f.Name() }
func (b bareSolver) Params() *param.Set          { return b.f.Params() }
func (b bareSolver) Reset(sc *scene.Scene) error { return b.f.Reset(sc) }
func (b bareSolver) BeginFrame(dt float64) int   { return b.f.BeginFrame(dt) }
func (b bareSolver) Step(dt float64) error       { return b.f.Step(dt) }
func (b bareSolver) Frame(fr *sim.Frame)         { b.f.Frame(fr) }
func (b bareSolver) Stats() sim.Stats            { return b.f.Stats() }

// poolScene is a small valid scene.
const poolScene = `{
  "name": "pool", "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.2]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.2, 0.075, 0.1], "size": [0.4, 0.15, 0.2]}]
}`

func pool(t testing.TB) *scene.Scene { return simtest.Parse(t, poolScene) }

// steps advances a fake n steps.
func (f *fakeSolver) stepN(n int) {
	for i := 0; i < n; i++ {
		_ = f.Step(frameDt)
	}
}

// flatFake is a fakeSolver with the 2D game's hands (sim.FlatHands) that writes down every call that changed its
// game, with its arguments as they arrived, for the 2D Log and Player tests. Like the game it refuses a stroke
// of fewer than two points, a key without a current, a removal of a body it does not have; a grab takes hold of a
// body only in the rectangle's left half (x < 1) while there is one; a move or a release while it holds nothing
// changes nothing.
type flatFake struct {
	*fakeSolver
	flat    []flatCall
	bodies  int  // the scene's, spawned since, less those removed
	drawn   int  // currents drawn: keys 1..drawn excite
	held    bool // a body is held
	lenient bool // RemoveFlatBody succeeds for any index (a solver the Log must not trust)
}

// flatCall is a FlatHands call that changed the fake's game, at the fake's step.
type flatCall struct {
	Step   int
	Op     Op
	Points [][2]float32
	Speed  float32
	Width  float32
	Key    int
	At     [2]float32
	Body   scene.FlatBody
	Index  int
}

func newFlatFake() *flatFake { return &flatFake{fakeSolver: newFake()} }

func (f *flatFake) Reset(sc *scene.Scene) error {
	f.flat, f.bodies, f.drawn, f.held = nil, 0, 0, false
	if sc != nil && sc.IsFlat() {
		f.bodies = len(sc.Flat.Bodies)
	}
	return f.fakeSolver.Reset(sc)
}

func (f *flatFake) add(c flatCall) {
	c.Step = f.steps
	f.flat = append(f.flat, c)
}

func (f *flatFake) Draw(points [][2]float32, speed, width float32) (string, error) {
	if err := f.fail(); err != nil {
		return "", err
	}
	if len(points) < 2 {
		return "", errors.New("a stroke of fewer than two points")
	}
	f.drawn++
	f.add(flatCall{Op: OpDraw, Points: append([][2]float32(nil), points...), Speed: speed, Width: width})
	return fmt.Sprintf("current on key %d", f.drawn), nil
}

func (f *flatFake) Excite(k int) error {
	if err := f.fail(); err != nil {
		return err
	}
	if k < 1 || k > f.drawn {
		return fmt.Errorf("no current on key %d", k)
	}
	f.add(flatCall{Op: OpExcite, Key: k})
	return nil
}

func (f *flatFake) Grab(p [2]float32) int {
	if f.bodies == 0 || !(p[0] < 1) {
		return -1
	}
	f.held = true
	f.add(flatCall{Op: OpGrab, At: p})
	return 0
}

func (f *flatFake) MoveGrab(p [2]float32) {
	if f.held {
		f.add(flatCall{Op: OpMoveGrab, At: p})
	}
}

func (f *flatFake) Release() {
	if f.held {
		f.held = false
		f.add(flatCall{Op: OpRelease})
	}
}

func (f *flatFake) Spawn(b scene.FlatBody) (int, error) {
	if err := f.fail(); err != nil {
		return 0, err
	}
	b.Points = append([]scene.Vec2(nil), b.Points...)
	f.add(flatCall{Op: OpSpawn, Body: b})
	f.bodies++
	return f.bodies - 1, nil
}

func (f *flatFake) RemoveFlatBody(i int) error {
	if err := f.fail(); err != nil {
		return err
	}
	if !f.lenient && (i < 0 || i >= f.bodies) {
		return fmt.Errorf("no body %d", i)
	}
	f.add(flatCall{Op: OpRemoveFlatBody, Index: i})
	f.bodies--
	return nil
}

// levelScene is a small valid 2D scene with two bodies, a crate and a rock.
const levelScene = `{
  "name": "level", "mode": "reduced",
  "flat": {"size": [2, 1.2], "bodies": [
    {"shape": "box", "center": [0.3, 0.6], "size": [0.12, 0.12], "density": 600, "crate": true},
    {"shape": "circle", "center": [1, 0.5], "radius": 0.1, "static": true}
  ]}
}`

func level(t testing.TB) *scene.Scene { return simtest.Parse(t, levelScene) }
