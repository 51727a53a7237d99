package app

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
)

// Adaptive start-up quality: the first time the window opens a scene the user did not size (no --particles, no
// <mode>.particles or .spacing, no --load), it measures what this machine sustains — display frames a second and
// simulated seconds a second, over a second of the real window — and steps the quality down until the window holds
// qualityFPS with the simulation moving at qualitySpeed or better: the surface's resolution (render.scale), the
// particle count, then cheaper pictures (qualityLooks: no anisotropic kernels, a quarter of the resolution,
// spheres) and fewer particles still; a picture of the user's own (render.mode, render.scale, surface.enabled)
// keeps its look. Where OpenGL is a software rasteriser (llvmpipe), a mode that steps on the GPU runs as its CPU
// twin instead: its compute shaders would run on the same cores, serialised on the GL thread. The choice is a
// function of the measurements alone (nextQuality), so the panel can show it and why, and a test can redo it.

const (
	qualityFPS       = 30   // display frames a second the chosen quality holds
	qualitySpeed     = 0.25 // simulated seconds a wall second it still gives: the fluid visibly moves
	qualityFloor     = 2000 // fewest particles the chooser goes down to
	qualityLookFloor = 8000 // fewest particles before the picture gets cheaper than the surface at half resolution
	qualityProbes    = 8    // most configurations measured

	probeWarmup = 500 * time.Millisecond // after a change, before measuring: shaders compile, the first frames settle
	probeLength = time.Second            // measured at least this long ...
	probeFrames = 3                      // ... and over at least this many display frames,
	probeLimit  = 4 * time.Second        // unless this long passes first
)

// qualityLook is one rung of what the picture costs.
type qualityLook struct {
	Scale   float64 // render.scale: the surface's images at this fraction of the view
	Kernels bool    // surface.enabled, and the spray that reads the kernels' neighbour counts
	Spheres bool    // render.mode particles instead of the surface
}

// qualityLooks are the pictures the chooser tries, dearest first: the surface as the scene asks, at half the
// resolution, without the anisotropic kernels (round splats, no spray: on llvmpipe the kernels cost 90 ms at 8k
// particles), at a quarter of the resolution, and lit spheres.
var qualityLooks = []qualityLook{{Scale: 1, Kernels: true}, {Scale: 0.5, Kernels: true}, {Scale: 0.5}, {Scale: 0.25}, {Spheres: true}}

// qualityConfig is one configuration the chooser tries: the mode, the particle count (the mode's particles
// parameter; 0 is the scene's own resolution) and the picture (an index into qualityLooks; 0 is the picture as
// set).
type qualityConfig struct {
	Mode      string
	Particles int
	Look      int
}

// qualitySample is what the window measured of one configuration.
type qualitySample struct {
	Config    qualityConfig
	Count     int     // particles the reset made
	FPS       float64 // display frames per wall second
	Speed     float64 // simulated seconds per wall second
	Substeps  int     // the last frame's substeps, for the record
	Seconds   float64 // how long it was measured
	Frames    int     // over how many display frames
	FrameMs   float64 // mean display frame, ms
	Simulated float64 // simulated seconds in that time
}

// qualityPlan is what the chooser knows before measuring: where it starts and what this machine's OpenGL is.
type qualityPlan struct {
	Start      qualityConfig
	Renderer   string // GL_RENDERER
	SoftwareGL bool   // a CPU rasteriser: llvmpipe, softpipe, SwiftShader
	Compute    bool   // the start's mode steps on the GPU ...
	Fallback   string // ... and this CPU mode takes the same parameters
	Looks      bool   // the picture is the surface at full resolution with kernels: the cheaper looks apply
}

