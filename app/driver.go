package app

import (
	"fmt"
	"sync"
	"time"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// driver runs the active mode for the window. All methods are called on the GL thread.
type driver interface {
	Mode() Mode
	// Params is the set the panel edits: the solver's own for GPU modes, a mirror for CPU modes.
	Params() *param.Set
	// ParamsChanged passes edits of Params on to the solver.
	ParamsChanged()
	// Reset rebuilds the state from sc; errors arrive in the status line.
	Reset(sc *scene.Scene)
	Paused() bool
	SetPaused(bool)
	// StepFrame simulates one frame and pauses.
	StepFrame()
	// Update advances (GPU) or collects the newest frame (CPU); once per display frame, wall seconds since the last.
	Update(wallDt float64)
	// Particles is what to draw for the newest frame.
	Particles() render.Particles
	// Version changes whenever the particles change (a simulated frame, a reset).
	Version() uint64
	Stats() sim.Stats
	// SimRate is simulated frames per wall second, over the last half second or so.
	SimRate() float64
	// Do runs f on the solver between steps — at once for GPU modes, on the runner's goroutine for CPU modes —
	// and then, when f succeeded, then on the GL thread (nil is nothing). f's message or error goes to the status
	// line; f returns "" for the quiet updates tools make every frame.
	Do(f func(sim.Solver) (string, error), then func())
	// PickFrame is the newest frame's particles on the CPU, for picking with the mouse; GPU modes read it back.
	PickFrame() *sim.Frame
	// SetFrameSink calls f with every frame simulated from now on (nil stops): on the runner's goroutine for CPU
	// modes, on the GL thread (after a read-back) for GPU modes. f copies what it keeps; the simulation waits for it.
	SetFrameSink(f func(*sim.Frame))
	// Flat is the newest frame of a flat mode's 2D view (sim.Flat), valid until the next Update; nil for 3D modes.
	Flat() *sim.FlatFrame
	// Twin is the second simulation of an A/B comparison (the solver is a pair): what to draw for it, its newest
	// stats, and whether there is one.
	Twin() (render.Particles, sim.Stats, bool)
	// Release stops running the solver and hands it back without deleting it (to enter or leave A/B); the driver
	// is closed.
	Release() sim.Solver
	Close()
}

// statusLine is the last message shown under the simulation controls.
type statusLine struct {
	msg   string
	isErr bool
	at    time.Time // when it was set
}

func (s *statusLine) set(msg string, isErr bool) { s.msg, s.isErr, s.at = msg, isErr, time.Now() }

// errorShown is how long an error stays over the view while the panels, and with them the status bar, are
// hidden.
const errorShown = 8 * time.Second

// rateMeter measures events per second over windows of about half a second.
type rateMeter struct {
	start time.Time
	count int
	rate  float64
}

func (m *rateMeter) add(n int, now time.Time) {
	if m.start.IsZero() {
		m.start = now
	}
	m.count += n
	if el := now.Sub(m.start).Seconds(); el >= 0.5 {
		m.rate = float64(m.count) / el
		m.start, m.count = now, 0
	}
}

// cpuDriver runs a CPU solver in a Runner and uploads the newest frame it published.
type cpuDriver struct {
	mode   Mode
	runner *Runner
	mirror *param.Set
	bufs   render.FrameBuffers
	parts  render.Particles
	stats  sim.Stats
	seq    uint64
	rate   rateMeter
	msgSeq uint64

	status *statusLine
	record func(sim.Stats)
	notice string

	last *Published // the newest frame taken from the runner
	// the second simulation of an A/B pair, uploaded from the frames' Twin
	twinBufs  render.FrameBuffers
	twinParts render.Particles
	twinStats sim.Stats
	twin      bool

	mu    sync.Mutex
	thens []func() // to run on the GL thread after actions the runner carried out
}

// newCPUDriver takes over a solver that has been configured and Reset, and starts its runner. record receives the
// stats of every simulated step (the panel's history).
func newCPUDriver(m Mode, s sim.Solver, pace time.Duration, paused bool, status *statusLine, record func(sim.Stats)) *cpuDriver {
	mirror := m.Params()
	carry(mirror, s.Params().Snapshot())
	d := &cpuDriver{mode: m, mirror: mirror, status: status, record: record, stats: s.Stats()}
	d.runner = NewRunner(s, pace, paused)
	d.runner.Start()
	return d
}

func (d *cpuDriver) Mode() Mode                  { return d.mode }
func (d *cpuDriver) Params() *param.Set          { return d.mirror }
func (d *cpuDriver) ParamsChanged()              { d.runner.SetParams(d.mirror.Snapshot()) }
func (d *cpuDriver) Reset(sc *scene.Scene)       { d.runner.Reset(sc) }
func (d *cpuDriver) Paused() bool                { return d.runner.Status().Paused }
func (d *cpuDriver) SetPaused(p bool)            { d.runner.SetPaused(p) }
func (d *cpuDriver) StepFrame()                  { d.runner.StepFrame() }
func (d *cpuDriver) Particles() render.Particles { return d.parts }
func (d *cpuDriver) Version() uint64             { return d.seq }
func (d *cpuDriver) Stats() sim.Stats            { return d.stats }
func (d *cpuDriver) SimRate() float64            { return d.rate.rate }

func (d *cpuDriver) Do(f func(sim.Solver) (string, error), then func()) {
	d.runner.Do(func(s sim.Solver) (string, error) {
		msg, err := f(s)
		if err == nil && then != nil {
			d.mu.Lock()
			d.thens = append(d.thens, then)
			d.mu.Unlock()
		}
		return msg, err
	})
}

func (d *cpuDriver) SetFrameSink(f func(*sim.Frame)) { d.runner.SetSink(f) }

func (d *cpuDriver) PickFrame() *sim.Frame {
	if d.last == nil {
		return nil
	}
	return &d.last.Frame
}

func (d *cpuDriver) Update(float64) {
	now := time.Now()
	d.mu.Lock()
	thens := d.thens
	d.thens = nil
	d.mu.Unlock()
	for _, f := range thens {
		f()
	}
	if st := d.runner.Status(); st.MsgSeq != d.msgSeq {
		d.msgSeq = st.MsgSeq
		d.status.set(st.Msg, st.Err)
	}
	p := d.runner.Latest()
	if p == nil {
		d.rate.add(0, now)
		return
	}
	d.last = p
	if p.Flat == nil { // a flat mode's window draws its FlatFrame, not particles
		parts, err := uploadView(&d.bufs, &p.Frame, &p.View)
		if err != nil {
			d.status.set(err.Error(), true)
		} else {
			d.parts = parts
		}
	}
	d.stats = p.Stats
	if tw := p.Twin; tw != nil {
		d.twin, d.twinStats = true, tw.Stats
		parts, err := uploadView(&d.twinBufs, &tw.Frame, &tw.View)
		if err != nil {
			d.status.set("B: "+err.Error(), true)
		} else {
			d.twinParts = parts
		}
	}
	for _, s := range p.Steps {
		if d.record != nil {
			d.record(s)
		}
		showNotice(d.status, &d.notice, s.Notice)
	}
	frames := 0
	if len(p.Steps) > 0 && p.Seq > d.seq {
		frames = int(p.Seq - d.seq) // frames published meanwhile were simulated too
	}
	d.seq = p.Seq
	d.rate.add(frames, now)
}

// showNotice puts a solver's notice in the status line when it is new.
func showNotice(status *statusLine, last *string, notice string) {
	if notice != "" && notice != *last {
		*last = notice
		status.set(notice, false)
	}
}

func (d *cpuDriver) Flat() *sim.FlatFrame {
	if d.last == nil {
		return nil
	}
	return d.last.Flat
}

func (d *cpuDriver) Twin() (render.Particles, sim.Stats, bool) {
	return d.twinParts, d.twinStats, d.twin
}

func (d *cpuDriver) Release() sim.Solver {
	s := d.runner.Release()
	d.Close()
	return s
}

func (d *cpuDriver) Close() {
	d.runner.Close()
	d.bufs.Delete()
	d.twinBufs.Delete()
	d.parts, d.twinParts = render.Particles{}, render.Particles{}
}

// gpuDriver steps a GPU solver on the GL thread: one simulated frame per display frame when running, from an
// accumulator of wall time capped at maxBacklog frames, so a slow GPU slows the simulation instead of spiralling.
// The solver's BeginFrame chooses the frame's substeps.
type gpuDriver struct {
	mode    Mode
	s       gpuSolver
	paused  bool
	stepReq bool
	acc     float64
	rate    rateMeter
	version uint64

	status *statusLine
	record func(sim.Stats)
	notice string
	frame  sim.Frame
	caps   capWatch
	sink   func(*sim.Frame)
}

// maxBacklog caps the accumulator of the GPU driver, in frames.
const maxBacklog = 2

func newGPUDriver(m Mode, s gpuSolver, paused bool, status *statusLine, record func(sim.Stats)) *gpuDriver {
	return &gpuDriver{mode: m, s: s, paused: paused, status: status, record: record}
}

func (d *gpuDriver) Mode() Mode                  { return d.mode }
func (d *gpuDriver) Flat() *sim.FlatFrame        { return nil }
func (d *gpuDriver) Params() *param.Set          { return d.s.Params() }
func (d *gpuDriver) ParamsChanged()              {}
func (d *gpuDriver) Paused() bool                { return d.paused }
func (d *gpuDriver) SetPaused(p bool)            { d.paused = p; d.stepReq = d.stepReq && p }
func (d *gpuDriver) StepFrame()                  { d.paused, d.stepReq = true, true }
func (d *gpuDriver) Particles() render.Particles { return d.s.Particles() }
func (d *gpuDriver) Version() uint64             { return d.version }
func (d *gpuDriver) Stats() sim.Stats            { return d.s.Stats() }
func (d *gpuDriver) SimRate() float64            { return d.rate.rate }

func (d *gpuDriver) Do(f func(sim.Solver) (string, error), then func()) {
	msg, err := f(d.s)
	switch {
	case err != nil:
		d.status.set(err.Error(), true)
		return
	case msg != "":
		d.status.set(msg, false)
	}
	d.version++
	if then != nil {
		then()
	}
}

func (d *gpuDriver) SetFrameSink(f func(*sim.Frame)) { d.sink = f }

func (d *gpuDriver) PickFrame() *sim.Frame {
	d.s.Frame(&d.frame)
	return &d.frame
}

func (d *gpuDriver) Reset(sc *scene.Scene) {
	if err := sim.Reset(d.s, sc); err != nil {
		d.status.set(fmt.Sprintf("%s: reset failed: %v", d.mode.Name, err), true)
		return
	}
	d.acc = 0
	d.version++
	d.caps = capWatch{}
	d.status.set(withWarnings(fmt.Sprintf("reset %s: %d particles", sceneLabel(sc), d.s.Stats().Particles), d.s))
}

func (d *gpuDriver) Update(wallDt float64) {
	now := time.Now()
	run := d.stepReq
	if !d.paused {
		d.acc = min(d.acc+max(wallDt, 0), maxBacklog*FrameDt)
		if d.acc >= FrameDt {
			d.acc -= FrameDt
			run = true
		}
	}
	if !run {
		d.rate.add(0, now)
		return
	}
	d.stepReq = false
	d.version++
	n := max(1, d.s.BeginFrame(FrameDt))
	if msg := d.caps.frame(d.s, n); msg != "" {
		d.status.set(msg, true)
	}
	for k := 0; k < n; k++ {
		if err := d.s.Step(FrameDt / float64(n)); err != nil {
			d.paused = true
			d.status.set(stepErrorMessage(d.mode.Name, err), true)
			break
		}
		st := d.s.Stats()
		if d.record != nil {
			d.record(st)
		}
		showNotice(d.status, &d.notice, st.Notice)
	}
	if d.sink != nil {
		d.s.Frame(&d.frame)
		d.sink(&d.frame)
	}
	d.rate.add(1, now)
}

// gpuTwin is a GPU pair's second simulation, drawn from its own buffers.
type gpuTwin interface {
	TwinParticles() render.Particles
	TwinStats() sim.Stats
}

func (d *gpuDriver) Twin() (render.Particles, sim.Stats, bool) {
	if t, ok := d.s.(gpuTwin); ok {
		return t.TwinParticles(), t.TwinStats(), true
	}
	return render.Particles{}, sim.Stats{}, false
}

func (d *gpuDriver) Release() sim.Solver {
	s := d.s
	d.s = nil
	return s
}

func (d *gpuDriver) Close() {
	if d.s != nil {
		d.s.Delete()
	}
}
