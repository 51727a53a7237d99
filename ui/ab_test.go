package ui

import (
	"strings"
	"testing"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
)

// The A/B section lists what each run reports side by side — every figure either side has — and each view's
// caption names its run and its first figures; drawing it changes nothing and asks for nothing.
func TestABSection(t *testing.T) {
	a := sim.Stats{Steps: 40, Substeps: 4, StepMs: 2.5, Particles: 2000, MaxSpeed: 1.2, Figures: errFigures(0.5, 3)}
	b := sim.Stats{Steps: 48, Substeps: 6, StepMs: 7.25, Particles: 2000, MaxSpeed: 1.1,
		Figures: append(errFigures(0.1, 1), sim.Figure{Name: "iterations", Value: 6})}
	rows := abRows(&a, &b)
	want := map[string][2]string{"substeps": {"4", "6"}, "step": {"2.50 ms", "7.25 ms"}, "iterations": {"–", "6"}}
	for _, r := range rows {
		if w, ok := want[r[0]]; ok {
			if r[1] != w[0] || r[2] != w[1] {
				t.Errorf("row %s: %q | %q, want %q | %q", r[0], r[1], r[2], w[0], w[1])
			}
			delete(want, r[0])
		}
	}
	if len(want) != 0 || len(rows) != 5+4 { // the counts and times, then 3 figures both have and 1 of B
		t.Errorf("%d rows, missing %v", len(rows), want)
	}
	c := ABCaption("B  pbf.iterations = 6", &b)
	for _, s := range []string{"B  pbf.iterations = 6\n", "6 substeps", b.Figures[0].Name, b.Figures[1].Name, "step 7.25 ms"} {
		if !strings.Contains(c, s) {
			t.Errorf("caption %q lacks %q", c, s)
		}
	}
	if strings.Contains(c, b.Figures[2].Name) {
		t.Errorf("caption %q shows more than the first two figures", c)
	}

	u := newTestUI(t)
	tp := newTestParams()
	p := NewPanels()
	m := &Model{Sets: []*param.Set{tp.set}, AB: ABModel{Set: tp.set, Pick: 1, Value: tp.set.All()[1].Get(), On: true,
		LabelA: "a = 1", LabelB: "a = 2", A: a, B: b, Unavailable: "not here"}}
	before := tp.set.Snapshot()
	for frame := 0; frame < 2; frame++ {
		u.NewFrame()
		act := p.Draw(m)
		u.Caption(0, 100, 200, c)
		u.Render()
		u.RenderOverlay()
		if act.ToggleAB || act.ABValue {
			t.Errorf("frame %d: an untouched A/B section asked for %+v", frame, act)
		}
	}
	if err := glh.CheckError("drawing the A/B section"); err != nil {
		t.Fatal(err)
	}
	if changed := tp.set.Changed(before, tp.set.Snapshot()); len(changed) != 0 {
		t.Errorf("drawing changed %d parameters", len(changed))
	}
	m.AB.Pick = 99 // a pick out of range (another mode's) starts over at the first parameter
	u.NewFrame()
	p.Draw(m)
	u.Render()
	if m.AB.Pick != 0 || m.AB.Value != tp.set.All()[0].Get() {
		t.Errorf("an out-of-range pick became %d = %+v", m.AB.Pick, m.AB.Value)
	}

	// B in another mode: the mode, one of its parameters and B's value drawn, nothing asked for; a parameter pick
	// out of range (another mode's) becomes none
	m.AB.Modes, m.AB.Other, m.AB.ModePick, m.AB.BSet, m.AB.BPick, m.AB.BValue = []string{"x", "y"}, true, 1, tp.set, 2, tp.set.All()[1].Get()
	for frame := 0; frame < 2; frame++ {
		u.NewFrame()
		act := p.Draw(m)
		u.Render()
		if act.ToggleAB || act.ABValue || !m.AB.Other || m.AB.ModePick != 1 || m.AB.BPick != 2 {
			t.Errorf("frame %d: an untouched A/B section of another mode asked for %+v (other %v, mode %d, pick %d)",
				frame, act, m.AB.Other, m.AB.ModePick, m.AB.BPick)
		}
	}
	m.AB.BPick = 99
	u.NewFrame()
	p.Draw(m)
	u.Render()
	if m.AB.BPick != 0 {
		t.Errorf("an out-of-range pick of B's parameter became %d", m.AB.BPick)
	}
	if changed := tp.set.Changed(before, tp.set.Snapshot()); len(changed) != 0 {
		t.Errorf("drawing changed %d parameters", len(changed))
	}
}
