package reduced

import (
	"errors"
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/par"
)

// Budgets New checks before it allocates anything.
const (
	// MaxGridSide is the most cells on either side of the background grid.
	MaxGridSide = 1024
	// MaxModes is the most basis fields, eigenfunctions and drawn modes together.
	MaxModes = 1024
	// MaxBasisFloats bounds the sampled basis, (Modes+MaxDrawn) × faces (2^25 floats, 256 MiB).
	MaxBasisFloats = 1 << 25
	// MaxCouplingFloats bounds the drawn modes' dense advection coefficients, about 3·MaxDrawn·(Modes+MaxDrawn)².
	MaxCouplingFloats = 1 << 24
)

// Taylor series of the advection step: terms are summed until the last is below taylorTol of the sum, on
// sub-steps short enough that Δt·‖A‖ ≤ taylorReach; a step that would need more than maxSubsteps fails.
const (
	taylorTol   = 1e-15
	taylorReach = 0.5
	maxTaylor   = 40
	maxSubsteps = 4096
)

// Params configures a Model. Start from DefaultParams.
type Params struct {
	Width, Height float64 // the rectangle, lower-left corner at the origin
	NX, NY        int     // background grid cells
	Modes         int     // Laplacian eigenfunctions, the first by |eigenvalue|
	MaxDrawn      int     // drawn modes the basis may gain (§5.2)
	Viscosity     float64 // ν
	// KeepEnergy rescales r after each advection step to the energy it had before, as De Witt et al. do with
	// zero viscosity; advection conserves energy exactly, so this only removes the truncation error of the
	// Taylor series and of the grid-computed coefficients of drawn modes. The chapter does not mention it.
	KeepEnergy bool
	// EnrichTolerance: a drawn field joins the basis only where the part of it the basis cannot represent has
	// a singular value above this fraction of the field (eq. 5.10's "non-zero").
	EnrichTolerance float64
	// Workers bounds the goroutines (0: GOMAXPROCS).
	Workers int
}

// DefaultParams is the game of Figure 5.6: 73 eigenfunctions on a 65×65 grid over the unit square.
func DefaultParams() Params {
	return Params{Width: 1, Height: 1, NX: 65, NY: 65, Modes: 73, MaxDrawn: 16, Viscosity: 0,
		KeepEnergy: true, EnrichTolerance: 0.05}
}

// Validate checks p against the budgets without allocating.
func (p Params) Validate() error {
	g, err := NewGrid(p.Width, p.Height, p.NX, p.NY)
	if err != nil {
		return err
	}
	if p.Modes < 1 || p.Modes > MaxModes {
		return fmt.Errorf("reduced: %d modes: must be in [1, %d]", p.Modes, MaxModes)
	}
	if p.MaxDrawn < 0 || p.MaxDrawn > MaxModes-p.Modes {
		return fmt.Errorf("reduced: %d drawn modes: must be in [0, %d] with %d eigenfunctions",
			p.MaxDrawn, MaxModes-p.Modes, p.Modes)
	}
	n := p.Modes + p.MaxDrawn
	if faces := g.NU() + g.NV(); n*faces > MaxBasisFloats {
		return fmt.Errorf("reduced: %d modes on %d faces is %d values, over the budget of %d",
			n, faces, n*faces, MaxBasisFloats)
	}
	if c := 3 * p.MaxDrawn * n * n; c > MaxCouplingFloats {
		return fmt.Errorf("reduced: %d drawn modes with %d in all need %d coupling values, over the budget of %d",
			p.MaxDrawn, n, c, MaxCouplingFloats)
	}
	if !(p.Viscosity >= 0) || math.IsInf(p.Viscosity, 0) {
		return fmt.Errorf("reduced: viscosity %g: must be finite and not negative", p.Viscosity)
	}
	if !(p.EnrichTolerance > 0 && p.EnrichTolerance < 1) {
		return fmt.Errorf("reduced: enrichment tolerance %g: must be in (0, 1)", p.EnrichTolerance)
	}
	if p.Workers < 0 {
		return fmt.Errorf("reduced: %d workers: must not be negative", p.Workers)
	}
	return nil
}

// coef is one non-zero of a structure coefficient matrix C_i: entry (k, j).
type coef struct {
	k, j int32
	v    float64
}

