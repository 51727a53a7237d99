// Package kernel holds the SPH smoothing kernels slosh's particle solvers share, each with its gradient, all with
// compact support of radius h and normalised so that ∫W dV = 1 in 3D.
//
//   - Poly6 (Müller et al. 2003; Solenthaler 004 eq. 2.20): densities. PBF eq. 2.
//   - Spiky (Desbrun & Cani 1996; 004 eq. 2.21): gradients that keep repelling close particles. PBF eq. 8, 12.
//   - Viscosity (004 eq. 2.22): its Laplacian is positive everywhere, for viscous forces.
//   - CubicSpline (Monaghan 1992), the WCSPH/PCISPH workhorse, with support h (q = r/h).
//   - Sine (Solenthaler 004 §5.2.3): the elasticity kernel that stays stable with deficient neighbourhoods.
//
// Kernels are small value types with their constants precomputed for one h, generic over float32 (the GPU-mirroring
// PBF solver) and float64. Gradient methods take the offset r = x_i − x_j and return ∇_i W.
package kernel

import "math"

// Float is the element type a kernel computes in.
type Float interface{ ~float32 | ~float64 }

// Poly6 is W(r) = 315/(64πh⁹) (h² − r²)³ for r ≤ h.
type Poly6[T Float] struct {
	H, h2, coef, gcoef T
}

// NewPoly6 precomputes the poly6 constants for support radius h.
func NewPoly6[T Float](h T) Poly6[T] {
	hf := float64(h)
	c := 315 / (64 * math.Pi * math.Pow(hf, 9))
	return Poly6[T]{H: h, h2: h * h, coef: T(c), gcoef: T(-6 * c)}
}

// W takes the squared distance r².
func (k Poly6[T]) W(r2 T) T {
	if r2 >= k.h2 {
		return 0
	}
	d := k.h2 - r2
	return k.coef * d * d * d
}

// Coef is 315/(64πh⁹), for code that inlines the kernel.
func (k Poly6[T]) Coef() T { return k.coef }

// Grad returns ∇W = −6·315/(64πh⁹)(h² − r²)² r.
func (k Poly6[T]) Grad(rx, ry, rz T) (T, T, T) {
	r2 := rx*rx + ry*ry + rz*rz
	if r2 >= k.h2 {
		return 0, 0, 0
	}
	d := k.h2 - r2
	s := k.gcoef * d * d
	return s * rx, s * ry, s * rz
}

// Spiky is W(r) = 15/(πh⁶) (h − r)³ for r ≤ h.
type Spiky[T Float] struct {
	H, coef, gcoef T
}

// NewSpiky precomputes the spiky constants for support radius h.
func NewSpiky[T Float](h T) Spiky[T] {
	c := 15 / (math.Pi * math.Pow(float64(h), 6))
	return Spiky[T]{H: h, coef: T(c), gcoef: T(-3 * c)}
}

// W takes the distance r.
func (k Spiky[T]) W(r T) T {
	if r >= k.H {
		return 0
	}
	d := k.H - r
	return k.coef * d * d * d
}

// GradScale returns g with ∇W = g·r (r the offset vector, |r| = dist): g = −45/(πh⁶)(h − r)²/r, zero at r = 0
// and beyond h.
func (k Spiky[T]) GradScale(dist T) T {
	if dist >= k.H || dist <= 0 {
		return 0
	}
	d := k.H - dist
	return k.gcoef * d * d / dist
}

// GradCoef is −45/(πh⁶), for code that inlines the kernel.
func (k Spiky[T]) GradCoef() T { return k.gcoef }

// Grad returns ∇W for the offset r.
func (k Spiky[T]) Grad(rx, ry, rz T) (T, T, T) {
	g := k.GradScale(T(math.Sqrt(float64(rx*rx + ry*ry + rz*rz))))
	return g * rx, g * ry, g * rz
}

// Viscosity is W(r) = 15/(2πh³) (−r³/2h³ + r²/h² + h/2r − 1) for r ≤ h; ∇²W = 45/(πh⁶)(h − r).
type Viscosity[T Float] struct {
	H, coef, lcoef T
}

// NewViscosity precomputes the viscosity-kernel constants for support radius h.
func NewViscosity[T Float](h T) Viscosity[T] {
	hf := float64(h)
	return Viscosity[T]{H: h, coef: T(15 / (2 * math.Pi * hf * hf * hf)), lcoef: T(45 / (math.Pi * math.Pow(hf, 6)))}
}

// W takes the distance r (> 0; the kernel is singular at 0).
func (k Viscosity[T]) W(r T) T {
	if r >= k.H || r <= 0 {
		return 0
	}
	h := k.H
	return k.coef * (-r*r*r/(2*h*h*h) + r*r/(h*h) + h/(2*r) - 1)
}

