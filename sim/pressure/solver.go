package pressure

import (
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/slosh/slosh/sim/par"
)

// Result describes one solve.
type Result struct {
	// Iterations counts the solver's steps: CG steps for CG; CG, expansion and proportioning steps together for
	// MPRGP. Products (below) counts the matrix–vector products, which is what the work scales with.
	Iterations int
	// Products counts every product with the full matrix the call took, including the initial residual, the
	// true-residual checks at convergence, the expansion steps' second product and the power iteration's.
	Products int
	// Residual is relative: ‖projected gradient‖/‖b‖ for MPRGP, ‖A p + b‖/‖b‖ for CG (on the cells in the
	// system); 0 when b is 0.
	Residual  float64
	Converged bool
	// Expansions and Proportionings count MPRGP's steps of each kind (the rest of Iterations are CG steps);
	// Projected counts the expansions that kept the projected conjugate gradient step (the rest took Dostál's).
	Expansions, Proportionings, Projected int
	// NormEstimate is the bound on ‖A‖ that MPRGP's expansion steplength ᾱ = 1.9/NormEstimate used, and
	// NormProducts the products its power iteration took (included in Products). Both are 0 for CG.
	NormEstimate float64
	NormProducts int
}

// ErrNotFinite is wrapped by the error a solve returns when its input (b, the bounds, the warm start, the matrix)
// or one of its iterates is NaN or infinite. The vector p is then unspecified (but finite values are not
// promised), and the caller should discard it.
var ErrNotFinite = errors.New("not finite")

// Solver solves pressure systems. It keeps its workspaces between calls (they grow to the largest system seen
// and are never shrunk), so solves allocate nothing proportional to the grid once warm. A Solver is not safe for
// concurrent use; its zero value is ready, with Pool's default worker count.
type Solver struct {
	// Pool runs the products, reductions and vector updates. Results are bit-identical for any worker count.
	Pool par.Pool
	// Eigen is the power iteration's last vector, its warm start for the next NormEstimate (and so for the next
	// MPRGP). It is state: to continue a simulation bit for bit after a save and load, save it and restore it
	// (nil, or a length other than the matrix's cell count, means a cold start from a fixed pseudo-random vector).
	Eigen []float64

	// dostal makes every MPRGP expansion Dostál's own (tests compare it with the projected step)
	dostal bool

	r, z, d, q, phi, dg, lo []float64
	set                     []bool
	f                       mic
	spans                   []span
	lines                   []int // the first span of each x-line (j + Ny·k), and len(spans) last
	cuts                    []int // the pipeline's ranges of y-lines (pipeline.go); empty: sequential
	perY                    []float64
	done                    []atomic.Int32
	blocks                  []int
	part                    []float64
	sums                    [maxSums]float64
}

// defaultIter is the iteration cap used when the caller passes maxIter ≤ 0.
func defaultIter(n int) int { return 2*n + 100 }

// prepare finds the spans of cells in the system, sizes the workspaces and zeroes them (the solvers' loops then
// touch the cells in the system only, and every workspace stays 0 elsewhere), computes the diagonal the
// preconditioner factors (Diag plus the low-rank terms' diagonal) and returns ‖b‖ over the cells in the system, or
// an error if b or the matrix's diagonal is not finite there.
func (s *Solver) prepare(m *Matrix, b []float64) (float64, error) {
	n := m.Len()
	s.findSpans(m)
	s.r = zeroed(s.r, n)
	s.z = zeroed(s.z, n)
	s.d = zeroed(s.d, n)
	s.q = zeroed(s.q, n)
	s.phi = zeroed(s.phi, n)
	s.dg = zeroed(s.dg, n)
	s.lo = zeroed(s.lo, n)
	if cap(s.set) < n {
		s.set = make([]bool, n)
	}
	s.set = s.set[:n]
	clear(s.set)
	s.f.size(n)
	diag, dg := m.Diag, s.dg
	sums := s.reduce(2, 0, func(lo, hi int, out []float64) {
		bb, bad := out[0], out[1]
		for c := lo; c < hi; c++ {
			dg[c] = diag[c]
			bb += b[c] * b[c]
			if !finite(b[c]) || !finite(diag[c]) {
				bad++
			}
		}
		out[0], out[1] = bb, bad
	})
	if sums[1] != 0 || !finite(sums[0]) {
		return 0, fmt.Errorf("pressure: b or the matrix's diagonal is %w", ErrNotFinite)
	}
	m.bodyDiag(dg)
	return math.Sqrt(sums[0]), nil
}

