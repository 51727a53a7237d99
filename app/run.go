package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
)

// session is a solver built for a setup: the mode that runs (after any fallback), configured and reset. It is
// used from one goroutine (the one that made it, which holds the GL context for Compute modes).
type session struct {
	st     *setup
	solver sim.Solver
	mode   Mode
	gl     glInfo
	note   string // why the mode asked for did not run; "" when it did

	warnings []string  // the solver's warnings after its reset (sim.Warner)
	warn     io.Writer // where they, and capWatch's, were said; nil says nothing
	caps     capWatch
}

// openSession builds, configures and resets the solver for st, printing notes (a fallback, skipped scene
// overrides) to w once.
func openSession(modes []Mode, st *setup, g glInfo, w io.Writer) (*session, error) {
	s, m, note, err := openSolver(modes, st.mode, g)
	if err != nil {
		return nil, err
	}
	if note != "" {
		fmt.Fprintln(w, "slosh: "+note)
	}
	ss := &session{st: st, solver: s, mode: m, gl: g, note: note}
	notes, err := st.configure(s.Params(), m)
	if err != nil {
		ss.Close()
		return nil, err
	}
	for _, n := range notes {
		fmt.Fprintln(w, "slosh: note: "+n)
	}
	if err := sim.Reset(s, st.sc); err != nil {
		ss.Close()
		return nil, inMode(m.Name, err)
	}
	if f := st.load; f != nil {
		if err := readState(s, m, f); err != nil {
			ss.Close()
			return nil, err
		}
	}
	ss.warnings, ss.warn = solverWarnings(s), w
	for _, warning := range ss.warnings {
		fmt.Fprintln(w, "slosh: warning: "+warning)
	}
	return ss, nil
}

