package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/inkyblackness/imgui-go/v4"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
)

// Model is what the panels show; the app fills it every frame.
type Model struct {
	Title  string   // e.g. "slosh"
	Modes  []string // mode names; Mode indexes it
	Mode   int
	Scenes []string // scene names; Scene indexes it
	Scene  int
	// SceneInfo is, per scene, its mode and its description, for the picker; may be shorter than Scenes.
	SceneInfo []SceneInfo
	// KeepMode asks that a scene picked next opens in the running mode (when that plays it) rather than in its
	// own; the panel edits it in place.
	KeepMode bool
	Paused   bool
	// Sets are shown in order, solver parameters first, then e.g. render parameters, each grouped by Group:
	// "PBF|Solver" is header "PBF", sub-section "Solver".
	Sets         []*param.Set
	Stats        sim.Stats
	RenderPasses []sim.Pass // GPU milliseconds of the drawing passes (surface kernels, renderer), may be empty
	FPS          float64    // display frames per second
	SimRate      float64    // simulated frames per second (CPU modes may run below display rate)
	SimSpeed     float64    // simulated seconds per wall second: below 1 the run is in slow motion
	// Quality is the account of the quality the window chose for this machine at start-up (what it measured, what
	// it chose, why); QualityChosen offers to take it back.
	Quality       string
	QualityChosen bool
	Status        string // one line at the bottom (last message / error), may be empty
	StatusIsError bool
	// Tool is the active tool's one-line hint; UndoLabel says what Undo would undo ("" disables it). DropBody is
	// the label of a button that drops a solid body chosen under the tools ("" hides it).
	Tool      string
	UndoLabel string
	DropBody  string
	// Keys are the lines of keyboard and mouse shortcuts the panel lists; nil lists DefaultKeys (the 3D
	// sandbox's). A mode with other hands (the 2D game) gives its own.
	Keys []string
	// Path is the file the Save and Load buttons use; the panel edits it in place.
	Path string
	// Recording is the recording's indicator text while one runs ("" otherwise); Exporting says how far the
	// particle export has got while one runs.
	Recording, Exporting string
	// AB is the side-by-side comparison of two runs that differ in one parameter.
	AB ABModel
}

// ABModel is the panel's part of an A/B comparison: which parameter B changes, to what, and both runs' stats.
type ABModel struct {
	// Set is the running mode's parameters, one of which B changes; nil hides the section.
	Set *param.Set
	// Pick indexes Set.All(): the parameter B changes; Value is B's value of it. The panel edits both in place
	// (a new pick takes the parameter's current value).
	Pick  int
	Value param.Value
	// Unavailable says why the mode cannot be compared ("" when it can).
	Unavailable string
	// On says the comparison runs; then LabelA and LabelB say what each side runs with, and A and B are their
	// newest stats.
	On             bool
	LabelA, LabelB string
	A, B           sim.Stats

	// Other says B runs another mode, Modes[ModePick] (the 3D modes; none hides the choice), reset from the
	// scene, rather than this mode with one parameter changed. BSet is that mode's parameters; BPick is 0 for
	// none set (B runs with its own values) or one more than an index into BSet.All(), and BValue is B's value
	// of it. The panel edits Other, ModePick, BPick and BValue in place (a new mode picks no parameter).
	Other    bool
	Modes    []string
	ModePick int
	BSet     *param.Set
	BPick    int
	BValue   param.Value
}

// SceneInfo is what the scene picker says about a scene.
type SceneInfo struct{ Mode, Desc string }

// Actions is what the user asked for during one Draw.
type Actions struct {
	Mode, Scene              int // new selections (equal to the model's when unchanged)
	TogglePause, Step, Reset bool
	// QualityBack returns from the quality chosen for this machine to the scene's own (Model.Quality).
	QualityBack      bool
	ParamsChanged    bool // some parameter changed this frame (via param.Param.Set)
	ResetNeeded      bool // a changed parameter has OnReset == true
	Undo, Screenshot bool
	// DropBody drops the solid body Model.DropBody names.
	DropBody bool
	// SaveMesh meshes the current frame (the fluid's surface and the bodies) into the captures folder.
	SaveMesh bool
	// File actions on Model.Path: save or load the whole state, save the setup as a scene, save or load the
	// parameters alone.
	Save, Load, SaveScene, SavePreset, LoadPreset bool
	// Record starts or stops a recording (F9), Export the particle export, SaveReplay writes the sitting's
	// replay to Model.Path's name with the .replay extension.
	Record, Export, SaveReplay bool
	// ToggleAB starts or stops the A/B comparison (key b); ABValue says AB.Value was edited (while it runs, B
	// takes the new value at once).
	ToggleAB, ABValue bool
}

// DefaultKeys are the 3D sandbox's shortcuts, as the panel lists them.
var DefaultKeys = []string{
	"space run/pause · . step · r reset · f frame · h hide panels · b A/B · Esc quit",
	"1 grab · 2 paddle · 3 drop · 4 pour · 5 drain · ctrl-drag paddle · ctrl-z undo",
	"F12 screenshot (shift: with the panels) · F9 record · ctrl-s save",
}

// HistoryLen is how many steps the plot keeps.
const HistoryLen = 600

