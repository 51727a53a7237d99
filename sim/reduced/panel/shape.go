package panel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// MaxShapePanels bounds the panels of one shape: its (M+1)×(M+1) matrix is inverted when the shape is made.
const MaxShapePanels = 512

// DefaultEpsilon is the regularising length ε of eq. 5.11 as a fraction of each panel's length.
const DefaultEpsilon = 0.05

// Shape is a closed body outline cut into panels, in body space (counter-clockwise, outward normals), with its
// panel matrix inverted once (§5.3.1). A Shape is immutable and may be shared by any number of bodies and systems.
type Shape struct {
	a, b, t, mid, n []Vec // panel starts, ends, unit tangents, centres, outward normals
	l               []float64
	cp              []Vec   // collocation points, CollocationPoints per panel: panel k's are cp[k*K : (k+1)*K]
	eps             float64 // ε as a fraction of panel length, as the matrix was built
	// solve is the M×(K·M) operator of eqs. 5.13–5.15: strengths γ = solve·r cancel, in the least-squares
	// sense, a relative normal velocity r_p = (u - u_body)·n at the collocation points, with zero total
	// circulation Σ l_k γ_k = 0.
	solve  []float64
	area   float64 // area of the panelled polygon
	radius float64 // largest distance of a panel end from the body origin
}

// NewPolygon cuts a simple polygon (body space, about the body's origin) into panels of about spacing each, an
// odd number per side so that symmetric shapes can cancel rotation (§5.3.1). A clockwise outline is reversed.
// Fewer than 3 vertices, non-finite coordinates, repeated vertices, zero area, crossing sides, or more than
// MaxShapePanels panels are errors.
func NewPolygon(verts []Vec, spacing float64) (*Shape, error) {
	if err := checkSpacing(spacing); err != nil {
		return nil, err
	}
	if len(verts) < 3 {
		return nil, fmt.Errorf("panel: polygon has %d vertices, needs at least 3", len(verts))
	}
	if len(verts) > MaxShapePanels {
		return nil, fmt.Errorf("panel: polygon has %d vertices, more than the %d panels a shape may have", len(verts), MaxShapePanels)
	}
	vs := make([]Vec, len(verts))
	for i, v := range verts {
		if !v.finite() {
			return nil, fmt.Errorf("panel: polygon vertex %d is not finite: (%g, %g)", i, v.X, v.Y)
		}
		vs[i] = v
	}
	area, size := signedArea(vs), 0.0
	for i := range vs {
		size = max(size, math.Abs(vs[i].X), math.Abs(vs[i].Y))
	}
	for i := range vs {
		if vs[(i+1)%len(vs)].sub(vs[i]).norm() <= 1e-12*size {
			return nil, fmt.Errorf("panel: polygon side %d has zero length (vertex %d repeated)", i, i)
		}
	}
	if math.Abs(area) <= 1e-12*size*size {
		return nil, fmt.Errorf("panel: polygon has zero area")
	}
	if area < 0 {
		for i, j := 0, len(vs)-1; i < j; i, j = i+1, j-1 {
			vs[i], vs[j] = vs[j], vs[i]
		}
	}
	if i, j, ok := crossingSides(vs); ok {
		return nil, fmt.Errorf("panel: polygon sides %d and %d cross (the outline must be simple)", i, j)
	}
	var ends []Vec
	for i := range vs {
		p, q := vs[i], vs[(i+1)%len(vs)]
		m := oddCount(q.sub(p).norm() / spacing)
		if len(ends)+m > MaxShapePanels {
			return nil, fmt.Errorf("panel: polygon needs more than %d panels at spacing %g", MaxShapePanels, spacing)
		}
		for k := 0; k < m; k++ {
			ends = append(ends, p.add(q.sub(p).scale(float64(k)/float64(m))))
		}
	}
	return newShape(ends, DefaultEpsilon)
}

// NewCircle makes a circle of the given radius about the body origin as a regular polygon of panels of about
// spacing each (at least 8).
func NewCircle(radius, spacing float64) (*Shape, error) {
	if err := checkSpacing(spacing); err != nil {
		return nil, err
	}
	if !finite(radius) || radius <= 0 {
		return nil, fmt.Errorf("panel: circle radius %g must be positive and finite", radius)
	}
	m := max(8, int(math.Round(2*math.Pi*radius/spacing)))
	if m > MaxShapePanels {
		return nil, fmt.Errorf("panel: circle of radius %g needs %d panels at spacing %g, more than %d", radius, m, spacing, MaxShapePanels)
	}
	ends := make([]Vec, m)
	for k := range ends {
		s, c := math.Sincos(2 * math.Pi * float64(k) / float64(m))
		ends[k] = Vec{radius * c, radius * s}
	}
	return newShape(ends, DefaultEpsilon)
}

