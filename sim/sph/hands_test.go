package sph

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

var (
	_ sim.Hands    = (*Solver)(nil)
	_ sim.Stateful = (*Solver)(nil)
)

// checkIDs fails unless the ids are 0..N−1 each once and every per-particle array holds N.
func checkIDs(t *testing.T, s *Solver) {
	t.Helper()
	n := len(s.x)
	if len(s.v) != n || len(s.id) != n || len(s.mat) != n || len(s.pres) != n || len(s.rs) != n {
		t.Fatalf("%d positions, %d velocities, %d ids, %d materials, %d pressures, %d densities", n, len(s.v), len(s.id), len(s.mat), len(s.pres), len(s.rs))
	}
	seen := make([]bool, n)
	for _, id := range s.id {
		if int(id) >= n || seen[id] {
			t.Fatalf("ids are not 0..%d each once (%d)", n-1, id)
		}
		seen[id] = true
	}
}

// drainChecked drains a ball and checks that the particles left keep their material and pressure, with ids 0..N−1.
func drainChecked(t *testing.T, s *Solver, c [3]float32, r float32) []sim.Particle {
	t.Helper()
	type was struct {
		mat  uint8
		pres float32
	}
	prev := map[[4]float32]was{}
	oil := 0
	for i, x := range s.x {
		prev[x] = was{s.mat[i], s.pres[i]}
		oil += int(s.mat[i])
	}
	if oil == 0 {
		t.Fatal("no particles of material 1 to check the drain with")
	}
	drained, err := s.Drain(c, r)
	if err != nil {
		t.Fatal(err)
	}
	checkIDs(t, s)
	for i, x := range s.x {
		if w := prev[x]; s.mat[i] != w.mat || s.pres[i] != w.pres {
			t.Fatalf("particle %d kept neither its material nor its pressure through the drain: %d %g, was %d %g", i, s.mat[i], s.pres[i], w.mat, w.pres)
		}
	}
	return drained
}

// The tools: pour, drain and undo, the budget, the paddle pushing the water out of its way, the pouring tool.
func TestHands(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	s := newSolver(t, layersScene, "sph.budget=1100")
	runFrames(t, s, 2, nil)
	n := len(s.x)
	if s.Budget() != 1100 {
		t.Fatalf("budget %d, want sph.budget", s.Budget())
	}
	pres := slices.Clone(s.pres)
	got := s.AddFluid([][3]float32{{0.2, 0.3, 0.1}, {0.22, 0.3, 0.1}}, [][3]float32{{0, -1, 0}, {}})
	if got != 2 || len(s.x) != n+2 {
		t.Fatalf("AddFluid took %d, holds %d, want 2 and %d", got, len(s.x), n+2)
	}
	checkIDs(t, s)
	if !slices.Equal(s.pres[:n], pres) || slices.Max(pres) == 0 {
		t.Fatal("adding fluid changed the pressures the next step starts from")
	}
	for i := n; i < n+2; i++ {
		if s.mat[i] != 0 || s.id[i] != uint32(i) || s.pres[i] != 0 {
			t.Fatalf("added particle %d: material %d, id %d, pressure %g; want water with the next id at rest pressure", i, s.mat[i], s.id[i], s.pres[i])
		}
	}
	if got := s.AddFluid(make([][3]float32, 2000), make([][3]float32, 2000)); got != 1100-n-2 || len(s.x) != 1100 {
		t.Fatalf("AddFluid past the budget took %d, holds %d; want what fits, %d", got, len(s.x), 1100-n-2)
	}
	if d := drainChecked(t, s, [3]float32{0.3, 0.3, 0.1}, 0.001); len(d) != 0 {
		t.Fatalf("draining where there is no water took %d particles", len(d))
	}
	drained := drainChecked(t, s, [3]float32{0, 0, 0}, 0.015) // the ones added at the origin
	if len(drained) != 1100-n-2 {
		t.Fatalf("Drain took %d particles, want the %d added at the origin", len(drained), 1100-n-2)
	}
	left := len(s.x)
	drained = drainChecked(t, s, [3]float32{0.3, 0.05, 0.1}, 0.06)
	if len(drained) == 0 || len(s.x) != left-len(drained) {
		t.Fatalf("Drain: %d particles of %d, %d left", len(drained), left, len(s.x))
	}
	for _, p := range drained {
		d := math.Hypot(math.Hypot(float64(p.Pos[0])-0.3, float64(p.Pos[1])-0.05), float64(p.Pos[2])-0.1)
		if d > 0.06 {
			t.Fatalf("drained a particle %.3f m from the centre", d)
		}
	}
	// undo: the drained particles come back
	pos, vel := make([][3]float32, len(drained)), make([][3]float32, len(drained))
	for i, p := range drained {
		pos[i], vel[i] = p.Pos, p.Vel
	}
	if got := s.AddFluid(pos, vel); got != len(drained) || len(s.x) != left {
		t.Fatalf("the undo put back %d of %d", got, len(drained))
	}
	runFrames(t, s, 2, nil)

	// the paddle: a sphere moved into the water pushes it out of its way
	const r = 0.04
	for k := 0; k <= 8; k++ {
		c := [3]float32{0.08 + 0.02*float32(k), 0.1, 0.1}
		s.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: c, Radius: r}})
		runFrames(t, s, 2, nil)
	}
	inside := 0
	for _, x := range s.x {
		if d := math.Hypot(math.Hypot(float64(x[0])-0.24, float64(x[1])-0.1), float64(x[2])-0.1); d < r-0.005 {
			inside++
		}
	}
	if inside > 0 {
		t.Errorf("%d particles inside the paddle", inside)
	}

	// the pouring tool adds water until the budget stops it, and says so
	s.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.2, 0.3, 0.1}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.03, Speed: 1}})
	before := len(s.x)
	runFrames(t, s, 6, nil)
	if len(s.x) <= before {
		t.Fatalf("the pouring tool added nothing (%d particles)", len(s.x))
	}
	checkIDs(t, s)
	notice := ""
	for f := 0; f < 200 && notice == ""; f++ {
		runFrames(t, s, 1, nil)
		notice = s.Stats().Notice
	}
	if !strings.Contains(notice, "sph.budget") || len(s.x) > s.Budget() {
		t.Errorf("at the budget: %d of %d particles, notice %q", len(s.x), s.Budget(), notice)
	}
	s.SetTools(sim.Tools{})
	runFrames(t, s, 1, nil)
}

// The scene's emitters pour, its moving obstacle moves and its blasts fire inside the steps.
func TestSceneEmittersObstaclesBlasts(t *testing.T) {
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
	if len(notices) != 1 || !strings.Contains(notices[0], "blast pushed") {
		t.Errorf("notices %q, want the blast's once", notices)
	}
	// the obstacle is where its motion puts it now
	want := solidAt(t, s, s.time)
	if got := s.col.Obstacles[0].A; got != want {
		t.Errorf("the moving obstacle is at %v, want %v", got, want)
	}
}

// solidAt is the scene's first obstacle's packed centre at time t.
func solidAt(t *testing.T, s *Solver, at float64) [4]float32 {
	t.Helper()
	sh := s.sc.Obstacles[0].ShapeAt(at)
	c := sh.Center
	return [4]float32{float32(c[0]), float32(c[1]), float32(c[2]), s.col.Obstacles[0].A[3]}
}
