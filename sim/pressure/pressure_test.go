package pressure

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/slosh/slosh/sim/par"
)

var sizes = [][3]int{{1, 1, 1}, {3, 1, 1}, {4, 3, 1}, {5, 4, 3}, {6, 5, 4}, {7, 3, 5}}

// Mul agrees with the dense matrix built from the same Matrix: random grids with holes, junk couplings past the
// edges and to holes, and random low-rank terms; y is 0 on cells out of the system whatever x holds there.
func TestMulMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 30 {
		sz := sizes[trial%len(sizes)]
		m := randomMatrix(rng, sz[0], sz[1], sz[2], 0.3, trial%3)
		n := m.Len()
		x := randomVec(rng, n, -1, 1)
		a := dense(m)
		for _, workers := range []int{1, 3, -1} {
			y := randomVec(rng, n, 5, 6) // junk that Mul must overwrite
			if workers > 0 {
				m.Mul(par.Pool{Workers: workers}, x, y)
			} else {
				// the solvers' own product over the spans of cells in the system (y is kept 0 elsewhere)
				var s Solver
				if _, err := s.prepare(m, x); err != nil {
					t.Fatal(err)
				}
				clear(y)
				s.mul(m, x, y)
			}
			for c := range n {
				want := 0.0
				for e := range n {
					want += a[c][e] * x[e]
				}
				if math.Abs(y[c]-want) > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("trial %d %v workers %d: y[%d] = %v, dense gives %v (in %v)", trial, sz, workers, c,
						y[c], want, m.Diag[c] > 0)
				}
			}
		}
	}
}

// Resize zeroes the slices and the bodies while reusing capacity.
func TestResize(t *testing.T) {
	m := randomMatrix(rand.New(rand.NewPCG(3, 4)), 4, 4, 4, 0.2, 2)
	diag := &m.Diag[0]
	m.Resize(2, 3, 4)
	if m.Len() != 24 || len(m.Diag) != 24 || len(m.X) != 24 || len(m.Y) != 24 || len(m.Z) != 24 || len(m.Bodies) != 0 {
		t.Fatalf("Resize(2, 3, 4) gave %d×%d×%d with %d cells, %d bodies", m.Nx, m.Ny, m.Nz, len(m.Diag), len(m.Bodies))
	}
	if &m.Diag[0] != diag {
		t.Error("Resize to a smaller grid reallocated")
	}
	for c := range 24 {
		if m.Diag[c] != 0 || m.X[c] != 0 || m.Y[c] != 0 || m.Z[c] != 0 {
			t.Fatalf("cell %d not zeroed", c)
		}
	}
}

// CG on random SPD grid Laplacians with Dirichlet holes, varying face weights and low-rank terms: the true
// residual meets the tolerance and the solution agrees with a dense Cholesky solve.
func TestCGMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var s Solver
	for trial := range 30 {
		sz := sizes[trial%len(sizes)]
		m := randomMatrix(rng, sz[0], sz[1], sz[2], 0.25, trial%3)
		n := m.Len()
		b := randomVec(rng, n, -1, 1)
		p := randomVec(rng, n, -1, 1) // warm start (junk on cells out of the system too)
		const tol = 1e-10
		res, err := s.CG(m, b, p, tol, 0)
		if err != nil {
			t.Fatal(err)
		}
		bn := norm(m, b)
		if rn := norm(m, gradient(m, b, p)); !res.Converged || rn > tol*bn {
			t.Fatalf("trial %d %v: converged %v, ‖Ap+b‖ = %g > %g·‖b‖ = %g (%+v)", trial, sz, res.Converged, rn, tol, tol*bn, res)
		}
		ref := denseSolve(t, m, b)
		if d := diffNorm(m, p, ref); d > 1e-7*(norm(m, ref)+1e-300) {
			t.Fatalf("trial %d %v: ‖p − dense‖ = %g, ‖dense‖ = %g", trial, sz, d, norm(m, ref))
		}
		for c := range n {
			if !(m.Diag[c] > 0) && p[c] != 0 {
				t.Fatalf("trial %d: p[%d] = %v out of the system", trial, c, p[c])
			}
		}
	}
}

