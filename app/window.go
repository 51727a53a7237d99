package app

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/replay"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/ui"
)

// Window opens the interactive sandbox and runs it until the window is closed (or Esc, or an interrupt). It must
// be called on the main thread, which main locks in init: GLFW and GL live on it.
func Window(o WindowOptions) error {
	modes := Modes()
	st, err := prepare(modes, &o.Options)
	if err != nil {
		return err
	}
	if err := displayError(); err != nil {
		return fmt.Errorf("cannot open the window: %w (for runs without a window see `slosh run -h`)", err)
	}
	w, h := o.Width, o.Height
	if w <= 0 || h <= 0 {
		w, h = 1280, 720
	}
	ctx, err := glh.Open(glh.Options{Width: w, Height: h, Title: "slosh", Visible: true, Resizable: true, VSync: true, MaxVersion: o.GLCap})
	if err != nil {
		return fmt.Errorf("cannot open the window: %w", err)
	}
	defer ctx.Close()
	v, err := newViewer(modes, ctx, st, o.GLCap, o.stderr(), RealTime)
	if err != nil {
		return err
	}
	defer v.Close()
	v.captures = o.Captures
	v.startQuality(st)

	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	for !ctx.Window.ShouldClose() && sig.Err() == nil {
		glfw.PollEvents()
		v.frame(time.Now())
	}
	return nil
}

// viewer is the window's state. Everything in it belongs to the GL thread.
type viewer struct {
	modes  []Mode
	ctx    *glh.Context
	win    *glfw.Window
	glCap  string
	stderr io.Writer
	pace   time.Duration

	sc          *scene.Scene
	scenes      []string       // the panel's scene list: the shipped scenes, and the opened file when it is not one of them
	sceneInfo   []ui.SceneInfo // each scene's mode and description, for the picker
	builtinInfo []ui.SceneInfo // the shipped scenes', read once
	sceneIdx    int

	drv    driver
	rend   *render.Renderer
	surf   *surfacer
	ui     *ui.UI
	panels *ui.Panels
	cam    *render.OrbitCamera
	status statusLine
	mouse  mouseState
	model  ui.Model
	hands  *hands
	// savePath is the file the panel's save and load buttons use
	savePath string
	captures string // the screenshot folder
	shot     shot   // a screenshot asked for this frame
	lastShot string // where the last one went

	capCfg    captureConfig
	capSet    *param.Set
	rec       *recorder          // the recording in progress
	finishing []*recorder        // recordings whose encoders are still closing their files
	export    *liveExport        // the particle export in progress
	meshing   int                // Save mesh captures still being written
	meshDone  chan captureResult // their messages
	exported  []*liveExport      // exports still writing their last frames
	// log records the sitting since the last reset for a replay; it belongs to the solver's goroutine, so only
	// closures passed to drv.Do touch it
	log *replay.Log

	last      time.Time
	fps       rateMeter
	lastTitle time.Time
	title     string
	sets      [5]*param.Set

	ab abView // the A/B comparison (abview.go)

	flat flatView // the 2D view of flat modes (flat.go)

	viewFB *glh.Framebuffer // the view's target while the panels leave it only part of the window (region.go)

	quality *qualityProbe // the quality chosen for this machine at start-up (quality.go); nil when the user chose
	// qualityAuto: the chooser manages the quality (until the user sizes the run); what it chose for each scene by
	// Source; the machine and the picture it started from, for the next scene
	qualityAuto bool
	qualityDone map[string]*qualityProbe
	qualityPlan qualityPlan
	qualityLook lookParams
}