// Sample is one recorded step: simulated time and the values of the figures the mode asks to plot
// (sim.Figure.Plot), in the order the step reported them.
type Sample struct {
	Time   float64
	Values []float64
}

// Panels draws the simulation, parameter and statistics windows. It keeps the density-error history for the
// plot and the in-progress edits of parameters that take effect on reset.
type Panels struct {
	ring      []Sample
	plotNames []string    // the plotted figures' names; a step plotting others starts a new history
	plotUnits []string    // their units: figures of one unit share a scale
	series    [][]float32 // per plotted figure, a ring of its values for imgui's plot
	start, n  int         // oldest sample and count
	lastSteps int

	// pending holds the value of an OnReset parameter while its widget is being dragged or typed into; it is
	// applied once when the widget is released, so a drag does not ask for a reset every frame.
	pending  map[*param.Param]param.Value
	groups   map[*param.Set]*groupCache
	paramErr string // the last rejected edit, shown under the status line until an edit succeeds

	view        Rect    // what the last Draw left free of panels
	statusH     float32 // the status bar's height in the last frame
	statusShown string  // the status message the last Draw showed (tests)
	showStats   bool    // the statistics dock is open
	// undoDefaults brings back the values the last Defaults replaced; keepScene leaves the parameters that
	// restart the scene out of the Defaults dialog's change.
	undoDefaults *setUndo
	keepScene    bool
	abShown      bool // the last Draw showed a running comparison

	applyRect    [4]float32 // the last "Restart with" button drawn (tests)
	drawnParams  int        // parameter widgets drawn by the last Draw (tests)
	drawnFigures int        // figures listed by the last Draw (tests)
}

type groupCache struct {
	count int
	root  *groupNode
}

// NewPanels returns panels with an empty history.
func NewPanels() *Panels {
	return &Panels{
		ring:    make([]Sample, HistoryLen),
		pending: map[*param.Param]param.Value{},
		groups:  map[*param.Set]*groupCache{},
	}
}

// Record adds the stats of one simulation step to the plot history, keeping the newest HistoryLen samples. A step
// count or time that goes backwards means the scene was reset, and starts a new history, as does a step that plots
// other figures (another mode); the same step twice is recorded once.
func (p *Panels) Record(s sim.Stats) {
	var names, units []string
	for _, f := range s.Figures {
		if f.Plot {
			names = append(names, f.Name)
			units = append(units, f.Unit)
		}
	}
	if !slices.Equal(names, p.plotNames) || !slices.Equal(units, p.plotUnits) {
		p.ClearHistory()
		p.plotNames, p.plotUnits = names, units
		p.series = make([][]float32, len(names))
		for k := range p.series {
			p.series[k] = make([]float32, HistoryLen)
		}
	}
	if p.n > 0 {
		last := p.ring[(p.start+p.n-1)%len(p.ring)]
		if s.Time < last.Time || s.Steps < p.lastSteps {
			p.ClearHistory()
		} else if s.Steps == p.lastSteps {
			return // the same step again (GPU statistics arrive late and are polled every substep)
		}
	}
	i := (p.start + p.n) % len(p.ring)
	if p.n == len(p.ring) {
		p.start = (p.start + 1) % len(p.ring)
	} else {
		p.n++
	}
	values := p.ring[i].Values[:0]
	for _, f := range s.Figures {
		if f.Plot {
			p.series[len(values)][i] = float32(f.Value)
			values = append(values, f.Value)
		}
	}
	p.ring[i] = Sample{Time: s.Time, Values: values}
	p.lastSteps = s.Steps
}

// ClearHistory forgets the recorded samples.
func (p *Panels) ClearHistory() { p.start, p.n, p.lastSteps = 0, 0, 0 }

// History returns the recorded samples, oldest first.
func (p *Panels) History() []Sample {
	out := make([]Sample, p.n)
	for k := range out {
		r := p.ring[(p.start+k)%len(p.ring)]
		out[k] = Sample{Time: r.Time, Values: slices.Clone(r.Values)}
	}
	return out
}

// Rect is a rectangle of the window in screen coordinates: pixels of the window (not of the framebuffer), origin
// at the top left, X0 ≤ X1 and Y0 ≤ Y1.
type Rect struct{ X0, Y0, X1, Y1 float32 }

// W and H are the rectangle's width and height.
func (r Rect) W() float32 { return r.X1 - r.X0 }
func (r Rect) H() float32 { return r.Y1 - r.Y0 }

// Overlaps says whether r and o share any area.
func (r Rect) Overlaps(o Rect) bool { return r.X0 < o.X1 && o.X0 < r.X1 && r.Y0 < o.Y1 && o.Y0 < r.Y1 }

// The panels' layout: a dock down the left edge (the simulation window, sized to its content, above the
// parameters), a status bar along the bottom edge, and the statistics in a dock down the right edge while they are
// shown. The 3D or 2D view takes the rectangle the docks leave (View), so the panels never hide the action.
const (
	dockEm     = 25   // the docks' width, in font heights
	simShare   = 0.55 // the most of the left dock's height the simulation window takes before it scrolls
	statusRows = 3    // the most lines of text the status bar shows before it scrolls
	margin     = 10   // pixels between the docks and the window's edges
)

