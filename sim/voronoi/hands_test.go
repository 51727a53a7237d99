package voronoi

import (
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// pool is a resting layer 0.1 m deep in a 0.4 × 0.3 × 0.2 m tank: 512 particles at 2.5 cm.
const pool = `{
  "name": "pool", "domain": {"min": [0, 0, 0], "max": [0.4, 0.3, 0.2]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.2, 0.05, 0.1], "size": [0.4, 0.1, 0.2]}]
}`

// drainChecked drains a ball and checks that the particles left keep their velocity and pressure, with ids
// 0..N−1 in their old order, and that every particle drained lay in the ball.
func drainChecked(t *testing.T, s *Solver, c [3]float32, r float32) []sim.Particle {
	t.Helper()
	type was struct {
		v  [4]float32
		p  float64
		id uint32
	}
	prev := map[[4]float32]was{}
	for i, x := range s.x {
		prev[x] = was{s.v[i], s.p[i], s.id[i]}
	}
	n := len(s.x)
	drained, err := s.Drain(c, r)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.x)+len(drained) != n {
		t.Fatalf("Drain returned %d particles and left %d of %d", len(drained), len(s.x), n)
	}
	checkIDs(t, s)
	for i, x := range s.x {
		w := prev[x]
		if s.v[i] != w.v || s.p[i] != w.p {
			t.Fatalf("particle %d kept neither its velocity nor its pressure through the drain: %v %g, was %v %g", i, s.v[i], s.p[i], w.v, w.p)
		}
		if i > 0 && prev[s.x[i-1]].id > w.id != (s.id[i-1] > s.id[i]) {
			t.Fatalf("the drain renumbered particles %d and %d out of their order", i-1, i)
		}
	}
	for _, p := range drained {
		d := math.Hypot(math.Hypot(float64(p.Pos[0]-c[0]), float64(p.Pos[1]-c[1])), float64(p.Pos[2]-c[2]))
		if d > float64(r) {
			t.Fatalf("drained a particle %.4f m from the centre, outside the %g m ball", d, r)
		}
		if w, ok := prev[[4]float32{p.Pos[0], p.Pos[1], p.Pos[2], 0}]; !ok || p.Vel != [3]float32{w.v[0], w.v[1], w.v[2]} {
			t.Fatalf("a drained particle at %v moving %v was not a particle of the run", p.Pos, p.Vel)
		}
	}
	return drained
}

