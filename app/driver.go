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
	// Update advances (GPU) or collects the newest frame (CPU); once per display frame, wall seconds since the
	// last. budget is the seconds this display frame has for simulation steps on the GL thread (≤ 0: no limit):
	// a GPU mode spreads a frame of many substeps over several display frames, so the window keeps its rate.
	Update(wallDt, budget float64)
	// Particles is what to draw for the newest frame.
	Particles() render.Particles
	// Version changes whenever the particles change (a simulated frame, a reset).
	Version() uint64
	Stats() sim.Stats
	// SimRate is simulated frames per wall second, over the last half second or so.
	SimRate() float64
	// SimSpeed is simulated seconds per wall second over the same time: 1 in real time, 0.4 when the steps the
	// CFL condition asks for take longer than the frames they simulate (the slow-motion factor), 0 when paused.
	SimSpeed() float64
	// Do runs f on the solver between simulated frames — for GPU modes at once, or when the frame the budget
	// spread over display frames ends; on the runner's goroutine for CPU modes — and then, when f succeeded, then
	// on the GL thread (nil is nothing). f's message or error goes to the status
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

// rateIdle is the longest a rateMeter's window stays open while nothing is counted, s.
const rateIdle = 4.0

// rateMeter measures events (or simulated seconds) per second over windows of about half a second.
type rateMeter struct {
	start time.Time
	count float64
	rate  float64
}