// Draw lays out the windows for m and returns what the user asked for. Call it between UI.NewFrame and UI.Render.
func (p *Panels) Draw(m *Model) Actions {
	act := Actions{Mode: m.Mode, Scene: m.Scene}
	p.drawnParams = 0
	em := imgui.FontSize()
	display := imgui.MainViewport().Size()

	statusTop := p.statusBar(m, em, display)
	dock := dockEm * em
	simBottom := p.simulationWindow(m, &act, em, simShare*(statusTop-2*margin))
	p.parameterWindow(m, &act, em, simBottom+margin, statusTop-margin)
	p.view = Rect{X0: min(margin+dock+margin, display.X), Y0: 0, X1: display.X, Y1: statusTop}
	if p.showStats {
		x := max(p.view.X0, display.X-dock-margin)
		p.statsWindow(m, em, Rect{X0: x, Y0: margin, X1: x + dock, Y1: statusTop - margin})
		p.view.X1 = x - margin
	}
	if p.view.X1 < p.view.X0 {
		p.view.X1 = p.view.X0
	}
	return act
}

// StatusShown is the message the last Draw showed in the status bar.
func (p *Panels) StatusShown() string { return p.statusShown }

// View is the rectangle the last Draw left free of panels: where the application draws its view.
func (p *Panels) View() Rect { return p.view }

// dockedAt places the next window at (x, y) with width w every frame; its height is h, or fits its content up
// to h when fit is set. The user cannot move it: the view's rectangle depends on where the docks are.
func dockedAt(x, y, w, h float32, fit bool) imgui.WindowFlags {
	imgui.SetNextWindowPosV(imgui.Vec2{X: x, Y: y}, imgui.ConditionAlways, imgui.Vec2{})
	if fit {
		imgui.SetNextWindowSizeConstraints(imgui.Vec2{X: w, Y: 0}, imgui.Vec2{X: w, Y: max(h, 0)})
		return imgui.WindowFlagsNoMove | imgui.WindowFlagsAlwaysAutoResize | imgui.WindowFlagsNoSavedSettings
	}
	imgui.SetNextWindowSizeV(imgui.Vec2{X: w, Y: max(h, 0)}, imgui.ConditionAlways)
	return imgui.WindowFlagsNoMove | imgui.WindowFlagsNoResize | imgui.WindowFlagsNoSavedSettings
}

// statusBar draws the status line along the bottom edge of the window — the newest message (an error in red),
// an edit the panel refused, and the run's figures in brief — and returns the bar's top edge. It is always
// there, so a message is seen where it happens.
func (p *Panels) statusBar(m *Model, em float32, display imgui.Vec2) float32 {
	h := p.statusH
	if h <= 0 {
		h = 2 * em
	}
	top := max(display.Y-h, 0)
	imgui.SetNextWindowPosV(imgui.Vec2{X: 0, Y: top}, imgui.ConditionAlways, imgui.Vec2{})
	imgui.SetNextWindowSizeConstraints(imgui.Vec2{X: display.X, Y: 0}, imgui.Vec2{X: display.X, Y: (statusRows + 1) * em * 1.4})
	flags := imgui.WindowFlagsNoDecoration | imgui.WindowFlagsAlwaysAutoResize | imgui.WindowFlagsNoSavedSettings |
		imgui.WindowFlagsNoMove | imgui.WindowFlagsNoFocusOnAppearing | imgui.WindowFlagsNoBringToFrontOnFocus
	defer imgui.End()
	if !imgui.BeginV("##status", nil, flags) {
		return top
	}
	brief := statusBrief(m)
	width := imgui.CalcTextSize(brief, false, 0).X
	imgui.PushTextWrapPosV(max(display.X-width-3*em, display.X/2))
	switch {
	case m.Status != "" && m.StatusIsError:
		textColored(colorError, m.Status)
	case m.Status != "":
		imgui.Text(m.Status)
	default:
		textDisabled(m.Tool)
	}
	if p.paramErr != "" {
		textColored(colorError, p.paramErr)
	}
	imgui.PopTextWrapPos()
	imgui.SameLineV(max(display.X-width-em, 0), 0)
	textDisabled(brief)
	p.statusH = imgui.WindowSize().Y
	p.statusShown = m.Status
	return top
}

// statusBrief is the run in one line: time, particles, substeps and the two rates.
func statusBrief(m *Model) string {
	s := &m.Stats
	b := fmt.Sprintf("t %.2f s · %s particles", s.Time, groupDigits(s.Particles))
	if s.Substeps > 0 {
		b += fmt.Sprintf(" · %d substeps", s.Substeps)
	}
	b += fmt.Sprintf(" · %.0f fps · sim %.0f frames/s", m.FPS, m.SimRate)
	if f := SlowMotion(m.SimSpeed, m.Paused); f != "" {
		b += " · " + f
	}
	return b
}

// SlowMotion says how much slower than real time a running simulation runs, from its simulated seconds per wall
// second ("0.40× real time"); "" when it keeps real time (within 3 %) or is paused.
func SlowMotion(speed float64, paused bool) string {
	if paused || speed >= 0.97 || speed <= 0 {
		return ""
	}
	if speed < 0.1 {
		return fmt.Sprintf("%.3f× real time", speed)
	}
	return fmt.Sprintf("%.2f× real time", speed)
}