// softwareGL says whether GL_RENDERER names a rasteriser that runs on the CPU.
func softwareGL(renderer string) bool {
	r := strings.ToLower(renderer)
	for _, s := range []string{"llvmpipe", "softpipe", "swiftshader", "software rasterizer", "swrast"} {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// meets says whether a sample holds the targets.
func (s qualitySample) meets() bool { return s.FPS >= qualityFPS && s.Speed >= qualitySpeed }

// nextQuality is the chooser: from the plan and the samples measured so far (oldest first), the configuration to
// measure next, or done with the configuration to keep and why. It depends on nothing else, so its choice can be
// redone from a sitting's measurements.
func nextQuality(p qualityPlan, samples []qualitySample) (next qualityConfig, done bool, why string) {
	if len(samples) == 0 {
		c := p.Start
		if p.Compute && p.SoftwareGL && p.Fallback != "" {
			c.Mode = p.Fallback
		}
		return c, false, ""
	}
	last := samples[len(samples)-1]
	measured := fmt.Sprintf("%s particles drew %.1f frames/s at %.2f× real time", groupThousands(last.Count), last.FPS, last.Speed)
	if last.meets() {
		return last.Config, true, measured + ": it holds"
	}
	if len(samples) >= qualityProbes {
		return last.Config, true, measured + fmt.Sprintf(" (%d tries, the most the chooser makes)", len(samples))
	}
	next = last.Config
	short := last.FPS < qualityFPS
	cheaper := short && p.Looks && next.Look+1 < len(qualityLooks)
	if cheaper && next.Look == 0 { // half the resolution first: the cheapest loss
		next.Look++
		return next, false, ""
	}
	floor := qualityFloor
	if cheaper {
		floor = qualityLookFloor
	}
	if last.Count > floor {
		// Cost grows about linearly with the particles: scale the count by the worst shortfall, a little under it,
		// at least halving and at most an eighth at a time; rounded to two figures.
		ratio := 1.0
		if short {
			ratio = math.Min(ratio, last.FPS/qualityFPS)
		}
		if last.Speed < qualitySpeed {
			ratio = math.Min(ratio, last.Speed/qualitySpeed)
		}
		ratio = math.Max(1.0/8, math.Min(0.5, 0.9*ratio))
		next.Particles = max(floor, roundTwoFigures(float64(last.Count)*ratio))
		if next != last.Config {
			return next, false, ""
		}
	}
	if cheaper {
		next.Look++
		return next, false, ""
	}
	return last.Config, true, measured + fmt.Sprintf(": the fewest particles and the cheapest picture the chooser tries (%d)", floor)
}

// roundTwoFigures rounds x to two significant figures: 7938 → 7900.
func roundTwoFigures(x float64) int {
	if x < 1 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(x))-1)
	return int(math.Round(x/p) * p)
}

// groupThousands writes n with thousands separated by commas.
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupThousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// qualityProbe runs the chooser in the window: it measures the configuration running, asks nextQuality, and
// applies its answer, one configuration after another until the chooser is done.
type qualityProbe struct {
	scene   string // the scene's Source
	plan    qualityPlan
	look    lookParams // the renderer's settings the looks change, as they were
	samples []qualitySample
	cur     qualityConfig

	changed   time.Time // when cur was applied: measuring starts probeWarmup later
	measuring bool
	start     time.Time
	frames    int
	simStart  float64

	done   bool
	why    string // the chooser's last word
	chosen qualityConfig
}