// The tools: pour within the budget, drain and undo, the paddle pushing the water out of its way, the pouring
// tool until the budget stops it.
func TestHands(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	const budget = 560
	s := newSolver(t, pool, "voronoi.budget=560")
	runFrames(t, s, 2, nil)
	n := len(s.x)
	if s.Budget() != budget || n != 512 {
		t.Fatalf("budget %d with %d particles, want voronoi.budget and 512", s.Budget(), n)
	}
	pres := append([]float64(nil), s.p...)
	got := s.AddFluid([][3]float32{{0.2, 0.25, 0.1}, {0.23, 0.25, 0.1}}, [][3]float32{{0, -1, 0}, {}})
	if got != 2 || len(s.x) != n+2 {
		t.Fatalf("AddFluid took %d, holds %d, want 2 and %d", got, len(s.x), n+2)
	}
	checkIDs(t, s)
	nonzero := false
	for i := range pres {
		nonzero = nonzero || pres[i] != 0
		if s.p[i] != pres[i] {
			t.Fatalf("adding fluid changed particle %d's pressure, where the next solve starts", i)
		}
	}
	if !nonzero {
		t.Fatal("every pressure is 0 after two frames: the test cannot see them kept")
	}
	if s.x[n] != [4]float32{0.2, 0.25, 0.1, 0} || s.v[n] != [4]float32{0, -1, 0, 0} || s.id[n] != uint32(n) || s.p[n] != 0 {
		t.Fatalf("added particle: at %v moving %v, id %d, pressure %g; want as given, the next id, pressure 0", s.x[n], s.v[n], s.id[n], s.p[n])
	}
	if got := s.AddFluid(make([][3]float32, 200), make([][3]float32, 200)); got != budget-n-2 || len(s.x) != budget {
		t.Fatalf("AddFluid past the budget took %d, holds %d; want what fits, %d", got, len(s.x), budget-n-2)
	}
	if got := s.AddFluid(make([][3]float32, 3), make([][3]float32, 3)); got != 0 || len(s.x) != budget {
		t.Fatalf("AddFluid at the budget took %d, holds %d", got, len(s.x))
	}
	checkIDs(t, s)
	if d := drainChecked(t, s, [3]float32{0.3, 0.25, 0.1}, 0.001); len(d) != 0 {
		t.Fatalf("draining where there is no water took %d particles", len(d))
	}
	if d := drainChecked(t, s, [3]float32{0, 0, 0}, 0.015); len(d) != budget-n-2 { // the ones added at the origin
		t.Fatalf("Drain took %d particles, want the %d added at the origin", len(d), budget-n-2)
	}
	left := len(s.x)
	drained := drainChecked(t, s, [3]float32{0.3, 0.05, 0.1}, 0.06)
	if len(drained) < 20 {
		t.Fatalf("Drain took %d particles from a ball of 6 cm in the water", len(drained))
	}
	// undo: the drained particles come back, with their velocities, after the others
	pos, vel := make([][3]float32, len(drained)), make([][3]float32, len(drained))
	for i, p := range drained {
		pos[i], vel[i] = p.Pos, p.Vel
	}
	if got := s.AddFluid(pos, vel); got != len(drained) || len(s.x) != left {
		t.Fatalf("the undo put back %d of %d", got, len(drained))
	}
	checkIDs(t, s)
	for i, p := range drained {
		k := len(s.x) - len(drained) + i
		if s.x[k] != [4]float32{p.Pos[0], p.Pos[1], p.Pos[2], 0} || s.v[k] != [4]float32{p.Vel[0], p.Vel[1], p.Vel[2], 0} {
			t.Fatalf("the undo put particle %d at %v moving %v, want %v moving %v", k, s.x[k], s.v[k], p.Pos, p.Vel)
		}
	}
	runFrames(t, s, 2, nil)
	checkIDs(t, s)

	// the paddle: a sphere moved through the water at 0.6 m/s pushes it out of its way
	const r = 0.04
	var c [3]float32
	for k := 0; k <= 16; k++ { // moved a centimetre each frame, as the window moves it
		c = [3]float32{0.08 + 0.01*float32(k), 0.06, 0.1}
		s.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: c, Radius: r}})
		runFrames(t, s, 1, nil)
	}
	inside, ahead := 0, 0
	push := 0.0
	for i, x := range s.x {
		dx, dy, dz := float64(x[0]-c[0]), float64(x[1]-c[1]), float64(x[2]-c[2])
		d := math.Sqrt(dx*dx + dy*dy + dz*dz)
		if d < r {
			inside++
		}
		if d < r+0.025 && dx > 0.7*d { // the water just ahead of the paddle
			ahead++
			push += float64(s.v[i][0])
		}
	}
	if inside > 0 {
		t.Errorf("%d particles inside the paddle", inside)
	}
	if ahead < 3 || push/float64(ahead) < 0.15 {
		t.Errorf("the %d particles just ahead of the paddle moving at 0.6 m/s along x move at %.3f m/s along x on average; want pushed",
			ahead, push/float64(max(ahead, 1)))
	} else {
		t.Logf("the %d particles just ahead of the paddle move at %.3f m/s along x", ahead, push/float64(ahead))
	}
	s.SetTools(sim.Tools{})
	runFrames(t, s, 1, nil)

	// the pouring tool adds water until the budget stops it, and says so
	s.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.2, 0.25, 0.1}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.03, Speed: 1}})
	before := len(s.x)
	runFrames(t, s, 4, nil)
	if len(s.x) <= before {
		t.Fatalf("the pouring tool added nothing (%d particles)", len(s.x))
	}
	checkIDs(t, s)
	notice := ""
	for f := 0; f < 60 && notice == ""; f++ {
		runFrames(t, s, 1, nil)
		notice = s.Stats().Notice
	}
	if !strings.Contains(notice, "voronoi.budget") || len(s.x) > s.Budget() {
		t.Errorf("at the budget: %d of %d particles, notice %q", len(s.x), s.Budget(), notice)
	}
	checkIDs(t, s)
	s.SetTools(sim.Tools{})
	runFrames(t, s, 1, nil)
}

