package ui

import (
	"image"
	"math"
	"slices"
	"testing"
	"time"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/inkyblackness/imgui-go/v4"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
)

// testParams is a set with one parameter of each kind, plus one that takes effect on reset.
type testParams struct {
	set     *param.Set
	f       float32
	n       int32
	b       bool
	c       int32
	g       [3]float32
	count   int32
	changes int // OnChange calls of f
}

func newTestParams() *testParams {
	tp := &testParams{f: 2, n: 4, c: 1, g: [3]float32{0, -9.81, 0}, count: 1000}
	s := param.NewSet()
	s.Float(&tp.f, param.Spec{Name: "t.visc", Label: "Viscosity", Group: "Test|Solver", Unit: "m²/s",
		Desc: "XSPH viscosity", Min: 0, Max: 10, SoftMin: 0.5, SoftMax: 5, Log: true}).OnChange = func() { tp.changes++ }
	s.Int(&tp.n, param.Spec{Name: "t.iter", Label: "Iterations", Group: "Test|Solver", Min: 1, Max: 20, SoftMax: 8, SoftMin: 1})
	s.Bool(&tp.b, param.Spec{Name: "t.vort", Label: "Vorticity", Group: "Test|Look"})
	s.Choice(&tp.c, param.Spec{Name: "t.color", Label: "Colour by", Group: "Test|Look", Items: []string{"speed", "density", "phase"}})
	s.Vec3(&tp.g, param.Spec{Name: "t.gravity", Label: "Gravity", Group: "Test|World|Forces", Unit: "m/s²",
		Min: -50, Max: 50, SoftMin: -20, SoftMax: 20})
	s.Int(&tp.count, param.Spec{Name: "t.count", Label: "Particles", Group: "Test", Min: 1, Max: 1e6,
		Desc: "particles in the scene", OnReset: true})
	tp.set = s
	return tp
}

func TestParameterPanelDrawsEveryKind(t *testing.T) {
	u := newTestUI(t)
	tp := newTestParams()
	p := NewPanels()
	p.showStats = true
	for i := 0; i < 50; i++ { // density errors in %, and iterations on a scale of their own
		figs := append(errFigures(0.1*float64(i%7), 1), sim.Figure{Name: "iterations", Value: float64(3 + i%5), Plot: true})
		p.Record(sim.Stats{Steps: i + 1, Time: float64(i) / 60, Figures: figs})
	}
	if !slices.Equal(p.plotUnits, []string{"%", "%", ""}) {
		t.Fatalf("plotted units %q, want the errors' and the iterations'", p.plotUnits)
	}
	m := &Model{
		Title: "slosh", Modes: []string{"pbf", "flip"}, Mode: 1, Scenes: []string{"dambreak", "pool"},
		Sets: []*param.Set{tp.set}, FPS: 60, SimRate: 24,
		Stats: sim.Stats{Particles: 12345, Steps: 50, Time: 0.8, StepMs: 3,
			Passes:   []sim.Pass{{Name: "predict", Ms: 0.5}, {Name: "lambda", Ms: 2}},
			Substeps: 4, MaxSpeed: 1.5,
			Figures: append(errFigures(0.4, 2), sim.Figure{Name: "neighbours mean", Value: 30}, sim.Figure{Name: "lists cut", Value: 3, Warn: true})},
		Status: "step 50 produced NaN", StatusIsError: true,
	}
	before := tp.set.Snapshot()
	for frame := 0; frame < 2; frame++ {
		u.NewFrame()
		act := p.Draw(m)
		u.Render()
		if want := (Actions{Mode: 1, Scene: 0}); act != want {
			t.Errorf("frame %d: untouched panel returned %+v, want %+v", frame, act, want)
		}
		if p.drawnFigures != 5 {
			t.Errorf("frame %d: listed %d figures, want 5", frame, p.drawnFigures)
		}
		if p.drawnParams != len(tp.set.All()) {
			t.Errorf("frame %d: drew %d parameter widgets, want %d", frame, p.drawnParams, len(tp.set.All()))
		}
	}
	if err := glh.CheckError("drawing the panels"); err != nil {
		t.Fatal(err)
	}
	if changed := tp.set.Changed(before, tp.set.Snapshot()); len(changed) != 0 {
		t.Errorf("drawing changed %d parameters", len(changed))
	}

	root := buildGroups(tp.set)
	if len(root.kids) != 1 || root.kids[0].name != "Test" {
		t.Fatalf("top-level groups %+v, want one header Test", root.kids)
	}
	test := root.kids[0]
	if len(test.params) != 1 || len(test.kids) != 3 || test.kids[2].name != "World" || test.kids[2].kids[0].name != "Forces" {
		t.Errorf("sections under Test: %d params, kids %v; want 1 param and Solver, Look, World|Forces", len(test.params), test.kids)
	}
}

