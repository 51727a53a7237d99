// Package simtest holds test harnesses every solver gets for free because they are driven by the solver's
// param.Set and the sim.Solver contract alone.
package simtest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// SweepOptions configure Sweep.
type SweepOptions struct {
	// Steps per run (the issue asks for 60).
	Steps int
	// Base assignments ("name=value") applied before each run, e.g. a coarse spacing to keep runs small. The swept
	// parameter's own assignment comes after and wins.
	Base []string
	// Limit replaces a hard bound that only sets how much work a run does (a particle count of 16 million) with a
	// value the test machine can afford; the reason is required and printed.
	Limit map[string]Limit
	// Only, when not empty, sweeps just the parameters named (a second sweep on another scene for what acts
	// there); empty sweeps every parameter.
	Only []string
}

// Limit is a stand-in for a parameter's hard maximum in a sweep.
type Limit struct {
	Max    float64
	Reason string
}

// Sweep runs the solver with each registered parameter at its hard minimum and maximum (both values of a bool,
// every choice of a choice, every component of a vector at once) on a scene. Each run must either step with
// finite state inside the domain every time, or fail with an error — from Reset (a clear message about the
// setting) or from Step, after which the solver must still hand out finite state and the run must get past the
// failure: a run that keeps failing (every step a NonFiniteError, or the same blow-up after each restore) fails
// the sweep. A panic fails the test.
//
// The cases run one after another on the calling goroutine (not as subtests), so a GPU solver keeps the GL
// context that is current on the test's thread.
func Sweep(t *testing.T, newSolver func() (sim.Solver, error), sc *scene.Scene, opt SweepOptions) {
	t.Helper()
	probe, err := newSolver()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range opt.Only {
		if _, ok := probe.Params().Lookup(name); !ok {
			t.Fatalf("the sweep names %s, which %s does not have", name, probe.Name())
		}
	}
	var names []string
	var values []param.Value
	for _, p := range probe.Params().All() {
		if len(opt.Only) > 0 && !slices.Contains(opt.Only, p.Name) {
			continue
		}
		for _, v := range extremes(p, opt.Limit) {
			names = append(names, p.Name)
			values = append(values, v)
		}
	}
	if d, ok := probe.(interface{ Delete() }); ok {
		d.Delete()
	}
	for k, name := range names {
		label := fmt.Sprintf("%s=%s", name, formatValue(probe.Params(), name, values[k]))
		note, err := sweepOne(newSolver, sc, opt, name, values[k])
		switch {
		case err != nil:
			t.Errorf("%s: %v", label, err)
		case note != "":
			t.Logf("%s: %s", label, note)
		}
	}
}

func formatValue(set *param.Set, name string, v param.Value) string {
	p, _ := set.Lookup(name)
	return p.Format(v)
}

func extremes(p *param.Param, limits map[string]Limit) []param.Value {
	hi := p.Max
	if l, ok := limits[p.Name]; ok {
		hi = l.Max
	}
	switch p.Kind {
	case param.Bool:
		return []param.Value{{B: false}, {B: true}}
	case param.Choice:
		out := make([]param.Value, len(p.Items))
		for i := range out {
			out[i] = param.Value{F: float64(i)}
		}
		return out
	case param.Vec3:
		return []param.Value{{V: [3]float64{p.Min, p.Min, p.Min}}, {V: [3]float64{hi, hi, hi}}}
	}
	return []param.Value{{F: p.Min}, {F: hi}}
}

