package replay

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// Log records a sitting: Start at each reset, the tools through the sim.Hands that Hands returns, parameter
// changes with Params, and Snapshot for the file so far.
//
// The app calls Params before every display frame (after the panel and --set had their say, before it reads the
// substeps for the frame), and Break when the solver's state stops following from the inputs: a saved state was
// loaded, or a step failed and the solver restored an earlier state. Tool calls log the parameter changes before
// them themselves, so that an action that reads a parameter (a dropped body's density follows the rest density)
// sees the values it saw.
//
// A Log is not safe for concurrent use: it belongs to the goroutine that steps the solver (the CPU runner's, or
// the GL thread for a GPU solver), like the solver's Hands. The zero Log is ready to use and records nothing until
// Start.
type Log struct {
	// SoftwareVersion is written into the files Snapshot makes ("v0.4.0"); empty leaves it out.
	SoftwareVersion string

	started bool
	broken  string // why the sitting since the last Start cannot be replayed; "" while it can

	mode    string
	scene   json.RawMessage
	params  map[string]json.RawMessage
	frameDt float64
	actions []Action
	bodies  int // the solver's rigid bodies: the scene's, and those dropped since, less those removed

	flat *flatScene // a 2D scene's bodies and rectangle, checking the game's hands as a file is read; nil in 3D
	held bool       // a grab took hold of a body and no release followed

	last param.Snapshot // the parameters' values as last logged
}

// Start begins a new recording from a reset of a solver of mode with sc, its parameters params holding the
// values the reset used; frameDt is the simulated time of one display frame (1/60 s). Earlier actions are
// forgotten and a Break is lifted. The solver is assumed to have no tools set (sim.Hands.SetTools) and to hold no
// body (sim.FlatHands.Grab) at the reset.
// A scene that cannot be written is an error, and the log records nothing until the next Start.
func (l *Log) Start(mode string, sc *scene.Scene, params *param.Set, frameDt float64) error {
	*l = Log{SoftwareVersion: l.SoftwareVersion, actions: l.actions[:0]}
	if sc == nil || params == nil {
		return errors.New("replay: Start needs a scene and the solver's parameters")
	}
	data, err := sc.Portable().Marshal()
	if err != nil {
		return fmt.Errorf("replay: the scene: %w", err)
	}
	l.started = true
	l.mode, l.scene, l.frameDt, l.bodies = mode, data, frameDt, len(sc.Bodies)
	if sc.IsFlat() {
		l.flat = newFlatScene(sc)
	}
	l.params = params.Preset(mode).Params
	l.last = params.Snapshot()
	return nil
}

// Break marks the sitting since the last Start as one no replay can reproduce, for reason ("a saved state was
// loaded"): Snapshot says so, and nothing is recorded until the next Start.
func (l *Log) Break(reason string) {
	if l.started && l.broken == "" {
		l.broken = reason
		l.actions = l.actions[:0]
	}
}

// recording reports whether actions are being recorded.
func (l *Log) recording() bool { return l.started && l.broken == "" }

// Params logs the parameters of s.Params() whose values changed since they were last logged (or since Start),
// as one params action at s's step; nothing when none changed.
func (l *Log) Params(s sim.Solver) {
	if !l.recording() {
		return
	}
	set := s.Params()
	now := set.Snapshot()
	changed := set.Changed(l.last, now)
	if len(changed) == 0 {
		return
	}
	values := make(map[string]json.RawMessage, len(changed))
	for _, p := range changed {
		values[p.Name] = p.JSON(now[p.Name])
	}
	l.last = now
	l.add(s, Action{Op: OpParams, Params: values})
}

// add appends an action at s's current step. A step count that went back (a state was restored behind the log's
// back) breaks the log instead.
func (l *Log) add(s sim.Solver, a Action) {
	a.Step = s.Stats().Steps
	if n := len(l.actions); n > 0 && a.Step < l.actions[n-1].Step {
		l.Break(fmt.Sprintf("the solver went back from step %d to step %d (a restored or loaded state)", l.actions[n-1].Step, a.Step))
		return
	}
	l.actions = append(l.actions, a)
}

