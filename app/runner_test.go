package app

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/scene"
	csurface "github.com/slosh/slosh/sim/surface"
	"github.com/slosh/slosh/sim/surface/field"
	"github.com/slosh/slosh/sim/surface/upsample"
)

// fakeSolver records what the runner does to it. Its fields belong to the runner's goroutine while the runner
// runs; tests read them after Close.
type fakeSolver struct {
	params *param.Set
	x      float32 // a parameter, copied into every frame's positions so the GL side can see it
	sub    int32

	n      int
	steps  int
	time   float64
	resets int
	failAt int       // Step number that fails with a NonFiniteError, once; 0 never
	seenX  []float32 // x at every step
}

func newFake(substeps int32) *fakeSolver {
	f := &fakeSolver{params: param.NewSet(), sub: substeps, n: 4}
	f.params.Float(&f.x, param.Spec{Name: "fake.x", Min: -10, Max: 10})
	f.params.Int(&f.sub, param.Spec{Name: "fake.substeps", Min: 1, Max: 100})
	return f
}

func (f *fakeSolver) Name() string       { return "fake" }
func (f *fakeSolver) Params() *param.Set { return f.params }
func (f *fakeSolver) Reset(*scene.Scene) error {
	f.resets++
	f.steps, f.time = 0, 0
	return nil
}

// BeginFrame plans frames of fake.substeps steps, as a solver whose CFL condition asks for that many.
func (f *fakeSolver) BeginFrame(float64) int { return int(f.sub) }

func (f *fakeSolver) Step(dt float64) error {
	if f.failAt > 0 && f.steps+1 == f.failAt {
		f.failAt = 0
		return &sim.NonFiniteError{Mode: "fake", Step: f.steps + 1, Count: 1, Restored: f.time}
	}
	f.steps++
	f.time += dt
	f.seenX = append(f.seenX, f.x)
	return nil
}
func (f *fakeSolver) Frame(dst *sim.Frame) {
	dst.Resize(f.n)
	for i := range dst.Pos {
		dst.Pos[i] = [4]float32{f.x, 0, 0, 0}
	}
	dst.Time, dst.Steps = f.time, f.steps
}
func (f *fakeSolver) Stats() sim.Stats {
	return sim.Stats{Particles: f.n, Steps: f.steps, Time: f.time}
}

// waitFrame takes published frames until ok accepts one, failing if none has after hangGuard.
func waitFrame(t *testing.T, r *Runner, what string, ok func(p *Published) bool) *Published {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		if p := r.Latest(); p != nil && ok(p) {
			return p
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
	return nil
}

// waitIdle waits until the runner has carried out every command posted.
func waitIdle(t *testing.T, r *Runner) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for r.Status().Pending > 0 {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting for the runner to take its commands")
		}
		time.Sleep(time.Millisecond)
	}
}

// quiet checks that nothing is published for a while.
func quiet(t *testing.T, r *Runner, what string) {
	t.Helper()
	time.Sleep(60 * time.Millisecond)
	if p := r.Latest(); p != nil {
		t.Fatalf("%s: a frame was published (t=%g, %d steps)", what, p.Frame.Time, p.Frame.Steps)
	}
}

