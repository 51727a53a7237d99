package app

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// BenchRender is what `slosh bench --render` measures per frame: the frame drawn offscreen the way the window
// draws it, after its steps. Each frame is finished (glFinish) before the next begins, so its GPU timings are
// complete and FrameMs runs from its first step to its last pixel: the window, which lets the GPU run a frame
// behind, takes at most that long.
type BenchRender struct {
	Width      int    `json:"width"`
	Height     int    `json:"height"`
	RenderMode string `json:"render_mode"` // render.mode
	Frames     int    `json:"frames"`      // frames measured
	// UploadMs is the wall time of copying a CPU solver's frame out and uploading it; 0 for a GPU solver, whose
	// buffers are drawn in place.
	UploadMs float64 `json:"upload_ms"`
	// Kernels says where what the surface is drawn from was made: "gpu" (the anisotropic kernels of
	// gpu/surface), "cpu" (the kernels of sim/surface where there are no compute shaders, a mesh for render.mode
	// mesh, or the upsampled surface), or "" when the frames need none: render.mode particles, or spheres the
	// renderer draws itself (surface.enabled false with render.spray_neighbors 0).
	Kernels string `json:"kernels,omitempty"`
	// Surface is that work per frame: GPU milliseconds of gpu/surface's passes (timer queries), or the wall time of
	// the CPU's as "anisotropy (cpu)", "mesh (cpu)" or "upsampling (cpu)".
	Surface []BenchPass `json:"surface"`
	// Passes is the renderer's passes per frame in GPU milliseconds (timer queries), in the order it runs them
	// (render.PassNames); a pass that ran in only some frames counts 0 in the others.
	Passes      []BenchPass `json:"passes"`
	PassSamples int         `json:"pass_samples"` // frames whose renderer timings came back
	// PassClock is "gpu" when Passes and the GPU kernels' Surface are timer queries, "wall" when each pass was
	// finished and timed by the wall clock (bench --pass-wall).
	PassClock string  `json:"pass_clock"`
	GPUMs     float64 `json:"gpu_ms"`    // the sum of the GPU passes: the kernels' (on the GPU) and the renderer's
	StepsMs   float64 `json:"steps_ms"`  // wall time of a frame's solver steps, finished
	RenderMs  float64 `json:"render_ms"` // wall time of the upload, the kernels and the draw, finished
	FrameMs   float64 `json:"frame_ms"`  // the two together
	FPS       float64 `json:"fps"`       // 1000 / FrameMs
	// Window is what the window's frame budget makes of these costs: frames shown a second and simulated seconds
	// a second (windowOutcome).
	Window WindowOutcome `json:"window"`
	Note   string        `json:"note,omitempty"`
}

// WindowOutcome is the window's frame budget applied to a frame's measured costs. A GPU mode's steps share the GL
// thread with the drawing: each display frame runs as many of a frame's substeps as fit in a display period less
// the drawing's GPU time (frameStepBudget; at least one), and draws. A CPU mode steps on its own goroutine: the window shows
// pictures at the drawing's rate while the steps keep their own, if the machine has a core for each (on two
// cores with a software rasteriser they share them, and the window shows less).
type WindowOutcome struct {
	ShownFPS     float64 `json:"shown_fps"`            // display frames a second, at most the 60 Hz refresh
	SimSpeed     float64 `json:"sim_seconds_per_s"`    // simulated seconds a wall second (1: real time)
	StepsPerShow float64 `json:"substeps_per_display"` // substeps run in one display frame
	OnGLThread   bool    `json:"steps_on_gl_thread"`
}

// windowOutcome is the budget's rule (stepsInBudget, the window's stepBudget) applied to a frame of substeps steps
// costing stepsMs in all, drawn in renderMs of wall time of which drawGPUMs on the GPU's clock.
func windowOutcome(stepsMs float64, substeps float64, renderMs, drawGPUMs float64, onGLThread bool) WindowOutcome {
	period := 1000 * displayPeriod
	n := max(1, int(math.Round(substeps)))
	cost := stepsMs / float64(n)
	if !onGLThread {
		o := WindowOutcome{ShownFPS: 1000 / max(period, renderMs), SimSpeed: 1, StepsPerShow: float64(n)}
		if stepsMs > period {
			o.SimSpeed = period / stepsMs
		}
		o.ShownFPS, o.SimSpeed = round(o.ShownFPS), round(o.SimSpeed)
		return o
	}
	budget := 1000 * frameStepBudget(drawGPUMs/1000)
	k := stepsInBudget(budget, cost, n)
	frame := max(period, renderMs+float64(k)*cost)
	fps := 1000 / frame
	return WindowOutcome{ShownFPS: round(fps), SimSpeed: round(fps * float64(k) / float64(n) * FrameDt), StepsPerShow: float64(k), OnGLThread: true}
}

