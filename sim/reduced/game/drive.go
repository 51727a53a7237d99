package game

import (
	"github.com/slosh/slosh/internal/sym3"
	"math"

	"github.com/ByteArena/box2d"

	"github.com/slosh/slosh/sim/reduced/panel"
)

// How the fluid's forces move a body.
//
// §5.3.5 applies the panels' dynamic pressure and buoyancy to the rigid body as they are, explicitly, and leaves
// out two things a body in water feels: the water it must set moving whenever it speeds up (its added mass), and
// the drag's own response within a step (the impact reading's force grows with the square of the body's speed
// through the stream). Neither matters for a crate about as dense as the water, in a step much shorter than the
// time the stream takes to carry it its own length. Both matter for a light body or a thin one: a crate of
// 1 kg/m² met buoyancy a thousand times its weight, reached Box2D's speed limit within a step and overshot back
// every step after, the panels feeding each swing into the water; a 1 m plate a fraction of a millimetre thick,
// broadside to the flow, met a drag that reversed its velocity a hundredfold in a step (issue 24).
//
// So each step solves for the body's velocity change Δv as a linearly implicit (backward Euler) step does,
//
//	(m + M_a)/Δt · Δv + D⁺ Δv = F_dynamic + F_buoyancy + m g,
//
// with M_a the added-mass tensor (the body's shape, turned with it, times the fluid's density) and D⁺ the part
// of the dynamic force's damping (panel.Force.Damping, −∂F/∂v) that does not feed the motion, and hands Box2D the
// force m Δv/Δt − m g that produces it, at the centre of mass. Turning gets the same added inertia. A body as
// dense as the water moves as before but with the inertia of the water around it (a disc: twice its own); a
// light one rises at no more than about 2g and then at its terminal speed; a thin plate falling broadside barely
// moves. What is left out: the fluid's own acceleration (the force that makes a body of the water's density
// follow a current as the current speeds up), which the reduced fluid would have to remember from the step
// before.

// addedMass is a shape's added mass per unit fluid density, in its own frame. Potential flow gives a circle
// of radius r the added mass πr² (the water it displaces), a flat plate of width w moving broadside π(w/2)² and
// edgewise none, an ellipse of semi-axes a, b the rotational π(a² − b²)²/8; a shape gets an ellipse's, with
// axes along the principal axes of its area and as wide as the shape is along them.
type addedMass struct {
	m   [2][2]float64 // translational, m² (times the density: kg/m)
	rot float64       // rotational, m⁴ (times the density: kg·m)
}

// newAddedMass estimates the added mass of a convex outline (its own frame, counter-clockwise).
func newAddedMass(outline [][2]float64) addedMass {
	// the second moments of the area about its centroid
	n := len(outline)
	o := outline[0]
	var a, cx, cy, sxx, syy, sxy float64
	for i := 1; i+1 < n; i++ {
		p := [2]float64{outline[i][0] - o[0], outline[i][1] - o[1]}
		q := [2]float64{outline[i+1][0] - o[0], outline[i+1][1] - o[1]}
		w := p[0]*q[1] - q[0]*p[1] // twice the triangle (o, p, q)'s area
		a += w / 2
		cx += w * (p[0] + q[0]) / 6
		cy += w * (p[1] + q[1]) / 6
		sxx += w * (p[0]*p[0] + p[0]*q[0] + q[0]*q[0]) / 12
		syy += w * (p[1]*p[1] + p[1]*q[1] + q[1]*q[1]) / 12
		sxy += w * (2*p[0]*p[1] + p[0]*q[1] + q[0]*p[1] + 2*q[0]*q[1]) / 24
	}
	cx, cy = cx/a, cy/a
	sxx, syy, sxy = sxx-a*cx*cx, syy-a*cy*cy, sxy-a*cx*cy
	theta := 0.5 * math.Atan2(2*sxy, sxx-syy)
	e1 := [2]float64{math.Cos(theta), math.Sin(theta)}
	e2 := [2]float64{-e1[1], e1[0]}
	width := func(e [2]float64) float64 {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range outline {
			d := p[0]*e[0] + p[1]*e[1]
			lo, hi = min(lo, d), max(hi, d)
		}
		return hi - lo
	}
	w1, w2 := width(e1), width(e2)
	// moving along e1 the body pushes aside the water across its width along e2, and the other way round
	c1, c2 := math.Pi*w2*w2/4, math.Pi*w1*w1/4
	var am addedMass
	for r := 0; r < 2; r++ {
		for c := 0; c < 2; c++ {
			am.m[r][c] = c1*e1[r]*e1[c] + c2*e2[r]*e2[c]
		}
	}
	d := (w1*w1 - w2*w2) / 4 // a² − b²
	am.rot = math.Pi * d * d / 8
	return am
}