// newViewer builds the renderer, the panel and the first mode's driver on the current context.
func newViewer(modes []Mode, ctx *glh.Context, st *setup, glCap string, stderr io.Writer, pace time.Duration) (*viewer, error) {
	v := &viewer{modes: modes, ctx: ctx, win: ctx.Window, glCap: glCap, stderr: stderr, pace: pace, sc: st.sc,
		meshDone: make(chan captureResult, 4), qualityDone: map[string]*qualityProbe{}}
	var err error
	if v.rend, err = render.New(); err != nil {
		return nil, err
	}
	if err := st.configureRender(v.rend.Params()); err != nil {
		v.Close()
		return nil, err
	}
	if v.surf, err = newSurfacer(ctx); err != nil {
		v.Close()
		return nil, err
	}
	if err := st.configureSurface(v.surf.Params()); err != nil {
		v.Close()
		return nil, err
	}
	if v.ui, err = ui.New(v.win); err != nil {
		v.Close()
		return nil, err
	}
	v.panels = ui.NewPanels()
	v.hands = newHands()
	v.log = &replay.Log{SoftwareVersion: softwareVersion()}
	v.capCfg, v.capSet = defaultCaptureConfig(), param.NewSet()
	v.capCfg.register(v.capSet)

	ss, err := openSession(modes, st, v.glInfo(), stderr)
	if err != nil {
		v.Close()
		return nil, err
	}
	switch {
	case ss.note != "":
		v.status.set(ss.note, false)
	case len(ss.warnings) > 0:
		v.status.set("warning: "+strings.Join(ss.warnings, "; "), true)
	default:
		v.status.set(fmt.Sprintf("%s: %d particles, %s on %s", sceneLabel(st.sc), ss.solver.Stats().Particles, ss.mode.Name, ctx.Renderer), false)
	}
	v.drv = v.newDriver(ss.mode, ss.solver, false)

	v.setScene(st.sc)
	v.resetHands(st.sc)
	if st.load != nil {
		v.breakLog("the run started from a saved state")
	} else {
		v.startLog(st.sc)
	}
	v.ui.SetInput(v)
	return v, nil
}

func (v *viewer) glInfo() glInfo { return glInfo{ctx: v.ctx, cap: v.glCap} }

// newDriver wraps a configured and reset solver; the tools learn which kinds of material it simulates.
func (v *viewer) newDriver(m Mode, s sim.Solver, paused bool) driver {
	v.hands.kinds = sim.KindsOf(s)
	if g, ok := s.(gpuSolver); ok && m.Compute {
		return newGPUDriver(m, g, paused, &v.status, v.panels.Record)
	}
	return newCPUDriver(m, s, v.pace, paused, &v.status, v.panels.Record)
}

// setScene points the renderer, the camera and the panel's scene list at sc.
func (v *viewer) setScene(sc *scene.Scene) {
	v.sc = sc
	v.rend.SetScene(sc)
	v.rend.SetBodies(bodyShapes(sc))
	v.savePath = defaultSavePath(sc, ".slosh")
	if err := v.rend.Err(); err != nil {
		v.status.set(err.Error(), true)
	}
	v.cam = sceneCamera(sc)
	v.scenes = scene.BuiltinNames()
	v.sceneIdx = -1
	for i, n := range v.scenes {
		if "builtin:"+n == sc.Source {
			v.sceneIdx = i
		}
	}
	if v.sceneIdx < 0 {
		v.scenes = append(v.scenes, sc.Source)
		v.sceneIdx = len(v.scenes) - 1
	}
	if v.builtinInfo == nil {
		v.builtinInfo = sceneInfos(scene.BuiltinNames(), sc)
	}
	v.sceneInfo = append(v.sceneInfo[:0], v.builtinInfo...)
	if len(v.scenes) > len(v.builtinInfo) {
		v.sceneInfo = append(v.sceneInfo, sceneInfos(v.scenes[len(v.builtinInfo):], sc)...)
	}
	v.panels.ClearHistory()
}

// sceneInfos is the picker's mode and description of each scene in names: the shipped ones as `slosh scenes`
// lists them, and sc (the one open) for a scene file.
func sceneInfos(names []string, sc *scene.Scene) []ui.SceneInfo {
	out := make([]ui.SceneInfo, len(names))
	for i, name := range names {
		s := sc
		if "builtin:"+name != sc.Source && name != sc.Source {
			var err error
			if s, err = scene.Builtin(name); err != nil {
				continue
			}
		}
		mode := s.Mode
		if mode == "" {
			mode = DefaultMode
		}
		out[i] = ui.SceneInfo{Mode: mode, Desc: s.Description}
	}
	return out
}

