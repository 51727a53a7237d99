package game

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/ByteArena/box2d"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// Issue 24's bodies that Box2D cannot take, given to the world directly (past the scene's own check): each is
// refused with a message before Box2D is called, and the world is left as it was.
func TestWorldRefusesWhatBox2DCannotTake(t *testing.T) {
	tri := func(pts ...scene.Vec2) scene.FlatBody {
		return scene.FlatBody{Shape: scene.FlatPolygon, Center: scene.Vec2{1, 0.6}, Points: pts, Density: 600}
	}
	for _, c := range []struct {
		name string
		body scene.FlatBody
	}{
		{"a crate 0.5 m × 10 µm", scene.FlatBody{Shape: scene.FlatBox, Center: scene.Vec2{1, 0.6}, Size: scene.Vec2{0.5, 1e-5}, Density: 600, Crate: true}},
		{"a pier 1 m × 10 µm", scene.FlatBody{Shape: scene.FlatBox, Center: scene.Vec2{1, 0.6}, Size: scene.Vec2{1, 1e-5}, Static: true}},
		{"a tiny box", scene.FlatBody{Shape: scene.FlatBox, Center: scene.Vec2{1, 0.6}, Size: scene.Vec2{1e-6, 1e-6}, Density: 600}},
		{"a tiny triangle", tri(scene.Vec2{0, 0}, scene.Vec2{1e-5, 0}, scene.Vec2{0, 1e-5})},
		{"a 20 µm sliver", tri(scene.Vec2{-0.5, 0}, scene.Vec2{0.5, 0}, scene.Vec2{0, 2e-5})},
		{"a diamond whose tips weld", tri(scene.Vec2{-0.5, 0}, scene.Vec2{0, -1e-5}, scene.Vec2{0.5, 0}, scene.Vec2{0, 1e-5})},
		{"a tiny circle", scene.FlatBody{Shape: scene.FlatCircle, Center: scene.Vec2{1, 0.6}, Radius: 1e-9, Density: 600}},
	} {
		w, err := newWorld(scene.Vec2{2, 1.2}, nil, [2]float64{0, -9.81}, 0.03)
		if err != nil {
			t.Fatal(err)
		}
		var addErr error
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: Box2D panicked: %v", c.name, r)
				}
			}()
			_, addErr = w.add(c.body)
		}()
		if addErr == nil || !strings.Contains(addErr.Error(), "Box2D") {
			t.Errorf("%s: %v, want a refusal that names Box2D", c.name, addErr)
		}
		if len(w.bodies) != 0 || w.b2.GetBodyCount() != 1 {
			t.Errorf("%s: the refusal left %d bodies (%d in Box2D, the walls' one expected)", c.name, len(w.bodies), w.b2.GetBodyCount())
		}
		if addErr != nil {
			t.Logf("%s: %v", c.name, addErr)
		}
		// the same body in a scene: the scene's own check names the field
		sc := &scene.Scene{Name: "s", Flat: &scene.Flat{Size: scene.Vec2{2, 1.2}, Bodies: []scene.FlatBody{c.body}}}
		if err := sc.Flat.CheckBody("flat.bodies[0]", &c.body); err == nil || !strings.Contains(err.Error(), "flat.bodies[0]") {
			t.Errorf("%s: the scene's check: %v", c.name, err)
		}
	}
}

// A polygon whose corners lie far from its origin, small for that distance: Box2D's centroid (cross products about
// the origin) would cancel to nothing and assert. The world refuses it first.
func TestWorldRefusesPolygonFarFromItsOrigin(t *testing.T) {
	w, err := newWorld(scene.Vec2{1000, 1000}, nil, [2]float64{0, -9.81}, 10)
	if err != nil {
		t.Fatal(err)
	}
	far := 1e12 // no scene allows it (corners lie within the longer side of the centre), but the world must hold
	b := scene.FlatBody{Shape: scene.FlatPolygon, Center: scene.Vec2{500, 500}, Density: 600,
		Points: []scene.Vec2{{far, far}, {far + 1000, far}, {far, far + 1000}}}
	var addErr error
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("Box2D panicked: %v", r)
			}
		}()
		_, addErr = w.add(b)
	}()
	if addErr == nil || !strings.Contains(addErr.Error(), "too small for its distance") {
		t.Fatalf("%v, want a refusal that says it is too small for its distance from its centre", addErr)
	}
	t.Log(addErr)
}

// A panic inside Box2D during a step (here a fixture whose broad-phase proxy was damaged) is caught: the step
// fails with an error that says Box2D failed, the solver goes back to its last kept state, and the game goes on.
func TestBox2DPanicInStepIsAnError(t *testing.T) {
	s := newGame(t, level1)
	frames(t, s, 2)
	s.world.bodies[0].b.GetFixtureList().M_proxies[0].ProxyId = 1 << 30
	err := s.Step(sim.FrameDt)
	if err == nil || !strings.Contains(err.Error(), "Box2D") {
		t.Fatalf("a damaged Box2D world steps: %v", err)
	}
	t.Log(err)
	if s.steps != 0 {
		t.Errorf("after the failure the solver is at step %d, want the state kept at step 0", s.steps)
	}
	frames(t, s, 2)
}