func TestRunnerPublishesFramesOfRealSolver(t *testing.T) {
	sc, err := scene.Builtin("pool")
	if err != nil {
		t.Fatal(err)
	}
	s := pbf.New()
	if err := s.Params().Assign("pbf.particles=600"); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	n := s.Stats().Particles
	r := NewRunner(s, 0, false)
	r.Start()
	defer r.Close()
	frames := 0
	waitFrame(t, r, "4 simulated frames", func(p *Published) bool {
		// the first publication is the reset state; every later one is one more frame of `sub` steps
		if p.Frame.N != n || len(p.Frame.Pos) != n {
			t.Fatalf("frame %d has %d particles (%d positions), the solver %d", p.Seq, p.Frame.N, len(p.Frame.Pos), n)
		}
		if want := float64(p.Seq-1) * FrameDt; abs(p.Frame.Time-want) > 1e-9 || p.Stats.Time != p.Frame.Time {
			t.Fatalf("publication %d: frame time %g, stats time %g, want %g", p.Seq, p.Frame.Time, p.Stats.Time, want)
		}
		if p.Seq > 1 {
			frames++
			sub := len(p.Steps) // the frame's substeps, as BeginFrame chose them
			if sub < int(s.Cfg.Step.Min) || p.Steps[0].Substeps != sub || p.Steps[sub-1].Steps != p.Frame.Steps || p.Steps[0].Steps != p.Frame.Steps-sub+1 {
				t.Fatalf("publication %d carries %d step stats (steps %d, substeps %d), want the frame's", p.Seq, sub, p.Frame.Steps, p.Steps[0].Substeps)
			}
		}
		return p.Seq >= 5
	})
	if frames == 0 {
		t.Error("no simulated frame was taken")
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestRunnerAppliesParamsBetweenFrames(t *testing.T) {
	f := newFake(3)
	mirror := newFake(3).Params()
	r := NewRunner(f, 0, false)
	r.Start()
	waitFrame(t, r, "a running frame", func(p *Published) bool { return p.Frame.Steps >= 6 })
	if err := mirror.Assign("fake.x=1.5"); err != nil {
		t.Fatal(err)
	}
	r.SetParams(mirror.Snapshot())
	p := waitFrame(t, r, "a frame with x=1.5", func(p *Published) bool { return p.Frame.Pos[0][0] == 1.5 })
	if len(p.Steps) > 0 && p.Frame.Steps%3 != 0 {
		t.Errorf("a frame ended after %d steps, not a multiple of substeps 3", p.Frame.Steps)
	}
	r.Close()
	changed := -1
	for i, x := range f.seenX {
		if x != 0 && x != 1.5 {
			t.Fatalf("step %d saw x=%g", i, x)
		}
		if x == 1.5 && changed < 0 {
			changed = i
		}
		if changed >= 0 && x != 1.5 {
			t.Fatalf("step %d saw the old x after the new one", i)
		}
	}
	if changed < 0 || changed%3 != 0 {
		t.Errorf("the new value first showed at step %d of %d; it must apply between frames (multiples of 3)", changed, len(f.seenX))
	}
}

func TestRunnerPauseAndSingleStep(t *testing.T) {
	f := newFake(4)
	r := NewRunner(f, 0, true)
	r.Start()
	defer r.Close()
	p := waitFrame(t, r, "the initial state", func(*Published) bool { return true })
	if p.Frame.Steps != 0 || len(p.Steps) != 0 || !r.Status().Paused {
		t.Fatalf("initial publication: %d steps, %d step stats, paused %v", p.Frame.Steps, len(p.Steps), r.Status().Paused)
	}
	quiet(t, r, "paused")

	r.StepFrame()
	p = waitFrame(t, r, "a single step", func(*Published) bool { return true })
	if p.Frame.Steps != 4 || len(p.Steps) != 4 {
		t.Errorf("a single step ran %d steps (%d stats), want one frame of 4", p.Frame.Steps, len(p.Steps))
	}
	quiet(t, r, "after a single step")
	if !r.Status().Paused {
		t.Error("not paused after a single step")
	}

	r.SetPaused(false)
	waitFrame(t, r, "running again", func(p *Published) bool { return p.Frame.Steps >= 12 })
	r.SetPaused(true)
	waitIdle(t, r)
	r.Latest() // drain the frame that was on its way
	quiet(t, r, "paused again")
}

func TestRunnerReset(t *testing.T) {
	f := newFake(2)
	r := NewRunner(f, 0, false)
	r.Start()
	waitFrame(t, r, "some frames", func(p *Published) bool { return p.Frame.Steps >= 10 })
	r.SetPaused(true)
	r.Reset(&scene.Scene{Name: "again"})
	p := waitFrame(t, r, "the reset state", func(p *Published) bool { return p.Frame.Steps == 0 })
	if p.Frame.Time != 0 || len(p.Steps) != 0 {
		t.Errorf("reset frame: t=%g, %d step stats", p.Frame.Time, len(p.Steps))
	}
	if st := r.Status(); st.Err || !strings.Contains(st.Msg, "reset again") {
		t.Errorf("status after reset: %q (error %v)", st.Msg, st.Err)
	}
	r.Close()
	if f.resets != 1 {
		t.Errorf("the solver was reset %d times, want 1", f.resets)
	}
}

func TestRunnerStepErrorPauses(t *testing.T) {
	f := newFake(2)
	f.failAt = 7
	r := NewRunner(f, 0, false)
	r.Start()
	defer r.Close()
	// the frame published after the failure shows the state the solver kept (step 6)
	waitFrame(t, r, "the frame after the failure", func(p *Published) bool {
		if p.Frame.Steps > 6 {
			t.Fatalf("a frame at step %d: stepping went on past the failure", p.Frame.Steps)
		}
		return r.Status().Err && p.Frame.Steps == 6
	})
	st := r.Status()
	if !st.Err || !st.Paused || !strings.Contains(st.Msg, "non-finite") || !strings.HasPrefix(st.Msg, "paused") {
		t.Fatalf("after a failing step: %+v", st)
	}
	quiet(t, r, "after a step error")
	r.SetPaused(false)
	waitFrame(t, r, "running after the error", func(p *Published) bool { return p.Frame.Steps >= 10 })
}

// gatedSolver is a fake whose steps wait for the test: each sends its number on entered as it begins and ends
// when it takes from gate.
type gatedSolver struct {
	*fakeSolver
	entered chan int
	gate    chan struct{}
}

func (g *gatedSolver) Step(dt float64) error {
	g.entered <- g.steps + 1
	<-g.gate
	return g.fakeSolver.Step(dt)
}

// Close in the middle of a frame of 100 substeps returns after the substep under way, without beginning another:
// the test holds each substep until it lets it go, so this holds however fast the machine is.
func TestRunnerCloseIsPromptAndIdempotent(t *testing.T) {
	g := &gatedSolver{fakeSolver: newFake(100), entered: make(chan int, 101), gate: make(chan struct{})}
	r := NewRunner(g, 0, false)
	r.Start()
	<-g.entered // the frame's first substep is under way
	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }()
	for !r.quitting() {
		runtime.Gosched()
	}
	g.gate <- struct{}{} // the first substep ends
	select {
	case <-closed:
	case n := <-g.entered:
		t.Errorf("Close waited for the frame: substep %d began after it was called", n)
		close(g.gate)
		<-closed
	}
	if g.steps != 1 {
		t.Errorf("%d substeps ran, want the 1 under way when Close was called", g.steps)
	}
	r.Close()
	r.SetPaused(true) // commands after Close neither block nor panic
	r.StepFrame()

	idle := NewRunner(newFake(1), 0, false)
	idle.Close() // never started
}

// A runner never publishes frames faster than its pace: over the time it ran, at most one frame per pace and the
// initial state. It runs until it has published ten frames, however long that takes on this machine.
func TestRunnerPacesToRealTime(t *testing.T) {
	const pace = 20 * time.Millisecond
	r := NewRunner(newFake(1), pace, false)
	start := time.Now()
	r.Start()
	last := waitFrame(t, r, "ten frames", func(p *Published) bool { return p.Seq >= 10 }).Seq
	r.Close()
	el := time.Since(start)
	for p := r.Latest(); p != nil; p = r.Latest() {
		last = p.Seq
	}
	if most := uint64(el/pace) + 3; last > most {
		t.Errorf("%d frames published in %v at a pace of %v, want at most %d", last, el, pace, most)
	}
}

func TestExchangeIsTripleBufferedWithoutAllocation(t *testing.T) {
	x := newExchange()
	if x.Take() != nil {
		t.Fatal("Take returned a frame before any was published")
	}
	for i := 1; i <= 3; i++ {
		b := x.Back()
		b.Seq = uint64(i)
		b.Frame.Resize(8)
		x.Publish()
	}
	p := x.Take()
	if p == nil || p.Seq != 3 {
		t.Fatalf("Take after three publications gave %+v, want the newest (3)", p)
	}
	if x.Take() != nil {
		t.Fatal("a frame was taken twice")
	}
	// the consumer's box is never the producer's
	b := x.Back()
	if b == p {
		t.Fatal("the producer writes into the box the consumer holds")
	}
	seq := uint64(10)
	allocs := testing.AllocsPerRun(100, func() {
		b := x.Back()
		seq++
		b.Seq = seq
		b.Frame.Resize(8)
		b.Steps = append(b.Steps[:0], sim.Stats{})
		x.Publish()
		if q := x.Take(); q == nil || q.Seq != seq {
			panic("lost a frame")
		}
	})
	if allocs != 0 {
		t.Errorf("publishing and taking a warm frame allocates %v times", allocs)
	}
}

// Where the GPU cannot compute the surface's kernels, the runner does: every frame it publishes carries one
// finite kernel per particle, the latest frame is recomputed when asked (also while paused), and it stops on
// request.
func TestRunnerPublishesSurfaceKernels(t *testing.T) {
	sc, err := scene.Builtin("pool")
	if err != nil {
		t.Fatal(err)
	}
	s := pbf.New()
	if err := s.Params().Assign("pbf.particles=800"); err != nil {
		t.Fatal(err)
	}
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(s, 0, true)
	r.Start()
	defer r.Close()
	lo, hi := domainOf(sc)
	r.SetView(viewJob{kernels: true, kcfg: csurface.DefaultConfig(), lo: lo, hi: hi})
	p := waitFrame(t, r, "a frame with kernels while paused", func(p *Published) bool { return len(p.View.Ellipsoids) > 0 })
	if len(p.View.Ellipsoids) != p.Frame.N {
		t.Fatalf("%d kernels for %d particles", len(p.View.Ellipsoids), p.Frame.N)
	}
	for i, e := range p.View.Ellipsoids {
		for _, v := range append([][4]float32{e.Center}, e.Axes[:]...) {
			for _, x := range v {
				if x != x || x > 1e6 || x < -1e6 {
					t.Fatalf("kernel %d is not finite: %+v", i, e)
				}
			}
		}
		if e.Center[3] < 0 {
			t.Fatalf("kernel %d has a negative neighbour count", i)
		}
	}
	r.SetPaused(false)
	waitFrame(t, r, "a simulated frame with kernels", func(p *Published) bool { return len(p.Steps) > 0 && len(p.View.Ellipsoids) == p.Frame.N })

	// a mesh of the fluid, closed, around the particles
	r.SetView(viewJob{mesh: true, meshCfg: field.DefaultSettings()})
	p = waitFrame(t, r, "frames with a mesh", func(p *Published) bool { return p.View.Mesh != nil && len(p.View.Ellipsoids) == 0 })
	if _, err := p.View.Mesh.CheckClosed(); err != nil || len(p.View.Mesh.Triangles) == 0 {
		t.Errorf("the published mesh (%d triangles): %v", len(p.View.Mesh.Triangles), err)
	}
	// the upsampled surface: the interior particles and more surface points than there were particles
	r.SetView(viewJob{upsample: true, upCfg: upsample.DefaultParams()})
	p = waitFrame(t, r, "frames upsampled", func(p *Published) bool { return p.View.Up.N > 0 && p.View.Mesh == nil })
	if p.View.Up.N <= p.Frame.N || len(p.View.UpKernels) != p.View.Up.N {
		t.Errorf("upsampled %d particles to %d points with %d kernels", p.Frame.N, p.View.Up.N, len(p.View.UpKernels))
	}
	r.SetView(viewJob{})
	waitFrame(t, r, "frames without kernels", func(p *Published) bool {
		return len(p.View.Ellipsoids) == 0 && p.View.Mesh == nil && p.View.Up.N == 0
	})
}