// inMode names the mode in a solver's error, unless the solver's message already starts with it.
func inMode(mode string, err error) error {
	if strings.HasPrefix(err.Error(), mode+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", mode, err)
}

// CloseAll closes the session and then the context openHeadless opened for it.
func (s *session) CloseAll() {
	s.Close()
	if s.gl.ctx != nil {
		s.gl.ctx.Close()
	}
}

// Close frees a GPU solver's GL objects.
func (s *session) Close() {
	if s != nil && s.solver != nil {
		deleteSolver(s.solver)
		s.solver = nil
	}
}

// frame advances one simulated frame and returns the stats of its steps appended to buf; a CPU solver's steps run
// off the GL thread (offGLThread).
func (s *session) frame(buf []sim.Stats) (out []sim.Stats, err error) {
	offGLThread(func() { out, err = s.frameSteps(buf) }, s.solver)
	return out, err
}

// offGLThread runs fn on a goroutine of its own and waits for it, unless one of solvers is a GPU solver, whose GL
// calls must stay on the thread main locks its goroutine to. A CPU solver's worker pool hands work back to the
// goroutine that started it hundreds of times a step (every loop of a pressure iteration), and when that goroutine
// is locked to an OS thread each hand-back must wake that one thread: flip's sand column at 1 cm stepped 20–25 %
// slower from the main goroutine than from any other. The window's runner steps on its own goroutine already.
func offGLThread(fn func(), solvers ...sim.Solver) {
	for _, s := range solvers {
		if _, gpu := s.(gpuSolver); gpu {
			fn()
			return
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	<-done
}

// frameSteps is frame's work: the frame's substeps, each one's stats appended to buf.
func (s *session) frameSteps(buf []sim.Stats) ([]sim.Stats, error) {
	n := max(1, s.solver.BeginFrame(FrameDt))
	if msg := s.caps.frame(s.solver, n); msg != "" && s.warn != nil {
		fmt.Fprintln(s.warn, "slosh: "+msg)
	}
	dt := FrameDt / float64(n)
	for k := 0; k < n; k++ {
		if err := s.solver.Step(dt); err != nil {
			return buf, err
		}
		buf = append(buf, s.solver.Stats())
	}
	return buf, nil
}

// particles is what to draw: a GPU solver's own buffers, or the CPU solver's frame uploaded into bufs.
func (s *session) particles(bufs *render.FrameBuffers, f *sim.Frame) (render.Particles, error) {
	if g, ok := s.solver.(gpuSolver); ok {
		return g.Particles(), nil
	}
	s.solver.Frame(f)
	return bufs.Upload(f)
}

// Run simulates o.Frames frames without a visible window, printing one line of statistics per frame to o.Stdout,
// and saves the last frame as a PNG when o.Screenshot is set. A CPU mode without a screenshot needs neither GL nor a
// display.
func Run(o RunOptions) error {
	modes := Modes()
	if o.Frames <= 0 {
		return usagef("--frames %d: must be at least 1", o.Frames)
	}
	if o.Width == 0 && o.Height == 0 {
		o.Width, o.Height = 1280, 720
	}
	if o.Width <= 0 || o.Height <= 0 || o.Width > 16384 || o.Height > 16384 {
		return usagef("--width %d --height %d: the screenshot size must be between 1 and 16384 pixels each way", o.Width, o.Height)
	}
	if o.Screenshot != "" {
		if dir := filepath.Dir(o.Screenshot); dir != "" {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return fmt.Errorf("screenshot %s: the folder %s does not exist", o.Screenshot, dir)
			}
		}
	}
	if o.Save != "" { // before the run, so that a path that cannot be saved to does not cost the run
		path, err := withExt(o.Save, ".slosh")
		if err != nil {
			return &UsageError{Err: fmt.Errorf("--save: %w", err)}
		}
		o.Save = path
	}
	stdout, stderr := orStdout(o.Stdout), o.stderr()
	st, err := prepare(modes, &o.Options)
	if err != nil {
		return err
	}
	var spec abSpec
	if o.AB != "" {
		if o.Screenshot != "" {
			return usagef("--ab and --screenshot: the screenshot of an A/B is not made; record one with slosh record --ab")
		}
		if spec, err = parseABFor(modes, st.mode, o.AB); err != nil {
			return err
		}
	}

	g := glInfo{cap: o.GLCap}
	if o.Screenshot != "" || st.mode.Compute {
		w, h := 64, 64
		if o.Screenshot != "" {
			w, h = o.Width, o.Height
		}
		g.ctx, g.err = openHidden(w, h, o.GLCap)
		if g.err != nil && o.Screenshot != "" {
			return fmt.Errorf("--screenshot needs OpenGL: %w", g.err)
		}
		if g.ctx != nil {
			defer g.ctx.Close()
		}
	}

	var off *offscreen
	var surf *surfacer
	if o.Screenshot != "" {
		if off, err = newOffscreen(o.Width, o.Height); err != nil {
			return err
		}
		defer off.Delete()
		if err := st.configureRender(off.rend.Params()); err != nil {
			return err
		}
		if surf, err = newSurfacer(g.ctx); err != nil {
			return err
		}
		defer surf.Delete()
		if err := st.configureSurface(surf.Params()); err != nil {
			return err
		}
	} else if view := slices.Concat(st.renderSets, st.surfaceSets); len(view) > 0 {
		fmt.Fprintf(stderr, "slosh: note: nothing is rendered without --screenshot; ignoring %s\n", strings.Join(view, " "))
	}

	ss, err := openSession(modes, st, g, stderr)
	if err != nil {
		return err
	}
	defer ss.Close()
	var ab *pair
	if o.AB != "" {
		if err := ss.startABIn(modes, spec, stderr); err != nil {
			return err
		}
		ab = ss.solver.(abPair).pairOf()
	}

	fmt.Fprintf(stdout, "# slosh run: mode %s, scene %s, %d particles, %s, %d frames\n",
		ss.mode.Name, st.sc.Source, ss.solver.Stats().Particles, timeStepping(ss.solver.Params()), o.Frames)
	var steps, stepsB []sim.Stats
	var table, tableB statsTable
	for f := 1; f <= o.Frames; f++ {
		if ab != nil {
			if steps, stepsB, err = abFrame(ab, steps[:0], stepsB[:0]); err != nil {
				return fmt.Errorf("frame %d: %w", f, err)
			}
			fmt.Fprint(stdout, besides(table.line(f, steps), tableB.line(f, stepsB)))
			continue
		}
		steps, err = ss.frame(steps[:0])
		if err != nil {
			return fmt.Errorf("frame %d: %w", f, err)
		}
		fmt.Fprint(stdout, table.line(f, steps))
	}
	if o.Save != "" {
		msg, err := saveStateFile(o.Save, ss.mode.Name, ss.solver, st.sc)
		if err != nil {
			return err
		}
		fmt.Fprintln(stderr, "slosh: "+msg)
	}

	if off == nil {
		return nil
	}
	if fs, ok := ss.solver.(sim.Flat); ok {
		if err := off.drawFlat(g.ctx, fs); err != nil {
			return err
		}
		img := render.Screenshot(off.fb.ID(), off.fb.W, off.fb.H)
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		if err := writePNG(o.Screenshot, img); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "slosh: wrote %s (%d×%d, %s)\n", o.Screenshot, o.Width, o.Height, glName(g))
		return nil
	}
	var frame sim.Frame
	p, err := ss.particles(&off.bufs, &frame)
	if err != nil {
		return err
	}
	if p, err = surf.once(p, gpuReadBack(ss.solver), &frame, 0, &off.bufs, off.rend, st.sc); err != nil {
		return err
	}
	off.rend.SetBodies(bodyShapes(st.sc))
	img, err := off.render(st.sc, sceneCamera(st.sc), p)
	if err != nil {
		return err
	}
	if err := off.rend.Err(); err != nil {
		fmt.Fprintf(stderr, "slosh: note: the screenshot leaves out what the renderer cannot draw: %v\n", err)
	}
	if err := writePNG(o.Screenshot, img); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "slosh: wrote %s (%d×%d, %s)\n", o.Screenshot, o.Width, o.Height, glName(g))
	return nil
}

