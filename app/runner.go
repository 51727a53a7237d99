package app

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// Published is one simulated frame as the Runner hands it to the GL thread.
type Published struct {
	Frame sim.Frame
	Stats sim.Stats   // after the frame's last step
	Steps []sim.Stats // every step of the frame, oldest first; empty for a frame published by a reset
	Seq   uint64      // publications since the runner started
	// View is what the runner made from the frame for drawing when asked (SetView): the anisotropic kernels where
	// the GL context has no compute shaders to make them on the GPU, a mesh of the fluid, the upsampled surface.
	View viewOut
	// Twin is the second simulation's frame when the solver steps two (an A/B pair, twinSolver); nil otherwise.
	Twin *TwinPublished
	// Flat is what a 2D mode shows (sim.Flat); nil for the 3D modes.
	Flat *sim.FlatFrame
}

// TwinPublished is the second simulation of an A/B comparison as the Runner hands it over with each frame.
type TwinPublished struct {
	Frame sim.Frame
	Stats sim.Stats
	View  viewOut
}

// twinSolver is a solver that steps a second simulation beside its own (an A/B pair): the runner publishes that
// one's frame and stats with each of its own.
type twinSolver interface {
	TwinFrame(dst *sim.Frame)
	TwinStats() sim.Stats
}

// exchange is a triple buffer of Published frames between one producer (the runner) and one consumer (the GL
// thread). Each side owns one box; the third sits in state with a "fresh" bit. Publishing and taking swap indices
// atomically, so neither side waits for the other and, once the frames' slices have grown to the particle count,
// nothing is allocated.
type exchange struct {
	boxes [3]Published
	state atomic.Uint32 // index of the middle box | freshBit
	back  int           // the producer's box
	front int           // the consumer's box
}

const freshBit = 4

func newExchange() *exchange {
	x := &exchange{back: 0, front: 2}
	x.state.Store(1)
	return x
}

// Back is the box the producer fills next.
func (x *exchange) Back() *Published { return &x.boxes[x.back] }

// Publish hands the back box over and takes the middle one (a frame the consumer never took, or its old one).
func (x *exchange) Publish() {
	old := x.state.Swap(uint32(x.back) | freshBit)
	x.back = int(old &^ freshBit)
}

// Take returns the newest published box, or nil when nothing was published since the last Take. The box stays
// the consumer's until the next Take that returns non-nil.
func (x *exchange) Take() *Published {
	if x.state.Load()&freshBit == 0 {
		return nil
	}
	old := x.state.Swap(uint32(x.front)) // only the consumer clears freshBit, so old is fresh
	x.front = int(old &^ freshBit)
	return &x.boxes[x.front]
}

// RunnerStatus is what the GL thread can ask the runner at any time.
type RunnerStatus struct {
	Paused bool   // paused, or asked to pause
	Msg    string // the last message: a reset's result, an error from Step
	Err    bool   // Msg is an error
	MsgSeq uint64 // incremented with every new message
	// Pending counts the commands posted but not yet carried out. Commands run between frames, so once it is 0
	// after a pause, no frame is in progress and the last one has been published.
	Pending int
}

type cmdKind int

const (
	cmdParams cmdKind = iota
	cmdReset
	cmdPause
	cmdStep
	cmdSurface
	cmdDo
	cmdSink
)

type command struct {
	kind   cmdKind
	snap   param.Snapshot
	sc     *scene.Scene
	paused bool
	view   viewJob
	do     func(sim.Solver) (string, error)
	sink   func(*sim.Frame)
}

