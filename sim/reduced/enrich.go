package reduced

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// MaxStrokePoints bounds one stroke's polyline.
const MaxStrokePoints = 1 << 16

// StrokePoint is a point of a drawn stroke and the velocity painted there.
type StrokePoint struct {
	X, Y   float64
	VX, VY float64
}

// PaintStroke adds a stroke to f: every face within radius of the polyline gets the velocity of the nearest
// point on it (interpolated along its segment), weighted by (1 − (d/radius)²)², d the distance to it. A single
// point paints a round dab. Faces on the walls are painted too; the projection that follows removes the flow
// through them.
func (g Grid) PaintStroke(f Field, pts []StrokePoint, radius float64) error {
	if err := g.Check(f); err != nil {
		return fmt.Errorf("reduced: paint: %w", err)
	}
	if len(pts) == 0 || len(pts) > MaxStrokePoints {
		return fmt.Errorf("reduced: paint: %d stroke points: must be in [1, %d]", len(pts), MaxStrokePoints)
	}
	if !(radius > 0) || math.IsInf(radius, 0) {
		return fmt.Errorf("reduced: paint: radius %g: must be positive and finite", radius)
	}
	reach := 1e6 * math.Max(g.W, g.H) // far beyond the box, yet no overflow in the distances
	for k, p := range pts {
		for _, x := range [4]float64{p.X, p.Y, p.VX, p.VY} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("reduced: paint: stroke point %d is not finite", k)
			}
		}
		if math.Abs(p.X) > reach || math.Abs(p.Y) > reach {
			return fmt.Errorf("reduced: paint: stroke point %d at (%g, %g) is too far from the %g×%g box",
				k, p.X, p.Y, g.W, g.H)
		}
	}
	radius = math.Min(radius, reach)
	// index clamps the fractional face index f into [0, n-1] before converting it
	index := func(f float64, n int) int { return int(math.Max(0, math.Min(float64(n-1), f))) }
	paint := func(out []float64, nx, ny int, x0, y0 float64, vel func(StrokePoint) float64) {
		best := make([]float64, len(out)) // squared distance to the stroke, +Inf where none yet
		val := make([]float64, len(out))
		for k := range best {
			best[k] = math.Inf(1)
		}
		for s := 0; s < max(1, len(pts)-1); s++ {
			a, b := pts[s], pts[min(s+1, len(pts)-1)]
			lx, hx := math.Min(a.X, b.X)-radius, math.Max(a.X, b.X)+radius
			ly, hy := math.Min(a.Y, b.Y)-radius, math.Max(a.Y, b.Y)+radius
			i0, i1 := index(math.Ceil((lx-x0)/g.DX), nx), index(math.Floor((hx-x0)/g.DX), nx)
			j0, j1 := index(math.Ceil((ly-y0)/g.DY), ny), index(math.Floor((hy-y0)/g.DY), ny)
			ex, ey := b.X-a.X, b.Y-a.Y
			l2 := ex*ex + ey*ey
			for j := j0; j <= j1; j++ {
				for i := i0; i <= i1; i++ {
					px, py := x0+float64(i)*g.DX, y0+float64(j)*g.DY
					t := 0.0
					if l2 > 0 {
						t = math.Max(0, math.Min(1, ((px-a.X)*ex+(py-a.Y)*ey)/l2))
					}
					dx, dy := px-(a.X+t*ex), py-(a.Y+t*ey)
					if d2 := dx*dx + dy*dy; d2 < best[j*nx+i] {
						best[j*nx+i] = d2
						val[j*nx+i] = (1-t)*vel(a) + t*vel(b)
					}
				}
			}
		}
		r2 := radius * radius
		for k, d2 := range best {
			if d2 < r2 {
				w := 1 - d2/r2
				out[k] += w * w * val[k]
			}
		}
	}
	paint(f.U, g.NX+1, g.NY, 0, 0.5*g.DY, func(p StrokePoint) float64 { return p.VX })
	paint(f.V, g.NX, g.NY+1, 0.5*g.DX, 0, func(p StrokePoint) float64 { return p.VY })
	return nil
}

// current is a drawn field kept for re-excitation: its projection into the basis, precomputed (§5.2).
type current struct {
	proj     []float64 // ⟨d, b_k⟩ for the modes there were when it was drawn; later modes are orthogonal to d
	residual float64   // the fraction of d the basis before it could not represent
}

// EnrichResult says what Enrich did with each drawn field.
type EnrichResult struct {
	// Currents are the drawn fields' numbers for ExciteCurrent, one per field, in order.
	Currents []int
	// Residuals are the fractions of each (divergence-free, unit) field the basis could not represent
	// before: the norm of its deflated part.
	Residuals []float64
	// Added are the indices of the new modes (none where the basis already held the fields).
	Added []int
}

// Currents is the number of drawn fields kept for ExciteCurrent.
func (m *Model) Currents() int { return len(m.currents) }