// frame runs one display frame: advance, panel, scene, panel on top, present. Events have been polled.
func (v *viewer) frame(now time.Time) {
	dt := 0.0
	if !v.last.IsZero() {
		dt = now.Sub(v.last).Seconds()
	}
	v.last = now
	v.fps.add(1, now)
	if v.flatMode() {
		v.updateFlatGesture()
	} else {
		v.updateGesture()
	}
	v.drv.Update(dt, v.stepBudget())

	v.ui.NewFrame()
	if v.ui.Visible() {
		v.fillModel()
		v.apply(v.panels.Draw(&v.model))
	}
	v.pollCaptures()
	if v.rec != nil {
		v.ui.Indicator(v.rec.elapsed(), v.viewRect())
	}
	flat := v.flatMode()
	switch {
	case v.ab.on:
		v.abCaptions()
	case v.surf.cfg.split && !flat:
		v.splitCaptions()
	case v.ab.half[0] != nil:
		v.dropHalves() // the side-by-side view was turned off
	}
	if flat {
		v.flatCaptions()
	}
	if !v.ui.Visible() && v.status.isErr && now.Sub(v.status.at) < errorShown {
		// the status bar is hidden with the panels: an error still shows, over the top of the view, for a while
		r := v.viewRect()
		v.ui.Caption(r.X0, r.X1, r.Y0+3*imguiLine, v.status.msg)
	}

	vr, fw, fh := v.viewPixels()
	drawn := fw > 0 && fh > 0 // a minimised window has no framebuffer
	clearShot := v.shot != shotNone && v.capCfg.Transparent
	var draw func(transparent bool)
	if drawn && flat {
		draw = func(bool) { v.inView(vr, fw, fh, v.drawFlat) }
	} else if drawn {
		p, err := v.surf.particles(v.drv, v.rend, v.sc)
		if err != nil && !v.status.isErr {
			v.status.set(err.Error(), true) // the frame still draws, with spheres
		}
		var pb render.Particles
		if v.ab.on {
			v.ab.surf.cfg = v.surf.cfg
			if pb, err = v.ab.surf.twin(v.drv, v.rend, v.sc); err != nil && !v.status.isErr {
				v.status.set("B: "+err.Error(), true)
			}
		}
		draw = func(transparent bool) {
			gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
			v.rend.SetTransparent(transparent)
			if v.ab.on {
				v.drawAB(vr, fw, fh, p, pb)
			} else if v.surf.cfg.split && !flat {
				v.drawSplit(vr, fw, fh, p)
			} else {
				v.inView(vr, fw, fh, func(w, h int) { v.rend.Draw(render.Viewport{W: w, H: h}, v.viewCamera(w, h), p) })
			}
			v.rend.SetTransparent(false)
		}
	}
	if drawn {
		draw(clearShot)
		if v.shot == shotView {
			v.takeShot(fw, fh, vr, clearShot)
			if clearShot {
				draw(false) // the window shows the opaque picture
			}
		}
		if !v.capCfg.Panel {
			v.captureFrame(fw, fh, vr)
		}
	}
	v.ui.Render()
	if drawn {
		if v.shot == shotPanel {
			v.takeShot(fw, fh, pixelRect{W: fw, H: fh}, clearShot)
			if clearShot {
				draw(false)
				v.ui.Redraw(fw, fh)
			}
		}
		if v.capCfg.Panel {
			v.captureFrame(fw, fh, pixelRect{W: fw, H: fh})
		}
	}
	v.ui.RenderOverlay()
	v.shot = shotNone
	v.win.SwapBuffers()
	v.probeQuality(now)
	if v.rec != nil {
		if err := v.rec.collect(false); err != nil {
			v.stopRecording(err)
		}
	}

	if now.Sub(v.lastTitle) >= 250*time.Millisecond {
		v.lastTitle = now
		t := fmt.Sprintf("slosh — %s — %d particles — %.0f fps", v.drv.Mode().Name, v.drv.Stats().Particles, v.fps.rate)
		if v.ab.on {
			t = fmt.Sprintf("slosh — %s A/B: %s — %d particles — %.0f fps", v.drv.Mode().Name, v.abLabelB(), v.drv.Stats().Particles, v.fps.rate)
		}
		if f := ui.SlowMotion(v.drv.SimSpeed(), v.drv.Paused()); f != "" {
			t += " — " + f
		}
		if t != v.title {
			v.title = t
			v.win.SetTitle(t)
		}
	}
}