// Runner steps a CPU solver on its own goroutine. After each simulated frame (the substeps the solver's BeginFrame
// chose, each 1/(60·substeps) s) it publishes the solver's Frame and Stats through a triple buffer, so the GL thread draws the
// newest frame without waiting and a slow solver never freezes the window.
//
// Every change to the solver — parameters, reset, pause, single step — is a command the runner executes on its
// goroutine between frames: nothing else may touch the solver (or its param.Set) while the runner owns it. The
// panel edits a mirror set and sends its Snapshot with SetParams.
//
// The runner is paced to real time: it simulates at most one frame per Pace of wall time, and drops the debt
// when it falls behind rather than bursting to catch up. A Step error (sim.NonFiniteError, say: the solver has
// already restored its last good state) pauses the runner and becomes the status message.
type Runner struct {
	solver sim.Solver
	pace   time.Duration
	xch    *exchange
	caps   capWatch

	mu     sync.Mutex
	queue  []command
	spare  []command
	status RunnerStatus

	wake      chan struct{} // a command is queued (capacity 1)
	quit      chan struct{} // closed by Close
	done      chan struct{} // closed when the goroutine has returned
	closeOnce sync.Once
	started   atomic.Bool

	// owned by the runner goroutine
	paused  bool
	stepReq bool
	seq     uint64
	view    viewJob
	views   [2]frameViews // A's, and an A/B pair's B's
	sink    func(*sim.Frame)
}

// RealTime is the pace of a runner in the window: one simulated frame per 1/60 s.
const RealTime = time.Second / 60

// NewRunner takes over a solver that has been Reset. pace is the least wall time per simulated frame (RealTime in
// the window, 0 to run as fast as the solver can). The runner starts paused when paused is true.
func NewRunner(s sim.Solver, pace time.Duration, paused bool) *Runner {
	r := &Runner{
		solver: s,
		pace:   pace,
		xch:    newExchange(),
		wake:   make(chan struct{}, 1),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
		paused: paused,
	}
	r.status.Paused = paused
	return r
}

// Start launches the goroutine; it publishes the solver's current state at once.
func (r *Runner) Start() {
	if r.started.Swap(true) {
		return
	}
	go r.loop()
}

// Close stops the goroutine and waits for it (at most one step's time); the solver is the caller's again. Safe to
// call twice, and before Start.
func (r *Runner) Close() {
	r.closeOnce.Do(func() { close(r.quit) })
	if r.started.Load() {
		<-r.done
	}
}

// Release stops the goroutine (Close) and returns the solver, which is the caller's again.
func (r *Runner) Release() sim.Solver {
	r.Close()
	return r.solver
}

// SetParams asks the runner to apply a parameter snapshot (param.Set.Restore) before its next frame. Successive
// snapshots not yet applied are merged into the last.
func (r *Runner) SetParams(snap param.Snapshot) { r.post(command{kind: cmdParams, snap: snap}) }

// Reset asks the runner to reset the solver with sc; the new state is published at once, even when paused.
func (r *Runner) Reset(sc *scene.Scene) { r.post(command{kind: cmdReset, sc: sc}) }

// SetPaused pauses or resumes stepping.
func (r *Runner) SetPaused(p bool) { r.post(command{kind: cmdPause, paused: p}) }

// SetView asks the runner what to make from every frame it publishes for drawing (Published.View): the
// anisotropic kernels (where compute shaders cannot), a mesh of the fluid, the upsampled surface; the zero viewJob
// makes nothing.
func (r *Runner) SetView(job viewJob) {
	r.post(command{kind: cmdSurface, view: job})
}

// Do runs f on the solver between frames. A message or error it returns becomes the status message, and a frame
// is published after a message (a tool action), so the change shows while paused; f returns "" for quiet updates
// made every display frame (a paddle's position).
func (r *Runner) Do(f func(sim.Solver) (string, error)) { r.post(command{kind: cmdDo, do: f}) }

// SetSink makes the runner call f, on its goroutine, with every frame it simulates from now on (not the frames a
// reset or a tool action publishes), before the frame is published; nil stops. f must copy what it keeps, and it
// may block: the simulation waits for it (an export keeps every frame).
func (r *Runner) SetSink(f func(*sim.Frame)) { r.post(command{kind: cmdSink, sink: f}) }

