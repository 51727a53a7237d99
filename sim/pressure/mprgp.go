package pressure

import (
	"fmt"
	"math"
)

// MPRGP's settings.
const (
	mprgpGamma = 1.0 // Γ: proportioning when ‖β‖² > Γ² φ̃ᵀφ
	mprgpAlpha = 1.9 // ᾱ = mprgpAlpha/‖A‖, inside Dostál's (0, 2/‖A‖]
)

// MPRGP solves the linear complementarity problem w = A p + b, p ≥ 0, w ≥ 0, pᵀw = 0 on the cells in the system
// (the minimum of ½pᵀAp + bᵀp subject to p ≥ 0); see MPRGPBounded.
func (s *Solver) MPRGP(m *Matrix, b, p []float64, tol float64, maxIter int) (Result, error) {
	return s.MPRGPBounded(m, b, nil, p, tol, maxIter)
}

// MPRGPBounded solves w = A p + b, p ≥ lower, w ≥ 0, (p − lower)ᵀw = 0 on the cells in the system: the minimum of
// ½pᵀAp + bᵀp subject to p ≥ lower. lower nil means 0 everywhere; lower[c] = −Inf leaves cell c unconstrained
// (w_c = 0 there), which is how suction away from the liquid's surface is allowed. lower must not be NaN or +Inf
// on cells in the system.
//
// The method is Dostál's MPRGP (modified proportioning with reduced gradient projections; Dostál, "Optimal
// Quadratic Programming Algorithms", 2009, §5.8, and Dostál & Schöberl 2005) with preconditioning in face:
//   - the free set F = {p > lower}, the free gradient φ = g on F, the chopped gradient β = min(g, 0) off F, the
//     projected gradient φ + β, where g = A p + b (= w);
//   - when ‖β‖² ≤ Γ² φ̃ᵀφ (Γ = 1, φ̃ the reduced free gradient min((p − lower)/ᾱ, φ) on F), a conjugate gradient
//     step on F along d, preconditioned by MIC(0) of A's submatrix on F: z = M_F⁻¹ φ, d = z − γ d with γ making d
//     A-conjugate to the last direction, and the step length gᵀd/dᵀAd;
//   - when that step would leave the feasible set, an expansion step: first the whole step projected,
//     max(lower, p − α d), kept when its cost is at most that of the point as far as feasible along d
//     (projectedStep; PERMON's "projcg" expansion with its fallback); otherwise Dostál's: go as far as feasible
//     along d, then take the projected free-gradient step p ← max(lower, p − ᾱ φ) with the fixed ᾱ = 1.9/‖A‖.
//     Either way the directions restart. The cost falls at every step; Dostál's bound on the rate of convergence
//     is proved for his expansion alone;
//   - otherwise a proportioning step along −β (releasing the constrained cells whose gradient pulls them free),
//     with its exact line search, and a restart.
//
// The preconditioner is refactored whenever F changes (after every expansion and proportioning step, and after a
// CG step that lands exactly on a bound): M_F is then MIC(0) of A_FF, which is symmetric positive definite on F,
// so every preconditioned direction is a descent direction, the CG steps decrease the cost by exact line
// searches, and the expansion and proportioning steps are the unpreconditioned ones whose decrease Dostál's
// convergence proof rests on. A refactorisation costs about twice a preconditioner application.
//
// ‖A‖ comes from NormEstimate (power iteration warm-started from s.Eigen). p is the warm start, projected onto
// p ≥ lower (and set to 0 on cells out of the system). The solve stops when the projected gradient's norm is at
// most tol·‖b‖ (confirmed on a freshly computed gradient; when b is 0 and lower ≤ 0, p = 0 at once; when b is 0
// with a positive bound, the tolerance is absolute), or after maxIter steps (maxIter ≤ 0: 2n + 100). Errors wrap
// ErrNotFinite; not converging within maxIter is not an error (Converged is false).
func (s *Solver) MPRGPBounded(m *Matrix, b, lower, p []float64, tol float64, maxIter int) (Result, error) {
	m.check(b, lower, p)
	var res Result
	bn, maxIter, err := s.begin(m, b, p, maxIter)
	if err != nil {
		return res, err
	}
	// the bounds, projected warm start and a check of both
	lo := s.lo
	sums := s.reduce(2, 1<<1, func(a, e int, out []float64) {
		bad, negMax := out[0], out[1]
		for c := a; c < e; c++ {
			l := 0.0
			if lower != nil {
				l = lower[c]
			}
			lo[c] = l
			if math.IsNaN(l) || math.IsInf(l, 1) || !finite(p[c]) {
				bad++
			}
			if p[c] < l {
				p[c] = l
			}
			negMax = min(negMax, -l)
		}
		out[0], out[1] = bad, negMax // the min of −l: minus the largest bound
	})
	if sums[0] != 0 {
		return res, fmt.Errorf("pressure: MPRGP's bounds or warm start are %w", ErrNotFinite)
	}
	lmax := -sums[1]
	scale := bn
	if bn == 0 {
		if lmax <= 0 {
			clear(p)
			res.Converged = true
			return res, nil
		}
		scale = 1
	}

	norm, np := s.normEstimate(m)
	res.NormEstimate, res.NormProducts, res.Products = norm, np, np
	if !finite(norm) || !(norm > 0) {
		return res, fmt.Errorf("pressure: MPRGP's norm estimate %v is %w", norm, ErrNotFinite)
	}
	abar := mprgpAlpha / norm

	g, d, ad, phi, z, set := s.r, s.d, s.q, s.phi, s.z, s.set
	// gradient sets g = A p + b
	gradient := func() {
		s.mul(m, p, g)
		res.Products++
		s.each(func(a, e int) {
			for c := a; c < e; c++ {
				g[c] += b[c]
			}
		})
	}
	// classify computes φ (into phi), ‖φ‖², ‖β‖², φ̃ᵀφ and whether the free set differs from the factor's.
	var phi2, beta2, phiTilde float64
	var changed bool
	classify := func() {
		sums := s.reduce(4, 0, func(a, e int, out []float64) {
			f2, b2, ft, ch := out[0], out[1], out[2], out[3]
			for c := a; c < e; c++ {
				free := p[c] > lo[c]
				if free != set[c] {
					ch++
				}
				v := g[c]
				if free {
					phi[c] = v
					f2 += v * v
					if v > 0 {
						ft += min((p[c]-lo[c])/abar, v) * v
					} else {
						ft += v * v
					}
				} else {
					phi[c] = 0
					if v < 0 {
						b2 += v * v
					}
				}
			}
			out[0], out[1], out[2], out[3] = f2, b2, ft, ch
		})
		phi2, beta2, phiTilde, changed = sums[0], sums[1], sums[2], sums[3] != 0
	}
	// restart makes the search direction the preconditioned free gradient, first refactoring the preconditioner
	// on the current free set if it changed.
	restart := func() {
		if changed {
			s.each(func(a, e int) {
				for c := a; c < e; c++ {
					set[c] = p[c] > lo[c]
				}
			})
			s.factorMIC(m, set)
			changed = false
		}
		s.applyMIC(m, phi, z)
		s.copyIn(d, z)
	}

	gradient()
	classify()
	fresh := true // g was just computed from p, not updated by recurrence
	for {
		gp := math.Sqrt(phi2 + beta2)
		res.Residual = gp / scale
		if !finite(gp) || !finite(phiTilde) {
			return res, fmt.Errorf("pressure: MPRGP's projected gradient after %d steps is %w", res.Iterations, ErrNotFinite)
		}
		if gp <= tol*scale {
			if fresh {
				res.Converged = true
				return res, nil
			}
			gradient()
			classify()
			fresh = true
			continue
		}
		if res.Iterations >= maxIter {
			return res, nil
		}
		if fresh {
			restart() // the first step, or after a fresh gradient: start the directions anew
		}
		res.Iterations++
		fresh = false
		if beta2 > mprgpGamma*mprgpGamma*phiTilde {
			// proportioning step along −β
			res.Proportionings++
			s.each(func(a, e int) {
				for c := a; c < e; c++ {
					v := 0.0
					if !(p[c] > lo[c]) && g[c] < 0 {
						v = g[c]
					}
					d[c] = v
				}
			})
			s.mul(m, d, ad)
			res.Products++
			dad := s.dot(d, ad)
			if !(dad > 0) {
				return res, s.curvature(dad, res)
			}
			alpha := beta2 / dad // gᵀd = ‖β‖²
			s.step(p, g, d, ad, alpha)
			classify()
			restart()
			continue
		}
		// trial conjugate gradient step along d
		s.mul(m, d, ad)
		res.Products++
		sums := s.reduce(4, 1<<2, func(a, e int, out []float64) {
			dad, gd, af, pgb := out[0], out[1], out[2], out[3]
			for c := a; c < e; c++ {
				dad += d[c] * ad[c]
				gd += g[c] * d[c]
				if d[c] > 0 {
					af = min(af, (p[c]-lo[c])/d[c])
				}
				pgb += p[c] * (g[c] + b[c])
			}
			out[0], out[1], out[2], out[3] = dad, gd, af, pgb
		})
		dad, gd, afeas, cost := sums[0], sums[1], sums[2], 0.5*sums[3] // cost = ½pᵀAp + bᵀp = ½pᵀ(g + b)
		if !(dad > 0) {
			return res, s.curvature(dad, res)
		}
		acg := gd / dad
		if acg <= afeas {
			// conjugate gradient step
			s.step(p, g, d, ad, acg)
			classify()
			if changed {
				restart() // landed on a bound: the face changed
				continue
			}
			s.applyMIC(m, phi, z)
			gamma := s.dot(z, ad) / dad
			s.each(func(a, e int) {
				for c := a; c < e; c++ {
					d[c] = z[c] - gamma*d[c]
				}
			})
			continue
		}
		// expansion step. First the whole conjugate gradient step projected onto the feasible set, kept when it
		// lowers the cost at least as much as going as far as feasible along d does (PERMON's "projcg" expansion
		// with its fallback): it frees or binds every cell the step crosses at once.
		res.Expansions++
		if !s.dostal && s.projectedStep(m, b, p, g, d, acg, cost-afeas*gd+0.5*afeas*afeas*dad) {
			res.Products++
			res.Projected++
			classify()
			restart()
			continue
		}
		if !s.dostal {
			res.Products++ // the projected step's
		}
		// otherwise Dostál's: as far as feasible along d, then a fixed-length projected free-gradient step
		s.step(p, g, d, ad, afeas)
		s.each(func(a, e int) {
			for c := a; c < e; c++ {
				if p[c] > lo[c] {
					p[c] = max(lo[c], p[c]-abar*g[c])
				}
			}
		})
		gradient()
		classify()
		restart()
	}
}