// displayPeriod is the display frame the window aims for, s: a 60 Hz refresh, the simulation's own frame.
const displayPeriod = FrameDt

// stepBudget is the seconds of a display frame the GL thread may give simulation steps (a GPU mode's; a CPU
// mode steps on its own goroutine): frameStepBudget of what the last picture took the GPU to draw (its timer
// queries).
func (v *viewer) stepBudget() float64 {
	draw := 0.0
	if !v.flatMode() {
		for _, p := range v.surf.Timings() {
			draw += p.Ms / 1000
		}
		if passes, ok := v.rend.Timings(); ok {
			for _, p := range passes {
				draw += p.Ms / 1000
			}
		}
	}
	return frameStepBudget(draw)
}

// frameStepBudget is the seconds of a display frame the steps may take when drawing it takes draw seconds: what is
// left of a display period, at least a quarter of the period, so the simulation always moves; and when the drawing
// alone overruns the period (the display cannot keep its rate anyway), half the drawing's time, so the steps cost
// the display at most a third of its rate.
func frameStepBudget(draw float64) float64 {
	return max(displayPeriod-draw, displayPeriod/4, draw/2)
}

func (v *viewer) fillModel() {
	m := &v.model
	m.Title = "slosh"
	if len(m.Modes) != len(v.modes) {
		m.Modes = ModeNames(v.modes)
	}
	m.Mode = 0
	for i, md := range v.modes {
		if md.Name == v.drv.Mode().Name {
			m.Mode = i
		}
	}
	m.Scenes, m.Scene, m.SceneInfo = v.scenes, v.sceneIdx, v.sceneInfo
	m.Paused = v.drv.Paused()
	v.sets = [5]*param.Set{v.drv.Params(), v.hands.set, v.rend.Params(), v.surf.Params(), v.capSet}
	m.Sets = v.sets[:]
	m.Stats = v.drv.Stats()
	m.RenderPasses = m.RenderPasses[:0]
	if !v.flatMode() { // the 3D passes' last timings would stay on after a switch to the game
		m.RenderPasses = append(m.RenderPasses, v.surf.Timings()...)
		if passes, ok := v.rend.Timings(); ok {
			m.RenderPasses = append(m.RenderPasses, passes...)
		}
	}
	m.FPS, m.SimRate, m.SimSpeed = v.fps.rate, v.drv.SimRate(), v.drv.SimSpeed()
	m.Quality, m.QualityChosen = v.quality.describe(), v.quality != nil && v.quality.done && len(v.quality.samples) > 0
	m.Status, m.StatusIsError = v.status.msg, v.status.isErr
	m.Tool, m.Keys, m.DropBody = toolHints[v.hands.cfg.Tool], nil, ""
	if v.hands.offer.heat {
		m.Keys = heatKeys
	}
	if name := v.hands.bodyMaterial(); name != "" {
		m.DropBody = fmt.Sprintf("Drop a %s of %s", solidShapes[v.hands.cfg.BodyShape], name)
	}
	if v.flatMode() {
		m.Tool, m.Keys, m.DropBody = v.flatHint(), flatKeys, ""
	}
	m.UndoLabel = ""
	if u := v.hands.undo; u != nil && v.hands.gesture == gestureNone {
		m.UndoLabel = u.label
	}
	m.Path = v.savePath
	m.Recording, m.Exporting = "", ""
	if v.rec != nil {
		m.Recording = v.rec.elapsed()
	}
	if v.export != nil {
		m.Exporting = fmt.Sprintf("%d frames", v.export.frames())
	}
	v.fillAB(&m.AB)
}