// StepFrame simulates one frame and pauses.
func (r *Runner) StepFrame() { r.post(command{kind: cmdStep}) }

// Latest returns the newest published frame, or nil when there is none since the last call. The returned frame is
// the caller's until its next call that returns non-nil. Only one goroutine (the GL thread) may call Latest.
func (r *Runner) Latest() *Published { return r.xch.Take() }

// Status reports the pause state and the last message.
func (r *Runner) Status() RunnerStatus {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// post queues a command without ever blocking on the runner (it holds the lock only between frames, briefly).
func (r *Runner) post(c command) {
	r.mu.Lock()
	switch c.kind {
	case cmdParams:
		if n := len(r.queue); n > 0 && r.queue[n-1].kind == cmdParams {
			r.queue[n-1] = c // the newer snapshot holds every value
			r.status.Pending--
		} else {
			r.queue = append(r.queue, c)
		}
	case cmdPause:
		r.status.Paused = c.paused
		r.queue = append(r.queue, c)
	case cmdStep:
		r.status.Paused = true
		r.queue = append(r.queue, c)
	default:
		r.queue = append(r.queue, c)
	}
	r.status.Pending++
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default: // already signalled
	}
}

// takeCommands swaps the queue for the spare slice so no command slice is allocated once warm.
func (r *Runner) takeCommands() []command {
	r.mu.Lock()
	cmds := r.queue
	r.queue = r.spare[:0]
	r.spare = nil
	r.mu.Unlock()
	return cmds
}

func (r *Runner) giveBack(cmds []command) {
	for i := range cmds {
		cmds[i] = command{} // drop references to scenes and snapshots
	}
	r.mu.Lock()
	r.status.Pending -= len(cmds)
	if r.spare == nil {
		r.spare = cmds[:0]
	}
	r.mu.Unlock()
}

func (r *Runner) setMessage(msg string, isErr bool) {
	r.mu.Lock()
	r.status.Msg, r.status.Err = msg, isErr
	r.status.MsgSeq++
	r.mu.Unlock()
}

func (r *Runner) setPaused(p bool) {
	r.paused = p
	r.mu.Lock()
	r.status.Paused = p
	r.mu.Unlock()
}

func (r *Runner) quitting() bool {
	select {
	case <-r.quit:
		return true
	default:
		return false
	}
}

func (r *Runner) loop() {
	defer close(r.done)
	r.publish(nil)
	var timer *time.Timer
	next := time.Now()
	for {
		r.runCommands()
		if r.quitting() {
			return
		}
		if r.paused && !r.stepReq {
			select {
			case <-r.wake:
				continue
			case <-r.quit:
				return
			}
		}
		if wait := time.Until(next); r.pace > 0 && wait > 0 {
			if timer == nil {
				timer = time.NewTimer(wait)
			} else {
				timer.Reset(wait)
			}
			select {
			case <-timer.C:
			case <-r.wake:
				timer.Stop()
				continue // commands first; the deadline stays
			case <-r.quit:
				timer.Stop()
				return
			}
		}
		r.simulateFrame()
		if r.stepReq {
			r.stepReq = false
			r.setPaused(true)
		}
		now := time.Now()
		next = next.Add(r.pace)
		if next.Before(now.Add(-r.pace)) {
			next = now // behind by more than a frame: slow down instead of bursting
		}
	}
}