func TestApplyClampsToHardBoundsAndNotifies(t *testing.T) {
	tp := newTestParams()
	p := NewPanels()
	lookup := func(name string) *param.Param {
		prm, ok := tp.set.Lookup(name)
		if !ok {
			t.Fatalf("no parameter %s", name)
		}
		return prm
	}
	visc, iter, color, gravity, count := lookup("t.visc"), lookup("t.iter"), lookup("t.color"), lookup("t.gravity"), lookup("t.count")

	var act Actions
	p.apply(visc, param.Value{F: 25}, &act) // typed past the soft range and the hard bound
	if tp.f != 10 || tp.changes != 1 || !act.ParamsChanged || act.ResetNeeded {
		t.Errorf("visc=25: value %g, OnChange %d times, %+v; want 10, 1, changed without reset", tp.f, tp.changes, act)
	}
	act = Actions{}
	p.apply(visc, param.Value{F: 10}, &act)
	if act.ParamsChanged || tp.changes != 1 {
		t.Errorf("setting the same value reported a change (%+v, OnChange %d times)", act, tp.changes)
	}
	p.apply(visc, param.Value{F: 7}, &act) // beyond the soft range, inside the hard one: kept as typed
	if tp.f != 7 {
		t.Errorf("visc=7 gave %g", tp.f)
	}
	p.apply(visc, param.Value{F: math.NaN()}, &act)
	if tp.f != 7 || p.paramErr == "" {
		t.Errorf("visc=NaN: value %g, status %q; want 7 kept and an error shown", tp.f, p.paramErr)
	}

	cases := []struct {
		prm  *param.Param
		in   param.Value
		want func() bool
	}{
		{iter, param.Value{F: 6.6}, func() bool { return tp.n == 7 }},
		{iter, param.Value{F: 100}, func() bool { return tp.n == 20 }},
		{iter, param.Value{F: -5}, func() bool { return tp.n == 1 }},
		{color, param.Value{F: 7}, func() bool { return tp.c == 2 }},
		{color, param.Value{F: -1}, func() bool { return tp.c == 0 }},
		{gravity, param.Value{V: [3]float64{100, -100, 3}}, func() bool { return tp.g == [3]float32{50, -50, 3} }},
	}
	for i, c := range cases {
		p.apply(c.prm, c.in, &act)
		if !c.want() {
			t.Errorf("case %d: %s=%v gave %s", i, c.prm.Name, c.in, c.prm.String())
		}
	}
	if p.paramErr != "" {
		t.Errorf("status still shows %q after successful edits", p.paramErr)
	}

	act = Actions{}
	p.apply(count, param.Value{F: 2000}, &act)
	if tp.count != 2000 || !act.ParamsChanged || !act.ResetNeeded {
		t.Errorf("count=2000: value %d, %+v; want a change that needs a reset", tp.count, act)
	}

	// Defaults without the parameters that restart the scene (the dialog's default, issue 26): the particle
	// count stays, nothing asks for a reset; Undo defaults brings the edits back.
	edited := tp.set.Snapshot()
	act = Actions{}
	p.resetDefaults(tp.set, true, &act)
	if tp.f != 2 || tp.n != 4 || tp.c != 1 || tp.g != [3]float32{0, -9.81, 0} || tp.count != 2000 {
		t.Errorf("Defaults keeping the scene left %v", tp.set.Snapshot())
	}
	if !act.ParamsChanged || act.ResetNeeded {
		t.Errorf("Defaults keeping the scene reported %+v, want a change without a reset", act)
	}
	act = Actions{}
	p.restore(tp.set, p.undoDefaults.before, &act)
	if got := tp.set.Snapshot(); len(tp.set.Changed(got, edited)) != 0 || !act.ParamsChanged || act.ResetNeeded {
		t.Errorf("Undo defaults gave %v (%+v), want the edited values %v back", got, act, edited)
	}

	act = Actions{}
	p.resetDefaults(tp.set, false, &act)
	if tp.f != 2 || tp.n != 4 || tp.c != 1 || tp.g != [3]float32{0, -9.81, 0} || tp.count != 1000 {
		t.Errorf("Defaults left %v", tp.set.Snapshot())
	}
	if !act.ParamsChanged || !act.ResetNeeded {
		t.Errorf("Defaults reported %+v, want a change that needs a reset", act)
	}
	act = Actions{}
	p.resetDefaults(tp.set, false, &act)
	if act.ParamsChanged || act.ResetNeeded {
		t.Errorf("Defaults at the defaults reported %+v", act)
	}
	if got := changedFromDefaults(tp.set); len(got) != 0 {
		t.Errorf("%d parameters off their defaults after Defaults", len(got))
	}
}

