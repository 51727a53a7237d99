package app

import (
	"fmt"
	"strings"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/ui"
)

// abView is the window's A/B comparison (ab.go): the panel's choice of what B runs — the running mode with one
// parameter changed, or another mode with optionally one of its parameters set — and while it runs the second
// view — its surface kernels and the two half-size targets each side is drawn into before it is copied into its
// half of the window. Everything in it belongs to the GL thread.
type abView struct {
	mode  string      // the mode the pick below is for; another mode starts from its first parameter
	pick  int         // index into the mode's parameters
	value param.Value // B's value
	note  string      // why the last start failed, for the panel

	other    bool        // B runs another mode
	modePick int         // index into abModes
	bset     *param.Set  // a mirror of that mode's parameters, for the panel's pick and the labels
	bsetMode string      // the mode bset mirrors
	bpick    int         // 0: none of them set; else one more than an index into bset.All()
	bvalue   param.Value // B's value of it

	on   bool
	spec abSpec // while on: what B runs with
	surf *surfacer
	half [2]*glh.Framebuffer
}

// toggleAB starts or stops the comparison (key b, the panel's button).
func (v *viewer) toggleAB() {
	v.stopQuality("you started a comparison") // two simulations would be measured as one
	if v.ab.on {
		v.leaveAB()
		return
	}
	if v.flatMode() {
		v.status.set("A/B compares 3D views; the 2D game has none", false)
		return
	}
	v.enterAB()
}

// abPick is the parameter the panel picked and B's value, for the running mode.
func (v *viewer) abPick() (*param.Param, bool) {
	set := v.drv.Params()
	all := set.All()
	if v.ab.mode != v.drv.Mode().Name || v.ab.pick < 0 || v.ab.pick >= len(all) {
		v.ab.mode, v.ab.pick = v.drv.Mode().Name, 0
		if len(all) > 0 {
			v.ab.value = all[0].Get()
		}
		if i, val, ok := abDefault(v.drv.Mode(), set); ok {
			v.ab.pick, v.ab.value = i, val
		}
	}
	if len(all) == 0 {
		return nil, false
	}
	return all[v.ab.pick], true
}

// abDefault is the mode's first comparison (Mode.AB) as an index into set.All() and B's value; false when the
// mode names none or set cannot take it.
func abDefault(m Mode, set *param.Set) (int, param.Value, bool) {
	name, text, ok := strings.Cut(m.AB, "=")
	if !ok {
		return 0, param.Value{}, false
	}
	for i, prm := range set.All() {
		if prm.Name == name {
			val, err := prm.Parse(text)
			return i, val, err == nil
		}
	}
	return 0, param.Value{}, false
}

// abModes are the modes B may run beside A: the 3D ones.
func (v *viewer) abModes() []string {
	var names []string
	for _, m := range v.modes {
		if !m.Flat {
			names = append(names, m.Name)
		}
	}
	return names
}

// abOther is the mode the panel picked for B and a mirror of its parameters.
func (v *viewer) abOther() (string, *param.Set) {
	names := v.abModes()
	if len(names) == 0 {
		return "", nil
	}
	if v.ab.modePick < 0 || v.ab.modePick >= len(names) {
		v.ab.modePick = 0
	}
	name := names[v.ab.modePick]
	if v.ab.bset == nil || v.ab.bsetMode != name {
		m, _ := findMode(v.modes, name)
		v.ab.bset, v.ab.bsetMode, v.ab.bpick = m.Params(), name, 0
	}
	return name, v.ab.bset
}

// abSpecPicked is what the panel asks B to run.
func (v *viewer) abSpecPicked() (abSpec, error) {
	if v.ab.other {
		name, set := v.abOther()
		if name == "" {
			return abSpec{}, fmt.Errorf("A/B: there is no 3D mode for B")
		}
		spec := abSpec{Mode: name}
		if all := set.All(); v.ab.bpick > 0 && v.ab.bpick <= len(all) {
			spec.Sets = []abSet{{Name: all[v.ab.bpick-1].Name, Value: v.ab.bvalue}}
		}
		return spec, nil
	}
	prm, ok := v.abPick()
	if !ok {
		return abSpec{}, fmt.Errorf("A/B: mode %s has no parameters to compare", v.drv.Mode().Name)
	}
	return abSpec{Name: prm.Name, Value: v.ab.value}, nil
}