// Model is the reduced fluid: a basis B of divergence-free fields on a Grid (eigenfunctions, then drawn modes),
// the state r (the velocity is B r), the structure coefficients of advection and the reduced viscosity.
// A Model is not safe for concurrent use.
type Model struct {
	p    Params
	g    Grid
	pool par.Pool
	proj *Projector

	modes []Mode
	basis []Field
	r     []float64

	// c[i] holds the non-zeros of C_i, A(r) = Σ_i r_i C_i with (C_i)_kj = −∫ b_k·(b_i·∇)b_j (eqs. 5.7–5.8)
	c [][]coef

	// the drawn modes' block of the reduced viscosity matrix, Q diag(λ) Qᵀ (the eigenfunctions' block is
	// diagonal and the blocks do not couple, see enrich.go)
	drawnQ   []float64
	drawnLam []float64

	currents []current

	// scratch for a step, sized for the full budget
	a, sum, term, next []float64
}

// New builds the eigenfunction basis on the grid and its structure coefficients in closed form.
func New(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	g, _ := NewGrid(p.Width, p.Height, p.NX, p.NY)
	ks, err := eigenWaveNumbers(p.Modes, g)
	if err != nil {
		return nil, fmt.Errorf("reduced: %w", err)
	}
	m := &Model{p: p, g: g, pool: par.Pool{Workers: p.Workers}}
	if m.proj, err = NewProjector(g, m.pool); err != nil {
		return nil, fmt.Errorf("reduced: %w", err)
	}
	n := p.Modes
	nmax := n + p.MaxDrawn
	m.modes = make([]Mode, n, nmax)
	m.basis = make([]Field, n, nmax)
	for k, w := range ks {
		a, b := float64(w[0])*math.Pi/g.W, float64(w[1])*math.Pi/g.H
		m.modes[k] = Mode{K1: w[0], K2: w[1], Eigenvalue: -(a*a + b*b), Current: -1}
	}
	m.pool.For(n, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			m.basis[k] = g.NewField()
			sampleEigen(m.basis[k], g, ks[k][0], ks[k][1])
		}
	})
	m.c = make([][]coef, n, nmax)
	m.eigenCoefficients(ks)
	m.r = make([]float64, n, nmax)
	m.a = make([]float64, nmax*nmax)
	m.sum = make([]float64, nmax)
	m.term = make([]float64, nmax)
	m.next = make([]float64, nmax)
	return m, nil
}

// eigenCoefficients fills C_i for the eigenfunctions: for each i and j only the k whose wave numbers are sums
// or differences of theirs (eigenCoupled) can be non-zero.
func (m *Model) eigenCoefficients(ks [][2]int) {
	index := make(map[[2]int]int32, len(ks))
	for k, w := range ks {
		index[w] = int32(k)
	}
	m.pool.For(len(ks), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var cs []coef
			for j := range ks {
				for _, w := range eigenCoupled(ks[i], ks[j]) {
					k, ok := index[w]
					if !ok {
						continue
					}
					if t := eigenAdvection(m.g.W, m.g.H, w, ks[i], ks[j]); t != 0 {
						cs = append(cs, coef{k: k, j: int32(j), v: -t})
					}
				}
			}
			m.c[i] = cs
		}
	})
	// the closed form leaves rounding-sized values where terms cancel exactly: drop them
	var top float64
	for _, cs := range m.c {
		for _, e := range cs {
			top = max(top, math.Abs(e.v))
		}
	}
	for i, cs := range m.c {
		kept := cs[:0]
		for _, e := range cs {
			if math.Abs(e.v) > 1e-12*top {
				kept = append(kept, e)
			}
		}
		m.c[i] = kept
	}
}

// Grid is the background grid.
func (m *Model) Grid() Grid { return m.g }

// Params are the parameters the model was built with.
func (m *Model) Params() Params { return m.p }

// Modes is the number of basis fields, eigenfunctions first, then drawn modes in the order they were added.
func (m *Model) Modes() int { return len(m.modes) }

// Mode describes basis field k.
func (m *Model) Mode(k int) Mode { return m.modes[k] }

// Basis is basis field k on the grid's faces. The slices are the model's own: do not write to them.
func (m *Model) Basis(k int) Field { return m.basis[k] }