// apply carries out what the panel asked for.
func (v *viewer) apply(a ui.Actions) {
	switch {
	case a.QualityBack:
		v.takeBackQuality()
	case a.Mode != v.model.Mode:
		v.stopQuality("you chose another mode")
		v.qualityAuto = false
	case a.Reset || a.ResetNeeded || a.ParamsChanged:
		v.stopQuality("you changed the parameters")
	case a.TogglePause || a.Step:
		v.stopQuality("you paused")
	}
	if a.ParamsChanged {
		v.drv.ParamsChanged()
		log := v.log
		v.drv.Do(func(s sim.Solver) (string, error) { log.Params(s); return "", nil }, nil)
	}
	switch {
	case a.Mode != v.model.Mode && a.Mode >= 0 && a.Mode < len(v.modes):
		v.switchMode(v.modes[a.Mode])
	case a.Scene != v.model.Scene && a.Scene >= 0 && a.Scene < len(v.scenes):
		v.openScene(v.scenes[a.Scene])
	case a.Reset || a.ResetNeeded:
		v.reset()
	}
	if a.TogglePause {
		v.drv.SetPaused(!v.drv.Paused())
	}
	if a.Step {
		v.drv.StepFrame()
	}
	if a.Undo {
		v.undoLast()
	}
	if a.DropBody {
		v.dropSolid()
	}
	if a.Screenshot {
		v.shot = shotView
	}
	if a.SaveMesh {
		v.saveMesh()
	}
	if a.Record {
		v.toggleRecording()
	}
	if a.Export {
		v.toggleExport()
	}
	v.takeAB(&v.model.AB)
	if a.ABValue {
		v.setABValue()
	}
	if a.ToggleAB {
		v.toggleAB()
	}
	if a.SaveReplay {
		v.saveReplay(strings.TrimSuffix(v.model.Path, filepath.Ext(v.model.Path)) + ReplayExt)
	}
	v.savePath = v.model.Path
	switch {
	case a.Save:
		v.saveState(v.savePath)
	case a.Load:
		v.loadStateFile(v.savePath)
	case a.SaveScene:
		v.saveScene(strings.TrimSuffix(v.savePath, filepath.Ext(v.savePath)) + ".json")
	case a.SavePreset:
		v.savePreset(strings.TrimSuffix(v.savePath, filepath.Ext(v.savePath)) + "-params.json")
	case a.LoadPreset:
		v.loadPreset(v.savePath)
	}
}

func (v *viewer) reset() {
	v.panels.ClearHistory()
	v.endGesture()
	v.drv.Reset(v.sc)
	v.resetHands(v.sc)
	v.startLog(v.sc)
}

// switchMode replaces the running mode by m, keeping the values of the parameters both have, and resets it with
// the current scene. The old mode keeps running when the new one cannot start.
func (v *viewer) switchMode(m Mode) {
	sc, err := sceneFor(m, v.sc)
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	v.switchModeTo(m, sc)
}

// switchModeTo is switchMode with the scene to open in m (the current one, or one of the kind m plays).
func (v *viewer) switchModeTo(m Mode, sc *scene.Scene) {
	if sc != v.sc {
		// a 2D mode plays the levels and a 3D one the tanks: the scene changes with the mode
		if _, err := applySceneParams(v.rend.Params(), sc, "the renderer"); err != nil {
			v.status.set(err.Error(), true)
			return
		}
	}
	keep := v.drv.Params().Snapshot()
	count := particleCount(v.drv.Params())
	paused := v.drv.Paused()
	s, run, note, err := openSolver(v.modes, m, v.glInfo())
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	notes, err := applyModeParams(s.Params(), sc, run)
	if err == nil {
		carry(s.Params(), keep)
		err = carryCount(s.Params(), count)
	}
	if err == nil {
		err = sim.Reset(s, sc)
	}
	if err != nil {
		deleteSolver(s)
		v.status.set(fmt.Sprintf("%s: %v", run.Name, err), true)
		return
	}
	n := s.Stats().Particles // before the solver may belong to a runner goroutine
	warned, hasWarnings := withWarnings(fmt.Sprintf("mode %s: %d particles", run.Name, n), s)
	if sc != v.sc {
		v.endGesture()
		v.setScene(sc) // only once the new mode runs it: on failure the old mode keeps its scene
	}
	v.closeDriver()
	v.panels.ClearHistory()
	v.drv = v.newDriver(run, s, paused)
	v.resetHands(v.sc)
	v.startLog(v.sc)
	switch {
	case note != "":
		fmt.Fprintln(v.stderr, "slosh: "+note)
		v.status.set(note, false)
	case hasWarnings:
		fmt.Fprintln(v.stderr, "slosh: "+warned)
		v.status.set(warned, true)
	case len(notes) > 0:
		v.status.set(notes[0], false)
	default:
		v.status.set(warned, false)
	}
}