func checkSpacing(spacing float64) error {
	if !finite(spacing) || spacing <= 0 {
		return fmt.Errorf("panel: panel spacing %g must be positive and finite", spacing)
	}
	return nil
}

// oddCount is the odd panel count nearest to x (at least 1).
func oddCount(x float64) int {
	if !(x < MaxShapePanels) { // also NaN
		return MaxShapePanels + 1
	}
	n := max(1, int(math.Round(x)))
	if n%2 == 0 {
		if float64(n)-x > 0 { // rounded up: the odd one below is nearer or as near
			n--
		} else {
			n++
		}
	}
	return max(n, 1)
}

func signedArea(vs []Vec) float64 {
	var a float64
	for i := range vs {
		a += vs[i].cross(vs[(i+1)%len(vs)])
	}
	return a / 2
}

// crossingSides reports two non-adjacent sides that intersect (O(n²), shapes have few sides).
func crossingSides(vs []Vec) (int, int, bool) {
	n := len(vs)
	for i := 0; i < n; i++ {
		p1, p2 := vs[i], vs[(i+1)%n]
		for j := i + 1; j < n; j++ {
			if j == i+1 || (i == 0 && j == n-1) {
				continue // adjacent sides share a vertex
			}
			if segmentsIntersect(p1, p2, vs[j], vs[(j+1)%n]) {
				return i, j, true
			}
		}
	}
	return 0, 0, false
}

func segmentsIntersect(p1, p2, q1, q2 Vec) bool {
	d1 := orient(q1, q2, p1)
	d2 := orient(q1, q2, p2)
	d3 := orient(p1, p2, q1)
	d4 := orient(p1, p2, q2)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	return (d1 == 0 && onSegment(q1, q2, p1)) || (d2 == 0 && onSegment(q1, q2, p2)) ||
		(d3 == 0 && onSegment(p1, p2, q1)) || (d4 == 0 && onSegment(p1, p2, q2))
}

func orient(a, b, c Vec) float64 { return b.sub(a).cross(c.sub(a)) }

func onSegment(a, b, p Vec) bool {
	return min(a.X, b.X) <= p.X && p.X <= max(a.X, b.X) && min(a.Y, b.Y) <= p.Y && p.Y <= max(a.Y, b.Y)
}

// rankTol is the relative size below which singular values of the panel matrix count as zero.
const rankTol = 1e-9

// CollocationPoints is the number of collocation points per panel, K: at (q+½)/K along each panel. The paper
// collocates at the centres only (K = 1, "a 1-point quadrature rule. Of course, higher order methods could be
// used"); with constant-strength panels that leaves an alternating pattern of strengths along straight sides
// nearly invisible at the centres but not between them (on a square in a uniform stream the mean normal
// velocity left on the outline is half the stream's speed). Two points per panel solved in the least-squares
// sense cut it by three to four times on polygons, at the price of sampling the ambient fluid twice per panel.
const CollocationPoints = 2