// enterAB duplicates the running simulation with the picked parameter changed in B, or puts another mode reset
// from the same scene beside it. When that fails (a mode that cannot copy its state, B's solver or reset failing
// for memory), A goes on as before and the panel says why.
func (v *viewer) enterAB() {
	spec, err := v.abSpecPicked()
	if err != nil {
		v.abFailed(err)
		return
	}
	m, paused := v.drv.Mode(), v.drv.Paused()
	surf, err := newSurfacer(v.ctx)
	if err != nil {
		v.abFailed(err)
		return
	}
	v.endGesture()
	a := v.releaseDriver()
	live := liveScene(v.sc, v.hands.bodies)
	var p sim.Solver
	if spec.cross() {
		p, err = startCross(v.modes, m, a, v.glInfo(), live, spec)
	} else {
		p, err = startPair(m, a, v.glInfo(), live, spec)
	}
	if err != nil {
		surf.Delete()
		v.drv = v.newDriver(m, a, paused)
		v.abFailed(err)
		return
	}
	spec = p.(abPair).pairOf().spec // another mode's B may run its CPU fallback
	v.drv = v.newDriver(m, p, paused)
	v.ab.on, v.ab.spec, v.ab.surf, v.ab.note = true, spec, surf, ""
	if a, b := v.abLabelA(), v.abLabelB(); a == b {
		v.status.set(fmt.Sprintf("A/B: both sides run %s, so they stay the same: change B's value under Compare A/B", a), true)
	} else {
		v.status.set(fmt.Sprintf("A/B: left A %s, right B %s (b or the panel's button ends it)", a, b), false)
	}
}

func (v *viewer) abFailed(err error) {
	v.ab.note = err.Error()
	v.status.set(err.Error(), true)
}

// leaveAB drops B; A goes on alone in the whole window.
func (v *viewer) leaveAB() {
	if !v.ab.on {
		return
	}
	m, paused := v.drv.Mode(), v.drv.Paused()
	v.endGesture()
	a := splitPair(v.releaseDriver())
	v.drv = v.newDriver(m, a, paused)
	v.dropAB()
	v.status.set("A/B ended: A goes on", false)
}

// dropAB forgets the comparison's views (its solvers went with the driver).
func (v *viewer) dropAB() {
	v.ab.on = false
	v.ab.surf.Delete()
	v.ab.surf = nil
	v.dropHalves()
}

// dropHalves frees the targets the two halves of the window are drawn into.
func (v *viewer) dropHalves() {
	for i := range v.ab.half {
		v.ab.half[i].Delete()
		v.ab.half[i] = nil
	}
}

// splitCaptions labels the side-by-side view's halves: the splatted surface and the mesh, with the mesh's size.
func (v *viewer) splitCaptions() {
	r := v.viewRect()
	if r.W() <= 0 || r.H() <= 0 {
		return
	}
	half, y := (r.X0+r.X1)/2, r.Y1-8
	mesh := "mesh (marching cubes of the implicit surface)"
	if p := v.drv.Particles(); p.Mesh != nil {
		mesh = fmt.Sprintf("mesh: %d triangles", p.Mesh.Triangles())
	}
	v.ui.Caption(r.X0, half, y, "splatted surface")
	v.ui.Caption(half, r.X1, y, mesh)
}

// releaseDriver takes the solver out of the running driver, detaching the particle export first.
func (v *viewer) releaseDriver() sim.Solver {
	v.stopExport()
	s := v.drv.Release()
	for _, e := range v.exported {
		e.stop() // the runner may have quit before the command that would have
	}
	return s
}

// setABValue passes a new value for B from the panel: at once to a running B, else kept for the next start.
func (v *viewer) setABValue() {
	if !v.ab.on {
		return
	}
	picked, err := v.abSpecPicked()
	if err != nil || picked.cross() != v.ab.spec.cross() {
		return // another kind of B picked: it applies at the next start
	}
	var val param.Value
	switch {
	case !picked.cross() && picked.Name == v.ab.spec.Name:
		val = picked.Value
	case picked.cross() && picked.Mode == v.ab.spec.Mode && len(picked.Sets) == 1 && len(v.ab.spec.Sets) > 0 &&
		picked.Sets[0].Name == v.ab.spec.Sets[0].Name:
		val = picked.Sets[0].Value
	default:
		return // another parameter or mode picked: it applies at the next start
	}
	v.drv.Do(func(s sim.Solver) (string, error) {
		ap, ok := s.(abPair)
		if !ok {
			return "", fmt.Errorf("A/B: the running solver is no pair")
		}
		return "", ap.pairOf().setB(val)
	}, func() {
		if v.ab.spec.cross() {
			v.ab.spec.Sets[0].Value = val
		} else {
			v.ab.spec.Value = val
		}
	})
}

// abLabelA is A's label: the changed parameter at A's value, or A's mode beside another mode.
func (v *viewer) abLabelA() string {
	if v.ab.spec.cross() {
		return v.drv.Mode().Name
	}
	return abLabel(v.drv.Params(), v.ab.spec.Name)
}

