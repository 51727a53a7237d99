package replay

import (
	"fmt"

	"github.com/slosh/slosh/sim"
)

// Player applies a file's actions to a solver as it steps: the app resets the solver with File.Reset, then before
// every step calls ApplyDue, and stops stepping when Done. A Player is not safe for concurrent use; like a Log it
// belongs to the goroutine that steps the solver.
type Player struct {
	f    *File
	next int // the first action not applied yet
}

// NewPlayer returns a player at the start of f.
func NewPlayer(f *File) *Player { return &Player{f: f} }

// File is the file being played.
func (p *Player) File() *File { return p.f }

// ApplyDue applies, in the recorded order, every action due before s's next step (those whose Step is
// s.Stats().Steps): parameter changes through s.Params(), tools through s's sim.Hands, the 2D game's hands
// through its sim.FlatHands. It returns how many it applied. It is an error when an action was due at an earlier
// step and missed (ApplyDue was not called before every step), when an action fails or a grab takes hold of
// nothing (the replay no longer follows the sitting: another mode, device or version), when a parameter is
// unknown to s, or when s has no Hands for a tool action (no FlatHands for a 2D game's).
func (p *Player) ApplyDue(s sim.Solver) (int, error) {
	step := s.Stats().Steps
	applied := 0
	for p.next < len(p.f.Actions) {
		a := &p.f.Actions[p.next]
		if a.Step > step {
			break
		}
		if a.Step < step {
			return applied, fmt.Errorf("%s: actions[%d] (%s) was missed: the solver is at step %d (apply the due actions before every step)",
				p.f.name(), p.next, a, step)
		}
		if err := apply(s, a); err != nil {
			return applied, fmt.Errorf("%s: actions[%d] (%s): %w", p.f.name(), p.next, a, err)
		}
		p.next++
		applied++
	}
	return applied, nil
}

// Done reports whether s has taken all the steps of the sitting.
func (p *Player) Done(s sim.Solver) bool { return s.Stats().Steps >= p.f.Steps }

// apply applies one action to s.
func apply(s sim.Solver, a *Action) error {
	if a.Op == OpParams {
		return applyValues(s.Params(), a.Params)
	}
	if a.Op.IsFlat() {
		return applyFlat(s, a)
	}
	h, ok := s.(sim.Hands)
	if !ok {
		return fmt.Errorf("mode %s has no tools", s.Name())
	}
	switch a.Op {
	case OpAddFluid:
		if a.Fluid.Material != nil {
			sim.Refill(h, a.Fluid.Particles())
		} else {
			h.AddFluid(a.Fluid.Pos, a.Fluid.Vel)
		}
	case OpDrain:
		_, err := h.Drain(a.Drain.Center, a.Drain.Radius)
		return err
	case OpAddBody:
		_, _, err := h.AddBody(*a.Body)
		return err
	case OpRemoveBody:
		return h.RemoveBody(a.Index)
	case OpDriveBody:
		h.DriveBody(a.Drive.Index, a.Drive.Velocity, a.Drive.On)
	case OpSetTools:
		h.SetTools(a.Tools.Copy()) // the paddle, the stream and the heat tool: the file's stay as read
	default:
		return fmt.Errorf("unknown op %q", a.Op)
	}
	return nil
}

// applyFlat applies one of the 2D game's hands to s. A grab that takes hold of nothing is an error: a sitting
// records only the grabs that took hold of a body.
func applyFlat(s sim.Solver, a *Action) error {
	h, ok := s.(sim.FlatHands)
	if !ok {
		return fmt.Errorf("mode %s has no 2D game's hands (sim.FlatHands) for op %s", s.Name(), a.Op)
	}
	switch a.Op {
	case OpDraw:
		_, err := h.Draw(a.Stroke.Points, a.Stroke.Speed, a.Stroke.Width)
		return err
	case OpExcite:
		return h.Excite(a.Key)
	case OpGrab:
		if i := h.Grab(*a.At); i < 0 {
			return fmt.Errorf("at (%g, %g) there was a body to take hold of, and now there is none: the replay no longer follows the sitting", a.At[0], a.At[1])
		}
	case OpMoveGrab:
		h.MoveGrab(*a.At)
	case OpRelease:
		h.Release()
	case OpSpawn:
		_, err := h.Spawn(*a.FlatBody)
		return err
	case OpRemoveFlatBody:
		return h.RemoveFlatBody(a.Index)
	default:
		return fmt.Errorf("unknown op %q", a.Op)
	}
	return nil
}

// Run plays f on s headless: it resets s from the file (File.Reset) and steps it frame by frame as the sitting
// was stepped — each frame n = s.BeginFrame(f.FrameDt) steps of f.FrameDt/n seconds, BeginFrame called after the
// actions due at the frame's start are applied — applying the due actions before every step, until s has taken
// f.Steps steps. each, when not nil, is called after every frame with the frame's number from 1 (the
// last one may be cut short at f.Steps); an error from it stops the replay. s must be a solver of f.Mode: another
// mode plays the inputs but does not reproduce the sitting, and is refused.
func Run(s sim.Solver, f *File, each func(frame int) error) error {
	if s.Name() != f.Mode {
		return fmt.Errorf("%s was recorded in mode %s; mode %s cannot reproduce it", f.name(), f.Mode, s.Name())
	}
	if _, err := f.Reset(s); err != nil {
		return err
	}
	p := NewPlayer(f)
	for frame := 1; !p.Done(s); frame++ {
		if _, err := p.ApplyDue(s); err != nil {
			return err
		}
		n := max(1, s.BeginFrame(f.FrameDt))
		dt := f.FrameDt / float64(n)
		for k := 0; k < n && !p.Done(s); k++ {
			if k > 0 {
				if _, err := p.ApplyDue(s); err != nil {
					return err
				}
			}
			before := s.Stats().Steps
			if err := s.Step(dt); err != nil {
				return fmt.Errorf("%s: frame %d: %w", f.name(), frame, err)
			}
			if s.Stats().Steps != before+1 {
				return fmt.Errorf("%s: frame %d: the solver went from step %d to step %d in one step", f.name(), frame, before, s.Stats().Steps)
			}
		}
		if each != nil {
			if err := each(frame); err != nil {
				return err
			}
		}
	}
	// actions after the last step (the tools put away before the sitting was saved)
	_, err := p.ApplyDue(s)
	return err
}