// Grad returns ∇W = 15/(2πh³)(−3r/2h³ + 2/h² − h/2r³) r.
func (k Viscosity[T]) Grad(rx, ry, rz T) (T, T, T) {
	r := T(math.Sqrt(float64(rx*rx + ry*ry + rz*rz)))
	if r >= k.H || r <= 0 {
		return 0, 0, 0
	}
	h := k.H
	s := k.coef * (-3*r/(2*h*h*h) + 2/(h*h) - h/(2*r*r*r))
	return s * rx, s * ry, s * rz
}

// Laplacian returns ∇²W = 45/(πh⁶)(h − r).
func (k Viscosity[T]) Laplacian(r T) T {
	if r >= k.H {
		return 0
	}
	return k.lcoef * (k.H - r)
}

// CubicSpline is Monaghan's M4 spline with support h: σ = 8/(πh³), q = r/h,
// W = σ(6q³ − 6q² + 1) for q ≤ ½ and 2σ(1 − q)³ for ½ < q ≤ 1.
type CubicSpline[T Float] struct {
	H, invH, sigma T
}

// NewCubicSpline precomputes the spline constants for support radius h.
func NewCubicSpline[T Float](h T) CubicSpline[T] {
	hf := float64(h)
	return CubicSpline[T]{H: h, invH: 1 / h, sigma: T(8 / (math.Pi * hf * hf * hf))}
}

// W takes the distance r.
func (k CubicSpline[T]) W(r T) T {
	q := r * k.invH
	switch {
	case q <= 0.5:
		return k.sigma * (6*q*q*q - 6*q*q + 1)
	case q <= 1:
		d := 1 - q
		return k.sigma * 2 * d * d * d
	}
	return 0
}

// Grad returns ∇W for the offset r.
func (k CubicSpline[T]) Grad(rx, ry, rz T) (T, T, T) {
	r := T(math.Sqrt(float64(rx*rx + ry*ry + rz*rz)))
	q := r * k.invH
	if r <= 0 || q > 1 {
		return 0, 0, 0
	}
	var dWdq T
	if q <= 0.5 {
		dWdq = k.sigma * (18*q*q - 12*q)
	} else {
		d := 1 - q
		dWdq = -6 * k.sigma * d * d
	}
	s := dWdq * k.invH / r
	return s * rx, s * ry, s * rz
}

// Sine is Solenthaler's elasticity kernel (004 §5.2.3):
// W = c(2h/π) cos((r + h)π/2h) + c(2h/π) for r ≤ h, with c = π / (8h⁴(π/3 − 8/π + 16/π²)).
type Sine[T Float] struct {
	H, c, a T // a = π/(2h)
}

// NewSine precomputes the sine-kernel constants for support radius h.
func NewSine[T Float](h T) Sine[T] {
	hf := float64(h)
	c := math.Pi / (8 * math.Pow(hf, 4) * (math.Pi/3 - 8/math.Pi + 16/(math.Pi*math.Pi)))
	return Sine[T]{H: h, c: T(c), a: T(math.Pi / (2 * hf))}
}

// W takes the distance r.
func (k Sine[T]) W(r T) T {
	if r > k.H || r < 0 {
		return 0
	}
	return k.c / k.a * (T(math.Cos(float64(k.a*(r+k.H)))) + 1)
}

// Grad returns ∇W = −c sin((r + h)π/2h) r/|r|.
func (k Sine[T]) Grad(rx, ry, rz T) (T, T, T) {
	r := T(math.Sqrt(float64(rx*rx + ry*ry + rz*rz)))
	if r <= 0 || r > k.H {
		return 0, 0, 0
	}
	s := -k.c * T(math.Sin(float64(k.a*(r+k.H)))) / r
	return s * rx, s * ry, s * rz
}

// WGrad returns W(r) and the scale g of the gradient at an offset of length r, ∇W = g r (0 at r = 0 and beyond h),
// in one evaluation. With x = πr/2h, W = c(2h/π)(1 − sin x) and g = −c cos x / r; the sine and cosine come from
// their Taylor polynomials on [0, π/2] (to x¹³ and x¹⁴: within 1e-9 of math.Sin and math.Cos there), which an
// elastic pass that evaluates the kernel at every pair takes five times faster than W and Grad.
func (k Sine[T]) WGrad(r T) (w, g T) {
	if r < 0 || r > k.H {
		return 0, 0
	}
	x := float64(k.a * r)
	x2 := x * x
	sin := x * (1 + x2*(-1.0/6+x2*(1.0/120+x2*(-1.0/5040+x2*(1.0/362880+x2*(-1.0/39916800+x2*(1.0/6227020800)))))))
	cos := 1 + x2*(-0.5+x2*(1.0/24+x2*(-1.0/720+x2*(1.0/40320+x2*(-1.0/3628800+x2*(1.0/479001600+x2*(-1.0/87178291200)))))))
	w = k.c / k.a * T(1-sin)
	if r > 0 {
		g = -k.c * T(cos) / r
	}
	return w, g
}