// The preconditioner matters: MIC(0) CG on a 16³ Laplacian takes far fewer steps than the cells' count and
// fewer than unpreconditioned CG would (about 1.5·16·π/2 ≈ 40 for this size, more than MIC's).
func TestCGPreconditionedIterations(t *testing.T) {
	m := damBreak(16, 16, 16)
	b := damRHS(m)
	p := make([]float64, m.Len())
	var s Solver
	res, err := s.CG(m, b, p, 1e-8, 0)
	if err != nil || !res.Converged {
		t.Fatalf("%+v %v", res, err)
	}
	if res.Iterations > 30 {
		t.Errorf("MIC(0) CG took %d steps on the 16³ dam break (expected ≤ 30)", res.Iterations)
	}
}

// kkt checks the complementarity conditions of w = A p + b, p ≥ lower, w ≥ 0, (p − lower)ᵀw = 0 with a tolerance
// relative to ‖b‖ (w) and to ‖b‖·‖p − lower‖ (complementarity), and returns w.
func kkt(t *testing.T, what string, m *Matrix, b, lower, p []float64, tol float64) []float64 {
	t.Helper()
	w := gradient(m, b, p)
	bn := norm(m, b)
	var gap, dp float64
	for c := range p {
		if !(m.Diag[c] > 0) {
			if p[c] != 0 {
				t.Fatalf("%s: p[%d] = %v out of the system", what, c, p[c])
			}
			continue
		}
		l := 0.0
		if lower != nil {
			l = lower[c]
		}
		if p[c] < l {
			t.Fatalf("%s: p[%d] = %v below its bound %v", what, c, p[c], l)
		}
		if math.IsInf(l, -1) {
			if math.Abs(w[c]) > tol*bn {
				t.Fatalf("%s: unconstrained cell %d has w = %v", what, c, w[c])
			}
			continue
		}
		if w[c] < -tol*bn {
			t.Fatalf("%s: w[%d] = %v < −tol·‖b‖ = %v", what, c, w[c], -tol*bn)
		}
		gap += math.Abs((p[c] - l) * w[c])
		dp += (p[c] - l) * (p[c] - l)
	}
	if gap > tol*bn*(math.Sqrt(dp)+1) {
		t.Fatalf("%s: Σ|(p−l)·w| = %g > tol·‖b‖·(‖p−l‖+1) = %g", what, gap, tol*bn*(math.Sqrt(dp)+1))
	}
	return w
}

// MPRGP on random small systems (holes, b of both signs, with and without low-rank terms, cold and warm starts,
// with and without lower bounds, some −Inf): the solution satisfies the LCP's conditions and matches projected
// Gauss–Seidel run to convergence.
func TestMPRGPMatchesPGS(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var s Solver
	for trial := range 60 {
		sz := sizes[trial%len(sizes)]
		if trial >= 30 {
			sz = [3]int{6, 5, 4}
		}
		m := randomMatrix(rng, sz[0], sz[1], sz[2], 0.2, trial%3)
		n := m.Len()
		b := randomVec(rng, n, -1, 1)
		var lower []float64
		if trial%4 == 3 {
			lower = randomVec(rng, n, -0.3, 0.1)
			for c := range lower {
				if rng.IntN(5) == 0 {
					lower[c] = math.Inf(-1)
				}
			}
		}
		p := make([]float64, n)
		if trial%2 == 1 {
			p = randomVec(rng, n, -0.5, 1)
		}
		const tol = 1e-9
		res, err := s.MPRGPBounded(m, b, lower, p, tol, 0)
		if err != nil {
			t.Fatal(err)
		}
		what := "trial " + string(rune('0'+trial/10)) + string(rune('0'+trial%10))
		if !res.Converged {
			t.Fatalf("%s %v: not converged: %+v", what, sz, res)
		}
		kkt(t, what, m, b, lower, p, 1e-8)
		ref := make([]float64, n)
		if _, r, err := PGS(m, b, lower, ref, 1e-13, 200000); err != nil || r > 1e-13 {
			t.Fatalf("%s: PGS residual %g, %v", what, r, err)
		}
		if d := diffNorm(m, p, ref); d > 1e-7*(norm(m, ref)+1e-12) {
			t.Fatalf("%s %v: ‖p − PGS‖ = %g, ‖PGS‖ = %g (%+v)", what, sz, d, norm(m, ref), res)
		}
	}
}