// Snapshot returns the recording so far as a File that ends after steps steps (the solver's sim.Stats.Steps
// now). It is an error when nothing is being recorded (no Start yet, or a Break: the error gives its reason) or
// when steps is before the last action. The File shares the actions' argument groups with the log, which never
// changes them; treat them as read-only.
func (l *Log) Snapshot(steps int) (*File, error) {
	switch {
	case !l.started:
		return nil, errors.New("replay: nothing recorded: a recording starts at a reset")
	case l.broken != "":
		return nil, fmt.Errorf("replay: the sitting since the last reset cannot be replayed: %s; a new recording starts at the next reset", l.broken)
	case steps < 0:
		return nil, fmt.Errorf("replay: steps %d is negative", steps)
	}
	if n := len(l.actions); n > 0 && steps < l.actions[n-1].Step {
		return nil, fmt.Errorf("replay: steps %d is before the last action (%s)", steps, &l.actions[n-1])
	}
	params := make(map[string]json.RawMessage, len(l.params))
	for k, v := range l.params {
		params[k] = v
	}
	f := &File{
		Software:        Software,
		SoftwareVersion: l.SoftwareVersion,
		Mode:            l.mode,
		Scene:           append(json.RawMessage(nil), l.scene...),
		Params:          params,
		FrameDt:         l.frameDt,
		Steps:           steps,
		Actions:         append([]Action(nil), l.actions...),
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return f, nil
}

// Hands returns s's sim.Hands with every call logged: the call goes to s, and the action is appended at s's step
// (after the parameter changes not logged yet). Calls that return an error are not logged: they change nothing.
// ok is false when s has no Hands.
func (l *Log) Hands(s sim.Solver) (h sim.Hands, ok bool) {
	inner, ok := s.(sim.Hands)
	if !ok {
		return nil, false
	}
	return &loggedHands{log: l, s: s, h: inner}, true
}

// loggedHands is a solver's Hands that logs each call.
type loggedHands struct {
	log *Log
	s   sim.Solver
	h   sim.Hands
}

// record logs a call made after before.
func (lh *loggedHands) record(a Action) {
	switch {
	case !lh.log.recording():
	case lh.log.flat != nil: // a file cannot hold it
		lh.log.Break(fmt.Sprintf("a 3D tool (%s) was used in a 2D scene", a.Op))
	default:
		lh.log.add(lh.s, a)
	}
}

// before logs the parameter changes made before a call, so that the call sees them in the replay too.
func (lh *loggedHands) before() {
	if lh.log.recording() {
		lh.log.Params(lh.s)
	}
}

func (lh *loggedHands) Budget() int { return lh.h.Budget() }

func (lh *loggedHands) AddFluid(pos, vel [][3]float32) int {
	lh.before()
	k := lh.h.AddFluid(pos, vel)
	if len(pos) != len(vel) {
		lh.log.Break(fmt.Sprintf("AddFluid was given %d positions and %d velocities", len(pos), len(vel)))
		return k
	}
	lh.record(Action{Op: OpAddFluid, Fluid: &Fluid{
		Pos: append([][3]float32{}, pos...),
		Vel: append([][3]float32{}, vel...),
	}})
	return k
}

// Refill implements sim.Refiller: fluid put back with its materials is recorded with them.
func (lh *loggedHands) Refill(ps []sim.Particle) int {
	lh.before()
	k := sim.Refill(lh.h, ps)
	fl := &Fluid{Pos: make([][3]float32, len(ps)), Vel: make([][3]float32, len(ps)), Material: make([]uint8, len(ps))}
	for i, p := range ps {
		fl.Pos[i], fl.Vel[i], fl.Material[i] = p.Pos, p.Vel, p.Material
	}
	lh.record(Action{Op: OpAddFluid, Fluid: fl})
	return k
}

func (lh *loggedHands) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	lh.before()
	out, err := lh.h.Drain(center, radius)
	if err == nil {
		lh.record(Action{Op: OpDrain, Drain: &Drain{Center: center, Radius: radius}})
	}
	return out, err
}

func (lh *loggedHands) AddBody(b scene.Body) (int, []sim.Particle, error) {
	lh.before()
	i, displaced, err := lh.h.AddBody(b)
	if err == nil {
		lh.log.bodies++
		lh.record(Action{Op: OpAddBody, Body: &b})
	}
	return i, displaced, err
}

func (lh *loggedHands) RemoveBody(i int) error {
	lh.before()
	err := lh.h.RemoveBody(i)
	if err == nil {
		if i < 0 || i >= lh.log.bodies {
			// nothing a solver accepts; a file cannot hold it
			lh.log.Break(fmt.Sprintf("RemoveBody(%d) succeeded with %d bodies", i, lh.log.bodies))
			return nil
		}
		lh.log.bodies--
		lh.record(Action{Op: OpRemoveBody, Index: i})
	}
	return err
}