// newShape builds the panels between consecutive ends (counter-clockwise, closed) and the operator that solves
// eqs. 5.12–5.15 once, in body space.
//
// A_pk is the normal velocity at collocation point p per unit strength of panel k (the paper's P is -A). A is
// rank deficient: uniform strength (pure circulation) induces no normal velocity on a closed outline, and a
// square's panels have a second null vector at their centres. The zero-circulation constraint lᵀγ = 0 (eq. 5.15,
// l the panel lengths) is imposed exactly by writing γ = Z y with Z an orthonormal basis of the strengths with
// zero circulation (a Householder reflection of l), and A Z y = -r is solved in the least-squares sense with the
// pseudo-inverse (singular values below rankTol times the largest dropped), so null modes get no strength.
// solve = -Z (A Z)⁺ is stored; at run time strengths are one matrix-vector product.
func newShape(ends []Vec, eps float64) (*Shape, error) {
	m := len(ends)
	const kq = CollocationPoints
	s := &Shape{
		a: make([]Vec, m), b: make([]Vec, m), t: make([]Vec, m), mid: make([]Vec, m), n: make([]Vec, m),
		l: make([]float64, m), cp: make([]Vec, kq*m), eps: eps,
	}
	for k := range ends {
		p, q := ends[k], ends[(k+1)%m]
		d := q.sub(p)
		l := d.norm()
		s.a[k], s.b[k], s.l[k] = p, q, l
		s.t[k] = d.scale(1 / l)
		s.n[k] = Vec{s.t[k].Y, -s.t[k].X} // right of travel: outward for a counter-clockwise outline
		s.mid[k] = p.add(q).scale(0.5)
		s.radius = max(s.radius, p.norm())
		for c := range kq {
			s.cp[k*kq+c] = p.add(d.scale((float64(c) + 0.5) / kq))
		}
	}
	s.area = signedArea(ends)

	a := mat.NewDense(kq*m, m, nil)
	for r, p := range s.cp {
		nr := s.n[r/kq]
		for i := 0; i < m; i++ {
			ux, uy := unitVelocity(p, s.a[i], s.t[i], s.l[i], sq(eps*s.l[i]))
			a.Set(r, i, inv2Pi*(ux*nr.X+uy*nr.Y))
		}
	}
	z := zeroCirculationBasis(s.l)
	var az mat.Dense
	az.Mul(a, z)
	var svd mat.SVD
	if !svd.Factorize(&az, mat.SVDThin) {
		return nil, fmt.Errorf("panel: the SVD of a %d-panel shape's matrix failed", m)
	}
	sv := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	// (A Z)⁺ = V Σ⁺ Uᵀ, truncated
	pinv := mat.NewDense(m-1, kq*m, nil)
	for k, sigma := range sv {
		if sigma <= rankTol*sv[0] {
			break
		}
		for r := 0; r < m-1; r++ {
			vr := v.At(r, k) / sigma
			for c := 0; c < kq*m; c++ {
				pinv.Set(r, c, pinv.At(r, c)+vr*u.At(c, k))
			}
		}
	}
	var op mat.Dense
	op.Mul(z, pinv)
	s.solve = make([]float64, m*kq*m)
	for j := 0; j < m; j++ {
		for i := 0; i < kq*m; i++ {
			x := -op.At(j, i)
			if !finite(x) {
				return nil, fmt.Errorf("panel: the panel operator of a %d-panel shape is not finite", m)
			}
			s.solve[j*kq*m+i] = x
		}
	}
	return s, nil
}

// zeroCirculationBasis is an m×(m-1) matrix whose orthonormal columns span the vectors orthogonal to l: the
// columns 2…m of the Householder reflection H = I - 2wwᵀ/(wᵀw) that maps l/|l| to the first unit vector.
func zeroCirculationBasis(l []float64) *mat.Dense {
	m := len(l)
	var ln float64
	for _, x := range l {
		ln += x * x
	}
	ln = math.Sqrt(ln)
	w := make([]float64, m)
	for i, x := range l {
		w[i] = x / ln
	}
	w[0] -= 1 // lengths are positive, so w[0] = l0/|l| - 1 ≤ 0 and wᵀw > 0 unless m = 1
	var ww float64
	for _, x := range w {
		ww += x * x
	}
	z := mat.NewDense(m, m-1, nil)
	for r := 0; r < m; r++ {
		for c := 1; c < m; c++ {
			h := -2 * w[r] * w[c] / ww
			if r == c {
				h++
			}
			z.Set(r, c-1, h)
		}
	}
	return z
}

func sq(x float64) float64 { return x * x }

// Panels is the number of panels M.
func (s *Shape) Panels() int { return len(s.l) }

// Area is the area of the panelled outline (for a circle, of the inscribed polygon).
func (s *Shape) Area() float64 { return s.area }

// Radius is the largest distance of the outline from the body origin.
func (s *Shape) Radius() float64 { return s.radius }

// Outline appends the panel ends in body space (counter-clockwise; panel k runs from point k to point k+1).
func (s *Shape) Outline(dst []Vec) []Vec { return append(dst, s.a...) }

// Panel returns panel k in body space: its start, end, centre, outward normal and length.
func (s *Shape) Panel(k int) (start, end, centre, normal Vec, length float64) {
	return s.a[k], s.b[k], s.mid[k], s.n[k], s.l[k]
}