// Solutions with an active set and none: MPRGP counts its step kinds, and when no bound is active at the
// solution it equals CG's.
func TestMPRGPWithoutActiveBoundsEqualsCG(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var s Solver
	for trial := range 10 {
		m := randomMatrix(rng, 6, 5, 4, 0.2, trial%2)
		n := m.Len()
		// b = −A p* with p* > 0: the solution is p* with w = 0, nothing active
		star := randomVec(rng, n, 0.5, 1.5)
		b := make([]float64, n)
		m.Mul(par.Pool{}, star, b)
		for c := range b {
			b[c] = -b[c]
		}
		p := make([]float64, n)
		if _, err := s.MPRGP(m, b, p, 1e-11, 0); err != nil {
			t.Fatal(err)
		}
		q := make([]float64, n)
		if _, err := s.CG(m, b, q, 1e-11, 0); err != nil {
			t.Fatal(err)
		}
		if d := diffNorm(m, p, q); d > 1e-8*norm(m, q) {
			t.Fatalf("trial %d: ‖MPRGP − CG‖ = %g, ‖CG‖ = %g", trial, d, norm(m, q))
		}
		if d := diffNorm(m, p, star); d > 1e-8*norm(m, star) {
			t.Fatalf("trial %d: ‖MPRGP − p*‖ = %g", trial, d)
		}
	}
}

// With b ≥ 0 everywhere the solution is p = 0: from p = 0 in no step at all, and from a warm start too.
func TestMPRGPNonNegativeB(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var s Solver
	for trial := range 10 {
		m := randomMatrix(rng, 6, 5, 4, 0.2, trial%2)
		n := m.Len()
		b := randomVec(rng, n, 0, 1)
		p := make([]float64, n)
		res, err := s.MPRGP(m, b, p, 1e-10, 0)
		if err != nil || !res.Converged || res.Iterations > 1 {
			t.Fatalf("trial %d: %+v %v", trial, res, err)
		}
		if slices.ContainsFunc(p, func(v float64) bool { return v != 0 }) {
			t.Fatalf("trial %d: p ≠ 0 from a cold start", trial)
		}
		p = randomVec(rng, n, 0, 2)
		res, err = s.MPRGP(m, b, p, 1e-10, 0)
		if err != nil || !res.Converged {
			t.Fatalf("trial %d warm: %+v %v", trial, res, err)
		}
		if np := norm(m, p); np > 1e-9 {
			t.Fatalf("trial %d warm: ‖p‖ = %g, want 0", trial, np)
		}
	}
}

// An active set that moves: on the dam break, from a cold start (all cells bound, so proportioning steps release
// them) and from a warm start above the solution (so CG steps run into the bounds and expansion steps follow),
// MPRGP meets the conditions and matches PGS; the solution has cells both pressured and released. Both expansion
// steps are checked, Dostál's alone and with the projected conjugate gradient step tried first (PERMON's
// "projcg" with its fallback): from above, the projected steps bind the released cells in fewer products.
func TestMPRGPDamBreak(t *testing.T) {
	m := damBreak(16, 12, 10)
	b := damRHS(m)
	n := m.Len()
	ref := make([]float64, n)
	if _, r, err := PGS(m, b, nil, ref, 1e-11, 500000); err != nil || r > 1e-11 {
		t.Fatalf("PGS residual %g, %v", r, err)
	}
	var active, pressured int
	w := gradient(m, b, ref)
	for c := range ref {
		if m.Diag[c] > 0 && ref[c] == 0 && w[c] > 1e-6 {
			active++
		}
		if ref[c] > 0 {
			pressured++
		}
	}
	if active < 10 || pressured < 10 {
		t.Fatalf("the dam break has %d released and %d pressured cells: not a test of the active set", active, pressured)
	}
	products := map[bool]int{}
	for _, dostal := range []bool{true, false} {
		for _, start := range []float64{0, 3} {
			s := Solver{dostal: dostal}
			p := make([]float64, n)
			for c := range p {
				p[c] = start
			}
			res, err := s.MPRGP(m, b, p, 1e-9, 0)
			if err != nil || !res.Converged {
				t.Fatalf("start %g: %+v %v", start, res, err)
			}
			t.Logf("Dostál's expansions only %v, start %g: %+v", dostal, start, res)
			if start > 0 {
				products[dostal] = res.Products
				if dostal != (res.Projected == 0) {
					t.Errorf("start %g, Dostál's only %v: %d projected steps", start, dostal, res.Projected)
				}
			}
			kkt(t, "dam break", m, b, nil, p, 1e-8)
			if start == 0 && res.Proportionings == 0 || start > 0 && res.Expansions == 0 {
				t.Errorf("start %g: no step of the kind the start needs: %+v", start, res)
			}
			if res.Expansions+res.Proportionings > res.Iterations || res.Products < res.Iterations {
				t.Errorf("step counts do not add up: %+v", res)
			}
			if d := diffNorm(m, p, ref); d > 1e-6*norm(m, ref) {
				t.Fatalf("start %g: ‖p − PGS‖ = %g, ‖PGS‖ = %g", start, d, norm(m, ref))
			}
		}
	}
	if products[false] >= products[true] {
		t.Errorf("from above, %d products with the projected step against %d with Dostál's alone: want fewer", products[false], products[true])
	}
}