// projectedStep tries t = max(lo, p − α d): when its cost ½tᵀAt + bᵀt is at most bound it sets p = t and g =
// A t + b and reports true; otherwise p and g are left as they were. It takes one product either way, and uses z
// and phi as scratch (the caller recomputes both).
func (s *Solver) projectedStep(m *Matrix, b, p, g, d []float64, alpha, bound float64) bool {
	t, gt, lo := s.z, s.phi, s.lo
	s.each(func(a, e int) {
		for c := a; c < e; c++ {
			t[c] = max(lo[c], p[c]-alpha*d[c])
		}
	})
	s.mul(m, t, gt)
	cost := 0.5 * s.reduce(1, 0, func(a, e int, out []float64) {
		v := out[0]
		for c := a; c < e; c++ {
			gt[c] += b[c]
			v += t[c] * (gt[c] + b[c])
		}
		out[0] = v
	})[0]
	if !(cost <= bound) {
		return false
	}
	s.copyIn(p, t)
	s.copyIn(g, gt)
	return true
}

// step sets p −= α d and g −= α A d, keeping p ≥ lo: a step that ends exactly on a bound may round a hair past
// it (the gradient is then off by as much, which the final check on a fresh gradient absorbs).
func (s *Solver) step(p, g, d, ad []float64, alpha float64) {
	lo := s.lo
	s.each(func(a, e int) {
		for c := a; c < e; c++ {
			p[c] = max(lo[c], p[c]-alpha*d[c])
			g[c] -= alpha * ad[c]
		}
	})
}

// curvature is the outcome of a direction along which dᵀAd is not positive: an error when it is not finite,
// otherwise nil (A is only semi-definite there: the solve stops unconverged).
func (s *Solver) curvature(dad float64, res Result) error {
	if !finite(dad) {
		return fmt.Errorf("pressure: MPRGP's curvature after %d steps is %w", res.Iterations, ErrNotFinite)
	}
	return nil
}