// simulationWindow draws the top of the left dock, at most height tall, and returns its bottom edge.
func (p *Panels) simulationWindow(m *Model, act *Actions, em, height float32) float32 {
	title := m.Title
	if title == "" {
		title = "slosh"
	}
	flags := dockedAt(margin, margin, dockEm*em, height, true)
	defer imgui.End()
	open := imgui.BeginV(title+"###simulation", nil, flags)
	bottom := imgui.WindowPos().Y + imgui.WindowSize().Y
	if !open {
		return bottom
	}
	if len(m.Modes) > 0 {
		combo("Mode", &act.Mode, m.Modes)
	}
	if len(m.Scenes) > 0 {
		sceneCombo(m, &act.Scene)
		imgui.SameLine()
		imgui.Checkbox("keep mode", &m.KeepMode)
		if imgui.IsItemHovered() {
			imgui.SetTooltip("A scene opens in its own mode, the one the list shows beside it (as slosh --scene does).\n" +
				"Ticked, it opens in the running mode instead, where that mode plays it (2D or 3D).")
		}
	}
	pause := "Pause"
	if m.Paused {
		pause = "Run"
	}
	width := imgui.Vec2{X: 5 * em}
	if imgui.ButtonV(pause+"###pause", width) {
		act.TogglePause = true
	}
	imgui.SameLine()
	if imgui.ButtonV("Step", width) {
		act.Step = true
	}
	imgui.SameLine()
	if imgui.ButtonV("Reset", width) {
		act.Reset = true
	}
	imgui.SameLine()
	imgui.Checkbox("Stats", &p.showStats)
	if imgui.IsItemHovered() {
		imgui.SetTooltip("Show the statistics — step time by pass, the figures and their plot — in a dock on the right")
	}
	if m.Quality != "" {
		textDisabledWrapped(m.Quality)
		if m.QualityChosen {
			if imgui.ButtonV("Scene's own quality", imgui.Vec2{X: -1}) {
				act.QualityBack = true
			}
			if imgui.IsItemHovered() {
				imgui.SetTooltip("Go back to the scene's particle count and the full surface resolution, however slowly this machine draws them;\n" +
					"the particle count is also the mode's particles parameter below (Reset applies it)")
			}
		}
	}
	keys := m.Keys
	if len(keys) == 0 {
		keys = DefaultKeys
	}
	for _, k := range keys {
		textDisabledWrapped(k)
	}
	imgui.Separator()
	if m.Tool != "" {
		textWrapped(m.Tool)
	}
	if imgui.ButtonV("Screenshot", imgui.Vec2{X: 6.5 * em}) {
		act.Screenshot = true
	}
	imgui.SameLine()
	if imgui.ButtonV("Save mesh", imgui.Vec2{X: 6.5 * em}) {
		act.SaveMesh = true
	}
	imgui.SameLine()
	if m.UndoLabel == "" {
		textDisabled("nothing to undo")
	} else if imgui.ButtonV("Undo "+m.UndoLabel+"###undo", imgui.Vec2{X: -1}) {
		act.Undo = true
	}
	if m.DropBody != "" {
		act.DropBody = imgui.ButtonV(m.DropBody+"###dropbody", imgui.Vec2{X: -1})
		if imgui.IsItemHovered() {
			imgui.SetTooltip("Drops it above the fluid under the view's centre; its material, shape and size are under Parameters › Tools › Solid body")
		}
	}
	if imgui.CollapsingHeader("Save and load") {
		imgui.InputText("File", &m.Path)
		half := imgui.Vec2{X: 11 * em}
		act.Save = imgui.ButtonV("Save state", half)
		imgui.SameLine()
		act.Load = imgui.ButtonV("Load state", half)
		act.SaveScene = imgui.ButtonV("Save as scene", half)
		imgui.SameLine()
		act.SavePreset = imgui.ButtonV("Save parameters", half)
		act.LoadPreset = imgui.ButtonV("Load parameters", half)
		textDisabled("ctrl-s save state   ctrl-z undo")
	}
	if imgui.CollapsingHeader("Capture") {
		half := imgui.Vec2{X: 11 * em}
		rec := "Record"
		if m.Recording != "" {
			rec = "Stop recording"
		}
		act.Record = imgui.ButtonV(rec+"###record", half)
		imgui.SameLine()
		exp := "Export particles"
		if m.Exporting != "" {
			exp = "Stop export"
		}
		act.Export = imgui.ButtonV(exp+"###export", half)
		act.SaveReplay = imgui.ButtonV("Save replay", half)
		imgui.SameLine()
		switch {
		case m.Recording != "":
			textDisabled(m.Recording)
		case m.Exporting != "":
			textDisabled("exported " + m.Exporting)
		}
		textDisabled("options under Parameters › Capture")
	}
	if m.AB.On && !p.abShown {
		imgui.SetNextItemOpen(true, imgui.ConditionAlways) // a comparison just started: its controls in sight
	}
	p.abShown = m.AB.On
	if m.AB.Set != nil && imgui.CollapsingHeader("Compare A/B") {
		p.abSection(&m.AB, act, em)
	}
	return bottom
}

