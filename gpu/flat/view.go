package flat

import "math"

// Margin is the gap kept between the rectangle and the viewport's edges, as a fraction of the viewport's smaller
// side.
const Margin = 0.02

// View is where a rectangle of fluid lands in a viewport: fitted inside it with its aspect ratio kept, a margin
// all round, and centred. Pixel positions given to and returned by ToWorld and ToScreen are window pixels as GLFW
// reports the cursor (origin at the top-left corner, y down, a pixel spanning one unit); world positions are the
// rectangle's (metres, origin at its lower-left corner, y up).
type View struct {
	Width, Height int        // the viewport, px
	Size          [2]float32 // the rectangle, m
	Scale         float64    // pixels per metre, the same along x and y
	X0, Y0        float64    // the rectangle's lower-left corner, px from the viewport's lower-left corner
}

// Fit fits a rectangle of the given size into a width×height viewport. It reports false, with a zero View, when
// the size or the viewport is not positive and finite.
func Fit(size [2]float32, width, height int) (View, bool) {
	sx, sy := float64(size[0]), float64(size[1])
	if width <= 0 || height <= 0 || !(sx > 0 && sy > 0) || math.IsInf(sx, 0) || math.IsInf(sy, 0) {
		return View{}, false
	}
	w, h := float64(width), float64(height)
	m := Margin * min(w, h)
	s := min((w-2*m)/sx, (h-2*m)/sy)
	if !(s > 0) || math.IsInf(s, 0) {
		return View{}, false
	}
	return View{Width: width, Height: height, Size: size, Scale: s, X0: (w - sx*s) / 2, Y0: (h - sy*s) / 2}, true
}

// ToScreen maps a world position to window pixels (top-left origin, y down).
func (v View) ToScreen(x, y float32) (px, py float64) {
	return v.X0 + float64(x)*v.Scale, float64(v.Height) - (v.Y0 + float64(y)*v.Scale)
}

// ToWorld maps window pixels (top-left origin, y down) to a world position, and reports whether it lies inside
// the rectangle (edges included). A zero View maps everything to the origin, outside.
func (v View) ToWorld(px, py float64) (x, y float32, inside bool) {
	if !(v.Scale > 0) {
		return 0, 0, false
	}
	wx := (px - v.X0) / v.Scale
	wy := (float64(v.Height) - py - v.Y0) / v.Scale
	inside = wx >= 0 && wy >= 0 && wx <= float64(v.Size[0]) && wy <= float64(v.Size[1])
	return float32(wx), float32(wy), inside
}

// ndc is the affine map from world positions to normalised device coordinates: NDC = world·(a, b) + (c, d).
func (v View) ndc() (a, b, c, d float32) {
	w, h := float64(v.Width), float64(v.Height)
	return float32(2 * v.Scale / w), float32(2 * v.Scale / h), float32(2*v.X0/w - 1), float32(2*v.Y0/h - 1)
}