// ExciteCurrent adds amount times drawn field c (unit norm, divergence free) to the state through its
// precomputed projection: no projection at run time.
func (m *Model) ExciteCurrent(c int, amount float64) error {
	if c < 0 || c >= len(m.currents) {
		return fmt.Errorf("reduced: excite current %d of %d", c, len(m.currents))
	}
	if math.IsNaN(amount) || math.IsInf(amount, 0) {
		return fmt.Errorf("reduced: excite current %d by %g", c, amount)
	}
	for k, p := range m.currents[c].proj {
		m.r[k] += amount * p
	}
	return nil
}

// Enrich is §5.2's basis enrichment with drawn velocity fields (left unchanged): each is made divergence free
// on the grid (solid walls) and scaled to unit norm, D = [d₁ … d_m]; the left singular vectors U of D with
// non-zero singular values are deflated against the basis, U_d = U − B Bᵀ U (eq. 5.10, done twice for
// rounding); the left singular vectors of U_d whose singular values exceed Params.EnrichTolerance join the
// basis as new orthonormal modes, with their structure coefficients against every mode computed on the grid and
// the reduced viscosity's drawn block. Every field is kept as a current whose projection into the (new) basis
// is precomputed for ExciteCurrent. Fields the basis already represents add no mode. On error the model is
// unchanged.
func (m *Model) Enrich(fields ...Field) (EnrichResult, error) {
	g := m.g
	if len(fields) == 0 {
		return EnrichResult{}, fmt.Errorf("reduced: enrich: no fields")
	}
	if len(fields) > m.p.MaxDrawn+m.p.Modes {
		return EnrichResult{}, fmt.Errorf("reduced: enrich: %d fields at once, at most %d",
			len(fields), m.p.MaxDrawn+m.p.Modes)
	}
	ds := make([]Field, len(fields))
	for s, f := range fields {
		if err := g.Check(f); err != nil {
			return EnrichResult{}, fmt.Errorf("reduced: enrich: field %d: %w", s, err)
		}
		d := Field{U: append([]float64(nil), f.U...), V: append([]float64(nil), f.V...)}
		if !finite(d.U) || !finite(d.V) {
			return EnrichResult{}, fmt.Errorf("reduced: enrich: field %d is not finite", s)
		}
		if err := m.proj.Project(d); err != nil {
			return EnrichResult{}, fmt.Errorf("reduced: enrich: field %d: %w", s, err)
		}
		nrm := g.Norm(d)
		if !(nrm > 0) || nrm <= 1e-12*math.Sqrt(g.Dot(f, f)) {
			return EnrichResult{}, fmt.Errorf("reduced: enrich: field %d has no divergence-free part", s)
		}
		scale(d, 1/nrm)
		ds[s] = d
	}

	// U: the left singular vectors of D, in coordinates where the grid inner product is the dot product
	w := math.Sqrt(g.DX * g.DY)
	u := m.leftSingular(ds, w, 1e-10)
	res := EnrichResult{Residuals: make([]float64, len(ds))}
	for s, d := range ds {
		res.Residuals[s] = g.Norm(m.deflated(d))
	}
	ud := make([]Field, len(u))
	for c := range u {
		ud[c] = m.deflated(m.deflated(u[c]))
	}
	add := m.leftSingular(ud, w, m.p.EnrichTolerance)
	if len(m.modes)+len(add) > m.p.Modes+m.p.MaxDrawn {
		return EnrichResult{}, fmt.Errorf("reduced: enrich: %d new modes would exceed the %d drawn modes allowed",
			len(add), m.p.MaxDrawn)
	}
	// keep what a failure must restore: the lengths of everything the new modes append to
	nOld := len(m.modes)
	cLen := make([]int, nOld)
	for i, cs := range m.c {
		cLen[i] = len(cs)
	}
	rollback := func() {
		m.modes, m.basis, m.r, m.c = m.modes[:nOld], m.basis[:nOld], m.r[:nOld], m.c[:nOld]
		for i := range m.c {
			m.c[i] = m.c[i][:cLen[i]]
		}
	}
	first := len(m.currents)
	for _, b := range add {
		// the new mode remembers the drawn field that holds most of it
		src, top := 0, -1.0
		for s, d := range ds {
			if p := math.Abs(g.Dot(d, b)); p > top {
				src, top = s, p
			}
		}
		k := len(m.modes)
		m.modes = append(m.modes, Mode{Drawn: true, Current: first + src})
		m.basis = append(m.basis, b)
		m.r = append(m.r, 0)
		m.c = append(m.c, nil)
		m.drawnCoefficients(k)
		res.Added = append(res.Added, k)
	}
	if len(add) > 0 {
		if err := m.drawnViscosity(); err != nil {
			rollback()
			_ = m.drawnViscosity() // the old block factorised before
			return EnrichResult{}, err
		}
	}
	for s, d := range ds {
		p := make([]float64, len(m.modes))
		_ = m.Project(p, d) // shapes checked above
		m.currents = append(m.currents, current{proj: p, residual: res.Residuals[s]})
		res.Currents = append(res.Currents, first+s)
	}
	return res, nil
}

// deflated returns f − B Bᵀ f.
func (m *Model) deflated(f Field) Field {
	p := make([]float64, len(m.modes))
	_ = m.Project(p, f)
	out := m.g.NewField()
	m.combine(out, p)
	for k := range out.U {
		out.U[k] = f.U[k] - out.U[k]
	}
	for k := range out.V {
		out.V[k] = f.V[k] - out.V[k]
	}
	return out
}