// NonZeros is the number of stored structure coefficients (all C_i together).
func (m *Model) NonZeros() int {
	n := 0
	for _, cs := range m.c {
		n += len(cs)
	}
	return n
}

// Coefficients returns a copy of the state r.
func (m *Model) Coefficients() []float64 { return append([]float64(nil), m.r...) }

// SetCoefficients replaces the state; r must have Modes() finite values.
func (m *Model) SetCoefficients(r []float64) error {
	if len(r) != len(m.r) {
		return fmt.Errorf("reduced: %d coefficients for %d modes", len(r), len(m.r))
	}
	for k, x := range r {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("reduced: coefficient %d is %g", k, x)
		}
	}
	copy(m.r, r)
	return nil
}

// Energy is the kinetic energy ½∫|u|² dA = ½|r|² (unit density; the basis is orthonormal).
func (m *Model) Energy() float64 { return 0.5 * dot(m.r, m.r) }

// Excite adds amount of mode k to the state. For an eigenfunction that is r_k += amount; for a drawn mode it is
// amount times the drawn field it came from (unit norm), through that field's projection into the basis,
// precomputed when it was drawn (§5.2): the field comes back as drawn, not as its orthonormalised remainder.
func (m *Model) Excite(k int, amount float64) error {
	if k < 0 || k >= len(m.modes) {
		return fmt.Errorf("reduced: excite mode %d of %d", k, len(m.modes))
	}
	if math.IsNaN(amount) || math.IsInf(amount, 0) {
		return fmt.Errorf("reduced: excite mode %d by %g", k, amount)
	}
	if !m.modes[k].Drawn {
		m.r[k] += amount
		return nil
	}
	return m.ExciteCurrent(m.modes[k].Current, amount)
}

// Step advances the state by dt: advection, then viscosity (eq. 5.9, split as Table 5.1 times them).
func (m *Model) Step(dt float64) error {
	if err := m.Advect(dt); err != nil {
		return err
	}
	return m.Diffuse(dt)
}

// Advect is r ← exp(Δt A(r)) r with A(r) = Σ_i r_i C_i (eq. 5.8), the exponential applied to r by its Taylor
// series (Wicke et al.'s iterative Taylor approximation), on sub-steps short enough that it converges fast.
// A(r) is skew-symmetric, so the step conserves |r| up to the series' truncation.
func (m *Model) Advect(dt float64) error {
	if !(dt >= 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("reduced: advect by dt %g", dt)
	}
	n := len(m.r)
	a := m.a[:n*n]
	clear(a)
	for i, cs := range m.c {
		ri := m.r[i]
		if ri == 0 {
			continue
		}
		for _, e := range cs {
			a[int(e.k)*n+int(e.j)] += ri * e.v
		}
	}
	var norm float64 // ‖A‖∞
	for k := 0; k < n; k++ {
		var s float64
		for _, x := range a[k*n : (k+1)*n] {
			s += math.Abs(x)
		}
		norm = max(norm, s)
	}
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return errors.New("reduced: advect: the state is not finite")
	}
	if dt*norm/taylorReach > maxSubsteps {
		return fmt.Errorf("reduced: advect: dt %g × ‖A‖ %g needs more than %d sub-steps", dt, norm, maxSubsteps)
	}
	steps := max(1, int(math.Ceil(dt*norm/taylorReach)))
	e0 := dot(m.r, m.r)
	h := dt / float64(steps)
	sum, term, next := m.sum[:n], m.term[:n], m.next[:n]
	for range steps {
		copy(sum, m.r)
		copy(term, m.r)
		for t := 1; t <= maxTaylor; t++ {
			s := h / float64(t)
			var big, tot float64
			for k := 0; k < n; k++ {
				x := s * dot(a[k*n:(k+1)*n], term)
				next[k] = x
				big = max(big, math.Abs(x))
			}
			for k := range sum {
				sum[k] += next[k]
				tot = max(tot, math.Abs(sum[k]))
			}
			term, next = next, term
			if big <= taylorTol*tot {
				break
			}
		}
		copy(m.r, sum)
	}
	if m.p.KeepEnergy && e0 > 0 {
		if e1 := dot(m.r, m.r); e1 > 0 {
			s := math.Sqrt(e0 / e1)
			for k := range m.r {
				m.r[k] *= s
			}
		}
	}
	return nil
}