// abSection picks what B runs — this mode with one parameter changed, or another mode with one of its parameters
// set — starts and stops the comparison, and shows both runs' figures side by side.
func (p *Panels) abSection(ab *ABModel, act *Actions, em float32) {
	if len(ab.Modes) > 0 {
		kind := 0
		if ab.Other {
			kind = 1
		}
		if combo("B##abkind", &kind, []string{"this mode with one parameter changed", "another mode"}) {
			ab.Other = kind == 1
		}
	}
	if ab.Other {
		abOtherMode(ab, act)
	} else if !abOneParameter(ab, act) {
		return
	}
	label := "Start A/B"
	if ab.On {
		label = "Stop A/B"
	}
	act.ToggleAB = imgui.ButtonV(label+"###ab", imgui.Vec2{X: 11 * em})
	imgui.SameLine()
	textDisabled("b")
	if ab.Unavailable != "" {
		imgui.PushStyleColor(imgui.StyleColorText, colorWarning)
		textWrapped(ab.Unavailable)
		imgui.PopStyleColor()
	}
	if !ab.On {
		if ab.Other {
			textDisabled("B runs the other mode from the same scene, beside A")
		} else {
			textDisabled("B copies the running state, changes this one parameter, and steps beside A")
		}
		return
	}
	abTable(ab)
}

// abOtherMode picks B's mode and, optionally, one of its parameters and B's value of it.
func abOtherMode(ab *ABModel, act *Actions) {
	if ab.ModePick < 0 || ab.ModePick >= len(ab.Modes) {
		ab.ModePick, ab.BPick = 0, 0
	}
	if combo("B's mode##ab", &ab.ModePick, ab.Modes) {
		ab.BPick, ab.BSet = 0, nil // the new mode's parameters come with the next model
	}
	if ab.BSet == nil {
		return
	}
	all := ab.BSet.All()
	if ab.BPick < 0 || ab.BPick > len(all) {
		ab.BPick = 0
	}
	names := make([]string, len(all)+1)
	names[0] = "(none: its own values)"
	for i, prm := range all {
		names[i+1] = prm.Name
	}
	if combo("B's parameter##abother", &ab.BPick, names) && ab.BPick > 0 {
		ab.BValue = all[ab.BPick-1].Get()
		act.ABValue = true
	}
	if ab.BPick == 0 {
		return
	}
	prm := all[ab.BPick-1]
	if v, changed := editWidget(prm, "B's value##abother", ab.BValue); changed {
		if v, err := clampToHard(prm, v); err == nil {
			ab.BValue = v
			act.ABValue = true
		}
	}
	paramTooltip(prm)
}

// abOneParameter picks the parameter of the running mode B changes and its value; false when there is none.
func abOneParameter(ab *ABModel, act *Actions) bool {
	all := ab.Set.All()
	if len(all) == 0 {
		textDisabled("the mode has no parameters to compare")
		return false
	}
	if ab.Pick < 0 || ab.Pick >= len(all) {
		ab.Pick, ab.Value = 0, all[0].Get()
	}
	names := make([]string, len(all))
	for i, prm := range all {
		names[i] = prm.Name
	}
	if combo("Parameter##ab", &ab.Pick, names) {
		ab.Value = all[ab.Pick].Get()
		act.ABValue = true
	}
	prm := all[ab.Pick]
	if v, changed := editWidget(prm, "B's value##ab", ab.Value); changed {
		if v, err := clampToHard(prm, v); err == nil {
			ab.Value = v
			act.ABValue = true
		}
	}
	paramTooltip(prm)
	return true
}

// abTable shows both runs' labels and figures side by side.
func abTable(ab *ABModel) {
	textDisabled("left A, right B; the tools, pause, step and reset act on both")
	flags := imgui.TableFlagsRowBg | imgui.TableFlagsBordersInnerV | imgui.TableFlagsSizingStretchProp
	if !imgui.BeginTableV("ab", 3, flags, imgui.Vec2{}, 0) {
		return
	}
	row := func(name, a, b string) {
		imgui.TableNextRow()
		imgui.TableNextColumn()
		imgui.Text(name)
		imgui.TableNextColumn()
		imgui.Text(a)
		imgui.TableNextColumn()
		if a != b {
			textColored(colorWarning, b)
		} else {
			imgui.Text(b)
		}
	}
	row("", "A", "B")
	row("run", ab.LabelA, ab.LabelB)
	for _, r := range abRows(&ab.A, &ab.B) {
		row(r[0], r[1], r[2])
	}
	imgui.EndTable()
}

// abRows are the rows of the A/B table after the labels: the counts and times every mode has, then each figure
// either side reports.
func abRows(a, b *sim.Stats) [][3]string {
	rows := [][3]string{
		{"steps", fmt.Sprint(a.Steps), fmt.Sprint(b.Steps)},
		{"substeps", fmt.Sprint(a.Substeps), fmt.Sprint(b.Substeps)},
		{"step", fmt.Sprintf("%.2f ms", a.StepMs), fmt.Sprintf("%.2f ms", b.StepMs)},
		{"particles", groupDigits(a.Particles), groupDigits(b.Particles)},
		{"max speed", fmt.Sprintf("%.3f m/s", a.MaxSpeed), fmt.Sprintf("%.3f m/s", b.MaxSpeed)},
	}
	seen := map[string]bool{}
	add := func(f sim.Figure) {
		if seen[f.Name] {
			return
		}
		seen[f.Name] = true
		va, vb := "–", "–"
		if fa, ok := a.Figure(f.Name); ok {
			va = sim.FormatValue(fa.Value, fa.Unit)
		}
		if fb, ok := b.Figure(f.Name); ok {
			vb = sim.FormatValue(fb.Value, fb.Unit)
		}
		rows = append(rows, [3]string{f.Name, va, vb})
	}
	for _, f := range a.Figures {
		add(f)
	}
	for _, f := range b.Figures {
		add(f)
	}
	return rows
}

