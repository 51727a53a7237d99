package flip

import (
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// newSolver resets a solver on a scene with some parameters overridden.
func newSolver(t testing.TB, sc *scene.Scene, sets ...string) *Solver {
	t.Helper()
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

// builtin is a shipped scene.
func builtin(t testing.TB, name string) *scene.Scene { return simtest.Builtin(t, name) }

// frames advances n frames as every caller does, failing on an error.
func frames(t testing.TB, s sim.Solver, n int) {
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
