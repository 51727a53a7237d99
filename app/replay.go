package app

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/slosh/slosh/internal/video"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/replay"
	"github.com/slosh/slosh/sim/scene"
)

// ReplayOptions configure `slosh replay`.
type ReplayOptions struct {
	File          string   // the replay file the window saved
	Record        string   // clip.mp4, clip.gif or clip.png to render every frame into; "" renders nothing
	Width, Height int      // picture size; 0 is 1280×720
	Quality       string   // high, medium or low
	Sets          []string // render.*, surface.*, mesh.* and upsample.* assignments (the simulation's parameters are the file's)
	Save          string   // save file for the final state; "" saves none
	GLCap         string
	Stdout        io.Writer
	Stderr        io.Writer
}

// Replay re-runs a sitting from its replay file: the same mode, scene and parameters, and every tool action and
// parameter change before the step it came before, so the simulation is the sitting's, bit for bit on the same
// device. With Record it renders every frame into a clip, at any size; with Save it saves the final state.
func Replay(o ReplayOptions) error {
	modes := Modes()
	stderr := o.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	if o.File == "" {
		return usagef("name the replay file: slosh replay FILE")
	}
	// the flags first, so that a typo is a usage error whatever the file holds, and a path that cannot be saved
	// to does not cost the replay
	var vq video.Quality
	var err error
	if o.Record != "" {
		if vq, err = clipCheck(o.Record, &o.Width, &o.Height, o.Quality); err != nil {
			return err
		}
	} else {
		switch o.Quality { // clipCheck's names; without --record nothing else of the clip is checked
		case "", "high", "medium", "low":
		default:
			return usagef("--quality %q: want high, medium or low (and it applies to --record's clip)", o.Quality)
		}
	}
	if o.Save != "" {
		path, err := withExt(o.Save, ".slosh")
		if err != nil {
			return &UsageError{Err: fmt.Errorf("--save: %w", err)}
		}
		o.Save = path
	}
	f, err := replay.Read(o.File)
	if err != nil {
		return err
	}
	m, err := lookupMode(modes, f.Mode)
	if err != nil {
		return fmt.Errorf("%s: %w", o.File, err)
	}
	sc, err := f.OpenScene()
	if err != nil {
		return err
	}
	st := &setup{sc: sc, mode: m}
	for _, a := range o.Sets {
		name, _, _ := strings.Cut(a, "=")
		if !st.addViewSet(name, a) {
			return usagef("--set %s: a replay runs with the parameters it recorded; only render.*, surface.*, mesh.* and upsample.* can be set", a)
		}
	}
	g := glInfo{cap: o.GLCap}
	if o.Record != "" || m.Compute {
		w, h := 64, 64
		if o.Record != "" {
			w, h = o.Width, o.Height
		}
		if g.ctx, g.err = openHidden(w, h, o.GLCap); g.err != nil && o.Record != "" {
			return fmt.Errorf("--record needs OpenGL to render: %w", g.err)
		}
		if g.ctx != nil {
			defer g.ctx.Close()
		}
	}
	s, run, note, err := openSolver(modes, m, g)
	if err != nil {
		return err
	}
	ss := &session{st: st, solver: s, mode: run, gl: g}
	defer ss.Close()
	if run.Name != m.Name {
		return fmt.Errorf("%s was recorded in mode %s, which cannot run here (%s): only %s reproduces it", o.File, m.Name, note, m.Name)
	}

	var c *clip
	if o.Record != "" {
		// how many frames the replay has is known only when played (the solver picks each frame's substeps), so a
		// .png output is always a numbered sequence
		if c, err = newClip(st, g, o.Record, o.Width, o.Height, vq, 0, false); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		defer c.Close()
		if c.note != "" {
			fmt.Fprintln(stderr, "slosh: "+c.note)
		}
	}

	bodies := newBodyTrack(sc, f)
	start := time.Now()
	prog := newProgress(stderr)
	measured := false
	err = replay.Run(s, f, func(frame int) error {
		steps := s.Stats().Steps
		elapsed := time.Since(start)
		prog.show(steps, f.Steps, replayProgress(frame, steps, f.Steps, elapsed))
		if !measured && elapsed >= replayMeasure {
			measured = true
			if err := replayTooLong(o.File, steps, f.Steps, elapsed); err != nil {
				return err
			}
		}
		if c == nil {
			return nil
		}
		return c.add(ss, bodies.at(steps))
	})
	prog.end()
	switch {
	case c != nil && err != nil:
		return c.stopped(err)
	case c != nil:
		if ferr := c.finish(); ferr != nil {
			return fmt.Errorf("replay: %w", ferr) // the writer's error says what the output holds
		}
	case err != nil:
		return err
	}
	var fr sim.Frame
	s.Frame(&fr)
	stdout := orStdout(o.Stdout)
	fmt.Fprintf(stdout, "replayed %s: %d steps, %d actions, %d particles at t=%s\n", o.File, f.Steps, len(f.Actions), fr.N, simTime(fr.Time, 3))
	if c != nil {
		fmt.Fprintf(stdout, "wrote %d frames (%d×%d) to %s\n", c.frames(), o.Width, o.Height, c.path())
	}
	if o.Save != "" {
		bodies.at(math.MaxInt) // every drop and removal applied, as the window's save lists them
		msg, err := saveStateFile(o.Save, run.Name, s, liveScene(sc, bodies.list))
		if err != nil {
			return err
		}
		fmt.Fprintln(stderr, "slosh: "+msg)
	}
	return nil
}