// ABCaption is one view's caption in an A/B comparison: its label and a short stats line (substeps, the mode's
// first figures, step time).
func ABCaption(label string, s *sim.Stats) string {
	var b strings.Builder
	b.WriteString(label)
	fmt.Fprintf(&b, "\n%d substeps", s.Substeps)
	for i, f := range s.Figures {
		if i == 2 {
			break
		}
		fmt.Fprintf(&b, " · %s %s", f.Name, sim.FormatValue(f.Value, f.Unit))
	}
	fmt.Fprintf(&b, " · step %.2f ms", s.StepMs)
	if s.Notice != "" {
		b.WriteString("\n" + s.Notice)
	}
	return b.String()
}

// parameterWindow fills the left dock from top to bottom with the parameters.
func (p *Panels) parameterWindow(m *Model, act *Actions, em, top, bottom float32) {
	flags := dockedAt(margin, top, dockEm*em, max(bottom-top, 4*em), false)
	defer imgui.End()
	if !imgui.BeginV("Parameters", nil, flags) {
		return
	}
	if len(m.Sets) == 0 {
		textDisabled("no parameters")
		return
	}
	imgui.PushItemWidth(-11 * em) // room for the labels on the right
	anyOnReset := false
	for i, set := range m.Sets {
		if set == nil {
			continue
		}
		if i > 0 {
			imgui.Separator()
		}
		if p.drawSet(i, set, act) {
			anyOnReset = true
		}
	}
	imgui.PopItemWidth()
	if anyOnReset {
		imgui.Separator()
		textDisabled("* restarts the scene: the panel asks first")
	}
}

// drawSet draws one set's sections and, after them, the way back to its defaults; it reports whether any
// parameter waits for a reset.
func (p *Panels) drawSet(i int, set *param.Set, act *Actions) bool {
	imgui.PushIDInt(i)
	defer imgui.PopID()
	root := p.groupsOf(set)

	for _, prm := range root.params {
		p.drawParam(prm, act)
	}
	for _, g := range root.kids {
		if imgui.CollapsingHeaderV(g.name, imgui.TreeNodeFlagsDefaultOpen) {
			p.drawGroup(g, act)
		}
	}
	p.defaultsButton(set, root, act)
	for _, prm := range set.All() {
		if prm.OnReset {
			return true
		}
	}
	return false
}

// defaultsButton offers to put the set's parameters back to their defaults: a button naming the sections, a
// dialog listing each value that would change — those that restart the scene only when asked — and, after it,
// an Undo that brings the values back.
func (p *Panels) defaultsButton(set *param.Set, root *groupNode, act *Actions) {
	names := make([]string, len(root.kids))
	for k, g := range root.kids {
		names[k] = g.name
	}
	what := strings.Join(names, ", ")
	if what == "" {
		what = "these parameters"
	}
	changed := changedFromDefaults(set)
	if len(changed) == 0 {
		textDisabled(what + ": all at their defaults")
	} else if imgui.Button(fmt.Sprintf("Defaults for %s…###defaults", what)) {
		p.keepScene = true
		imgui.OpenPopup("defaults")
	}
	if u := p.undoDefaults; u != nil && u.set == set {
		imgui.SameLine()
		if imgui.Button("Undo defaults") {
			p.restore(set, u.before, act)
			p.undoDefaults = nil
		}
	}
	if !imgui.BeginPopupModalV("defaults", nil, imgui.WindowFlagsAlwaysAutoResize) {
		return
	}
	defer imgui.EndPopup()
	imgui.Text(fmt.Sprintf("Put %s back to their defaults:", what))
	restarts := 0
	for _, prm := range changed {
		line := fmt.Sprintf("%s: %s → %s", prm.Label, prm.String(), prm.Format(prm.Default()))
		if prm.OnReset {
			restarts++
			if p.keepScene {
				textDisabled(line + " (kept: it restarts the scene)")
				continue
			}
			line += " (restarts the scene)"
		}
		imgui.Text(line)
	}
	if restarts > 0 {
		reset := !p.keepScene
		if imgui.Checkbox(fmt.Sprintf("also the %d that restart the scene", restarts), &reset) {
			p.keepScene = !reset
		}
	}
	if imgui.Button("Put back") {
		p.resetDefaults(set, p.keepScene, act)
		imgui.CloseCurrentPopup()
	}
	imgui.SameLine()
	if imgui.Button("Cancel") {
		imgui.CloseCurrentPopup()
	}
}

// changedFromDefaults are the set's parameters not at their defaults.
func changedFromDefaults(set *param.Set) []*param.Param {
	var out []*param.Param
	for _, prm := range set.All() {
		if prm.Get() != prm.Default() {
			out = append(out, prm)
		}
	}
	return out
}

func (p *Panels) drawGroup(g *groupNode, act *Actions) {
	for _, prm := range g.params {
		p.drawParam(prm, act)
	}
	for _, k := range g.kids {
		if imgui.TreeNodeV(k.name, imgui.TreeNodeFlagsDefaultOpen) {
			p.drawGroup(k, act)
			imgui.TreePop()
		}
	}
}

