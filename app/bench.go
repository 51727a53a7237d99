package app

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim"
)

// BenchResult is what `slosh bench` measures, as written to --json.
type BenchResult struct {
	Mode          string      `json:"mode"`
	RequestedMode string      `json:"requested_mode"`
	Fallback      string      `json:"fallback,omitempty"` // why the requested mode did not run
	Scene         string      `json:"scene"`
	Particles     int         `json:"particles"`
	TimeStep      string      `json:"time_step"`            // how the substeps were chosen: "CFL 1.5, 4–32 substeps"
	Substeps      float64     `json:"substeps_per_frame"`   // measured steps over measured frames
	Iterations    int         `json:"iterations,omitempty"` // the mode's *.iterations parameter, when it has one
	WarmupFrames  int         `json:"warmup_frames"`
	Frames        int         `json:"frames"`
	Steps         int         `json:"steps"`
	Passes        []BenchPass `json:"passes"`
	// PassSamples is how many steps reported pass timings (GPU timings arrive a few steps late).
	PassSamples   int     `json:"pass_samples"`
	StepMs        float64 `json:"step_ms"`          // mean of the solver's own per-step time (the sum of its passes)
	WallMsPerStep float64 `json:"wall_ms_per_step"` // wall time of the measured frames over their steps
	// Bodies is the number of rigid bodies; RigidMs the mean time per step of the rigid-body passes (shape
	// matching, rigid collision: the passes named "rigid"), and RigidShare that time over the rest of the step.
	Bodies        int     `json:"bodies,omitempty"`
	RigidMs       float64 `json:"rigid_ms,omitempty"`
	RigidShare    float64 `json:"rigid_share,omitempty"`
	ParticleSteps float64 `json:"particle_steps_per_second"`
	// Figures are the mode's own numbers (sim.Figure) over the measured steps: residuals, iterations, errors.
	Figures   []BenchFigure `json:"figures,omitempty"`
	Machine   Machine       `json:"machine"`
	GoVersion string        `json:"go_version"`
	Timestamp string        `json:"timestamp"`

	// Render is what --render measured: each frame drawn offscreen after its steps; nil without --render. With it,
	// WallMsPerStep and ParticleSteps count the steps' wall time only.
	Render *BenchRender `json:"render,omitempty"`
}

// BenchFigure is one of the mode's figures over the measured steps.
type BenchFigure struct {
	Name string  `json:"name"`
	Unit string  `json:"unit,omitempty"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

// figureAverager accumulates the figures of steps, in the order they first appear.
type figureAverager struct {
	figs []BenchFigure
	n    []int
}

func (a *figureAverager) add(figs []sim.Figure) {
	for _, f := range figs {
		i := slices.IndexFunc(a.figs, func(b BenchFigure) bool { return b.Name == f.Name })
		if i < 0 {
			a.figs = append(a.figs, BenchFigure{Name: f.Name, Unit: f.Unit, Max: f.Value})
			a.n = append(a.n, 0)
			i = len(a.figs) - 1
		}
		a.figs[i].Mean += f.Value
		a.figs[i].Max = max(a.figs[i].Max, f.Value)
		a.n[i]++
	}
}

func (a *figureAverager) result() []BenchFigure {
	out := slices.Clone(a.figs)
	for i := range out {
		out[i].Mean /= float64(a.n[i])
	}
	return out
}

// BenchPass is the mean time of one stage per step.
type BenchPass struct {
	Name   string  `json:"name"`
	MeanMs float64 `json:"mean_ms"`
}

// Machine describes where a benchmark ran.
type Machine struct {
	CPU        string `json:"cpu,omitempty"`
	NumCPU     int    `json:"num_cpu"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	GL         string `json:"gl,omitempty"` // the context's version and renderer, when GL was used
}

// passAverager averages pass timings over the steps that reported them, keeping the order of first appearance.
type passAverager struct {
	names   []string
	sums    map[string]float64
	samples int
}

func (a *passAverager) add(passes []sim.Pass) {
	if len(passes) == 0 {
		return // GPU timings not back yet
	}
	if a.sums == nil {
		a.sums = map[string]float64{}
	}
	for _, p := range passes {
		if _, ok := a.sums[p.Name]; !ok {
			a.names = append(a.names, p.Name)
		}
		a.sums[p.Name] += p.Ms
	}
	a.samples++
}

