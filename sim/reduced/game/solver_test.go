package game

import (
	"errors"
	"math"
	"testing"

	"github.com/ByteArena/box2d"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

const level1 = `{"name":"l1","mode":"reduced","flat":{"size":[2,1.2],
	"bodies":[{"shape":"box","center":[0.3,0.6],"size":[0.12,0.12],"density":600,"crate":true},
	{"shape":"circle","center":[1,0.4],"radius":0.1,"static":true}],
	"currents":[{"points":[[0.2,0.3],[1,0.8],[1.8,0.3]],"speed":0.5,"width":0.2,"key":1}],
	"goal":{"zone":{"min":[1.6,0.1],"max":[1.95,0.5]},"crates":1,"time":60}}}`

func newGame(t testing.TB, js string, sets ...string) *Solver {
	t.Helper()
	sc, err := scene.Parse([]byte(js), "test.json")
	if err != nil {
		t.Fatal(err)
	}
	s := New()
	for _, a := range sets {
		if err := s.Params().Assign(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	return s
}

func frames(t testing.TB, s *Solver, n int) {
	t.Helper()
	for f := 0; f < n; f++ {
		k := s.BeginFrame(sim.FrameDt)
		for i := 0; i < k; i++ {
			if err := s.Step(sim.FrameDt / float64(k)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// A level's current runs along its stroke from the start; tracers and the dye move with it.
func TestLevelCurrentRuns(t *testing.T) {
	s := newGame(t, level1)
	u, v := s.velocity(1, 0.8)
	t.Logf("at the stroke's top: (%.3f, %.3f) m/s", u, v)
	if !(u > 0.15) || math.Abs(v) > 0.5*u {
		t.Errorf("the current along the stroke's top runs at (%.3f, %.3f) m/s, want about 0.5 m/s to the right", u, v)
	}
	var f sim.FlatFrame
	s.FlatFrame(&f)
	before := append([][4]float32(nil), f.Image...)
	frames(t, s, 30)
	s.FlatFrame(&f)
	moved := 0
	for k := range before {
		if math.Abs(float64(before[k][0]-f.Image[k][0])) > 0.02 {
			moved++
		}
	}
	if moved < len(before)/20 {
		t.Errorf("after 0.5 s the dye changed in %d of %d cells", moved, len(before))
	}
	if len(f.Shapes) != 3 || len(f.Tracers) != int(s.cfg.Tracers) || f.Status == "" {
		t.Errorf("frame: %d shapes, %d tracers, status %q", len(f.Shapes), len(f.Tracers), f.Status)
	}
}

// A step that meets a non-finite body reports it and goes back to the last kept state, from which the game goes on.
func TestStepFailureRecovers(t *testing.T) {
	s := newGame(t, level1)
	frames(t, s, 70) // past a kept state at step 60
	s.world.bodies[0].b.SetLinearVelocity(box2d.MakeB2Vec2(math.NaN(), 0))
	err := s.Step(sim.FrameDt)
	var nf *sim.NonFiniteError
	if !errors.As(err, &nf) {
		t.Fatalf("a NaN body: %v", err)
	}
	if s.steps != 60 || nf.Restored != s.time || !s.world.finite() {
		t.Fatalf("after the failure: step %d, time %g (reported %g), bodies finite %v", s.steps, s.time, nf.Restored, s.world.finite())
	}
	frames(t, s, 10)
	if s.steps != 70 || !s.world.finite() {
		t.Fatalf("the game did not go on: step %d", s.steps)
	}
}