func (m *rateMeter) add(n float64, now time.Time) {
	if m.start.IsZero() {
		m.start = now // a window counts what happens after its start: (start, now]
		return
	}
	m.count += n
	// a window closes after half a second with something counted, or after rateIdle with nothing: a simulation
	// slower than a frame per half second still reads its rate, and a stopped one reads 0 soon enough
	if el := now.Sub(m.start).Seconds(); el >= 0.5 && (m.count > 0 || el >= rateIdle) {
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
	speed  rateMeter // simulated seconds per wall second
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
func (d *cpuDriver) SimSpeed() float64           { return d.speed.rate }

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

func (d *cpuDriver) Update(_, _ float64) {
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
		d.speed.add(0, now)
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
	d.rate.add(float64(frames), now)
	d.speed.add(float64(frames)*FrameDt, now) // the runner's frames are whole
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

// gpuDriver steps a GPU solver on the GL thread. A simulated frame starts when an accumulator of wall time holds a
// frame (capped at maxBacklog frames, so a slow GPU slows the simulation instead of spiralling); its substeps (the
// solver's BeginFrame chooses them) then run within the display frames' step budget: as many a display frame as
// the budget holds, at least one, so a frame the CFL condition cuts into many steps is spread over several display
// frames and the window keeps its rate while the simulation runs slower than real time (SimSpeed says how much).
//
// The budget changes only when the steps run, never what they compute: like the CPU runner, the driver changes
// the solver only between simulated frames. Parameter edits (the panel edits a mirror), Do calls, resets and
// releases that arrive while a frame is in progress wait for its end, so a sitting replays bit for bit whatever the
// budget was.
type gpuDriver struct {
	mode    Mode
	s       gpuSolver
	mirror  *param.Set
	paused  bool
	stepReq bool
	acc     float64
	rate    rateMeter // whole simulated frames per wall second
	speed   rateMeter // simulated seconds per wall second
	version uint64

	// the simulated frame in progress: its substeps and how many of them are still to run (0: none in progress)
	frameN, left int
	stepCost     float64   // the latest steps' cost, s: the solver's StepMs, smoothed
	waiting      []gpuWait // what arrived during the frame in progress, in order

	status *statusLine
	record func(sim.Stats)
	notice string
	frame  sim.Frame
	caps   capWatch
	sink   func(*sim.Frame)
	clock  func() time.Time // the meters' wall clock: time.Now, or a test's
}

// gpuWait is a change to the solver held until the frame in progress ends: a parameter snapshot, or a Do call.
type gpuWait struct {
	snap param.Snapshot
	f    func(sim.Solver) (string, error)
	then func()
}

// maxBacklog caps the accumulator of the GPU driver, in frames.
const maxBacklog = 2

func newGPUDriver(m Mode, s gpuSolver, paused bool, status *statusLine, record func(sim.Stats)) *gpuDriver {
	mirror := m.Params()
	carry(mirror, s.Params().Snapshot())
	return &gpuDriver{mode: m, s: s, mirror: mirror, paused: paused, status: status, record: record, clock: time.Now}
}

func (d *gpuDriver) Mode() Mode                  { return d.mode }
func (d *gpuDriver) Flat() *sim.FlatFrame        { return nil }
func (d *gpuDriver) Params() *param.Set          { return d.mirror }
func (d *gpuDriver) Paused() bool                { return d.paused }
func (d *gpuDriver) SetPaused(p bool)            { d.paused = p; d.stepReq = d.stepReq && p }
func (d *gpuDriver) StepFrame()                  { d.paused, d.stepReq = true, true }
func (d *gpuDriver) Particles() render.Particles { return d.s.Particles() }
func (d *gpuDriver) Version() uint64             { return d.version }
func (d *gpuDriver) Stats() sim.Stats            { return d.s.Stats() }
func (d *gpuDriver) SimRate() float64            { return d.rate.rate }
func (d *gpuDriver) SimSpeed() float64           { return d.speed.rate }

// inFrame says whether a simulated frame is in progress: some of its substeps have run, not all.
func (d *gpuDriver) inFrame() bool { return d.left > 0 }

// ParamsChanged applies the mirror's values to the solver, at once between frames, else when the frame ends.
func (d *gpuDriver) ParamsChanged() {
	snap := d.mirror.Snapshot()
	if d.inFrame() {
		d.waiting = append(d.waiting, gpuWait{snap: snap})
		return
	}
	d.applyParams(snap)
}

func (d *gpuDriver) applyParams(snap param.Snapshot) {
	if err := d.s.Params().Restore(snap); err != nil {
		d.status.set(fmt.Sprintf("%s: parameters not applied: %v", d.mode.Name, err), true)
	}
}

// Do runs f at once between frames, else when the frame in progress ends.
func (d *gpuDriver) Do(f func(sim.Solver) (string, error), then func()) {
	if d.inFrame() {
		d.waiting = append(d.waiting, gpuWait{f: f, then: then})
		return
	}
	d.do(f, then)
}

func (d *gpuDriver) do(f func(sim.Solver) (string, error), then func()) {
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

// flush runs what waited for the frame in progress, in the order it came.
func (d *gpuDriver) flush() {
	for len(d.waiting) > 0 {
		w := d.waiting[0]
		d.waiting = d.waiting[1:]
		if w.f != nil {
			d.do(w.f, w.then)
		} else {
			d.applyParams(w.snap)
		}
	}
	d.waiting = nil
}

// finish runs the rest of the frame in progress at once and then what waited for it: before a reset or a release,
// which come between frames as they do in the CPU runner.
func (d *gpuDriver) finish() {
	if d.inFrame() {
		d.steps(d.left)
	}
	d.flush()
}

func (d *gpuDriver) SetFrameSink(f func(*sim.Frame)) { d.sink = f }

func (d *gpuDriver) PickFrame() *sim.Frame {
	d.s.Frame(&d.frame)
	return &d.frame
}

func (d *gpuDriver) Reset(sc *scene.Scene) {
	d.finish()
	if err := sim.Reset(d.s, sc); err != nil {
		d.status.set(fmt.Sprintf("%s: reset failed: %v", d.mode.Name, err), true)
		return
	}
	d.acc = 0
	d.version++
	d.caps = capWatch{}
	d.status.set(withWarnings(fmt.Sprintf("reset %s: %d particles", sceneLabel(sc), d.s.Stats().Particles), d.s))
}

// Update starts a simulated frame when the accumulator holds one (or a single frame was asked for), and runs as
// many of the frame's substeps as budget seconds hold at the latest steps' cost, at least one. A budget ≤ 0 or an
// unknown cost runs the whole frame.
func (d *gpuDriver) Update(wallDt, budget float64) {
	now := d.clock()
	if !d.paused {
		d.acc = min(d.acc+max(wallDt, 0), maxBacklog*FrameDt)
	}
	if !d.inFrame() {
		run := d.stepReq
		if !d.paused && d.acc >= FrameDt {
			d.acc -= FrameDt
			run = true
		}
		if !run {
			d.rate.add(0, now)
			d.speed.add(0, now)
			return
		}
		d.stepReq = false
		d.frameN = max(1, d.s.BeginFrame(FrameDt))
		d.left = d.frameN
		if msg := d.caps.frame(d.s, d.frameN); msg != "" {
			d.status.set(msg, true)
		}
	}
	ran := d.steps(stepsInBudget(budget, d.stepCost, d.left))
	d.speed.add(float64(ran)*FrameDt/float64(d.frameN), now)
	if !d.inFrame() {
		d.rate.add(1, now)
	} else {
		d.rate.add(0, now)
	}
}

// stepsInBudget is how many of left steps run in a display frame whose steps may take budget seconds, each
// costing about cost seconds: at least one, all of them when the budget or the cost is unknown (≤ 0).
func stepsInBudget(budget, cost float64, left int) int {
	if budget <= 0 || cost <= 0 {
		return left
	}
	return min(left, max(1, int(budget/cost)))
}

// steps runs up to k of the frame's remaining substeps and returns how many ran; the frame's end hands it to the
// sink and runs what waited. A step error ends the frame early (the solver has restored its last good state) and
// pauses.
func (d *gpuDriver) steps(k int) int {
	ran := 0
	for ; ran < k && d.left > 0; ran++ {
		err := d.s.Step(FrameDt / float64(d.frameN))
		d.left--
		if err != nil {
			d.paused, d.left = true, 0
			d.status.set(stepErrorMessage(d.mode.Name, err), true)
			break
		}
		st := d.s.Stats()
		if st.StepMs > 0 {
			c := st.StepMs / 1000
			if d.stepCost <= 0 {
				d.stepCost = c
			} else {
				d.stepCost += 0.25 * (c - d.stepCost)
			}
		}
		if d.record != nil {
			d.record(st)
		}
		showNotice(d.status, &d.notice, st.Notice)
	}
	if ran > 0 {
		d.version++
	}
	if !d.inFrame() {
		if d.sink != nil {
			d.s.Frame(&d.frame)
			d.sink(&d.frame)
		}
		d.flush()
	}
	return ran
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
	d.finish()
	s := d.s
	d.s = nil
	return s
}

func (d *gpuDriver) Close() {
	if d.s != nil {
		d.finish()
		d.s.Delete()
	}
}