// switchScene opens another scene, applies its parameter overrides and resets it in its own mode, as `slosh
// --scene` does; with the panel's "keep the mode" ticked, in the running mode where that plays the scene's kind (2D
// or 3D).
func (v *viewer) switchScene(name string) {
	sc, err := scene.Open(name)
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	want := v.drv.Mode().Name
	if !v.model.KeepMode || sc.IsFlat() != v.drv.Mode().Flat {
		switch {
		case sc.Mode != "":
			want = sc.Mode
		case sc.IsFlat() != v.drv.Mode().Flat:
			want = defaultModeFor(v.modes, sc.IsFlat())
		}
	}
	if want != v.drv.Mode().Name {
		m, ok := findMode(v.modes, want)
		if !ok || m.Flat != sc.IsFlat() {
			v.status.set(fmt.Sprintf("scene %q needs a %s mode", sc.Name, map[bool]string{true: "2D", false: "3D"}[sc.IsFlat()]), true)
			return
		}
		if _, err := applySceneParams(v.rend.Params(), sc, "the renderer"); err != nil {
			v.status.set(err.Error(), true)
			return
		}
		v.endGesture()
		v.switchModeTo(m, sc)
		return
	}
	if _, err := applySceneParams(v.rend.Params(), sc, "the renderer"); err != nil {
		v.status.set(err.Error(), true)
		return
	}
	count := particleCount(v.drv.Params())
	notes, err := applyModeParams(v.drv.Params(), sc, v.drv.Mode())
	if err == nil {
		err = carryCount(v.drv.Params(), count)
	}
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	v.drv.ParamsChanged()
	v.endGesture()
	v.setScene(sc)
	v.drv.Reset(sc)
	v.resetHands(sc)
	v.startLog(sc)
	if len(notes) > 0 {
		v.status.set(notes[0], false)
	}
}

// closeDriver stops the running mode, detaching the particle export first.
func (v *viewer) closeDriver() {
	v.stopExport()
	v.drv.Close()
	v.dropAB() // a pair's two solvers went with it
	for _, e := range v.exported {
		e.stop() // the runner may have quit before the command that would have
	}
}

// Close finishes the recording and the export in progress (their files are complete when it returns), stops the
// mode and frees the panel and the renderer; safe to call twice.
func (v *viewer) Close() {
	v.stopRecording(nil)
	if v.drv != nil {
		v.closeDriver()
		v.drv = nil
	}
	v.finishCaptures()
	if v.ui != nil {
		v.ui.Delete()
		v.ui = nil
	}
	if v.flat.r != nil {
		v.flat.r.Delete()
		v.flat.r = nil
	}
	if v.rend != nil {
		v.rend.Delete()
		v.rend = nil
	}
	v.surf.Delete()
	v.surf = nil
	v.viewFB.Delete()
	v.viewFB = nil
}

// mouseState is the drag in progress.
type mouseState struct {
	orbit, pan bool
	x, y       float64
	seen       bool
}

// Mouse sensitivities.
const (
	orbitRadPerPixel = 0.008
	zoomPerNotch     = 0.9
)