// SetViscosity changes ν for the steps from now on.
func (m *Model) SetViscosity(nu float64) error {
	if !(nu >= 0) || math.IsInf(nu, 0) {
		return fmt.Errorf("reduced: viscosity %g: must be finite and not negative", nu)
	}
	m.p.Viscosity = nu
	return nil
}

// Diffuse is r ← exp(νΔt D) r with the reduced viscosity D = Bᵀ L B (eq. 5.6): the eigenfunctions' block is
// diag(eigenvalues), the drawn modes' block Q diag(λ) Qᵀ.
func (m *Model) Diffuse(dt float64) error {
	if !(dt >= 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("reduced: diffuse by dt %g", dt)
	}
	nu := m.p.Viscosity
	if nu == 0 {
		return nil
	}
	ne := m.p.Modes
	for k := 0; k < ne; k++ {
		m.r[k] *= math.Exp(nu * dt * m.modes[k].Eigenvalue)
	}
	nd := len(m.r) - ne
	if nd == 0 {
		return nil
	}
	rd := m.r[ne:]
	t := m.sum[:nd]
	q := m.drawnQ
	for a := 0; a < nd; a++ { // t = diag(e^{νΔtλ}) Qᵀ r_d
		var s float64
		for b := 0; b < nd; b++ {
			s += q[b*nd+a] * rd[b]
		}
		t[a] = s * math.Exp(nu*dt*m.drawnLam[a])
	}
	for b := 0; b < nd; b++ {
		rd[b] = dot(q[b*nd:(b+1)*nd], t)
	}
	return nil
}

// Project writes the projection of a face field into the basis, dst_k = ⟨f, b_k⟩ (eq. 5.3), into dst
// (length Modes()).
func (m *Model) Project(dst []float64, f Field) error {
	if err := m.g.Check(f); err != nil {
		return fmt.Errorf("reduced: project: %w", err)
	}
	if len(dst) != len(m.modes) {
		return fmt.Errorf("reduced: project: %d coefficients for %d modes", len(dst), len(m.modes))
	}
	m.pool.For(len(dst), 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = m.g.Dot(f, m.basis[k])
		}
	})
	return nil
}

// AddField adds scale times the projection of f to the state (eqs. 5.4–5.5): external forces, or the panels'
// feedback velocities.
func (m *Model) AddField(f Field, scale float64) error {
	if math.IsNaN(scale) || math.IsInf(scale, 0) {
		return fmt.Errorf("reduced: add field scaled by %g", scale)
	}
	p := m.next[:len(m.r)]
	if err := m.Project(p, f); err != nil {
		return err
	}
	for k := range m.r {
		m.r[k] += scale * p[k]
	}
	return nil
}

// DivergenceFree makes f divergence free in place with solid walls (see Projector): what a drawn field becomes
// before it joins the basis, for showing it.
func (m *Model) DivergenceFree(f Field) error { return m.proj.Project(f) }

// Velocity writes the velocity B r on the faces into dst (dst must have the grid's shape). Sample it with
// Grid.Sample for tracers and dye.
func (m *Model) Velocity(dst Field) error {
	if err := m.g.Check(dst); err != nil {
		return fmt.Errorf("reduced: velocity: %w", err)
	}
	m.combine(dst, m.r)
	return nil
}

// combine writes Σ_k c_k b_k into dst, in chunks of faces so each chunk stays in cache over all modes.
func (m *Model) combine(dst Field, c []float64) {
	nu := len(dst.U)
	m.pool.For(nu+len(dst.V), 1024, func(lo, hi int) {
		for _, part := range [2][2]int{{lo, min(hi, nu)}, {max(lo, nu), hi}} {
			a, b := part[0], part[1]
			if a >= b {
				continue
			}
			out, off := dst.U, 0
			if a >= nu {
				out, off = dst.V, nu
			}
			d := out[a-off : b-off]
			clear(d)
			for k, ck := range c {
				if ck == 0 {
					continue
				}
				src := m.basis[k].U
				if off != 0 {
					src = m.basis[k].V
				}
				axpy(d, ck, src[a-off:b-off])
			}
		}
	})
}