// abLabelB is B's label: the changed parameter at B's value, or B's mode with its settings.
func (v *viewer) abLabelB() string {
	if v.ab.spec.cross() {
		set := v.ab.bset
		if set == nil || v.ab.bsetMode != v.ab.spec.Mode {
			if m, ok := findMode(v.modes, v.ab.spec.Mode); ok {
				set = m.Params()
			}
		}
		return crossLabel(v.ab.spec.Mode, set, v.ab.spec.Sets)
	}
	if p, ok := v.drv.Params().Lookup(v.ab.spec.Name); ok {
		return fmt.Sprintf("%s = %s", p.Name, p.Format(v.ab.spec.Value))
	}
	return v.ab.spec.Name
}

// fillAB fills the panel's A/B section.
func (v *viewer) fillAB(m *ui.ABModel) {
	_, _ = v.abPick()
	m.Set, m.Pick, m.Value, m.Unavailable, m.On = v.drv.Params(), v.ab.pick, v.ab.value, v.ab.note, v.ab.on
	_, m.BSet = v.abOther()
	m.Modes, m.Other, m.ModePick, m.BPick, m.BValue = v.abModes(), v.ab.other, v.ab.modePick, v.ab.bpick, v.ab.bvalue
	if !v.ab.on {
		return
	}
	m.LabelA, m.LabelB = v.abLabelA(), v.abLabelB()
	m.A = v.drv.Stats()
	_, m.B, _ = v.drv.Twin()
}

// abHalves are the widths of the left and right views in a view fw pixels wide: equal, an odd pixel left over at
// the right. (Two views of different sizes a frame make the renderer rebuild its targets twice a frame, and the
// first view came out black.)
func abHalves(fw int) (int, int) { return fw / 2, fw / 2 }

// drawAB draws A into the left half of the view's rectangle r of the window framebuffer (fw×fh) and B into the
// right, from the one camera, each through a target of its own size that is then copied into place.
func (v *viewer) drawAB(r pixelRect, fw, fh int, pa, pb render.Particles) {
	v.drawHalves(r, fw, fh, [2]render.Particles{pa, pb}, [2]int32{-1, -1})
}

// drawSplit draws the frame's splatted surface into the left half of r and its mesh into the right
// (mesh.side_by_side).
func (v *viewer) drawSplit(r pixelRect, fw, fh int, p render.Particles) {
	v.drawHalves(r, fw, fh, [2]render.Particles{p, p}, [2]int32{render.ModeSurface, render.ModeMesh})
}

// drawHalves draws parts[0] into the left half of the view's rectangle r of the window framebuffer and parts[1]
// into the right, from the one camera, each through a target of its own size that is then copied into place; each
// in render mode modes[i], or render.mode where that is −1.
func (v *viewer) drawHalves(r pixelRect, fw, fh int, parts [2]render.Particles, modes [2]int32) {
	if !r.full(fw, fh) {
		clearWindow(fw, fh)
	}
	wa, wb := abHalves(r.W)
	for i, side := range []struct {
		x, w int
		p    render.Particles
	}{{0, wa, parts[0]}, {wa, wb, parts[1]}} {
		if side.w <= 0 || r.H <= 0 {
			continue
		}
		fb := v.ab.half[i]
		if fb == nil || fb.W != side.w || fb.H != r.H {
			fb.Delete()
			var err error
			if fb, err = glh.NewFramebuffer(side.w, r.H); err != nil {
				v.ab.half[i] = nil
				v.status.set("A/B view: "+err.Error(), true)
				continue
			}
			v.ab.half[i] = fb
		}
		fb.Bind()
		vp, cam := render.Viewport{W: side.w, H: r.H}, v.viewCamera(side.w, r.H)
		if modes[i] >= 0 {
			v.rend.DrawAs(modes[i], vp, cam, side.p)
		} else {
			v.rend.Draw(vp, cam, side.p)
		}
		blitInto(fb, pixelRect{X: r.X + side.x, Y: r.Y, W: side.w, H: r.H})
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Viewport(0, 0, int32(fw), int32(fh))
}

// abCaptions labels the two views at their bottoms, with each side's stats line.
func (v *viewer) abCaptions() {
	r := v.viewRect()
	if r.W() <= 0 || r.H() <= 0 {
		return
	}
	sa, sb := v.drv.Stats(), sim.Stats{}
	_, sb, _ = v.drv.Twin()
	half, y := (r.X0+r.X1)/2, r.Y1-8
	v.ui.Caption(r.X0, half, y, ui.ABCaption("A  "+v.abLabelA(), &sa))
	v.ui.Caption(half, r.X1, y, ui.ABCaption("B  "+v.abLabelB(), &sb))
}

// takeAB keeps what the panel picked for B (its edits of m, the model fillAB filled).
func (v *viewer) takeAB(m *ui.ABModel) {
	v.ab.pick, v.ab.value = m.Pick, m.Value
	v.ab.other, v.ab.bpick, v.ab.bvalue = m.Other, m.BPick, m.BValue
	if m.ModePick != v.ab.modePick {
		v.ab.modePick, v.ab.bpick = m.ModePick, 0
	}
}