// sweepOne runs one case; it returns a note worth logging, or an error that fails the sweep.
func sweepOne(newSolver func() (sim.Solver, error), sc *scene.Scene, opt SweepOptions, name string, v param.Value) (string, error) {
	var notes []string
	if l, ok := opt.Limit[name]; ok {
		notes = append(notes, fmt.Sprintf("hard maximum replaced by %g: %s", l.Max, l.Reason))
	}
	s, err := newSolver()
	if err != nil {
		return "", err
	}
	if d, ok := s.(interface{ Delete() }); ok {
		defer d.Delete()
	}
	set := s.Params()
	for _, a := range opt.Base {
		if err := set.Assign(a); err != nil {
			return "", err
		}
	}
	p, _ := set.Lookup(name)
	if err := p.Set(v); err != nil {
		return "", fmt.Errorf("the sweep's own value was refused: %w", err)
	}
	if err := s.Reset(sc); err != nil {
		if strings.TrimSpace(err.Error()) == "" {
			return "", errors.New("Reset failed with an empty message")
		}
		return strings.Join(append(notes, "Reset refused the setting: "+err.Error()), "; "), nil
	}
	failures := 0
	var f sim.Frame
	s.Frame(&f)
	// A failed step restores an earlier state, so a run that fails the same way again and again never gets
	// past its first failure: stuckUntil is the latest time a failed step was heading for, and the run must end
	// beyond it. (A deterministic solver that blows up once at a setting blows up there every time.)
	var lastErr error
	lastStep, stuckUntil := 0, math.Inf(-1)
	k, n, dt := 0, 0, 0.0 // step k of a frame of n
	for step := 0; step < opt.Steps; step++ {
		if k == n { // a frame's start: the solver picks its substeps
			k, n = 0, max(1, s.BeginFrame(sim.FrameDt))
			dt = sim.FrameDt / float64(n)
		}
		k++
		from := f.Time
		if err := s.Step(dt); err != nil {
			var nf *sim.NonFiniteError
			if !errors.As(err, &nf) && strings.TrimSpace(err.Error()) == "" {
				return "", fmt.Errorf("step %d failed with an empty message", step)
			}
			failures++
			lastErr, lastStep, stuckUntil = err, step, math.Max(stuckUntil, from+dt)
		}
		s.Frame(&f)
		if msg := checkFrame(&f, sc); msg != "" {
			return "", fmt.Errorf("step %d: %s", step, msg)
		}
	}
	if failures > 0 && f.Time < stuckUntil-dt/2 {
		return "", fmt.Errorf("%d of %d steps failed and the run never got past the step from t=%.4gs (it ended at t=%.4gs); the last "+
			"failure, at step %d: %w. A setting inside the hard bounds must run: make the solver stable there, "+
			"narrow the bound, or have Reset refuse the setting with a clear message", failures, opt.Steps,
			stuckUntil-dt, f.Time, lastStep, lastErr)
	}
	if failures > 0 {
		notes = append(notes, fmt.Sprintf("%d of %d steps reported an error and recovered", failures, opt.Steps))
	}
	return strings.Join(notes, "; "), nil
}

// checkFrame says what is wrong with a frame: non-finite values or particles outside the domain.
func checkFrame(f *sim.Frame, sc *scene.Scene) string {
	lo, hi := sc.Domain.Min, sc.Domain.Max
	if fl := sc.Flat; fl != nil {
		// a 2D scene's particles (tracers) lie in its rectangle, in the plane z = 0
		lo, hi = scene.Vec3{}, scene.Vec3{fl.Size[0], fl.Size[1], 0}
	}
	for i := 0; i < f.N; i++ {
		for c := 0; c < 3; c++ {
			x, v := float64(f.Pos[i][c]), float64(f.Vel[i][c])
			if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Sprintf("particle %d has non-finite state: x=%v v=%v", i, f.Pos[i], f.Vel[i])
			}
			// a particle may sit on the wall, within float rounding
			if tol := 1e-5 * (1 + math.Abs(x)); x < lo[c]-tol || x > hi[c]+tol {
				return fmt.Sprintf("particle %d at %v is outside the domain %v–%v", i, f.Pos[i], lo, hi)
			}
		}
		if r := float64(f.Rho[i]); math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Sprintf("particle %d has non-finite density %v", i, r)
		}
	}
	return ""
}