// errFigures are figures as PBF reports them: two plotted percentages and a count that is not plotted.
func errFigures(mean, max float64) []sim.Figure {
	return []sim.Figure{{Name: "error mean", Value: mean, Unit: "%", Plot: true}, {Name: "count", Value: 7},
		{Name: "error max", Value: max, Unit: "%", Plot: true}}
}

func TestRecordKeepsNewestSamplesInOrder(t *testing.T) {
	p := NewPanels()
	for i := 0; i < 3; i++ {
		p.Record(sim.Stats{Steps: i + 1, Time: float64(i), Figures: errFigures(float64(i), 0)})
	}
	if h := p.History(); len(h) != 3 || h[0].Values[0] != 0 || h[2].Values[0] != 2 || len(h[2].Values) != 2 {
		t.Fatalf("history of 3 steps: %+v", h)
	}

	const total = HistoryLen + 50
	for i := 3; i < total; i++ {
		p.Record(sim.Stats{Steps: i + 1, Time: float64(i) / 100, Figures: errFigures(float64(i)/1000, float64(i)/500)})
	}
	h := p.History()
	if len(h) != HistoryLen {
		t.Fatalf("history holds %d samples, want %d", len(h), HistoryLen)
	}
	for k, s := range h {
		i := total - HistoryLen + k
		if s.Time != float64(i)/100 || s.Values[0] != float64(i)/1000 || s.Values[1] != float64(i)/500 {
			t.Fatalf("sample %d = %+v, want step %d", k, s, i)
		}
		// The plot reads the rings from p.start, one per plotted figure.
		for f, want := range s.Values {
			if got := p.series[f][(p.start+k)%HistoryLen]; math.Abs(float64(got)-want) > 1e-6 {
				t.Fatalf("plot value %d of figure %d = %g, want %g", k, f, got, want)
			}
		}
	}

	// Another mode plotting other figures begins a new history.
	p.Record(sim.Stats{Steps: total + 1, Time: 100, Figures: []sim.Figure{{Name: "residual", Value: 1e-3, Plot: true}}})
	if h := p.History(); len(h) != 1 || len(h[0].Values) != 1 || p.plotNames[0] != "residual" {
		t.Errorf("after a step plotting other figures the history is %+v (%v)", h, p.plotNames)
	}

	// A reset (time and step count start over) begins a new history.
	p.Record(sim.Stats{Steps: 1, Time: 0.01})
	if h := p.History(); len(h) != 1 || h[0].Time != 0.01 {
		t.Errorf("after a reset the history is %d samples, want the 1 new one", len(h))
	}
	// The same step again (late GPU statistics polled every substep) is one sample.
	p.Record(sim.Stats{Steps: 1, Time: 0.01})
	p.Record(sim.Stats{Steps: 2, Time: 0.02})
	p.Record(sim.Stats{Steps: 2, Time: 0.02})
	if h := p.History(); len(h) != 2 {
		t.Errorf("recording steps 1, 1, 2, 2 kept %d samples, want 2", len(h))
	}
}