// openRendering is openHeadless for bench --render: the context is opened for every mode, since the frames are
// drawn, and a mode cannot run without it.
func openRendering(modes []Mode, st *setup, glCap string, stderr io.Writer) (*session, glInfo, error) {
	g := glInfo{cap: glCap}
	if g.ctx, g.err = openHidden(64, 64, glCap); g.err != nil {
		return nil, g, fmt.Errorf("bench --render needs OpenGL to render: %w", g.err)
	}
	ss, err := openSession(modes, st, g, stderr)
	if err != nil {
		g.ctx.Close()
		return nil, g, err
	}
	return ss, g, nil
}

// benchRenderCheck validates --render's picture size: 0×0 is 1280×720, and a size without --render is an error.
func benchRenderCheck(o *BenchOptions) error {
	if !o.Render {
		if o.Width != 0 || o.Height != 0 {
			return usagef("--width %d --height %d: the size is that of --render's pictures; add --render", o.Width, o.Height)
		}
		if o.PassWall {
			return usagef("--pass-wall times --render's passes; add --render")
		}
		return nil
	}
	if o.Width == 0 && o.Height == 0 {
		o.Width, o.Height = 1280, 720
	}
	if o.Width < 1 || o.Height < 1 || o.Width > 16384 || o.Height > 16384 {
		return usagef("--width %d --height %d: the picture must be between 1 and 16384 pixels each way", o.Width, o.Height)
	}
	return nil
}

// benchRender draws a benchmark's frames offscreen as the window draws them: the particles (a CPU solver's frame
// uploaded), their anisotropic kernels when the render mode wants them (surfacer), and the renderer's passes into
// a w×h framebuffer from the scene's camera.
type benchRender struct {
	off   *offscreen
	surf  *surfacer
	sc    *scene.Scene
	cam   *render.OrbitCamera
	frame sim.Frame
	drawn uint64 // pictures drawn: the surfacer's version, so the kernels are computed for each

	// the measured frames
	frames                   int
	wall, upload, cpuKernels time.Duration
	cpuView                  string // what the CPU made for the pictures (viewJob.name)
	gpuKernels, passes       passAverager
	uploads, wantedKernels   bool
	wantedKernelsOnGPU       bool
	wallClock                bool // the passes are timed by the wall clock (setWall)
}

// setWall times the renderer's and the GPU kernels' passes by the wall clock, each finished before the next.
func (b *benchRender) setWall(on bool) {
	b.wallClock = on
	b.off.rend.SetWallTimings(on)
	if b.surf.gpu != nil {
		b.surf.gpu.SetWallTimings(on)
	}
}

// newBenchRender makes the offscreen target, the renderer and the surfacer for st's scene, configured with st's
// render.* and surface.* assignments. It needs g's context current.
func newBenchRender(st *setup, g glInfo, w, h int) (*benchRender, error) {
	b := &benchRender{sc: st.sc}
	var err error
	if b.off, b.surf, err = newSceneView(st, g, w, h); err != nil {
		return nil, err
	}
	b.off.rend.SetBodies(bodyShapes(st.sc))
	b.cam = sceneCamera(st.sc)
	return b, nil
}

// draw renders the session's current state and waits for the GPU to finish it; with measure it adds the frame's
// times to the results. sync is run first, so the solver's queued steps are not counted as rendering.
func (b *benchRender) draw(ss *session, sync func() error, measure bool) error {
	if err := sync(); err != nil {
		return err
	}
	start := time.Now()
	p, err := ss.particles(&b.off.bufs, &b.frame)
	if err != nil {
		return err
	}
	uploaded := time.Now()
	b.drawn++
	j := b.surf.job(b.off.rend, b.sc, false) // what once makes on the CPU
	onGPU := b.surf.gpuKernels(b.off.rend, j)
	if p, err = b.surf.once(p, gpuReadBack(ss.solver), &b.frame, b.drawn, &b.off.bufs, b.off.rend, b.sc); err != nil {
		return err
	}
	kernels := time.Now()
	b.off.draw(b.cam, p)
	if err := finishGL("bench: drawing a frame"); err != nil {
		return err
	}
	if !measure {
		return nil
	}
	b.frames++
	b.wall += time.Since(start)
	if _, own := ss.solver.(gpuSolver); !own {
		b.uploads = true
		b.upload += uploaded.Sub(start)
	}
	switch {
	case p.N == 0:
	case onGPU:
		b.wantedKernels, b.wantedKernelsOnGPU = true, true
		b.gpuKernels.add(b.surf.Timings()) // this frame's: the GPU has finished
	case j != viewJob{}:
		b.wantedKernels = true
		b.cpuView = j.name()
		b.cpuKernels += kernels.Sub(uploaded)
	}
	if passes, ok := b.off.rend.Timings(); ok {
		b.passes.add(passes)
	}
	return nil
}

// renderWall is the wall time of the measured frames' rendering.
func (b *benchRender) renderWall() time.Duration {
	if b == nil {
		return 0
	}
	return b.wall
}

