package scene

import (
	"math"
)

// Active reports whether the emitter pours at time t (s): from Start on, and before Stop unless Stop is 0.
func (e *Emitter) Active(t float64) bool {
	return t >= e.Start && (e.Stop == 0 || t < e.Stop)
}

// Velocity is the velocity the emitted particles start with: Speed along Direction.
func (e *Emitter) Velocity() Vec3 { return e.Direction.Scale(e.Speed) }

// Basis is the emission disc's orthonormal frame (u, v, d): d is Direction made unit length, u is the world axis
// least aligned with d (the smallest |d_c|, the lowest such index on a tie) with its component along d removed
// and made unit length, and v = d × u, so that u × v = d. It depends only on Direction, so a disc never turns
// between emissions. A zero Direction gives the world axes (x, −z, y) of an upward stream.
func (e *Emitter) Basis() (u, v, d Vec3) {
	d = e.Direction
	if m := d.Abs().MaxComp(); m > 0 {
		d = d.Scale(1 / m)
		d = d.Scale(1 / d.Len())
	} else {
		d = Vec3{0, 1, 0}
	}
	k := 0
	for c := 1; c < 3; c++ {
		if math.Abs(d[c]) < math.Abs(d[k]) {
			k = c
		}
	}
	var a Vec3
	a[k] = 1
	u = a.Sub(d.Scale(a.Dot(d)))
	u = u.Scale(1 / u.Len())
	return u, d.Cross(u), d
}

// Disc is one emission's particle positions: the points Center + spacing·(i·u + j·w) of a square lattice in the
// plane perpendicular to Direction (u, w from Basis) that lie within Radius of Center; always at least Center
// itself. The order is deterministic: i fastest, then j.
//
// Disc is safe for any input: a disc never holds more than MaxDiscPoints points (a larger radius is cut to the
// largest that fits; Validate and CheckSpacing refuse such emitters in scenes, this keeps a tool's emitter from
// taking all memory), a radius that is not a positive number gives Center alone, and a spacing that is not a
// positive finite number gives no points.
func (e *Emitter) Disc(spacing float64) []Vec3 {
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return nil
	}
	u, w, _ := e.Basis()
	r := e.Radius / spacing
	if !(r > 0) {
		r = 0
	}
	// every lattice point of the disc owns a unit square inside the disc of radius r + 1, so the disc holds at
	// most π(r + 1)² points
	r = math.Min(r, maxDiscRadius)
	n := int(math.Floor(r + 1e-9))
	r2 := r * r * (1 + 1e-9) // points on the rim count despite rounding
	out := make([]Vec3, 0, int(math.Pi*(r+1)*(r+1)))
	for j := -n; j <= n; j++ {
		for i := -n; i <= n; i++ {
			if float64(i*i+j*j) > r2 {
				continue
			}
			out = append(out, e.Center.Add(u.Scale(float64(i)*spacing)).Add(w.Scale(float64(j)*spacing)))
		}
	}
	return out
}

// maxDiscRadius is a disc radius in spacings whose bound π(r + 1)² is at most MaxDiscPoints: π·577² < 2²⁰.
const maxDiscRadius = 576