// Reductions are summed per fixed block and combined in order, so solves are bit-identical across runs and
// across worker counts (systems of several blocks, with low-rank terms).
func TestDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	m := randomMatrix(rng, 24, 20, 18, 0.1, 2)
	n := m.Len()
	b := randomVec(rng, n, -1, 0.5)
	type run struct {
		p, q  []float64
		r, rc Result
		est   float64
	}
	do := func(workers int) run {
		s := Solver{Pool: par.Pool{Workers: workers}}
		var o run
		o.p = make([]float64, n)
		for c := range o.p {
			o.p[c] = splitmix(uint64(c)) + 1 // a warm start above the solution in places: expansions
		}
		var err error
		if o.r, err = s.MPRGP(m, b, o.p, 1e-10, 0); err != nil {
			t.Fatal(err)
		}
		o.q = make([]float64, n)
		if o.rc, err = s.CG(m, b, o.q, 1e-10, 0); err != nil {
			t.Fatal(err)
		}
		o.est, _ = s.NormEstimate(m)
		return o
	}
	ref := do(1)
	if !ref.r.Converged || ref.r.Expansions == 0 || !ref.rc.Converged {
		t.Fatalf("reference solve: %+v %+v", ref.r, ref.rc)
	}
	for _, w := range []int{1, 2, 4, 7} {
		o := do(w)
		if o.r != ref.r || o.rc != ref.rc || o.est != ref.est {
			t.Fatalf("workers %d: results differ: %+v / %+v, %+v / %+v", w, o.r, ref.r, o.rc, ref.rc)
		}
		for c := range n {
			if math.Float64bits(o.p[c]) != math.Float64bits(ref.p[c]) || math.Float64bits(o.q[c]) != math.Float64bits(ref.q[c]) {
				t.Fatalf("workers %d: p[%d] differs in its bits", w, c)
			}
		}
	}
}

// The power iteration bounds ‖A‖ from above (within its safety factor), and a warm start from the previous
// matrix's eigenvector takes fewer products on a slightly perturbed matrix than a cold start does.
func TestNormEstimateWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	m := randomMatrix(rng, 20, 18, 16, 0.05, 1)
	var s Solver
	est, cold1 := s.NormEstimate(m)
	// the true largest eigenvalue, by a long power iteration
	var long Solver
	lambda := trueNorm(&long, m)
	if est < lambda || est > m.Gershgorin()*(1+1e-12) {
		t.Fatalf("estimate %g outside [λmax %g, Gershgorin %g]", est, lambda, m.Gershgorin())
	}
	// perturb the face weights by up to 1 %
	for c := range m.Diag {
		if m.Diag[c] > 0 {
			f := 1 + 0.01*rng.Float64()
			m.Diag[c] *= f
			m.X[c] *= f
		}
	}
	est2, warm := s.NormEstimate(m)
	var fresh Solver
	est3, cold := fresh.NormEstimate(m)
	t.Logf("products: cold %d, then cold %d / warm %d on the perturbed matrix (estimates %g, %g)", cold1, cold, warm, est3, est2)
	if warm >= cold {
		t.Errorf("warm start took %d products, cold %d", warm, cold)
	}
	if lambda2 := trueNorm(&long, m); est2 < lambda2 || est3 < lambda2 {
		t.Errorf("estimates %g (warm), %g (cold) below λmax %g", est2, est3, lambda2)
	}
}

// trueNorm runs power iteration to full convergence.
func trueNorm(s *Solver, m *Matrix) float64 {
	n := m.Len()
	v := make([]float64, n)
	y := make([]float64, n)
	for c := range v {
		v[c] = splitmix(uint64(c) + 77)
	}
	var lambda float64
	for range 3000 {
		nv := norm(m, v)
		for c := range v {
			v[c] /= nv
		}
		m.Mul(par.Pool{}, v, y)
		lambda = 0
		for c := range v {
			lambda += v[c] * y[c]
		}
		v, y = y, v
	}
	return lambda
}