// drive applies the fluid's force f (about body i's origin, for its origin's velocity) for a step of dt,
// integrated as the comment above says, in a fluid of density rho under gravity g (m/s², downward; what Box2D
// applies). The unknowns are Box2D's: the centre of mass's velocity and the spin.
func (w *world) drive(i int, f panel.Force, dt, rho, g float64) {
	b := w.bodies[i]
	bb := b.b
	if bb.GetType() != box2d.B2BodyType.B2_dynamicBody {
		return
	}
	m := bb.GetMass()
	inertia := bb.M_I / (w.k * w.k) // about the centre of mass, kg·m²/m
	// the inertia: the body's and the water's (the added mass turned with the body: R Mb Rᵀ)
	var lhs [3][3]float64
	s, c := math.Sincos(bb.GetAngle())
	rot := [2][2]float64{{c, -s}, {s, c}}
	for r := 0; r < 2; r++ {
		for q := 0; q < 2; q++ {
			for u := 0; u < 2; u++ {
				for v := 0; v < 2; v++ {
					lhs[r][q] += rho * rot[r][u] * b.added.m[u][v] * rot[q][v] / dt
				}
			}
		}
		lhs[r][r] += m / dt
	}
	lhs[2][2] = (inertia + rho*b.added.rot) / dt
	// the panels' force about the origin for the origin's velocity, moved to the centre of mass: with a the origin
	// less the centre, (v_o, ω) = S (v_c, ω) and (F, τ_c) = Sᵀ (F, τ_o), S = [1 0 −a_y; 0 1 a_x; 0 0 1]
	o, _, _, _ := w.pose(i)
	wc := w.center(i)
	a := [2]float64{o[0] - wc[0], o[1] - wc[1]}
	st := [3][3]float64{{1, 0, -a[1]}, {0, 1, a[0]}, {0, 0, 1}}
	damp := implicitPart(congruent(f.Damping, st))
	for r := range lhs {
		for q := range lhs[r] {
			lhs[r][q] += damp[r][q]
		}
	}
	fx, fy := f.Dynamic.X+f.Buoyancy.X, f.Dynamic.Y+f.Buoyancy.Y
	tau := f.DynamicTorque + f.BuoyancyTorque + a[0]*fy - a[1]*fx
	d, ok := solve3(lhs, [3]float64{fx, fy - m*g, tau})
	if !ok {
		return // no inertia at all: nothing Box2D could move either
	}
	bb.ApplyForce(w.vec([2]float64{m * d[0] / dt, m*d[1]/dt + m*g}), bb.GetWorldCenter(), true)
	bb.ApplyTorque(w.k*w.k*inertia*d[2]/dt, true)
}

// congruent is Sᵀ d S.
func congruent(d, s [3][3]float64) [3][3]float64 {
	var out [3][3]float64
	for r := 0; r < 3; r++ {
		for q := 0; q < 3; q++ {
			for u := 0; u < 3; u++ {
				for v := 0; v < 3; v++ {
					out[r][q] += s[u][r] * d[u][v] * s[v][q]
				}
			}
		}
	}
	return out
}

// implicitPart is the part of a force's damping d that an implicit step takes in: all of it but the part that
// feeds the motion (the negative eigenvalues of its symmetric part, an instability of the model itself, which
// stays explicit). What remains has a positive semi-definite symmetric part, so that the inertia over Δt plus
// it is never singular. Its skew part (the Bernoulli reading's sideways pull on a body moving or spinning
// through a shear) turns the motion as a gyroscope would, which explicit steps amplify every step and an
// implicit one does not.
func implicitPart(d [3][3]float64) [3][3]float64 {
	var sym, out [3][3]float64
	for r := 0; r < 3; r++ {
		for q := 0; q < 3; q++ {
			sym[r][q] = 0.5 * (d[r][q] + d[q][r])
			out[r][q] = 0.5 * (d[r][q] - d[q][r])
		}
	}
	lam, vec := sym3.Eigen(sym)
	for k := 0; k < 3; k++ {
		if lam[k] <= 0 {
			continue
		}
		for r := 0; r < 3; r++ {
			for q := 0; q < 3; q++ {
				out[r][q] += lam[k] * vec[r][k] * vec[q][k]
			}
		}
	}
	return out
}

// solve3 solves a x = y by Gaussian elimination with partial pivoting; ok is false for a singular a.
func solve3(a [3][3]float64, y [3]float64) (x [3]float64, ok bool) {
	for c := 0; c < 3; c++ {
		p := c
		for r := c + 1; r < 3; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if !(a[p][c] != 0) {
			return x, false
		}
		a[c], a[p] = a[p], a[c]
		y[c], y[p] = y[p], y[c]
		for r := c + 1; r < 3; r++ {
			f := a[r][c] / a[c][c]
			for k := c; k < 3; k++ {
				a[r][k] -= f * a[c][k]
			}
			y[r] -= f * y[c]
		}
	}
	for r := 2; r >= 0; r-- {
		s := y[r]
		for k := r + 1; k < 3; k++ {
			s -= a[r][k] * x[k]
		}
		x[r] = s / a[r][r]
	}
	return x, true
}