func (p *Panels) groupsOf(set *param.Set) *groupNode {
	c := p.groups[set]
	if c == nil || c.count != len(set.All()) {
		c = &groupCache{count: len(set.All()), root: buildGroups(set)}
		p.groups[set] = c
	}
	return c.root
}

// drawParam draws prm's widget and tooltip and applies an edit.
func (p *Panels) drawParam(prm *param.Param, act *Actions) {
	p.drawnParams++
	cur, ok := p.pending[prm]
	if !ok {
		cur = prm.Get()
	}
	label := prm.Label
	if prm.OnReset {
		label += " *"
	}
	v, changed := editWidget(prm, label+"##"+prm.Name, cur)
	paramTooltip(prm)
	p.commit(prm, v, changed, act)
}

// commit applies an edit of the widget just drawn. Parameters that take effect on reset are held in pending:
// under the widget the panel says that the value restarts the scene, and applies it (asking for the reset) only
// when its button is pressed, so no drag of a slider restarts the scene by surprise.
func (p *Panels) commit(prm *param.Param, v param.Value, changed bool, act *Actions) {
	if !prm.OnReset {
		if changed {
			p.apply(prm, v, act)
		}
		return
	}
	if changed {
		p.pending[prm] = v
	}
	pv, ok := p.pending[prm]
	if !ok || imgui.IsItemActive() {
		return
	}
	if pv == prm.Get() {
		delete(p.pending, prm)
		return
	}
	imgui.PushID(prm.Name)
	defer imgui.PopID()
	if imgui.Button(fmt.Sprintf("Restart with %s###apply", prm.Format(pv))) {
		p.apply(prm, pv, act)
		delete(p.pending, prm)
	}
	p.applyRect = itemRect()
	if imgui.IsItemHovered() {
		imgui.SetTooltip(fmt.Sprintf("%s takes effect when the scene restarts: this restarts it now", prm.Label))
	}
	imgui.SameLine()
	if imgui.Button("Keep " + prm.String() + "###cancel") {
		delete(p.pending, prm)
	}
}

// itemRect is the last widget's rectangle, for tests that click it.
func itemRect() [4]float32 {
	lo, hi := imgui.ItemRectMin(), imgui.ItemRectMax()
	return [4]float32{lo.X, lo.Y, hi.X, hi.Y}
}

// apply clamps v to prm's hard bounds and sets it (which validates and runs OnChange). A rejected value is shown
// in the status; a real change is reported in act.
func (p *Panels) apply(prm *param.Param, v param.Value, act *Actions) {
	v, err := clampToHard(prm, v)
	if err == nil {
		old := prm.Get()
		if err = prm.Set(v); err == nil {
			p.paramErr = ""
			if prm.Get() != old {
				act.ParamsChanged = true
				if prm.OnReset {
					act.ResetNeeded = true
				}
			}
			return
		}
	}
	p.paramErr = err.Error()
}

// resetDefaults puts a set back to its defaults — but those that take effect on reset with keepScene — reports
// what changed and keeps the values before for Undo defaults.
func (p *Panels) resetDefaults(set *param.Set, keepScene bool, act *Actions) {
	before := set.Snapshot()
	set.ResetDefaults()
	if keepScene {
		for _, prm := range set.All() {
			if prm.OnReset {
				if err := prm.Set(before[prm.Name]); err != nil {
					p.paramErr = err.Error()
				}
			}
		}
	}
	p.report(set, before, act)
	p.undoDefaults = &setUndo{set: set, before: before}
}

// restore sets the set's values from a snapshot and reports what changed.
func (p *Panels) restore(set *param.Set, snap param.Snapshot, act *Actions) {
	before := set.Snapshot()
	if err := set.Restore(snap); err != nil {
		p.paramErr = err.Error()
		return
	}
	p.report(set, before, act)
}

// report says in act what changed in set since before, and drops the edits in progress.
func (p *Panels) report(set *param.Set, before param.Snapshot, act *Actions) {
	for _, prm := range set.Changed(before, set.Snapshot()) {
		act.ParamsChanged = true
		if prm.OnReset {
			act.ResetNeeded = true
		}
	}
	for _, prm := range set.All() {
		delete(p.pending, prm)
	}
	p.paramErr = ""
}

// setUndo is a set's values before its defaults were put back.
type setUndo struct {
	set    *param.Set
	before param.Snapshot
}