// box2dCall turns a panic into an error that names what was being done.
func TestBox2DCallRecovers(t *testing.T) {
	err := box2dCall("adding body 3", func() { box2d.B2Assert(false) })
	if err == nil || !strings.Contains(err.Error(), "adding body 3") || !strings.Contains(err.Error(), "B2Assert") {
		t.Fatalf("got %v", err)
	}
	if err := box2dCall("nothing", func() {}); err != nil {
		t.Fatal(err)
	}
}

// A saved state's bodies pass the limits a scene's bodies do (issue 24): a body finer than Box2D holds, one
// outside the rectangle, one faster than scene.MaxFlatSpeed or spinning faster than scene.MaxSpin is refused
// with a message naming the body and the field, and the solver keeps its state.
func TestStateRefusesBodiesScenesRefuse(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	for _, c := range []struct {
		name  string
		spoil func(s *Solver)
		want  []string
	}{
		{"a sliver box", func(s *Solver) { s.world.bodies[0].spec.Size = scene.Vec2{0.5, 1e-5} }, []string{"flat.bodies[0].size[1]", "finer detail"}},
		{"a crate outside the tank", func(s *Solver) {
			b := s.world.bodies[0].b
			b.SetTransform(s.world.vec([2]float64{-0.5, 0.6}), 0)
		}, []string{"body 0", "position", "outside"}},
		{"a crate far above the tank", func(s *Solver) {
			b := s.world.bodies[0].b
			b.SetTransform(s.world.vec([2]float64{1, 2}), 0)
		}, []string{"body 0", "position[1]", "outside"}},
		{"9999 m/s", func(s *Solver) { s.world.bodies[0].b.SetLinearVelocity(s.world.vec([2]float64{9999, 0})) }, []string{"body 0", "velocity", "100 m/s"}},
		{"1e6 rad/s", func(s *Solver) { s.world.bodies[0].b.SetAngularVelocity(1e6) }, []string{"body 0", "spin"}},
		{"corners at 400 m/s", func(s *Solver) { s.world.bodies[0].b.SetAngularVelocity(5000) }, []string{"body 0", "spin", "far point"}},
	} {
		a := newGame(t, level1)
		frames(t, a, 2)
		c.spoil(a)
		var buf bytes.Buffer
		if err := a.WriteState(&buf); err != nil {
			t.Fatal(err)
		}
		b := newGame(t, level1)
		err := b.ReadState(bytes.NewReader(buf.Bytes()))
		if err == nil {
			t.Errorf("%s: the state was loaded", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want it to say %q", c.name, err, w)
			}
		}
		t.Logf("%s: %v", c.name, err)
		if b.steps != 0 || len(b.world.bodies) != 2 {
			t.Errorf("%s: the refused state changed the solver", c.name)
		}
	}
}

// A running game keeps its bodies within the limits its saved states are read with: a body thrown faster than
// scene.MaxFlatSpeed, or spun so that its far point moves faster than that, is slowed to them by the next step,
// and the state saved then loads.
func TestBodySpeedLimits(t *testing.T) {
	s := newGame(t, `{"name":"big","flat":{"size":[1000,600],"bodies":[{"shape":"circle","center":[500,300],"radius":5,"density":1000}]}}`)
	s.world.bodies[0].b.SetLinearVelocity(s.world.vec([2]float64{400, 300}))
	s.world.bodies[0].b.SetAngularVelocity(5e4)
	frames(t, s, 1)
	_, _, v, w := s.world.pose(0)
	if sp := math.Hypot(v[0], v[1]); sp > scene.MaxFlatSpeed*(1+1e-9) || math.Abs(w)*5 > scene.MaxFlatSpeed*(1+1e-9) {
		t.Fatalf("after a step the body moves at %g m/s and spins at %g rad/s, its rim at %g m/s", sp, w, 5*w)
	}
	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	if err := s.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	// a small disc may spin at scene.MaxSpin and turns 1e6 rad, the most a state holds, in 100 s: the game
	// wraps its angle first
	s = newGame(t, `{"name":"spin","flat":{"size":[1,1],"bodies":[{"shape":"circle","center":[0.5,0.5],"radius":0.005,"density":1000,"spin":10000}]}}`)
	b := s.world.bodies[0].b
	b.SetTransform(b.GetPosition(), 0.9*maxStateAngle)
	frames(t, s, 1)
	if a := b.GetAngle(); math.Abs(a) > maxStateAngle/2 {
		t.Fatalf("the disc's angle is %g rad", a)
	}
	buf.Reset()
	if err := s.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	if err := s.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
}

// A body Box2D squeezes out through a wall (here a disc that starts inside a fixed one, found by FuzzFlatBody) is
// put back inside the rectangle: the game's bodies stay in the tank, and the state it saves loads.
func TestBodiesStayInTheTank(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a physics validation; make test runs it")
	}
	s := newGame(t, `{"name":"squeeze","flat":{"size":[2,1.2],"bodies":[{"shape":"circle","center":[1,0.6],"radius":1,"static":true},
	{"shape":"circle","center":[0.667,0.6],"radius":0.1,"density":1000,"velocity":[-100,0]}]}}`)
	for f := 0; f < 30; f++ {
		frames(t, s, 1)
		c := s.world.center(1)
		if !(c[0] >= 0 && c[0] <= 2 && c[1] >= 0 && c[1] <= 1.2) {
			t.Fatalf("frame %d: the disc's centre of mass is at %v, outside the tank", f, c)
		}
	}
	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	if err := s.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
}
