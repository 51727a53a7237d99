package voronoi

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// column is a resting column 0.12 × 0.2 × 0.12 m filling the bottom of a narrow tank (Figure 6's setting, small).
const column = `{
  "name": "column", "domain": {"min": [0, 0, 0], "max": [0.12, 0.4, 0.12]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.06, 0.1, 0.06], "size": [0.12, 0.2, 0.12]}]
}`

// damBreak is a small dam break: a column 0.2 × 0.3 × 0.2 m in the corner of a 0.6 × 0.5 × 0.2 m tank.
const damBreak = `{
  "name": "small-dambreak", "domain": {"min": [0, 0, 0], "max": [0.6, 0.5, 0.2]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.1, 0.15, 0.1], "size": [0.2, 0.3, 0.2]}]
}`

// newSolver resets a solver on a scene given as JSON with some parameters assigned.
func newSolver(t testing.TB, js string, sets ...string) *Solver {
	t.Helper()
	s := New()
	for _, a := range sets {
		if err := s.Params().Assign(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Reset(simtest.Parse(t, js)); err != nil {
		t.Fatal(err)
	}
	return s
}

// newSolverOn resets a solver on a scene with some parameters assigned.
func newSolverOn(t testing.TB, sc *scene.Scene, sets ...string) *Solver {
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

// runFrames advances n frames of sim.FrameDt, each in the substeps BeginFrame asks for, calling each after every
// step; a step's error fails the test.
func runFrames(t testing.TB, s *Solver, frames int, each func(dt float64)) {
	t.Helper()
	for f := 0; f < frames; f++ {
		n := s.BeginFrame(sim.FrameDt)
		dt := sim.FrameDt / float64(n)
		for k := 0; k < n; k++ {
			if err := s.Step(dt); err != nil {
				var nf *sim.NonFiniteError
				if errors.As(err, &nf) {
					t.Fatalf("frame %d: %v", f, err)
				}
				t.Fatal(err)
			}
			if each != nil {
				each(dt)
			}
		}
	}
}

// figure returns the named figure of the last step.
func figure(s *Solver, name string) float64 {
	for _, f := range s.Stats().Figures {
		if f.Name == name {
			return f.Value
		}
	}
	return math.NaN()
}

func describe(s *Solver) string {
	st := s.Stats()
	out := fmt.Sprintf("t=%.3f n=%d vmax=%.4f", st.Time, st.Particles, st.MaxSpeed)
	for _, f := range st.Figures {
		out += fmt.Sprintf(" %s=%.4g", f.Name, f.Value)
	}
	return out
}

func fmtG(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