// Non-finite input ends a solve at once with an error wrapping ErrNotFinite, never a loop.
func TestNonFinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	var s Solver
	base := randomMatrix(rng, 6, 5, 4, 0.1, 1)
	n := base.Len()
	in := -1 // a cell whose +x neighbour is in the system too, so that its coupling is used
	for c := range n - 1 {
		if base.Diag[c] > 0 && base.Diag[c+1] > 0 && c%base.Nx < base.Nx-1 {
			in = c
			break
		}
	}
	cases := []struct {
		name string
		edit func(m *Matrix, b, p, lower []float64)
	}{
		{"NaN in b", func(m *Matrix, b, p, lower []float64) { b[in] = math.NaN() }},
		{"Inf in b", func(m *Matrix, b, p, lower []float64) { b[in] = math.Inf(1) }},
		{"NaN warm start", func(m *Matrix, b, p, lower []float64) { p[in] = math.NaN() }},
		{"NaN bound", func(m *Matrix, b, p, lower []float64) { lower[in] = math.NaN() }},
		{"NaN coupling", func(m *Matrix, b, p, lower []float64) { m.X[in] = math.NaN() }},
		{"Inf diagonal", func(m *Matrix, b, p, lower []float64) { m.Diag[in] = math.Inf(1) }},
		{"NaN body", func(m *Matrix, b, p, lower []float64) { m.Bodies[0].W[1][1] = math.NaN() }},
	}
	for _, tc := range cases {
		for _, solver := range []string{"CG", "MPRGP", "PGS"} {
			m := randomMatrix(rand.New(rand.NewPCG(17, 18)), 6, 5, 4, 0.1, 1)
			b := randomVec(rng, n, -1, 1)
			p := make([]float64, n)
			lower := make([]float64, n)
			tc.edit(m, b, p, lower)
			if tc.name == "NaN bound" && solver == "CG" {
				continue
			}
			var err error
			var res Result
			switch solver {
			case "CG":
				res, err = s.CG(m, b, p, 1e-8, 1000)
			case "MPRGP":
				res, err = s.MPRGPBounded(m, b, lower, p, 1e-8, 1000)
			case "PGS":
				_, _, err = PGS(m, b, lower, p, 1e-8, 1000)
			}
			if !errors.Is(err, ErrNotFinite) {
				t.Errorf("%s, %s: err = %v (%+v)", tc.name, solver, err, res)
			}
			if res.Iterations > 2 {
				t.Errorf("%s, %s: %d steps before noticing", tc.name, solver, res.Iterations)
			}
		}
	}
}

// After a first solve has sized the workspaces, a solve allocates nothing proportional to the grid: less than
// one vector's bytes (what remains is par.For's goroutines and the loop closures, a few small objects a loop).
func TestNoAllocationOnceSized(t *testing.T) {
	m := damBreak(24, 24, 24)
	b := damRHS(m)
	n := m.Len()
	s := Solver{Pool: par.Pool{Workers: 2}}
	p := make([]float64, n)
	if _, err := s.MPRGP(m, b, p, 1e-8, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CG(m, b, p, 1e-8, 0); err != nil {
		t.Fatal(err)
	}
	for _, solver := range []string{"MPRGP", "CG"} {
		clear(p)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var res Result
		if solver == "MPRGP" {
			res, _ = s.MPRGP(m, b, p, 1e-8, 0)
		} else {
			res, _ = s.CG(m, b, p, 1e-8, 0)
		}
		runtime.ReadMemStats(&after)
		if bytes := after.TotalAlloc - before.TotalAlloc; bytes >= uint64(8*n) {
			t.Errorf("%s allocated %d bytes on a warm solver (%d products), a vector is %d", solver, bytes, res.Products, 8*n)
		} else {
			t.Logf("%s: %d bytes in %d products", solver, bytes, res.Products)
		}
	}
}

// Wrong lengths are programmer errors: a panic with the package's prefix.
func TestLengthMismatchPanics(t *testing.T) {
	m := randomMatrix(rand.New(rand.NewPCG(1, 1)), 3, 3, 3, 0, 0)
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("no panic")
		}
	}()
	var s Solver
	_, _ = s.CG(m, make([]float64, 5), make([]float64, 27), 1e-8, 0)
}