func glName(g glInfo) string {
	if g.ctx == nil {
		return "no OpenGL"
	}
	return g.ctx.String()
}

// statsTable writes one line of statistics per frame under a header naming the columns: the counts and times every
// mode has, then the mode's own figures, named after the first frame's.
type statsTable struct {
	figures []string // the figures' columns, "name_unit"
	names   []string // the figures' names
}

// line is one frame's statistics — the last step's state, with the step time averaged over the frame's steps —
// after the header when it is the first.
func (t *statsTable) line(frame int, steps []sim.Stats) string {
	if len(steps) == 0 {
		return fmt.Sprintf("%7d  (no steps)\n", frame)
	}
	last := steps[len(steps)-1]
	var b strings.Builder
	if t.names == nil {
		t.names = []string{}
		b.WriteString("# frame   time_s  substeps  step_ms  particles  max_speed_m/s")
		for _, f := range last.Figures {
			col := strings.ReplaceAll(f.Name, " ", "_")
			if f.Unit != "" {
				col += "_" + f.Unit
			}
			t.names, t.figures = append(t.names, f.Name), append(t.figures, col)
			fmt.Fprintf(&b, "  %s", col)
		}
		b.WriteString("\n")
	}
	ms := 0.0
	for _, s := range steps {
		ms += s.StepMs
	}
	ms /= float64(len(steps))
	fmt.Fprintf(&b, "%7d  %7.4f  %8d  %7.2f  %9d  %13.3f", frame, last.Time, len(steps), ms, last.Particles, last.MaxSpeed)
	for k, name := range t.names {
		f, _ := last.Figure(name) // a figure missing in this step (a count shown only when non-zero) is 0
		fmt.Fprintf(&b, "  %*.4g", len(t.figures[k]), f.Value)
	}
	b.WriteString("\n")
	return b.String()
}

// besides joins the lines of A's table and B's into one table: each of A's lines, then " | B " and B's line.
func besides(a, b string) string {
	la := strings.Split(strings.TrimSuffix(a, "\n"), "\n")
	lb := strings.Split(strings.TrimSuffix(b, "\n"), "\n")
	var out strings.Builder
	for i, l := range la {
		out.WriteString(l)
		if i < len(lb) {
			out.WriteString("  | B " + strings.TrimPrefix(lb[i], "# "))
		}
		out.WriteString("\n")
	}
	return out.String()
}

// timeStepping describes how a mode's parameters choose its substeps: "CFL 1.5, 4–32 substeps".
func timeStepping(set *param.Set) string {
	cfl, ok1 := sim.ParamNamed(set, "cfl")
	lo, ok2 := sim.ParamNamed(set, "substeps")
	hi, ok3 := sim.ParamNamed(set, "substeps_max")
	if !ok1 || !ok2 || !ok3 {
		return "substeps chosen by the solver"
	}
	rt := ""
	if on, ok := sim.ParamNamed(set, "realtime"); ok && on.Get().B {
		if cap, ok := sim.ParamNamed(set, "realtime_substeps"); ok {
			rt = fmt.Sprintf(", real-time mode: at most %s, speeds clamped", cap)
		}
	}
	if lo.Get().F >= hi.Get().F {
		return fmt.Sprintf("%s substeps%s", lo, rt)
	}
	return fmt.Sprintf("CFL %s, %s–%s substeps%s", cfl, lo, hi, rt)
}
