package app

import (
	"bytes"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/ui"
)

// onGLThread makes a CPU solver look like a GPU one to the GPU driver, with a fixed step cost (StepMs) so the
// budget's choices do not depend on how fast the machine is.
type onGLThread struct {
	sim.Solver
	stepMs float64
}

func (g *onGLThread) Particles() render.Particles { return render.Particles{} }
func (g *onGLThread) Delete()                     {}
func (g *onGLThread) Stats() sim.Stats {
	st := g.Solver.Stats()
	st.StepMs = g.stepMs
	return st
}

func TestStepsInBudget(t *testing.T) {
	for _, c := range []struct {
		budget, cost float64
		left, want   int
	}{
		{0, 0.001, 8, 8},       // no budget: the whole frame
		{0.01, 0, 8, 8},        // the cost is not known yet: the whole frame
		{0.01, 0.004, 8, 2},    // two fit
		{0.01, 0.004, 1, 1},    // only one is left
		{0.001, 0.004, 8, 1},   // none fits: one still runs, so the simulation moves
		{0.1, 0.004, 8, 8},     // all fit
		{-1, 0.004, 5, 5},      // a negative budget is no budget
		{0.0125, 0.0025, 9, 5}, // exact
	} {
		if got := stepsInBudget(c.budget, c.cost, c.left); got != c.want {
			t.Errorf("stepsInBudget(%g, %g, %d) = %d, want %d", c.budget, c.cost, c.left, got, c.want)
		}
	}
}

// budgetRun is a small pbf-cpu dam break (its CFL condition asks for 4 or more substeps a frame) in the GPU driver.
func budgetRun(t *testing.T, sceneName string) (*gpuDriver, sim.Solver) {
	t.Helper()
	m, ok := findMode(Modes(), "pbf-cpu")
	if !ok {
		t.Fatal("no pbf-cpu mode")
	}
	ss, _ := headless(t, contractRun(m, sceneName))
	s := ss.solver
	ss.solver = nil // the driver owns it now; nothing else steps it
	var status statusLine
	return newGPUDriver(m, &onGLThread{Solver: s, stepMs: 1}, false, &status, nil), s
}

