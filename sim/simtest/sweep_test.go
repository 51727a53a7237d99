package simtest

import (
	"errors"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// fake is a solver of one particle at rest whose failures are chosen by its parameters: it keeps a snapshot
// every 10 steps and restores it on a failure, as the real solvers do.
type fake struct {
	set                *param.Set
	always, loop, once bool // fail every step; fail at step 15 every time; fail at step 15 once
	steps, snapSteps   int
	failedOnce         bool
}

func newFake() (sim.Solver, error) {
	s := &fake{set: param.NewSet()}
	s.set.Bool(&s.always, param.Spec{Name: "fake.always"})
	s.set.Bool(&s.loop, param.Spec{Name: "fake.loop"})
	s.set.Bool(&s.once, param.Spec{Name: "fake.once"})
	return s, nil
}

func (s *fake) Name() string                { return "fake" }
func (s *fake) Params() *param.Set          { return s.set }
func (s *fake) Reset(sc *scene.Scene) error { s.steps, s.snapSteps = 0, 0; return nil }
func (s *fake) Stats() sim.Stats            { return sim.Stats{Particles: 1, Steps: s.steps, Time: s.time()} }
func (s *fake) time() float64               { return float64(s.steps) / 60 }
func (s *fake) BeginFrame(float64) int      { return 1 }

func (s *fake) Step(dt float64) error {
	s.steps++
	bad := s.always || (s.loop && s.steps == 15) || (s.once && s.steps == 15 && !s.failedOnce)
	if bad {
		failed := s.steps
		s.failedOnce = true
		s.steps = s.snapSteps
		return &sim.NonFiniteError{Mode: "fake", Step: failed, Count: 1, Restored: s.time()}
	}
	if s.steps%10 == 0 {
		s.snapSteps = s.steps
	}
	return nil
}

func (s *fake) Frame(dst *sim.Frame) {
	dst.Resize(1)
	dst.Pos[0], dst.Vel[0], dst.Rho[0], dst.ID[0] = [4]float32{}, [4]float32{}, 1, 0
	dst.Time, dst.Steps = s.time(), s.steps
}

// A run that fails every step, or fails the same way after each restore, fails the sweep; a run that recovers
// and gets past its failure passes with a note.
func TestSweepFailsRunsThatNeverGetPastAFailure(t *testing.T) {
	sc := &scene.Scene{Name: "box", Domain: scene.Box{Min: scene.Vec3{-1, -1, -1}, Max: scene.Vec3{1, 1, 1}}}
	opt := SweepOptions{Steps: 60}
	for _, c := range []struct {
		name string
		want string // in the error; empty: the run passes
		note string // in the note of a passing run
	}{
		{"fake.always", "60 of 60 steps failed", ""},
		{"fake.loop", "never got past the step from t=", ""},
		{"fake.once", "", "1 of 60 steps reported an error and recovered"},
	} {
		note, err := sweepOne(newFake, sc, opt, c.name, param.Value{B: true})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want a pass", c.name, err)
		case c.want == "" && !strings.Contains(note, c.note):
			t.Errorf("%s: note %q, want %q", c.name, note, c.note)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, new(*sim.NonFiniteError))):
			t.Errorf("%s: %v (note %q), want an error saying %q and naming the failure", c.name, err, note, c.want)
		default:
			t.Logf("%s: %v %s", c.name, err, note)
		}
	}
	// the fake at its defaults runs clean
	if note, err := sweepOne(newFake, sc, opt, "fake.always", param.Value{B: false}); err != nil || note != "" {
		t.Errorf("a clean run: %q %v", note, err)
	}
}