// statsWindow draws the statistics into the right dock, r.
func (p *Panels) statsWindow(m *Model, em float32, r Rect) {
	flags := dockedAt(r.X0, r.Y0, r.W(), max(r.H(), 4*em), false)
	defer imgui.End()
	if !imgui.BeginV("Stats", &p.showStats, flags) {
		return
	}
	s := &m.Stats
	imgui.Text(fmt.Sprintf("Particles  %s", groupDigits(s.Particles)))
	imgui.Text(fmt.Sprintf("Steps      %d   t = %.3f s", s.Steps, s.Time))
	imgui.Text(fmt.Sprintf("Display    %.0f fps", m.FPS))
	imgui.SameLine()
	rate := fmt.Sprintf("sim %.0f frames/s", m.SimRate)
	if m.SimRate > 0 && m.FPS > 0 && m.SimRate < 0.9*m.FPS {
		textColored(colorWarning, rate)
		if imgui.IsItemHovered() {
			imgui.SetTooltip("the simulation runs below the display rate")
		}
	} else {
		imgui.Text(rate)
	}
	imgui.Text(fmt.Sprintf("Step       %.2f ms", s.StepMs))
	p.passTable("passes", s.Passes, s.StepMs, em)
	if len(m.RenderPasses) > 0 {
		draw := 0.0
		for _, ps := range m.RenderPasses {
			draw += ps.Ms
		}
		imgui.Text(fmt.Sprintf("Draw       %.2f ms (GPU)", draw))
		p.passTable("draw passes", m.RenderPasses, draw, em)
	}

	if s.Substeps > 0 {
		imgui.Text(fmt.Sprintf("Substeps   %d a frame (Δt %.3g ms)", s.Substeps, 1000*sim.FrameDt/float64(s.Substeps)))
	}
	imgui.Text(fmt.Sprintf("Max speed  %.2f m/s", s.MaxSpeed))
	for _, f := range s.Figures {
		line := fmt.Sprintf("%s  %s", f.Name, sim.FormatValue(f.Value, f.Unit))
		if f.Warn {
			textColored(colorError, line)
		} else {
			imgui.Text(line)
		}
	}
	p.drawnFigures = len(s.Figures)
	imgui.Separator()
	p.figurePlot(em)
}

// passTable lists stages with their milliseconds and a bar for their share of total (or of their sum, when
// larger).
func (p *Panels) passTable(id string, passes []sim.Pass, total float64, em float32) {
	if len(passes) == 0 {
		return
	}
	sum := 0.0
	for _, ps := range passes {
		sum += ps.Ms
	}
	total = max(total, sum)
	flags := imgui.TableFlagsRowBg | imgui.TableFlagsBordersInnerV | imgui.TableFlagsSizingStretchProp
	if !imgui.BeginTableV(id, 3, flags, imgui.Vec2{}, 0) {
		return
	}
	imgui.TableSetupColumnV("pass", imgui.TableColumnFlagsWidthFixed, 8*em, 0)
	imgui.TableSetupColumnV("ms", imgui.TableColumnFlagsWidthFixed, 4*em, 0)
	imgui.TableSetupColumnV("share", imgui.TableColumnFlagsWidthStretch, 1, 0)
	barHeight := imgui.TextLineHeight() * 0.7
	for _, ps := range passes {
		imgui.TableNextRow()
		imgui.TableNextColumn()
		imgui.Text(ps.Name)
		imgui.TableNextColumn()
		imgui.Text(fmt.Sprintf("%6.2f", ps.Ms))
		imgui.TableNextColumn()
		frac := float32(0)
		if total > 0 {
			frac = float32(ps.Ms / total)
		}
		imgui.ProgressBarV(frac, imgui.Vec2{X: -1, Y: barHeight}, "")
	}
	imgui.EndTable()
}

// figurePlot draws the plotted figures over the recorded steps, those of one unit on a shared scale (PBF's density
// error mean and max, the way the PBF paper's Figure 4 plots density over a simulation; SPH's iterations and time
// step each on their own): the first of each unit in the plot colour, the others in the warning colour.
func (p *Panels) figurePlot(em float32) {
	if len(p.plotNames) == 0 {
		return
	}
	if p.n == 0 {
		textDisabled(p.plotNames[0] + ": no steps recorded yet")
		return
	}
	top := map[string]float32{}
	var units []string // in order of first appearance
	for k, ser := range p.series {
		u := p.plotUnits[k]
		if _, ok := top[u]; !ok {
			units = append(units, u)
			top[u] = 0
		}
		for j := 0; j < p.n; j++ {
			top[u] = max(top[u], ser[(p.start+j)%len(ser)])
		}
	}
	for u, t := range top {
		if !(t > 0) {
			t = 1
		}
		top[u] = 1.1 * t
	}
	first := p.ring[p.start]
	last := p.ring[(p.start+p.n-1)%len(p.ring)]
	imgui.Text(fmt.Sprintf("Last %.2f s", last.Time-first.Time))
	size := imgui.Vec2{X: imgui.ContentRegionAvail().X, Y: 4.5 * em} // PlotLines takes no negative widths
	for k, name := range p.plotNames {
		u := p.plotUnits[k]
		warn := slices.Index(p.plotUnits, u) != k // not the first of its unit
		if warn {
			imgui.PushStyleColor(imgui.StyleColorPlotLines, colorWarning)
		}
		label := name
		if k < len(last.Values) {
			label = fmt.Sprintf("%s %s", name, sim.FormatValue(last.Values[k], u))
		}
		imgui.PlotLinesV("##"+name, p.series[k][:p.n], p.start, label, 0, top[u], size)
		if warn {
			imgui.PopStyleColor()
		}
	}
	scales := make([]string, len(units))
	for i, u := range units {
		scales[i] = "0 to " + sim.FormatValue(float64(top[u]), u)
	}
	textDisabled(fmt.Sprintf("%s, t = %.2f to %.2f s", strings.Join(scales, "; "), first.Time, last.Time))
}

// groupDigits writes 1234567 as "1 234 567".
func groupDigits(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
