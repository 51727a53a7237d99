package panel

import (
	"math"
	"testing"
)

// The closed form of eq. 5.11 is the integral of point vortices along the panel: checked against a fine
// midpoint quadrature of u = Γ/(2π r²)(-r_y, r_x) at points around a tilted panel, near ones included.
func TestPanelVelocityMatchesPointVortices(t *testing.T) {
	a := Vec{0.3, -0.2}
	ang := 0.7
	tv := Vec{math.Cos(ang), math.Sin(ang)}
	l := 0.5
	const q = 200000
	for _, p := range []Vec{{1, 1}, {-0.4, 0.3}, {0.5, 0.0}, {0.3 + 0.25*tv.X - 0.01*tv.Y, -0.2 + 0.25*tv.Y + 0.01*tv.X}, {2, -3}} {
		var wx, wy float64
		for k := 0; k < q; k++ {
			x := a.add(tv.scale(l * (float64(k) + 0.5) / q))
			r := p.sub(x)
			r2 := r.dot(r)
			wx += -r.Y / r2 * l / q
			wy += r.X / r2 * l / q
		}
		ux, uy := unitVelocity(p, a, tv, l, 0)
		// unitVelocity is for strength 2π: compare with 2π/(2π) = 1 per unit length
		if math.Abs(ux-wx) > 1e-6*(1+math.Abs(wx)) || math.Abs(uy-wy) > 1e-6*(1+math.Abs(wy)) {
			t.Errorf("at %v: closed form (%g, %g), quadrature (%g, %g)", p, ux, uy, wx, wy)
		}
	}
}

// At and near a panel the velocity stays finite: on its centre, at its ends, on its line, just off it.
func TestPanelVelocityFiniteOnPanel(t *testing.T) {
	a, tv, l := Vec{0, 0}, Vec{1, 0}, 1.0
	e2 := sq(DefaultEpsilon * l)
	for _, p := range []Vec{{0, 0}, {1, 0}, {0.5, 0}, {0.5, 1e-300}, {1 + 1e-15, 0}, {-1e-15, 1e-15}, {2, 0}} {
		ux, uy := unitVelocity(p, a, tv, l, e2)
		if !finite(ux) || !finite(uy) || math.Abs(ux) > 4 || math.Abs(uy) > 4 {
			t.Errorf("at %v: velocity (%g, %g)", p, ux, uy)
		}
	}
}