// resizeWindow resizes the (hidden) test window and waits until the framebuffer follows, however long the X
// server takes; the bound only turns a hang into a failure.
func resizeWindow(t *testing.T, win *glfw.Window, w, h int) {
	t.Helper()
	win.SetSize(w, h)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		glfw.PollEvents()
		if fw, fh := win.GetFramebufferSize(); fw == w && fh == h {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	fw, fh := win.GetFramebufferSize()
	t.Fatalf("window framebuffer is %dx%d after resizing to %dx%d", fw, fh, w, h)
}

// TestPanelsLeaveTheViewFree draws all panels in a 1280×720 window, as a newcomer's laptop shows it (issue 26: the
// panels covered 46 % of it and hid the action): nothing is drawn inside the rectangle View reports, which is
// most of the window; the left dock holds the controls, the status bar the message; with the statistics shown
// the view gives up the right dock, where the density plot is drawn.
func TestPanelsLeaveTheViewFree(t *testing.T) {
	ctx := gltest.Acquire(t)
	w0, h0 := ctx.Window.GetSize()
	resizeWindow(t, ctx.Window, 1280, 720)
	defer resizeWindow(t, ctx.Window, w0, h0)
	u, err := New(ctx.Window)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Delete()
	fb, err := glh.NewFramebuffer(1280, 720)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Delete()

	tp := newTestParams()
	p := NewPanels()
	for i := 0; i < 200; i++ {
		p.Record(sim.Stats{Steps: i + 1, Time: float64(i) / 60, Figures: errFigures(0.4, 1+float64(i%20)/20)})
	}
	m := &Model{Modes: []string{"pbf"}, Scenes: []string{"pool"}, Sets: []*param.Set{tp.set}, FPS: 60, SimRate: 60,
		Stats:  sim.Stats{Particles: 1000, Steps: 200, Passes: []sim.Pass{{Name: "solve", Ms: 1}}, StepMs: 1},
		Status: "pool.slosh: no such file (save one with ctrl-s first)", StatusIsError: true}
	draw := func() *image.RGBA {
		for frame := 0; frame < 3; frame++ { // the status bar's height settles in the second
			u.NewFrame()
			p.Draw(m)
			fb.Bind()
			gl.ClearColor(0.2, 0.4, 0.6, 1)
			gl.Clear(gl.COLOR_BUFFER_BIT)
			u.Render()
		}
		img := glh.ReadRGBA(fb.ID(), 1280, 720)
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		if err := glh.CheckError("drawing the panels at 1280x720"); err != nil {
			t.Fatal(err)
		}
		return img
	}
	near := func(a uint8, b float32) bool { return math.Abs(float64(a)-float64(b)*255) < 40 }
	isClear := func(px []uint8) bool { return px[0] == 51 && px[1] == 102 && px[2] == 153 }
	// count is the pixels in r, and those of them the panels drew on.
	count := func(img *image.RGBA, r Rect, pred func(px []uint8) bool) (all, hits int) {
		for y := int(r.Y0); y < int(r.Y1); y++ {
			for x := int(r.X0); x < int(r.X1); x++ {
				all++
				if pred(img.Pix[img.PixOffset(x, y):]) {
					hits++
				}
			}
		}
		return all, hits
	}
	drawn := func(px []uint8) bool { return !isClear(px) }
	warning := func(px []uint8) bool {
		return near(px[0], colorWarning.X) && near(px[1], colorWarning.Y) && near(px[2], colorWarning.Z)
	}
	reds := func(px []uint8) bool {
		return near(px[0], colorError.X) && near(px[1], colorError.Y) && near(px[2], colorError.Z)
	}

	img := draw()
	view := p.View()
	if all, n := count(img, view, drawn); n > 0 || float64(all) < 0.6*1280*720 {
		t.Errorf("the view %+v: %d of its %d pixels drawn on by the panels; want none, and at least 60 %% of the window", view, n, all)
	}
	if all, n := count(img, Rect{X0: 20, Y0: 20, X1: 300, Y1: 160}, drawn); n < all*95/100 {
		t.Errorf("the simulation window covers %d of %d pixels of the top left, want nearly all", n, all)
	}
	bar := Rect{X0: 0, Y0: view.Y1, X1: 1280, Y1: 720}
	if _, n := count(img, bar, reds); bar.H() < 10 || n < 20 {
		t.Errorf("the status bar below the view (%+v) shows %d pixels of the error's red, want the message", bar, n)
	}
	if p.statusShown != m.Status {
		t.Errorf("the status bar showed %q, want %q", p.statusShown, m.Status)
	}

	p.showStats = true
	img = draw()
	narrow := p.View()
	if narrow.X1 >= view.X1-200 || narrow.X0 != view.X0 {
		t.Errorf("with the statistics shown the view is %+v, want it to give up the right dock of %+v", narrow, view)
	}
	if _, n := count(img, narrow, drawn); n > 0 {
		t.Errorf("%d pixels drawn inside the narrower view %+v", n, narrow)
	}
	if _, n := count(img, Rect{X0: narrow.X1, Y0: 0, X1: 1280, Y1: narrow.Y1}, warning); n < 20 {
		t.Errorf("only %d pixels of the max density-error line in the right dock", n)
	}
}

// TestDragAppliesLiveOrOnRelease drags sliders with fake mouse events: an ordinary parameter changes while it is
// dragged; one that takes effect on reset does not change on release either (issue 26: a released slider
// restarted the scene unasked) but offers "Restart with …", and changes and asks for the reset when that is
// clicked.
func TestDragAppliesLiveOrOnRelease(t *testing.T) {
	u := newTestUI(t)
	pl := u.platform
	tp := newTestParams()
	p := NewPanels()
	var rect [4]float32
	frame := func(prm *param.Param) Actions {
		var act Actions
		u.NewFrame()
		imgui.SetNextWindowPos(imgui.Vec2{X: 10, Y: 10})
		imgui.SetNextWindowSize(imgui.Vec2{X: 230, Y: 110})
		imgui.Begin("drag")
		imgui.PushItemWidth(150)
		p.drawParam(prm, &act)
		imgui.PopItemWidth()
		lo, hi := imgui.ItemRectMin(), imgui.ItemRectMax()
		rect = [4]float32{lo.X, lo.Y, hi.X, hi.Y}
		imgui.End()
		u.Render()
		return act
	}
	at := func(fx float32) {
		pl.cursorPos(nil, float64(rect[0]+fx*(rect[2]-rect[0])), float64(rect[1]+rect[3])/2)
	}

	for _, c := range []struct {
		name    string
		onReset bool
		value   func() float64
	}{
		{"t.visc", false, func() float64 { return float64(tp.f) }},
		{"t.count", true, func() float64 { return float64(tp.count) }},
	} {
		prm, _ := tp.set.Lookup(c.name)
		start := c.value()
		frame(prm)
		at(0.15) // the item rectangle includes the label on the right: stay on the slider
		frame(prm)
		pl.mouseButton(nil, glfw.MouseButtonLeft, glfw.Press, 0)
		act := frame(prm) // grabbed: the value jumps to the cursor
		at(0.4)
		act2 := frame(prm)
		dragged := c.value()
		pl.mouseButton(nil, glfw.MouseButtonLeft, glfw.Release, 0)
		act3 := frame(prm)
		final := c.value()
		if final == start && !c.onReset {
			t.Fatalf("%s: dragging the slider left the value at %g", c.name, start)
		}
		if c.onReset {
			if dragged != start || final != start || act.ParamsChanged || act2.ParamsChanged || act3.ParamsChanged {
				t.Errorf("%s: changed to %g, %g while dragging and after release (%+v, %+v, %+v), want no change before the restart is asked for",
					c.name, dragged, final, act, act2, act3)
			}
			if len(p.pending) != 1 {
				t.Fatalf("%s: %d edits pending after release, want the one waiting for its restart", c.name, len(p.pending))
			}
			r := p.applyRect
			pl.cursorPos(nil, float64(r[0]+r[2])/2, float64(r[1]+r[3])/2)
			frame(prm)
			pl.mouseButton(nil, glfw.MouseButtonLeft, glfw.Press, 0)
			frame(prm)
			pl.mouseButton(nil, glfw.MouseButtonLeft, glfw.Release, 0)
			act4 := frame(prm)
			final = c.value()
			if final == start || !act4.ParamsChanged || !act4.ResetNeeded {
				t.Errorf("%s: clicking Restart gave %g (%+v), want the dragged value and a reset", c.name, final, act4)
			}
		} else {
			if dragged == start || !act.ParamsChanged || !act2.ParamsChanged || act.ResetNeeded {
				t.Errorf("%s: value %g while dragging (%+v, %+v), want live changes without reset", c.name, dragged, act, act2)
			}
		}
		if len(p.pending) != 0 {
			t.Errorf("%s: %d edits still pending after release", c.name, len(p.pending))
		}
	}
}
