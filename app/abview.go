package app

import (
	"fmt"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/ui"
)

// abView is the window's A/B comparison (ab.go): the panel's choice of parameter and value, and while it runs the
// second view — its surface kernels and the two half-size targets each side is drawn into before it is copied
// into its half of the window. Everything in it belongs to the GL thread.
type abView struct {
	mode  string      // the mode the pick below is for; another mode starts from its first parameter
	pick  int         // index into the mode's parameters
	value param.Value // B's value
	note  string      // why the last start failed, for the panel

	on   bool
	spec abSpec // while on: what B runs with
	surf *surfacer
	half [2]*glh.Framebuffer
}

// toggleAB starts or stops the comparison (key b, the panel's button).
func (v *viewer) toggleAB() {
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
	}
	if len(all) == 0 {
		return nil, false
	}
	return all[v.ab.pick], true
}

// enterAB duplicates the running simulation with the picked parameter changed in B. When that fails (a mode
// that cannot copy its state, B's solver or reset failing for memory), A goes on as before and the panel says why.
func (v *viewer) enterAB() {
	prm, ok := v.abPick()
	if !ok {
		v.abFailed(fmt.Errorf("A/B: mode %s has no parameters to compare", v.drv.Mode().Name))
		return
	}
	spec := abSpec{Name: prm.Name, Value: v.ab.value}
	m, paused := v.drv.Mode(), v.drv.Paused()
	surf, err := newSurfacer(v.ctx)
	if err != nil {
		v.abFailed(err)
		return
	}
	v.endGesture()
	a := v.releaseDriver()
	p, err := startPair(m, a, v.glInfo(), liveScene(v.sc, v.hands.bodies), spec)
	if err != nil {
		surf.Delete()
		v.drv = v.newDriver(m, a, paused)
		v.abFailed(err)
		return
	}
	v.drv = v.newDriver(m, p, paused)
	v.ab.on, v.ab.spec, v.ab.surf, v.ab.note = true, spec, surf, ""
	v.status.set(fmt.Sprintf("A/B: left A %s, right B %s (b or the panel's button ends it)",
		abLabel(v.drv.Params(), spec.Name), v.abLabelB()), false)
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
	for i := range v.ab.half {
		v.ab.half[i].Delete()
		v.ab.half[i] = nil
	}
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
	prm, ok := v.abPick()
	if !ok || prm.Name != v.ab.spec.Name {
		return // another parameter picked: it applies at the next start
	}
	val := v.ab.value
	v.drv.Do(func(s sim.Solver) (string, error) {
		ap, ok := s.(abPair)
		if !ok {
			return "", fmt.Errorf("A/B: the running solver is no pair")
		}
		return "", ap.pairOf().setB(val)
	}, func() { v.ab.spec.Value = val })
}

// abLabelB is B's label: the changed parameter at B's value.
func (v *viewer) abLabelB() string {
	if p, ok := v.drv.Params().Lookup(v.ab.spec.Name); ok {
		return fmt.Sprintf("%s = %s", p.Name, p.Format(v.ab.spec.Value))
	}
	return v.ab.spec.Name
}

// fillAB fills the panel's A/B section.
func (v *viewer) fillAB(m *ui.ABModel) {
	_, _ = v.abPick()
	m.Set, m.Pick, m.Value, m.Unavailable, m.On = v.drv.Params(), v.ab.pick, v.ab.value, v.ab.note, v.ab.on
	if !v.ab.on {
		return
	}
	m.LabelA, m.LabelB = abLabel(v.drv.Params(), v.ab.spec.Name), v.abLabelB()
	m.A = v.drv.Stats()
	_, m.B, _ = v.drv.Twin()
}

// abHalves are the widths of the left and right views in a window fw pixels wide.
func abHalves(fw int) (int, int) { return fw / 2, fw - fw/2 }

// drawAB draws A into the left half of the bound window framebuffer and B into the right, from the one camera,
// each through a target of its own size that is then copied into place.
func (v *viewer) drawAB(fw, fh int, pa, pb render.Particles) {
	wa, wb := abHalves(fw)
	for i, side := range []struct {
		x, w int
		p    render.Particles
	}{{0, wa, pa}, {wa, wb, pb}} {
		if side.w <= 0 {
			continue
		}
		fb := v.ab.half[i]
		if fb == nil || fb.W != side.w || fb.H != fh {
			fb.Delete()
			var err error
			if fb, err = glh.NewFramebuffer(side.w, fh); err != nil {
				v.ab.half[i] = nil
				v.status.set("A/B view: "+err.Error(), true)
				continue
			}
			v.ab.half[i] = fb
		}
		fb.Bind()
		v.rend.Draw(render.Viewport{W: side.w, H: fh}, v.cam.Camera(float32(side.w)/float32(fh)), side.p)
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, fb.ID())
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, 0)
		gl.BlitFramebuffer(0, 0, int32(side.w), int32(fh), int32(side.x), 0, int32(side.x+side.w), int32(fh), gl.COLOR_BUFFER_BIT, gl.NEAREST)
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Viewport(0, 0, int32(fw), int32(fh))
}

// abCaptions labels the two views at their bottoms, with each side's stats line.
func (v *viewer) abCaptions() {
	w, h := v.win.GetSize()
	if w <= 0 || h <= 0 {
		return
	}
	sa, sb := v.drv.Stats(), sim.Stats{}
	_, sb, _ = v.drv.Twin()
	half := float32(w) / 2
	y := float32(h) - 8
	v.ui.Caption(0, half, y, ui.ABCaption("A  "+abLabel(v.drv.Params(), v.ab.spec.Name), &sa))
	v.ui.Caption(half, float32(w), y, ui.ABCaption("B  "+v.abLabelB(), &sb))
}