// leftSingular returns the left singular vectors of [f₁ … f_m] (each weighted by w, so that the grid inner
// product is the dot product) whose singular values exceed tol, as fields of unit grid norm.
func (m *Model) leftSingular(fs []Field, w, tol float64) []Field {
	g := m.g
	nu, nv := g.NU(), g.NV()
	a := mat.NewDense(nu+nv, len(fs), nil)
	for c, f := range fs {
		for k, x := range f.U {
			a.Set(k, c, w*x)
		}
		for k, x := range f.V {
			a.Set(nu+k, c, w*x)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(a, mat.SVDThin) {
		return nil
	}
	sv := svd.Values(nil)
	var uu mat.Dense
	svd.UTo(&uu)
	var out []Field
	for c, s := range sv {
		if !(s > tol) {
			continue
		}
		f := g.NewField()
		for k := range f.U {
			f.U[k] = uu.At(k, c) / w
		}
		for k := range f.V {
			f.V[k] = uu.At(nu+k, c) / w
		}
		scale(f, 1/g.Norm(f))
		out = append(out, f)
	}
	return out
}

// drawnCoefficients fills the structure coefficients that involve the new mode d (the last) on the grid,
// N_kij = ⟨b_k, (b_i·∇)b_j⟩ with Grid.Advection: for every i the fields (b_i·∇)b_d and (b_d·∇)b_i, each
// projected onto every mode. Advection is skew (N_kij = −N_jik for divergence-free b_i with no flow through the
// walls), which fixes the rest: C_i's row and column d for i ≠ d from the first set, and C_d, made exactly skew,
// from the second.
func (m *Model) drawnCoefficients(d int) {
	g := m.g
	n := len(m.modes)
	n1 := make([]float64, n*n) // n1[i·n+k] = N_k,i,d
	n2 := make([]float64, n*n) // n2[j·n+k] = N_k,d,j
	m.pool.For(2*n, 1, func(lo, hi int) {
		tmp := g.NewField()
		for t := lo; t < hi; t++ {
			out := n1
			i := t
			if t < n {
				g.Advection(tmp, m.basis[i], m.basis[d])
			} else {
				i = t - n
				out = n2
				g.Advection(tmp, m.basis[d], m.basis[i])
			}
			for k := 0; k < n; k++ {
				out[i*n+k] = g.Dot(m.basis[k], tmp)
			}
		}
	})
	for i := 0; i < n; i++ {
		if i == d {
			continue
		}
		for k := 0; k < n; k++ {
			if k == d {
				continue
			}
			v := n1[i*n+k] // C_i[k][d] = −N_kid, C_i[d][k] = +N_kid
			m.c[i] = append(m.c[i], coef{k: int32(k), j: int32(d), v: -v}, coef{k: int32(d), j: int32(k), v: v})
		}
	}
	cs := make([]coef, 0, n*n)
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			if k == j {
				continue
			}
			cs = append(cs, coef{k: int32(k), j: int32(j), v: -0.5 * (n2[j*n+k] - n2[k*n+j])})
		}
	}
	m.c[d] = cs
}

// drawnViscosity builds the drawn modes' block of the reduced viscosity matrix, Bᵀ L B with Grid.Laplacian, and
// its eigendecomposition for Diffuse. The eigenfunctions are eigenvectors of L on the grid, so ⟨b_e, L b_d⟩ =
// λ̃_e ⟨b_e, b_d⟩ = 0: the blocks do not couple.
func (m *Model) drawnViscosity() error {
	ne := m.p.Modes
	nd := len(m.modes) - ne
	if nd == 0 {
		m.drawnQ, m.drawnLam = nil, nil
		return nil
	}
	lb := make([]Field, nd)
	m.pool.For(nd, 1, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			lb[a] = m.g.NewField()
			m.g.Laplacian(lb[a], m.basis[ne+a])
		}
	})
	sym := mat.NewSymDense(nd, nil)
	for a := 0; a < nd; a++ {
		for b := a; b < nd; b++ {
			v := 0.5 * (m.g.Dot(m.basis[ne+a], lb[b]) + m.g.Dot(m.basis[ne+b], lb[a]))
			sym.SetSym(a, b, v)
		}
		m.modes[ne+a].Eigenvalue = sym.At(a, a)
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return fmt.Errorf("reduced: enrich: the drawn modes' viscosity block did not factorise")
	}
	m.drawnLam = eig.Values(nil)
	var q mat.Dense
	eig.VectorsTo(&q)
	m.drawnQ = make([]float64, nd*nd)
	for a := 0; a < nd; a++ {
		for b := 0; b < nd; b++ {
			m.drawnQ[a*nd+b] = q.At(a, b)
		}
	}
	return nil
}

func finite(a []float64) bool {
	for _, x := range a {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func scale(f Field, s float64) {
	for k := range f.U {
		f.U[k] *= s
	}
	for k := range f.V {
		f.V[k] *= s
	}
}