// A replay runs for as long as its steps take on this machine, which is known once it has run a while: after
// replayMeasure of it, one that would run longer than replayBudget is stopped with what it would take. A sitting
// in the window runs no faster than the replay of it, so such a file was not made by one (steps near the format's
// limit of 2⁴⁰ would take thousands of years).
const (
	replayMeasure = 2 * time.Second
	replayBudget  = 7 * 24 * time.Hour
)

// replayTooLong is the error for a replay that, at done of total steps after elapsed, would take longer than
// replayBudget; nil when it would not.
func replayTooLong(file string, done, total int, elapsed time.Duration) error {
	if done <= 0 || float64(elapsed)/float64(done)*float64(total) <= float64(replayBudget) {
		return nil
	}
	return fmt.Errorf("%s holds %d steps, which at this machine's rate (%d steps in %s) would take %s, over the %.0f days a replay may run: no sitting at the sandbox is that long, so the file is damaged or was edited",
		file, total, done, elapsed.Round(time.Millisecond), eta(elapsed, done, total), replayBudget.Hours()/24)
}

// replayProgress is the replay's progress line: a bar of the steps played (a replay is as long as its steps; the
// solver picks each frame's substeps, so the frames are known only as they come), the frame, and the time left.
func replayProgress(frame, steps, total int, elapsed time.Duration) string {
	const width = 30
	n := 0
	if total > 0 {
		n = int(min(float64(width), float64(width)*float64(steps)/float64(total)))
	}
	return fmt.Sprintf("slosh: [%s%s] replayed %d/%d steps (frame %d), %s left   ", strings.Repeat("#", n), strings.Repeat(".", width-n),
		steps, total, frame, eta(elapsed, steps, total))
}

// bodyTrack follows the rigid bodies through a replay's drops and removals, for drawing them.
type bodyTrack struct {
	list    []scene.Body
	actions []replay.Action
	next    int
}

func newBodyTrack(sc *scene.Scene, f *replay.File) *bodyTrack {
	return &bodyTrack{list: slices.Clone(sc.Bodies), actions: f.Actions}
}

// at returns the shapes of the bodies after every action before step steps has been applied.
func (b *bodyTrack) at(steps int) []scene.Shape {
	for ; b.next < len(b.actions) && b.actions[b.next].Step < steps; b.next++ {
		switch a := &b.actions[b.next]; a.Op {
		case replay.OpAddBody:
			b.list = append(b.list, *a.Body)
		case replay.OpRemoveBody:
			if a.Index >= 0 && a.Index < len(b.list) {
				b.list = slices.Delete(b.list, a.Index, a.Index+1)
			}
		}
	}
	out := make([]scene.Shape, len(b.list))
	for i := range b.list {
		out[i] = b.list[i].Shape
	}
	return out
}