// begin is every solve's start: the system prepared (prepare), the iteration cap resolved (maxIter ≤ 0: 2n +
// 100), and p set to 0 on the cells out of the system. It returns ‖b‖ over the system.
func (s *Solver) begin(m *Matrix, b, p []float64, maxIter int) (float64, int, error) {
	bn, err := s.prepare(m, b)
	if err != nil {
		return 0, 0, err
	}
	if maxIter <= 0 {
		maxIter = defaultIter(m.Len())
	}
	s.zeroOut(m, p)
	return bn, maxIter, nil
}

// zeroOut sets p to 0 on the cells out of the system, on the pool.
func (s *Solver) zeroOut(m *Matrix, p []float64) {
	diag := m.Diag
	s.Pool.For(len(p), block, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			if !(diag[c] > 0) {
				p[c] = 0
			}
		}
	})
}

// CG solves A p + b = 0 on the cells in the system (the bilateral, classic pressure solve) by conjugate gradients
// preconditioned with MIC(0) of the 7-point part (its diagonal including the low-rank terms' diagonal),
// warm-started from p. It stops when ‖A p + b‖ ≤ tol·‖b‖, checked on the true residual (one extra product), or
// after maxIter CG steps (maxIter ≤ 0: 2n + 100). p is set to 0 on cells out of the system. A returned error
// wraps ErrNotFinite; not converging within maxIter is not an error (Converged is false).
func (s *Solver) CG(m *Matrix, b, p []float64, tol float64, maxIter int) (Result, error) {
	m.check(b, p)
	var res Result
	bn, maxIter, err := s.begin(m, b, p, maxIter)
	if err != nil {
		return res, err
	}
	if bn == 0 {
		clear(p)
		res.Converged = true
		return res, nil
	}
	set := s.set
	bad := s.reduce(1, 0, func(lo, hi int, out []float64) {
		for c := lo; c < hi; c++ {
			set[c] = true
			if !finite(p[c]) {
				out[0]++
			}
		}
	})[0]
	if bad != 0 {
		return res, fmt.Errorf("pressure: CG's warm start p is %w", ErrNotFinite)
	}
	r, z, d, q := s.r, s.z, s.d, s.q
	// r = −(A p + b), the residual of A p = −b
	residual := func() float64 {
		s.mul(m, p, r)
		res.Products++
		return s.reduce(1, 0, func(lo, hi int, out []float64) {
			rr := out[0]
			for c := lo; c < hi; c++ {
				v := -(r[c] + b[c])
				r[c] = v
				rr += v * v
			}
			out[0] = rr
		})[0]
	}
	rr := residual()
	fresh := true // rr is the true residual, not the recurrence's
	s.factorMIC(m, set)
	for {
		res.Residual = math.Sqrt(rr) / bn
		if !finite(rr) {
			return res, fmt.Errorf("pressure: CG's residual after %d steps is %w", res.Iterations, ErrNotFinite)
		}
		if math.Sqrt(rr) <= tol*bn {
			if fresh {
				res.Converged = true
				return res, nil
			}
			// the recurrence's residual drifts from the true one: confirm on the true residual
			rr, fresh = residual(), true
			continue
		}
		if res.Iterations >= maxIter {
			return res, nil
		}
		// (re)start the directions from the current residual: z = M⁻¹ r, d = z
		s.applyMIC(m, r, z)
		s.copyIn(d, z)
		rz := s.dot(r, z)
		for res.Iterations < maxIter {
			s.mul(m, d, q)
			res.Products++
			dq := s.dot(d, q)
			if !(dq > 0) {
				if !finite(dq) {
					return res, fmt.Errorf("pressure: CG's curvature after %d steps is %w", res.Iterations, ErrNotFinite)
				}
				return res, nil // A is not positive definite along d: give up, unconverged
			}
			alpha := rz / dq
			rr = s.reduce(1, 0, func(lo, hi int, out []float64) {
				v := out[0]
				for c := lo; c < hi; c++ {
					p[c] += alpha * d[c]
					r[c] -= alpha * q[c]
					v += r[c] * r[c]
				}
				out[0] = v
			})[0]
			res.Iterations++
			fresh = false
			if !finite(rr) || math.Sqrt(rr) <= tol*bn {
				break
			}
			s.applyMIC(m, r, z)
			rzNew := s.dot(r, z)
			beta := rzNew / rz
			rz = rzNew
			s.each(func(lo, hi int) {
				for c := lo; c < hi; c++ {
					d[c] = z[c] + beta*d[c]
				}
			})
		}
	}
}

