package panel

import "math"

// Vec is a 2D vector or point in metres (positions) or metres per second (velocities).
type Vec struct{ X, Y float64 }

func (a Vec) add(b Vec) Vec           { return Vec{a.X + b.X, a.Y + b.Y} }
func (a Vec) sub(b Vec) Vec           { return Vec{a.X - b.X, a.Y - b.Y} }
func (a Vec) scale(s float64) Vec     { return Vec{a.X * s, a.Y * s} }
func (a Vec) dot(b Vec) float64       { return a.X*b.X + a.Y*b.Y }
func (a Vec) cross(b Vec) float64     { return a.X*b.Y - a.Y*b.X }
func (a Vec) norm() float64           { return math.Hypot(a.X, a.Y) }
func (a Vec) rotate(c, s float64) Vec { return Vec{c*a.X - s*a.Y, s*a.X + c*a.Y} }
func (a Vec) finite() bool            { return finite(a.X) && finite(a.Y) }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// inv2Pi is 1/(2π), the point vortex's constant.
const inv2Pi = 1 / (2 * math.Pi)

// unitVelocity is the velocity at p of a vortex panel of strength 2π (so that scaling by γ/(2π) gives eq. 5.11)
// starting at a with unit tangent t and length l; eps2 is the square of the regularising length ε.
//
// In the panel's frame (x along t, y along t rotated +90°, origin at a), eq. 5.11 reads
//
//	u = -β,  v = ½ ln((x² + y² + ε²) / ((x-l)² + y² + ε²))
//
// where β is the signed angle the panel subtends from p (the angle from the rays to its origin and end). The
// integral of point vortices along the panel gives exactly this with ε = 0; ε (squared, inside the logarithms,
// rather than the paper's d+ε, which has the same purpose and no square roots) keeps v finite at the panel's ends.
// On the panel's own line (y = 0) β is taken as its principal value 0: between the two sides' limits ±π.
func unitVelocity(p, a, t Vec, l, eps2 float64) (ux, uy float64) {
	dx, dy := p.X-a.X, p.Y-a.Y
	x := dx*t.X + dy*t.Y
	y := dy*t.X - dx*t.Y
	xe := x - l
	var beta float64
	if y != 0 {
		beta = math.Atan2(y*l, x*xe+y*y)
	}
	y2 := y*y + eps2
	v := 0.5 * math.Log((x*x+y2)/(xe*xe+y2))
	// world = u t + v t⊥ with t⊥ = (-t.Y, t.X), u = -β
	return -beta*t.X - v*t.Y, -beta*t.Y + v*t.X
}

// emitters are panels in world space as the evaluation loops read them (struct of arrays); g is γ/(2π).
type emitters struct {
	a, t  []Vec
	l, e2 []float64
	g     []float64
}

func (e *emitters) resize(n int) {
	e.a = resizeVec(e.a, n)
	e.t = resizeVec(e.t, n)
	e.l = resizeF(e.l, n)
	e.e2 = resizeF(e.e2, n)
	e.g = resizeF(e.g, n)
}

func (e *emitters) len() int { return len(e.l) }

// velocity adds the velocity all panels with non-zero strength induce at p to (ux, uy), in panel order.
func (e *emitters) velocity(p Vec, ux, uy float64) (float64, float64) {
	for k, g := range e.g {
		if g == 0 {
			continue
		}
		vx, vy := unitVelocity(p, e.a[k], e.t[k], e.l[k], e.e2[k])
		ux += g * vx
		uy += g * vy
	}
	return ux, uy
}

func resizeVec(s []Vec, n int) []Vec {
	if cap(s) < n {
		return make([]Vec, n)
	}
	return s[:n]
}

func resizeF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