// The pipelined MIC(0) passes (pipeline.go) compute every cell as the sequential ones do: the factor and an
// application on a system with holes (air cells, so spans of every length) are bit-identical for any worker
// count, and the pipeline really ran with as many ranges as workers.
func TestPipelinedMICMatchesSequential(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	m := randomMatrix(rng, 40, 36, 30, 0.15, 0)
	n := m.Len()
	r := randomVec(rng, n, -1, 1)
	run := func(workers int) (*Solver, []float64) {
		s := &Solver{Pool: par.Pool{Workers: workers}}
		if _, err := s.prepare(m, r); err != nil {
			t.Fatal(err)
		}
		for c := range s.set {
			s.set[c] = m.Diag[c] > 0 && rng.Float64() < 0.9 || m.Diag[c] > 0 && c%7 == 0 // a free set with holes
		}
		z := make([]float64, n)
		s.factorMIC(m, s.set)
		s.applyMIC(m, r, z)
		return s, z
	}
	ref, want := run(1)
	if len(ref.cuts) != 0 {
		t.Fatalf("one worker planned a pipeline of %d ranges", len(ref.cuts)-1)
	}
	for _, w := range []int{2, 3, 7} {
		rng = rand.New(rand.NewPCG(21, 22)) // the same free set
		_ = randomMatrix(rng, 40, 36, 30, 0.15, 0)
		_ = randomVec(rng, n, -1, 1)
		s, got := run(w)
		if len(s.cuts)-1 != w {
			t.Fatalf("workers %d: the pipeline has %d ranges", w, len(s.cuts)-1)
		}
		for c := range n {
			for name, pair := range map[string][2]float64{"z": {got[c], want[c]}, "precon": {s.f.precon[c], ref.f.precon[c]},
				"lx": {s.f.lx[c], ref.f.lx[c]}, "ly": {s.f.ly[c], ref.f.ly[c]}, "lz": {s.f.lz[c], ref.f.lz[c]}} {
				if math.Float64bits(pair[0]) != math.Float64bits(pair[1]) {
					t.Fatalf("workers %d: %s[%d] = %v, sequentially %v", w, name, c, pair[0], pair[1])
				}
			}
		}
	}
}

// projectedStep keeps t = max(lo, p − α d) only when its cost is within the bound, with g = A t + b exactly as a
// fresh product gives it; a step that overshoots (α far past the minimum along d) raises the cost and leaves p and g
// as they were.
func TestProjectedStepKeepsOnlyADecrease(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	m := randomMatrix(rng, 12, 10, 8, 0.1, 0)
	n := m.Len()
	b := randomVec(rng, n, -1, 0.5)
	var s Solver
	if _, err := s.MPRGP(m, b, make([]float64, n), 1e-3, 3); err != nil { // sizes the workspaces and lo = 0
		t.Fatal(err)
	}
	cost := func(p []float64) float64 {
		w := gradient(m, b, p) // A p + b
		v := 0.0
		for c := range p {
			if m.Diag[c] > 0 {
				v += 0.5 * p[c] * (w[c] + b[c])
			}
		}
		return v
	}
	p := randomVec(rng, n, 0, 1)
	d := randomVec(rng, n, -1, 1)
	for c := range p {
		if !(m.Diag[c] > 0) {
			p[c], d[c] = 0, 0
		}
	}
	g := gradient(m, b, p)
	p0, g0 := slices.Clone(p), slices.Clone(g)
	if s.projectedStep(m, b, p, g, d, 1e6, cost(p)) {
		t.Fatal("a step a million times too long was kept")
	}
	if !slices.Equal(p, p0) || !slices.Equal(g, g0) {
		t.Fatal("a refused step changed p or g")
	}
	// along −g a short step lowers the cost
	for c := range d {
		d[c] = g[c]
	}
	if !s.projectedStep(m, b, p, g, d, 1e-3, cost(p0)) {
		t.Fatal("a short step down the gradient was refused")
	}
	want := gradient(m, b, p)
	for c := range p {
		if m.Diag[c] > 0 && (p[c] != max(0, p0[c]-1e-3*d[c]) || math.Abs(g[c]-want[c]) > 1e-12*(1+math.Abs(want[c]))) {
			t.Fatalf("cell %d: p = %v (want %v), g = %v (want %v)", c, p[c], max(0, p0[c]-1e-3*d[c]), g[c], want[c])
		}
	}
}