func (lh *loggedHands) DriveBody(i int, v [3]float32, on bool) {
	lh.before()
	lh.h.DriveBody(i, v, on)
	if i < 0 || i >= lh.log.bodies {
		return // no such body (a stale index from the window): every solver ignores it, and a file cannot hold it
	}
	lh.record(Action{Op: OpDriveBody, Drive: &Drive{Index: i, Velocity: v, On: on}})
}

func (lh *loggedHands) SetTools(t sim.Tools) {
	lh.before()
	lh.h.SetTools(t)
	c := t.Copy()
	lh.record(Action{Op: OpSetTools, Tools: &c})
}

// FlatHands returns s's sim.FlatHands, the 2D game's hands, with every call that changed the game logged: the
// call goes to s, and the action is appended at s's step (after the parameter changes not logged yet). Calls that
// return an error are not logged, nor a grab that took hold of nothing, nor a move or a release while nothing is
// held: they change nothing. A call a replay cannot hold (a stroke far outside the rectangle, a removal of a body
// there is not, one in a 3D scene) breaks the log with what is wrong with it. ok is false when s has no
// FlatHands.
func (l *Log) FlatHands(s sim.Solver) (h sim.FlatHands, ok bool) {
	inner, ok := s.(sim.FlatHands)
	if !ok {
		return nil, false
	}
	return &loggedFlatHands{log: l, s: s, h: inner}, true
}

// loggedFlatHands is a solver's FlatHands that logs each call.
type loggedFlatHands struct {
	log *Log
	s   sim.Solver
	h   sim.FlatHands
}

// before logs the parameter changes made before a call, so that the call sees them in the replay too.
func (lf *loggedFlatHands) before() {
	if lf.log.recording() {
		lf.log.Params(lf.s)
	}
}

// record logs a call made after before, if a file can hold it: the checks a file's actions pass when it is read,
// against the scene of the Start and the bodies spawned and removed since.
func (lf *loggedFlatHands) record(a Action) {
	l := lf.log
	if !l.recording() {
		return
	}
	if l.flat == nil {
		l.Break(fmt.Sprintf("the 2D game's %s was used in a 3D scene", a.Op))
		return
	}
	err := a.check()
	if err == nil {
		err = l.flat.check(&a)
	}
	if err != nil {
		l.Break(fmt.Sprintf("a %s that a replay cannot hold: %v", a.Op, err))
		return
	}
	l.add(lf.s, a)
}

func (lf *loggedFlatHands) Draw(points [][2]float32, speed, width float32) (string, error) {
	lf.before()
	msg, err := lf.h.Draw(points, speed, width)
	if err == nil {
		lf.record(Action{Op: OpDraw, Stroke: &Stroke{Points: append([][2]float32{}, points...), Speed: speed, Width: width}})
	}
	return msg, err
}

func (lf *loggedFlatHands) Excite(k int) error {
	lf.before()
	err := lf.h.Excite(k)
	if err == nil {
		lf.record(Action{Op: OpExcite, Key: k})
	}
	return err
}

func (lf *loggedFlatHands) Grab(p [2]float32) int {
	lf.before()
	i := lf.h.Grab(p)
	if i >= 0 {
		lf.log.held = true
		lf.record(Action{Op: OpGrab, At: &p})
	}
	return i
}

func (lf *loggedFlatHands) MoveGrab(p [2]float32) {
	lf.before()
	lf.h.MoveGrab(p)
	if lf.log.held {
		lf.record(Action{Op: OpMoveGrab, At: &p})
	}
}

func (lf *loggedFlatHands) Release() {
	lf.before()
	lf.h.Release()
	if lf.log.held {
		lf.log.held = false
		lf.record(Action{Op: OpRelease})
	}
}

func (lf *loggedFlatHands) Spawn(b scene.FlatBody) (int, error) {
	lf.before()
	i, err := lf.h.Spawn(b)
	if err == nil {
		b.Points = append([]scene.Vec2(nil), b.Points...) // the caller's slice may change
		lf.record(Action{Op: OpSpawn, FlatBody: &b})
	}
	return i, err
}

func (lf *loggedFlatHands) RemoveFlatBody(i int) error {
	lf.before()
	err := lf.h.RemoveFlatBody(i)
	if err == nil {
		lf.record(Action{Op: OpRemoveFlatBody, Index: i})
	}
	return err
}