// MouseButton implements ui.Input: left drags work the tool (tools.go) or orbit, right or middle drags (or
// shift + left) pan.
func (v *viewer) MouseButton(b glfw.MouseButton, a glfw.Action, mods glfw.ModifierKey) {
	if v.flatMode() {
		v.flatMouse(b, a)
		return
	}
	switch a {
	case glfw.Press:
		switch {
		case b == glfw.MouseButtonLeft && mods&glfw.ModShift != 0:
			v.mouse.pan = true
		case b == glfw.MouseButtonLeft && v.startGesture(mods&glfw.ModControl != 0):
		case b == glfw.MouseButtonLeft:
			v.mouse.orbit = true
		case b == glfw.MouseButtonRight || b == glfw.MouseButtonMiddle:
			v.mouse.pan = true
		}
	case glfw.Release:
		// a release may come without its press (the panel took it): ending a drag that is not on is harmless
		if b == glfw.MouseButtonLeft {
			v.mouse.orbit = false
			v.endGesture()
		}
		v.mouse.pan = v.win.GetMouseButton(glfw.MouseButtonRight) == glfw.Press ||
			v.win.GetMouseButton(glfw.MouseButtonMiddle) == glfw.Press
	}
}

// CursorPos implements ui.Input.
func (v *viewer) CursorPos(x, y float64) {
	dx, dy := x-v.mouse.x, y-v.mouse.y
	v.mouse.x, v.mouse.y = x, y
	if !v.mouse.seen {
		v.mouse.seen = true
		return
	}
	if v.flatMode() {
		v.flatCursor()
		return
	}
	switch {
	case v.mouse.orbit:
		v.cam.Orbit(float32(-dx*orbitRadPerPixel), float32(dy*orbitRadPerPixel))
	case v.mouse.pan:
		if h := float64(v.viewRect().H()); h > 0 {
			v.cam.Pan(float32(-dx/float64(h)), float32(dy/float64(h)))
		}
	}
}

// Scroll implements ui.Input: the wheel zooms.
func (v *viewer) Scroll(_, dy float64) {
	v.cam.Zoom(float32(math.Pow(zoomPerNotch, dy)))
}

// Key implements ui.Input: the shortcuts listed in the panel.
func (v *viewer) Key(k glfw.Key, a glfw.Action, mods glfw.ModifierKey) {
	if a == glfw.Release {
		return
	}
	if k == glfw.KeyF12 && a == glfw.Press {
		v.shot = shotView
		if mods&glfw.ModShift != 0 {
			v.shot = shotPanel
		}
		return
	}
	if k == glfw.KeyF9 && a == glfw.Press {
		v.toggleRecording()
		return
	}
	if mods&glfw.ModControl != 0 {
		switch {
		case k == glfw.KeyZ && a == glfw.Press:
			v.undoLast()
		case k == glfw.KeyS && a == glfw.Press:
			v.saveState(v.savePath)
		}
		return
	}
	if a == glfw.Press && v.flatMode() && v.flatKey(k) {
		return
	}
	if k >= glfw.Key1 && k < glfw.Key1+glfw.Key(v.hands.offer.tools()) && a == glfw.Press {
		v.hands.cfg.Tool = int32(k - glfw.Key1)
		return
	}
	if a == glfw.Repeat && k != glfw.KeyPeriod {
		return // only single steps repeat while the key is held
	}
	switch k {
	case glfw.KeySpace:
		v.stopQuality("you paused")
		v.drv.SetPaused(!v.drv.Paused())
	case glfw.KeyPeriod:
		v.stopQuality("you paused")
		v.drv.StepFrame()
	case glfw.KeyR:
		v.reset()
	case glfw.KeyF:
		frameDomain(v.cam, v.sc)
	case glfw.KeyH:
		v.ui.SetVisible(!v.ui.Visible())
	case glfw.KeyB:
		v.toggleAB()
	case glfw.KeyEscape:
		v.win.SetShouldClose(true)
	}
}

// FramebufferSize implements ui.Input; the viewport follows the framebuffer size every frame.
func (v *viewer) FramebufferSize(int, int) {}