// describe is the panel's account of the choice.
func (q *qualityProbe) describe() string {
	if q == nil {
		return ""
	}
	if !q.done {
		return fmt.Sprintf("Measuring this machine (try %d): %s", len(q.samples)+1, q.configText(q.cur))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Chosen for this machine: %s.\n", q.configText(q.chosen))
	if q.chosen.Mode != q.plan.Start.Mode {
		fmt.Fprintf(&b, "OpenGL here is %s, a software rasteriser: %s steps on the CPU, on its own thread.\n", q.plan.Renderer, q.chosen.Mode)
	}
	first := q.samples[0]
	if len(q.samples) > 1 {
		fmt.Fprintf(&b, "At first, %s particles drew %.1f frames/s at %.2f× real time; ", groupThousands(first.Count), first.FPS, first.Speed)
	}
	b.WriteString(q.why + ".")
	return b.String()
}

func (q *qualityProbe) configText(c qualityConfig) string {
	s := c.Mode + ", "
	if c.Particles > 0 {
		s += groupThousands(c.Particles) + " particles"
	} else {
		s += "the scene's particles"
	}
	if q.plan.Looks {
		switch l := qualityLooks[c.Look]; {
		case l.Spheres:
			s += ", drawn as spheres"
		case l.Kernels:
			s += fmt.Sprintf(", the surface at %.2g× resolution", l.Scale)
		default:
			s += fmt.Sprintf(", the surface at %.2g× resolution without anisotropic kernels", l.Scale)
		}
	}
	return s
}

// probeQuality is called once a display frame: it measures, and when a measurement is complete, applies the
// chooser's next configuration or its final choice.
func (v *viewer) probeQuality(now time.Time) {
	q := v.quality
	if q == nil || q.done {
		return
	}
	if !q.measuring {
		if now.Sub(q.changed) < probeWarmup {
			return
		}
		q.measuring, q.start, q.frames, q.simStart = true, now, 0, v.drv.Stats().Time
		return
	}
	q.frames++
	el := now.Sub(q.start)
	if (el < probeLength || q.frames < probeFrames) && el < probeLimit {
		return
	}
	st := v.drv.Stats()
	if st.Time < q.simStart {
		// the simulated time went back: a reset still on its way when measuring began (a CPU runner resets
		// between frames) landed in the window; measure again
		q.measuring, q.changed = false, now
		return
	}
	secs := el.Seconds()
	s := qualitySample{Config: q.cur, Count: st.Particles, FPS: float64(q.frames) / secs, Speed: (st.Time - q.simStart) / secs,
		Substeps: st.Substeps, Seconds: secs, Frames: q.frames, FrameMs: 1000 * secs / float64(q.frames), Simulated: st.Time - q.simStart}
	q.samples = append(q.samples, s)
	fmt.Fprintf(v.stderr, "slosh: quality: %s: %d frames in %.2f s (%.1f ms each), %.3f s simulated (%.2f× real time, %d substeps)\n",
		q.configText(s.Config), s.Frames, s.Seconds, s.FrameMs, s.Simulated, s.Speed, s.Substeps)
	next, done, why := nextQuality(q.plan, q.samples)
	if done {
		q.done, q.why, q.chosen = true, why, next
		if len(q.samples) > 1 {
			// the scene ran on while the chooser tried: start it again at the chosen quality, so a dam break is
			// seen breaking
			v.reset()
		}
		v.status.set("quality: "+q.configText(next)+": "+why, false)
		fmt.Fprintf(v.stderr, "slosh: quality: chose %s: %s\n", q.configText(next), why)
		return
	}
	v.applyQuality(next, now)
	v.status.set("measuring this machine: "+q.configText(next), false)
}

// applyQuality runs configuration c: the mode, the surface's resolution and the particle count, with a reset when
// the mode or the count changes.
func (v *viewer) applyQuality(c qualityConfig, now time.Time) {
	q := v.quality
	q.cur, q.measuring, q.changed = c, false, now
	if q.plan.Looks {
		q.look.apply(v, qualityLooks[c.Look])
	}
	count, hasCount := sim.ParamNamed(v.drv.Params(), "particles")
	if hasCount && int(count.Get().F) != c.Particles {
		if err := count.Set(param.Value{F: float64(c.Particles)}); err != nil {
			v.status.set(err.Error(), true)
			return
		}
		v.drv.ParamsChanged()
		if c.Mode == v.drv.Mode().Name {
			v.reset()
		}
	}
	if c.Mode != v.drv.Mode().Name {
		if m, ok := findMode(v.modes, c.Mode); ok {
			v.switchMode(m) // the count goes with the other parameters
		}
	}
}

// takeBackQuality returns to what the scene asks for: its particle count, the full surface resolution, the mode it
// started in; the measurements stay in the panel's account.
func (v *viewer) takeBackQuality() {
	q := v.quality
	if q == nil || !q.done {
		return
	}
	q.done = false
	v.applyQuality(q.plan.Start, time.Now())
	q.done, q.chosen, q.why = true, q.plan.Start, "taken back: the scene's own quality, whatever this machine shows"
	v.qualityAuto = false
	v.status.set("quality taken back: "+q.configText(q.chosen), false)
}

// stopQuality ends a probe the user took over (a mode, scene or particle count of their own, a pause).
func (v *viewer) stopQuality(why string) {
	q := v.quality
	if q == nil || q.done {
		return
	}
	v.qualityAuto = false
	q.done, q.chosen, q.why = true, q.cur, "stopped measuring: "+why
	if len(q.samples) == 0 {
		v.quality = nil
	}
}

// startQuality begins measuring, unless the user sized the run: a saved state, a particle count or spacing of
// their own, or a 2D mode (which draws no particles). A picture of their own (render.mode, render.scale,
// surface.enabled) keeps its look: only the particle count is chosen.
func (v *viewer) startQuality(st *setup) {
	if st.load != nil {
		return
	}
	for _, a := range st.solverSets {
		name, _, _ := strings.Cut(a, "=")
		if strings.HasSuffix(name, ".particles") || strings.HasSuffix(name, ".spacing") || strings.HasSuffix(name, ".cell") {
			return
		}
	}
	look, ok := readLook(v)
	looks := ok && look.mode == "surface" && look.scale == 1 && look.kernels
	for _, a := range slices.Concat(st.renderSets, st.surfaceSets) {
		name, _, _ := strings.Cut(a, "=")
		if name == "render.mode" || name == "render.scale" || name == "surface.enabled" {
			looks = false
		}
	}
	v.qualityAuto = true
	v.qualityPlan, v.qualityLook = qualityPlan{Renderer: v.ctx.Renderer, SoftwareGL: softwareGL(v.ctx.Renderer), Looks: looks}, look
	if v.drv.Mode().Flat {
		return // a 2D level draws no particles: the first 3D scene opened is chosen for
	}
	v.beginQuality(v.qualityPlan, look)
}

// beginQuality starts the chooser on the running scene with plan's machine and looks, from the running mode and
// particle count.
func (v *viewer) beginQuality(plan qualityPlan, look lookParams) {
	plan.Start = qualityConfig{Mode: v.drv.Mode().Name, Particles: particleCount(v.drv.Params())}
	plan.Compute, plan.Fallback = false, ""
	if _, gpu := v.drv.(*gpuDriver); gpu {
		plan.Compute, plan.Fallback = true, v.drv.Mode().Fallback
	}
	q := &qualityProbe{plan: plan, cur: plan.Start, look: look, scene: v.sc.Source}
	v.quality = q
	first, _, _ := nextQuality(plan, nil)
	v.applyQuality(first, time.Now())
	v.status.set("measuring this machine: "+q.configText(first), false)
}

// qualityInForce says whether the running particle count and picture are the chooser's: it finished, and the user
// changed neither since.
func (v *viewer) qualityInForce() bool {
	q := v.quality
	if q == nil || !q.done || len(q.samples) == 0 || particleCount(v.drv.Params()) != q.chosen.Particles {
		return false
	}
	if q.plan.Looks {
		cur, ok := readLook(v)
		return ok && cur == q.look.with(qualityLooks[q.chosen.Look])
	}
	return true
}

// openScene opens a scene the user picked. While the chooser manages the quality (the user has not sized the run
// since it chose), the scene opens at its own particle count and picture and the chooser measures it the first
// time, or takes the choice it made for it before; otherwise the user's count carries over as it always does.
func (v *viewer) openScene(name string) {
	q := v.quality
	if !v.qualityAuto || (q != nil && q.done && !v.qualityInForce()) {
		v.qualityAuto = false
		v.switchScene(name)
		return
	}
	// a choice still being measured is dropped: the next scene is measured from its own quality
	plan, look := v.qualityPlan, v.qualityLook
	if q != nil {
		if q.done && len(q.samples) > 0 {
			v.qualityDone[q.scene] = q
		}
		if p, ok := sim.ParamNamed(v.drv.Params(), "particles"); ok {
			_ = p.Set(param.Value{F: 0}) // the next scene at its own resolution
		}
		if plan.Looks {
			look.apply(v, qualityLooks[0])
		}
	}
	v.switchScene(name)
	if v.drv.Mode().Flat {
		v.quality = nil // a 2D level draws no particles: the next 3D scene is chosen for again
		return
	}
	if done, ok := v.qualityDone[v.sc.Source]; ok {
		v.quality = done
		done.done = false
		v.applyQuality(done.chosen, time.Now())
		done.done = true
		v.status.set("quality as chosen for this scene before: "+done.configText(done.chosen), false)
		return
	}
	v.beginQuality(plan, look)
}

// lookParams are the renderer's and the surface's settings the looks change.
type lookParams struct {
	mode    string // render.mode
	scale   float64
	kernels bool
	spray   int // render.spray_neighbors
}

func lookParam(v *viewer, name string) *param.Param {
	for _, set := range []*param.Set{v.rend.Params(), v.surf.Params()} {
		if p, ok := set.Lookup(name); ok {
			return p
		}
	}
	return nil
}

// readLook reads them; false when the renderer lacks one.
func readLook(v *viewer) (lookParams, bool) {
	mode, scale, kernels, spray := lookParam(v, "render.mode"), lookParam(v, "render.scale"), lookParam(v, "surface.enabled"), lookParam(v, "render.spray_neighbors")
	if mode == nil || scale == nil || kernels == nil || spray == nil {
		return lookParams{}, false
	}
	return lookParams{mode: mode.String(), scale: scale.Get().F, kernels: kernels.Get().B, spray: int(spray.Get().F)}, true
}

// with is the settings look l makes of the settings as they were (lp).
func (lp lookParams) with(l qualityLook) lookParams {
	out := lookParams{mode: lp.mode, scale: l.Scale, kernels: l.Kernels, spray: lp.spray}
	if l.Spheres {
		out.mode, out.scale = "particles", lp.scale
	}
	if !l.Kernels {
		out.spray = 0 // the spray reads the kernels' neighbour counts; without it none are computed
	}
	return out
}

// apply sets the look l, starting from the settings as they were (lp).
func (lp lookParams) apply(v *viewer, l qualityLook) {
	w := lp.with(l)
	for _, a := range []string{"render.mode=" + w.mode, fmt.Sprintf("render.scale=%g", w.scale),
		fmt.Sprintf("surface.enabled=%t", w.kernels), fmt.Sprintf("render.spray_neighbors=%d", w.spray)} {
		name, text, _ := strings.Cut(a, "=")
		if p := lookParam(v, name); p != nil {
			if val, err := p.Parse(text); err == nil {
				_ = p.Set(val)
			}
		}
	}
}