func (r *Runner) runCommands() {
	cmds := r.takeCommands()
	for _, c := range cmds {
		switch c.kind {
		case cmdParams:
			if err := r.solver.Params().Restore(c.snap); err != nil {
				r.setMessage(fmt.Sprintf("%s: parameters not applied: %v", r.solver.Name(), err), true)
			}
		case cmdReset:
			if err := sim.Reset(r.solver, c.sc); err != nil {
				r.setMessage(fmt.Sprintf("%s: reset failed: %v", r.solver.Name(), err), true)
			} else {
				r.caps = capWatch{}
				r.setMessage(withWarnings(fmt.Sprintf("reset %s: %d particles", sceneLabel(c.sc), r.solver.Stats().Particles), r.solver))
				r.views[0].reset() // the particles' ids start again: the upsampling's surface history is another scene's
				r.views[1].reset()
				r.publish(nil)
			}
		case cmdPause:
			r.setPaused(c.paused)
			if !c.paused {
				r.stepReq = false
			}
		case cmdStep:
			r.stepReq = true
			r.setPaused(true)
		case cmdSurface:
			r.view = c.view
			r.publish(nil) // the same state, drawn the new way
		case cmdDo:
			msg, err := c.do(r.solver)
			switch {
			case err != nil:
				r.setMessage(err.Error(), true)
			case msg != "":
				r.setMessage(msg, false)
				r.publish(nil)
			}
		case cmdSink:
			r.sink = c.sink
		}
	}
	r.giveBack(cmds)
}

// simulateFrame advances one frame and publishes it. A step error pauses the runner; the solver has restored a
// good state (or kept its last), which is published so the view shows it.
func (r *Runner) simulateFrame() {
	n := max(1, r.solver.BeginFrame(FrameDt))
	if msg := r.caps.frame(r.solver, n); msg != "" {
		r.setMessage(msg, true)
	}
	dt := FrameDt / float64(n)
	box := r.xch.Back()
	box.Steps = box.Steps[:0]
	for k := 0; k < n; k++ {
		if r.quitting() {
			return
		}
		if err := r.solver.Step(dt); err != nil {
			r.stepReq = false
			r.setPaused(true)
			r.setMessage(stepErrorMessage(r.solver.Name(), err), true)
			break
		}
		box.Steps = append(box.Steps, r.solver.Stats())
	}
	r.publish(box)
}

// publish copies the solver's state into the back box and hands it over. box is the back box when the caller
// already filled its Steps; nil publishes a frame without steps (after a reset).
func (r *Runner) publish(box *Published) {
	if box == nil {
		box = r.xch.Back()
		box.Steps = box.Steps[:0]
	}
	r.solver.Frame(&box.Frame)
	if fs, ok := r.solver.(sim.Flat); ok {
		if box.Flat == nil {
			box.Flat = &sim.FlatFrame{}
		}
		fs.FlatFrame(box.Flat)
	} else {
		box.Flat = nil
	}
	box.Stats = r.solver.Stats()
	r.makeView(&r.views[0], &box.Frame, &box.View)
	if ts, ok := r.solver.(twinSolver); ok {
		if box.Twin == nil {
			box.Twin = &TwinPublished{}
		}
		ts.TwinFrame(&box.Twin.Frame)
		box.Twin.Stats = ts.TwinStats()
		r.makeView(&r.views[1], &box.Twin.Frame, &box.Twin.View)
	} else {
		box.Twin = nil
	}
	if r.sink != nil && len(box.Steps) > 0 {
		r.sink(&box.Frame)
	}
	r.seq++
	box.Seq = r.seq
	r.xch.Publish()
}

// makeView makes out from f as SetView asked, with views (the side's own history); a failure goes to the status line
// and leaves that part out (the window then draws the particles plainly).
func (r *Runner) makeView(views *frameViews, f *sim.Frame, out *viewOut) {
	if err := views.compute(r.view, f, out); err != nil {
		r.setMessage(err.Error(), true)
	}
}

func stepErrorMessage(mode string, err error) string {
	var nf *sim.NonFiniteError
	if errors.As(err, &nf) {
		return "paused: " + err.Error()
	}
	return fmt.Sprintf("paused: %s step failed: %v", mode, err)
}

func sceneLabel(sc *scene.Scene) string {
	if sc == nil {
		return "scene"
	}
	if sc.Name != "" {
		return sc.Name
	}
	return sc.Source
}