func stateHash(t *testing.T, s sim.Solver) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := s.(sim.Stateful).WriteState(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The frame budget changes when steps run, never what they compute: the GPU driver spreading each frame over
// display frames one substep at a time, with a parameter edit and a drain arriving in the middle of a frame, ends
// bit for bit where the same driver running whole frames ends when both edits arrive between the same frames
// (which is where the budgeted driver applies them). The reference is the driver as it ran before the budget: a
// whole frame per display frame.
func TestFrameBudgetChangesNoStep(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: 40 frames of a pbf-cpu dam break, twice; make test runs it")
	}
	const frames = 40
	drain := func(s sim.Solver) (string, error) {
		_, err := s.(*onGLThread).Solver.(sim.Hands).Drain([3]float32{0.2, 0.2, 0.2}, 0.15)
		return "drained", err
	}
	edit := func(d *gpuDriver) {
		p, ok := d.Params().Lookup("pbf.vorticity")
		if !ok {
			t.Fatal("no pbf.vorticity")
		}
		if err := p.Set(param.Value{F: p.Get().F + 0.05}); err != nil {
			t.Fatal(err)
		}
		d.ParamsChanged()
	}

	// whole frames: 1/60 s of wall time a display frame, no budget
	whole, ws := budgetRun(t, "dambreak")
	for k := 0; k < frames; k++ {
		if k == 11 { // after 11 frames: where the budgeted run below applies them
			edit(whole)
			whole.Do(drain, nil)
		}
		whole.Update(FrameDt, 0)
		if whole.inFrame() {
			t.Fatalf("frame %d: the driver without a budget left a frame in progress", k)
		}
	}
	if ws.Stats().Steps < 4*frames {
		t.Fatalf("%d steps in %d frames: the dam break should take at least 4 a frame", ws.Stats().Steps, frames)
	}
	// and that is what a headless run computes: frames stepped as `slosh run` steps them, the edits between the
	// 11th and the 12th
	_, hs := budgetRun(t, "dambreak")
	stepFrames(t, hs, 11)
	if err := hs.Params().Assign("pbf.vorticity=0.07"); err != nil {
		t.Fatal(err)
	}
	if _, err := hs.(sim.Hands).Drain([3]float32{0.2, 0.2, 0.2}, 0.15); err != nil {
		t.Fatal(err)
	}
	stepFrames(t, hs, frames-11)
	if !bytes.Equal(stateHash(t, ws), stateHash(t, hs)) {
		t.Fatal("the GPU driver's whole frames differ from a headless run's")
	}

	// one substep a display frame: a budget of 1 ms at 1 ms a step
	spread, ss := budgetRun(t, "dambreak")
	shown, edited, maxLeft, done := 0, false, 0, 0
	for ss.Stats().Steps < ws.Stats().Steps || spread.inFrame() {
		before := ss.Stats().Steps
		spread.Update(FrameDt, 0.001)
		if got := ss.Stats().Steps - before; got > 1 && shown > 0 { // the first frame runs whole: no cost known yet
			t.Fatalf("display frame %d ran %d steps in a budget of one", shown, got)
		}
		shown++
		maxLeft = max(maxLeft, spread.left)
		if !spread.inFrame() {
			done++
		}
		if shown > frames*64 {
			t.Fatal("the budgeted driver does not advance")
		}
		// the edits arrive in the middle of the 11th frame, after its first substep: they must wait for its end
		if !edited && done == 10 && spread.inFrame() {
			edited = true
			steps := ss.Stats().Steps
			edit(spread)
			spread.Do(drain, nil)
			if ss.Stats().Steps != steps || len(spread.waiting) != 2 {
				t.Fatalf("edits in the middle of a frame: %d waiting, want 2", len(spread.waiting))
			}
			if p, _ := ss.Params().Lookup("pbf.vorticity"); p.Get().F != float64(float32(0.02)) {
				t.Fatalf("pbf.vorticity reached the solver in the middle of a frame: %v", p.Get())
			}
		}
	}
	if !edited {
		t.Fatal("no display frame fell in the middle of frame 10")
	}
	if maxLeft < 3 {
		t.Fatalf("frames were never spread over display frames (at most %d substeps left)", maxLeft)
	}
	if shown+3 < ws.Stats().Steps { // one display frame a step, but the first frame's 4
		t.Fatalf("%d display frames for %d steps", shown, ws.Stats().Steps)
	}
	if !bytes.Equal(stateHash(t, ws), stateHash(t, ss)) {
		t.Fatal("the budgeted run differs from the whole-frame run")
	}
}

// The slow-motion factor is what the steps say: simulated seconds (the steps' Δt) per wall second. A pool at rest
// takes its fewest substeps, 4 a frame; at 60 display frames a second, one substep a display frame is 1/4 of real
// time, two are 1/2, and whole frames are real time.
func TestSlowMotionFactorIsWhatTheStepsSay(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a pbf-cpu pool; make test runs it")
	}
	for _, c := range []struct {
		budget float64 // at 1 ms a step
		want   float64
	}{{0.001, 0.25}, {0.002, 0.5}, {0, 1}} {
		d, s := budgetRun(t, "pool")
		clock := time.Unix(0, 0)
		d.clock = func() time.Time { return clock }
		for k := 0; k < 60; k++ {
			d.Update(FrameDt, c.budget)
			if st := s.Stats(); st.Substeps != 4 {
				t.Fatalf("the pool took %d substeps; the test wants its fewest, 4", st.Substeps)
			}
			clock = clock.Add(time.Second / 60)
		}
		if got := d.SimSpeed(); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("budget %g s at 1 ms a step: %.6f× real time, the steps say %g×", c.budget, got, c.want)
		}
		if got, want := ui.SlowMotion(d.SimSpeed(), false), fmt.Sprintf("%.2f× real time", c.want); c.want < 1 && got != want {
			t.Errorf("the status shows %q, want %q", got, want)
		}
	}
}
