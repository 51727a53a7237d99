package flat

import (
	"math"
	"testing"
)

// TestFitLetterboxesAndCentres: a rectangle keeps its aspect ratio, touches the margin on its tight side and is
// centred on the other.
func TestFitLetterboxesAndCentres(t *testing.T) {
	for _, c := range []struct {
		size [2]float32
		w, h int
	}{
		{[2]float32{1, 1}, 320, 200},
		{[2]float32{1, 1}, 200, 320},
		{[2]float32{4, 1}, 320, 200},
		{[2]float32{0.5, 3}, 1280, 720},
	} {
		v, ok := Fit(c.size, c.w, c.h)
		if !ok {
			t.Fatalf("%v in %dx%d: not fitted", c.size, c.w, c.h)
		}
		pw, ph := float64(c.size[0])*v.Scale, float64(c.size[1])*v.Scale
		m := Margin * float64(min(c.w, c.h))
		gapX, gapY := v.X0, v.Y0
		if math.Abs(gapX-(float64(c.w)-pw-gapX)) > 1e-9 || math.Abs(gapY-(float64(c.h)-ph-gapY)) > 1e-9 {
			t.Errorf("%v in %dx%d: not centred: corner (%g, %g), %g×%g px", c.size, c.w, c.h, gapX, gapY, pw, ph)
		}
		if math.Abs(min(gapX, gapY)-m) > 1e-9 {
			t.Errorf("%v in %dx%d: gaps %g, %g px, want the smaller to be the margin %g px", c.size, c.w, c.h, gapX, gapY, m)
		}
	}
}

// TestMappingRoundTrips: ToWorld(ToScreen(p)) = p, screen y grows downwards, and points off the rectangle are
// outside.
func TestMappingRoundTrips(t *testing.T) {
	v, _ := Fit([2]float32{2, 1}, 320, 200)
	for _, p := range [][2]float32{{0, 0}, {2, 1}, {0.5, 0.25}, {1.999, 0.001}, {1.3, 0.7}} {
		px, py := v.ToScreen(p[0], p[1])
		x, y, inside := v.ToWorld(px, py)
		if math.Abs(float64(x-p[0])) > 1e-5 || math.Abs(float64(y-p[1])) > 1e-5 || !inside {
			t.Errorf("%v → (%g, %g) px → (%g, %g) inside %v", p, px, py, x, y, inside)
		}
	}
	// the lower-left corner is at the bottom of the window (large py), the upper-right at the top
	_, yBottom := v.ToScreen(0, 0)
	_, yTop := v.ToScreen(0, 1)
	if !(yBottom > yTop) || math.Abs(yBottom-(200-v.Y0)) > 1e-9 {
		t.Errorf("y = 0 at %g px, y = 1 at %g px: y must point up on the screen", yBottom, yTop)
	}
	for _, p := range [][2]float64{{1, 1}, {319, 199}, {160, 1}, {160, 199}, {v.X0 - 1, 100}, {v.X0 + 2*v.Scale + 1, 100}} {
		if x, y, inside := v.ToWorld(p[0], p[1]); inside {
			t.Errorf("(%g, %g) px maps to (%g, %g), inside", p[0], p[1], x, y)
		}
	}
}

// TestFitRejectsBadSizes: empty or non-finite rectangles and viewports fit nowhere, and map nothing inside.
func TestFitRejectsBadSizes(t *testing.T) {
	nan := float32(math.NaN())
	inf := float32(math.Inf(1))
	for _, c := range []struct {
		size [2]float32
		w, h int
	}{
		{[2]float32{0, 1}, 320, 200}, {[2]float32{1, -1}, 320, 200}, {[2]float32{nan, 1}, 320, 200},
		{[2]float32{1, inf}, 320, 200}, {[2]float32{1, 1}, 0, 200}, {[2]float32{1, 1}, 320, -5},
	} {
		if v, ok := Fit(c.size, c.w, c.h); ok {
			t.Errorf("%v in %dx%d fitted: %+v", c.size, c.w, c.h, v)
		}
	}
	var r Renderer // no frame drawn yet
	if _, _, inside := r.ToWorld(160, 100, 320, 200); inside {
		t.Error("ToWorld before any frame reports inside")
	}
	if s := r.PixelsPerMetre(320, 200); s != 0 {
		t.Errorf("PixelsPerMetre before any frame: %g", s)
	}
}
