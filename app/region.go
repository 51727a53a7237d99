package app

import (
	"image"
	"math"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/ui"
)

// The view's rectangle (issue 26): the 3D scene, the A/B halves and the game are drawn into the part of the window
// the panels leave free (ui.Panels.View), or into all of it while the panels are hidden, so that no panel covers
// the action. The mouse, the captions, the recording's indicator, F12 and a recording without the panel all
// follow the same rectangle.

// refAspect is the width over height a scene's camera is framed for (a 16:9 window). A narrower view keeps the
// horizontal field of view of that frame by widening the vertical one, so what the scene framed stays in view.
const refAspect = 16.0 / 9

// imguiLine is about a line of the panels' text, in window pixels: where captions sit below the view's top.
const imguiLine = 16

// pixelRect is a rectangle of the framebuffer in GL's convention: X, Y its lower-left corner from the bottom-left.
type pixelRect struct{ X, Y, W, H int }

// viewRect is the view's rectangle in window coordinates.
func (v *viewer) viewRect() ui.Rect {
	w, h := v.win.GetSize()
	full := ui.Rect{X1: float32(w), Y1: float32(h)}
	if v.ui == nil || !v.ui.Visible() {
		return full
	}
	r := v.panels.View()
	if r.W() < 1 || r.H() < 1 || r.X1 > full.X1+0.5 || r.Y1 > full.Y1+0.5 {
		return full // before the panels' first layout, or the window shrank since
	}
	return r
}

// viewPixels is the view's rectangle in framebuffer pixels, and the framebuffer's size.
func (v *viewer) viewPixels() (r pixelRect, fw, fh int) {
	w, h := v.win.GetSize()
	fw, fh = v.win.GetFramebufferSize()
	if w <= 0 || h <= 0 || fw <= 0 || fh <= 0 {
		return pixelRect{}, fw, fh
	}
	vr := v.viewRect()
	sx, sy := float64(fw)/float64(w), float64(fh)/float64(h)
	x0 := clampInt(int(math.Round(float64(vr.X0)*sx)), 0, fw)
	x1 := clampInt(int(math.Round(float64(vr.X1)*sx)), x0, fw)
	top := clampInt(int(math.Round(float64(vr.Y0)*sy)), 0, fh)
	bottom := clampInt(int(math.Round(float64(vr.Y1)*sy)), top, fh)
	return pixelRect{X: x0, Y: fh - bottom, W: x1 - x0, H: bottom - top}, fw, fh
}

func clampInt(x, lo, hi int) int { return max(lo, min(x, hi)) }

// full says whether r is the whole framebuffer.
func (r pixelRect) full(fw, fh int) bool { return r.X == 0 && r.Y == 0 && r.W == fw && r.H == fh }

// viewCamera is the camera of a view w×h pixels: the orbit camera, with the vertical field of view widened where
// the view is narrower than refAspect.
func (v *viewer) viewCamera(w, h int) render.Camera {
	if w <= 0 || h <= 0 {
		return v.cam.Camera(1)
	}
	aspect := float32(w) / float32(h)
	c := *v.cam
	c.FovY = widenedFov(c.FovY, aspect)
	return c.Camera(aspect)
}

// widenedFov is the vertical field of view, in degrees, that shows a view of the given aspect the horizontal
// field of view fovY shows at refAspect, where the view is narrower; fovY itself otherwise.
func widenedFov(fovY, aspect float32) float32 {
	if fovY <= 1 || fovY >= 179 {
		fovY = render.NewOrbitCamera().FovY // the camera's own default, as OrbitCamera reads a bad value
	}
	if !(aspect > 0) || aspect >= refAspect {
		return fovY
	}
	t := math.Tan(float64(fovY)*math.Pi/360) * refAspect / float64(aspect)
	return float32(math.Min(2*math.Atan(t)*180/math.Pi, 150))
}

// inView draws into the view's rectangle: straight into the window when the view is all of it, else into a
// target of the view's size that is then copied into place. The rest of the window is cleared for the panels.
func (v *viewer) inView(r pixelRect, fw, fh int, draw func(w, h int)) {
	if r.full(fw, fh) {
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		draw(fw, fh)
		return
	}
	clearWindow(fw, fh)
	if r.W <= 0 || r.H <= 0 {
		return
	}
	fb := v.viewFB
	if fb == nil || fb.W != r.W || fb.H != r.H {
		fb.Delete()
		var err error
		if fb, err = glh.NewFramebuffer(r.W, r.H); err != nil {
			v.viewFB = nil
			v.status.set("the view: "+err.Error(), true)
			return
		}
		v.viewFB = fb
	}
	fb.Bind()
	draw(r.W, r.H)
	blitInto(fb, r)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Viewport(0, 0, int32(fw), int32(fh))
}

// clearWindow clears the window's framebuffer to the colour behind the panels.
func clearWindow(fw, fh int) {
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Viewport(0, 0, int32(fw), int32(fh))
	gl.ClearColor(0.08, 0.09, 0.11, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
}

// blitInto copies fb's colour into the window's framebuffer at r.
func blitInto(fb *glh.Framebuffer, r pixelRect) {
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, fb.ID())
	gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, 0)
	gl.BlitFramebuffer(0, 0, int32(fb.W), int32(fb.H), int32(r.X), int32(r.Y), int32(r.X+r.W), int32(r.Y+r.H), gl.COLOR_BUFFER_BIT, gl.NEAREST)
}

// crop is the part of a window screenshot (top row first, fh rows) inside r.
func crop(img *image.RGBA, r pixelRect, fh int) *image.RGBA {
	top := fh - r.Y - r.H
	out := image.NewRGBA(image.Rect(0, 0, r.W, r.H))
	for y := 0; y < r.H; y++ {
		src := img.Pix[img.PixOffset(r.X, top+y):]
		copy(out.Pix[y*out.Stride:y*out.Stride+4*r.W], src[:4*r.W])
	}
	return out
}

// viewPoint is the cursor relative to the view's rectangle, and the rectangle's size, in window coordinates.
func (v *viewer) viewPoint() (x, y, w, h float64) {
	r := v.viewRect()
	return v.mouse.x - float64(r.X0), v.mouse.y - float64(r.Y0), float64(r.W()), float64(r.H())
}