// The tools before a reset: nothing to add to, drain or drop into, and no panic.
func TestHandsBeforeReset(t *testing.T) {
	s := New()
	if got := s.AddFluid([][3]float32{{0, 0, 0}}, [][3]float32{{}}); got != 0 {
		t.Errorf("AddFluid before a reset took %d", got)
	}
	if _, err := s.Drain([3]float32{}, 1); err == nil {
		t.Error("Drain before a reset did not fail")
	}
	if _, _, err := s.AddBody(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Radius: 0.05}, Density: 500}); err == nil {
		t.Error("AddBody before a reset did not fail")
	}
	if err := s.RemoveBody(0); err == nil {
		t.Error("RemoveBody before a reset did not fail")
	}
	s.DriveBody(0, [3]float32{1, 0, 0}, true)
	s.SetTools(tools())
}

// The scene's emitters pour, its moving obstacle moves and keeps the water out, and its blast fires once, inside
// the steps.
func TestSceneEmittersObstaclesBlasts(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	s := newSolver(t, handsScene)
	n := len(s.x)
	var notices []string
	for s.time < 0.2 {
		runFrames(t, s, 1, func(float64) {
			if m := s.Stats().Notice; m != "" {
				notices = append(notices, m)
			}
		})
	}
	if len(s.x) <= n {
		t.Errorf("the scene's emitter added nothing: %d particles", len(s.x))
	}
	checkIDs(t, s)
	if len(notices) != 1 || !strings.Contains(notices[0], "blast pushed") {
		t.Errorf("notices %q, want the blast's once", notices)
	}
	// the obstacle is where its motion puts it now, and no particle is inside it
	want := s.sc.Obstacles[0].ShapeAt(s.time)
	if got := s.solids[0].shape.Center; got != want.Center {
		t.Errorf("the moving obstacle is at %v, want %v", got, want.Center)
	}
	if want.Center == s.sc.Obstacles[0].Shape.Center {
		t.Errorf("the obstacle has not moved from %v at t=%.3f s: the test does not see its motion", want.Center, s.time)
	}
	for i, x := range s.x {
		if d := want.Distance(scene.Vec3{float64(x[0]), float64(x[1]), float64(x[2])}); d < 0 {
			t.Fatalf("particle %d is %.4f m inside the moving obstacle", i, -d)
		}
	}
}

// Water pressed together is removed by the method's rule (§3.3), and a step that removes many says so: a paddle
// over most of the tank (as a replay could hold one, 1 m in a 20 cm tank) left 78 of 512 particles after one frame
// without a word. (The window holds its paddle to sim.PaddleLimit, and replays are refused beyond it.)
func TestSqueezedWaterIsReported(t *testing.T) {
	s := newSolver(t, pool)
	runFrames(t, s, 1, nil)
	n := len(s.x)
	s.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: [3]float32{0.1, 0.1, 0.1}, Radius: 0.25}})
	n0 := s.BeginFrame(sim.FrameDt)
	if err := s.Step(sim.FrameDt / float64(n0)); err != nil {
		t.Fatal(err)
	}
	if err := s.Step(sim.FrameDt / float64(n0)); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); len(s.x) >= n || !strings.Contains(st.Notice, "particles were removed, pressed closer than voronoi.min_gap") {
		t.Errorf("%d of %d particles left under a 25 cm paddle; notice %q", len(s.x), n, st.Notice)
	}
	if lim := sim.PaddleLimit(s.sc.Domain); lim > 0.1 || lim < 0.05 {
		t.Errorf("the paddle limit of a 20 × 30 × 20 cm tank is %.3g m, want about 7 cm", lim)
	}
}