// result sums up the measured frames; stepsWall is the wall time of their steps, substeps their mean count a
// frame, solver what took them.
func (b *benchRender) result(stepsWall time.Duration, substeps float64, solver sim.Solver) *BenchRender {
	r := &BenchRender{Width: b.off.fb.W, Height: b.off.fb.H, Frames: b.frames, Surface: []BenchPass{}}
	if p, ok := b.off.rend.Params().Lookup(renderPrefix + ".mode"); ok {
		r.RenderMode = p.String()
	}
	perFrame := func(d time.Duration) float64 {
		return round(float64(d.Nanoseconds()) / 1e6 / float64(max(1, b.frames)))
	}
	if b.uploads {
		r.UploadMs = perFrame(b.upload)
	}
	switch {
	case b.wantedKernelsOnGPU:
		r.Kernels = "gpu"
		r.Surface = b.gpuKernels.means()
	case b.wantedKernels:
		r.Kernels = "cpu"
		r.Surface = []BenchPass{{Name: b.cpuView + " (cpu)", MeanMs: perFrame(b.cpuKernels)}}
	}
	r.Passes = b.passes.means()
	r.PassClock = "gpu"
	if b.wallClock {
		r.PassClock = "wall"
	}
	order := render.PassNames()
	slices.SortStableFunc(r.Passes, func(x, y BenchPass) int {
		return slices.Index(order, x.Name) - slices.Index(order, y.Name)
	})
	r.PassSamples = b.passes.samples
	for _, p := range r.Passes {
		r.GPUMs += p.MeanMs
	}
	if r.Kernels == "gpu" {
		for _, p := range r.Surface {
			r.GPUMs += p.MeanMs
		}
	}
	r.GPUMs = round(r.GPUMs)
	r.StepsMs = perFrame(stepsWall)
	r.RenderMs = perFrame(b.wall)
	r.FrameMs = round(r.StepsMs + r.RenderMs)
	if r.FrameMs > 0 {
		r.FPS = round(1000 / r.FrameMs)
	}
	_, onGL := solver.(gpuSolver)
	r.Window = windowOutcome(r.StepsMs, substeps, r.RenderMs, r.GPUMs, onGL)
	if err := b.off.rend.Err(); err != nil {
		r.Note = "the frames leave out what the renderer cannot draw: " + err.Error()
	}
	return r
}

// Delete frees the GL objects; safe on a partly made benchRender.
func (b *benchRender) Delete() {
	if b == nil {
		return
	}
	b.surf.Delete()
	b.off.Delete()
}

func printBenchRender(w io.Writer, r *BenchRender) {
	kernels := "no kernels (render.mode " + r.RenderMode + " draws spheres)"
	switch {
	case r.Kernels == "cpu" && len(r.Surface) == 1:
		kernels = strings.TrimSuffix(r.Surface[0].Name, " (cpu)") + " on the cpu"
	case r.Kernels != "":
		kernels = "kernels on the " + r.Kernels
	}
	fmt.Fprintf(w, "render: %d×%d, render.mode %s, %s; %d frames, each finished before the next\n",
		r.Width, r.Height, r.RenderMode, kernels, r.Frames)
	fmt.Fprintf(w, "  %-16s %10s  %s\n", "pass", "ms/frame", "clock")
	if r.UploadMs > 0 {
		fmt.Fprintf(w, "  %-16s %10.3f  %s\n", "upload", r.UploadMs, "wall")
	}
	pc := r.PassClock
	if pc == "" {
		pc = "gpu"
	}
	clock := pc
	if r.Kernels == "cpu" {
		clock = "wall"
	}
	for _, p := range r.Surface {
		fmt.Fprintf(w, "  %-16s %10.3f  %s\n", p.Name, p.MeanMs, clock)
	}
	for _, p := range r.Passes {
		fmt.Fprintf(w, "  %-16s %10.3f  %s\n", p.Name, p.MeanMs, pc)
	}
	if r.PassSamples == 0 {
		fmt.Fprintln(w, "  (no GPU timings came back)")
	}
	fmt.Fprintf(w, "  %-16s %10.3f  %s\n", "passes (sum)", r.GPUMs, pc)
	fmt.Fprintf(w, "  %-16s %10.3f  wall\n", "steps", r.StepsMs)
	fmt.Fprintf(w, "  %-16s %10.3f  wall\n", "render", r.RenderMs)
	fmt.Fprintf(w, "  %-16s %10.3f  wall, %.1f frames/s\n", "frame", r.FrameMs, r.FPS)
	where := "steps on their own thread"
	if r.Window.OnGLThread {
		where = fmt.Sprintf("%g substeps a display frame on the GL thread", r.Window.StepsPerShow)
	}
	fmt.Fprintf(w, "  %-16s %10.1f  frames/s shown, %.2f× real time (the frame budget: %s)\n", "window", r.Window.ShownFPS, r.Window.SimSpeed, where)
}