func (a *passAverager) means() []BenchPass {
	out := make([]BenchPass, 0, len(a.names))
	for _, n := range a.names {
		out = append(out, BenchPass{Name: n, MeanMs: round(a.sums[n] / float64(max(1, a.samples)))})
	}
	return out
}

// openHeadless builds the solver for a run without a window: a compute mode gets a small hidden window's context
// (or falls back without one). CloseAll frees the solver and then the context.
func openHeadless(modes []Mode, st *setup, glCap string, stderr io.Writer) (*session, glInfo, error) {
	g := glInfo{cap: glCap}
	if st.mode.Compute {
		g.ctx, g.err = openHidden(64, 64, glCap)
	}
	ss, err := openSession(modes, st, g, stderr)
	if err != nil {
		if g.ctx != nil {
			g.ctx.Close()
		}
		return nil, g, err
	}
	return ss, g, nil
}

// Bench warms up, then measures o.Frames frames, prints a table of the mean milliseconds per pass and per step
// and the particle-steps per second, and writes the same as JSON to o.JSON.
func Bench(o BenchOptions) error {
	modes := Modes()
	if o.Frames <= 0 {
		return usagef("--frames %d: must be at least 1 (the frames to measure)", o.Frames)
	}
	if o.Warmup < 0 {
		return usagef("--warmup %d: must be 0 or more (the frames to run before measuring)", o.Warmup)
	}
	if err := benchRenderCheck(&o); err != nil {
		return err
	}
	stdout, stderr := orStdout(o.Stdout), o.stderr()
	st, err := prepare(modes, &o.Options)
	if err != nil {
		return err
	}
	if view := slices.Concat(st.renderSets, st.surfaceSets); len(view) > 0 && !o.Render {
		fmt.Fprintf(stderr, "slosh: note: bench renders nothing without --render; ignoring %s\n", strings.Join(view, " "))
	}
	open := openHeadless
	if o.Render {
		open = openRendering
	}
	ss, g, err := open(modes, st, o.GLCap, stderr)
	if err != nil {
		return err
	}
	defer ss.CloseAll()
	var br *benchRender // --render: each frame drawn after its steps
	if o.Render {
		if br, err = newBenchRender(st, g, o.Width, o.Height); err != nil {
			return fmt.Errorf("bench --render: %w", err)
		}
		br.setWall(o.PassWall)
		defer br.Delete()
	}
	// GPU solvers queue work: wait for it before and after the measured frames.
	sync := func() error { return nil }
	if sy, ok := ss.solver.(interface{ Sync() error }); ok {
		sync = sy.Sync
	}

	var steps []sim.Stats
	for f := 0; f < o.Warmup; f++ {
		if steps, err = ss.frame(steps[:0]); err != nil {
			return fmt.Errorf("warm-up frame %d: %w", f+1, err)
		}
		if br != nil {
			if err := br.draw(ss, sync, false); err != nil {
				return fmt.Errorf("warm-up frame %d: %w", f+1, err)
			}
		}
	}
	if err := sync(); err != nil {
		return fmt.Errorf("after the warm-up: %w", err)
	}
	var passes passAverager
	var figures figureAverager
	var stepMs float64
	nsteps := 0
	start := time.Now()
	for f := 0; f < o.Frames; f++ {
		if steps, err = ss.frame(steps[:0]); err != nil {
			return fmt.Errorf("measured frame %d: %w", f+1, err)
		}
		for _, s := range steps {
			passes.add(s.Passes)
			figures.add(s.Figures)
			stepMs += s.StepMs
			nsteps++
		}
		if br != nil {
			if err := br.draw(ss, sync, true); err != nil {
				return fmt.Errorf("measured frame %d: %w", f+1, err)
			}
		}
	}
	if err := sync(); err != nil {
		return fmt.Errorf("after the measured frames: %w", err)
	}
	wall := time.Since(start) - br.renderWall()

	set := ss.solver.Params()
	r := BenchResult{
		Mode:          ss.mode.Name,
		RequestedMode: st.mode.Name,
		Fallback:      ss.note,
		Scene:         st.sc.Source,
		Particles:     ss.solver.Stats().Particles,
		TimeStep:      timeStepping(set),
		Substeps:      math.Round(100*float64(nsteps)/float64(max(1, o.Frames))) / 100,
		Iterations:    intParam(set, "iterations", 0),
		WarmupFrames:  o.Warmup,
		Frames:        o.Frames,
		Steps:         nsteps,
		Passes:        passes.means(),
		Figures:       figures.result(),
		PassSamples:   passes.samples,
		Machine:       machineInfo(g),
		GoVersion:     runtime.Version(),
		Timestamp:     time.Now().UTC().Format(time.RFC3339),
	}
	if nsteps > 0 {
		r.StepMs = round(stepMs / float64(nsteps))
		var f sim.Frame
		ss.solver.Frame(&f)
		if r.Bodies = len(f.Bodies); r.Bodies > 0 {
			for _, p := range r.Passes {
				if p.Name == "rigid" {
					r.RigidMs += p.MeanMs
				}
			}
			if rest := r.StepMs - r.RigidMs; rest > 0 {
				r.RigidShare = math.Round(1e4*r.RigidMs/rest) / 1e4
			}
		}
		r.WallMsPerStep = round(float64(wall.Nanoseconds()) / 1e6 / float64(nsteps))
		r.ParticleSteps = math.Round(float64(r.Particles) * float64(nsteps) / wall.Seconds())
	}
	if br != nil {
		r.Render = br.result(wall, r.Substeps, ss.solver)
		if r.Render.Note != "" {
			fmt.Fprintln(stderr, "slosh: note: "+r.Render.Note)
		}
	}
	printBench(stdout, &r)
	if o.JSON != "" {
		data, err := json.MarshalIndent(&r, "", "  ")
		if err != nil {
			return fmt.Errorf("bench: encoding the results: %w", err)
		}
		if err := atomicfile.WriteBytes(o.JSON, append(data, '\n')); err != nil { // never through a link
			return fmt.Errorf("bench: %w", err)
		}
	}
	return nil
}