// Power iteration's settings.
const (
	powerTol    = 1e-3 // stop when the Rayleigh quotient changes by less than this, relatively
	powerMax    = 60   // products at most
	powerSafety = 1.1  // the estimate is this times ‖A v‖ (capped by the Gershgorin bound)
)

// NormEstimate estimates ‖A‖₂ (the largest eigenvalue, A being symmetric positive semi-definite) on the cells in
// the system by power iteration, warm-started from s.Eigen when it has the matrix's length (a cold start uses a
// fixed pseudo-random vector), until the Rayleigh quotient changes by less than 0.1 % (at least 2 and at most 60
// products). The estimate is 1.1·‖A v‖ for the final unit vector v, capped by the Gershgorin bound (which is a
// true upper bound); it returns the estimate and the products taken, and leaves the vector in s.Eigen. An empty
// system gives (0, 0); a non-finite matrix gives NaN.
func (s *Solver) NormEstimate(m *Matrix) (float64, int) {
	m.check()
	s.findSpans(m)
	return s.normEstimate(m)
}

// normEstimate is NormEstimate once the spans are found.
func (s *Solver) normEstimate(m *Matrix) (float64, int) {
	n := m.Len()
	s.q = zeroed(s.q, n)
	warm := len(s.Eigen) == n
	if !warm {
		s.Eigen = grown(s.Eigen, n)
	}
	v, y := s.Eigen, s.q
	s.zeroOut(m, v)
	vv := s.reduce(1, 0, func(lo, hi int, out []float64) {
		sum := out[0]
		for c := lo; c < hi; c++ {
			if !warm || !finite(v[c]) {
				v[c] = splitmix(uint64(c))
			}
			sum += v[c] * v[c]
		}
		out[0] = sum
	})[0]
	if vv == 0 && warm {
		// the old vector lived only on cells that have left the system
		vv = s.reduce(1, 0, func(lo, hi int, out []float64) {
			sum := out[0]
			for c := lo; c < hi; c++ {
				v[c] = splitmix(uint64(c))
				sum += v[c] * v[c]
			}
			out[0] = sum
		})[0]
	}
	if vv == 0 {
		return 0, 0
	}
	scale := 1 / math.Sqrt(vv)
	var products int
	var lambda, ay float64
	for products < powerMax {
		sc := scale
		s.each(func(lo, hi int) {
			for c := lo; c < hi; c++ {
				v[c] *= sc
			}
		})
		s.mul(m, v, y)
		products++
		sums := s.reduce(2, 0, func(lo, hi int, out []float64) {
			vy, yy := out[0], out[1]
			for c := lo; c < hi; c++ {
				vy += v[c] * y[c]
				yy += y[c] * y[c]
			}
			out[0], out[1] = vy, yy
		})
		prev := lambda
		lambda, ay = sums[0], math.Sqrt(sums[1])
		s.copyIn(v, y)
		if !(ay > 0) {
			break // NaN, or A v = 0
		}
		scale = 1 / ay
		if products >= 2 && math.Abs(lambda-prev) <= powerTol*lambda {
			break
		}
	}
	// leave a unit vector for the next warm start
	if ay > 0 && finite(ay) {
		sc := 1 / ay
		s.each(func(lo, hi int) {
			for c := lo; c < hi; c++ {
				v[c] *= sc
			}
		})
	}
	if !finite(ay) {
		return math.NaN(), products
	}
	est := powerSafety * ay
	if g := m.Gershgorin(); g < est || !(ay > 0) {
		est = g
	}
	return est, products
}