func printBench(w io.Writer, r *BenchResult) {
	iters := ""
	if r.Iterations > 0 {
		iters = fmt.Sprintf(", %d iterations", r.Iterations)
	}
	fmt.Fprintf(w, "slosh bench: mode %s, scene %s, %d particles, %s (%.2f a frame)%s\n",
		r.Mode, r.Scene, r.Particles, r.TimeStep, r.Substeps, iters)
	fmt.Fprintf(w, "%d frames (%d steps) measured after %d warm-up frames; %s\n", r.Frames, r.Steps, r.WarmupFrames, machineLine(r.Machine))
	fmt.Fprintf(w, "  %-16s %10s %7s\n", "pass", "mean ms", "share")
	for _, p := range r.Passes {
		share := 0.0
		if r.StepMs > 0 {
			share = 100 * p.MeanMs / r.StepMs
		}
		fmt.Fprintf(w, "  %-16s %10.3f %6.1f%%\n", p.Name, p.MeanMs, share)
	}
	if len(r.Passes) == 0 {
		fmt.Fprintln(w, "  (no pass timings reported)")
	}
	fmt.Fprintf(w, "  %-16s %10.3f\n", "step (solver)", r.StepMs)
	fmt.Fprintf(w, "  %-16s %10.3f\n", "step (wall)", r.WallMsPerStep)
	if r.Bodies > 0 {
		fmt.Fprintf(w, "%d rigid bodies: their passes take %.3f ms per step, %.1f%% on top of the fluid's\n", r.Bodies, r.RigidMs, 100*r.RigidShare)
	}
	fmt.Fprintf(w, "%d steps, %d particles, %.4g particle-steps/s\n", r.Steps, r.Particles, r.ParticleSteps)
	if len(r.Figures) > 0 {
		fmt.Fprintf(w, "  %-24s %12s %12s\n", "figure", "mean", "max")
		for _, f := range r.Figures {
			fmt.Fprintf(w, "  %-24s %12s %12s\n", f.Name, sim.FormatValue(f.Mean, f.Unit), sim.FormatValue(f.Max, f.Unit))
		}
	}
	if r.Render != nil {
		printBenchRender(w, r.Render)
	}
}

func machineLine(m Machine) string {
	s := fmt.Sprintf("%s, %d CPUs, GOMAXPROCS %d", orUnknown(m.CPU), m.NumCPU, m.GOMAXPROCS)
	if m.GL != "" {
		s += "; " + m.GL
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}

func machineInfo(g glInfo) Machine {
	m := Machine{CPU: cpuModel(), NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if g.ctx != nil {
		m.GL = g.ctx.String()
	}
	return m
}

// cpuModel reads the first "model name" of /proc/cpuinfo; empty where there is none.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// round keeps milliseconds to a tenth of a microsecond, which is all a timer resolves.
func round(ms float64) float64 { return math.Round(ms*1e4) / 1e4 }
