package reduced

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Mode describes one basis field.
type Mode struct {
	// K1, K2 are the wave numbers of a Laplacian eigenfunction (stream function sin(K1πx/W)·sin(K2πy/H)); zero
	// for a drawn mode.
	K1, K2 int
	// Eigenvalue is −((K1π/W)² + (K2π/H)²) for an eigenfunction; for a drawn mode, its diagonal entry of the
	// reduced viscosity matrix Bᵀ L B (eq. 5.6) on the grid.
	Eigenvalue float64
	// Drawn marks a mode added by enrichment (§5.2); Current is then the drawn current it came from.
	Drawn   bool
	Current int
}

// eigenWaveNumbers returns the first n (k1,k2) pairs by |eigenvalue| on a w×h rectangle, ties broken by k1 then
// k2, each wave number at most half the grid's cells on its axis (two cells a half wave). It fails when the grid
// cannot resolve the first n.
func eigenWaveNumbers(n int, g Grid) ([][2]int, error) {
	k1max, k2max := min(n, g.NX/2), min(n, g.NY/2)
	lam := func(k1, k2 int) float64 {
		a, b := float64(k1)*math.Pi/g.W, float64(k2)*math.Pi/g.H
		return a*a + b*b
	}
	ks := make([][2]int, 0, k1max*k2max)
	for k1 := 1; k1 <= k1max; k1++ {
		for k2 := 1; k2 <= k2max; k2++ {
			ks = append(ks, [2]int{k1, k2})
		}
	}
	if len(ks) < n {
		return nil, fmt.Errorf("grid %d×%d resolves only %d eigenfunctions, %d asked", g.NX, g.NY, len(ks), n)
	}
	slices.SortFunc(ks, func(p, q [2]int) int {
		if c := cmp.Compare(lam(p[0], p[1]), lam(q[0], q[1])); c != 0 {
			return c
		}
		if c := cmp.Compare(p[0], q[0]); c != 0 {
			return c
		}
		return cmp.Compare(p[1], q[1])
	})
	ks = ks[:n]
	top := lam(ks[n-1][0], ks[n-1][1])
	// the first modes beyond the grid's reach must not belong among the first n
	if k1max < n && lam(k1max+1, 1) <= top {
		return nil, fmt.Errorf("grid %d×%d is too coarse in x for %d eigenfunctions (wave number %d needs %d cells)",
			g.NX, g.NY, n, k1max+1, 2*(k1max+1))
	}
	if k2max < n && lam(1, k2max+1) <= top {
		return nil, fmt.Errorf("grid %d×%d is too coarse in y for %d eigenfunctions (wave number %d needs %d cells)",
			g.NX, g.NY, n, k2max+1, 2*(k2max+1))
	}
	return ks, nil
}

// sampleEigen writes eigenfunction (k1,k2) onto the faces as the discrete curl of its stream function sampled
// at the grid nodes, u = (ψ(i,j+1) − ψ(i,j))/DY, v = −(ψ(i+1,j) − ψ(i,j))/DX, so its discrete divergence is zero
// to rounding and it vanishes on the wall-normal faces; then scales it to unit grid norm. On the faces this is
// u ∝ b̃·sin(a x)·cos(b y), v ∝ −ã·cos(a x)·sin(b y) with ã = 2 sin(a DX/2)/DX: the discrete sines and cosines are
// orthogonal on the faces for wave numbers below the cell counts, so distinct modes are orthogonal exactly.
func sampleEigen(dst Field, g Grid, k1, k2 int) {
	nx, ny := g.NX, g.NY
	a, b := float64(k1)*math.Pi/g.W, float64(k2)*math.Pi/g.H
	sx := make([]float64, nx+1)
	sy := make([]float64, ny+1)
	for i := range sx {
		sx[i] = math.Sin(a * float64(i) * g.DX)
	}
	for j := range sy {
		sy[j] = math.Sin(b * float64(j) * g.DY)
	}
	sx[nx], sy[ny] = 0, 0 // exactly on the walls
	for j := 0; j < ny; j++ {
		for i := 0; i <= nx; i++ {
			dst.U[j*(nx+1)+i] = sx[i] * (sy[j+1] - sy[j]) / g.DY
		}
	}
	for j := 0; j <= ny; j++ {
		for i := 0; i < nx; i++ {
			dst.V[j*nx+i] = -(sx[i+1] - sx[i]) * sy[j] / g.DX
		}
	}
	s := 1 / g.Norm(dst)
	for k := range dst.U {
		dst.U[k] *= s
	}
	for k := range dst.V {
		dst.V[k] *= s
	}
}

// trig is sin or cos of n·π·x/L on [0, L].
type trig struct {
	sin bool
	n   int
}

// triple is ∫₀ᴸ f1·f2·f3 dx in closed form: each factor is written as exponentials e^{±inπx/L}, and
// ∫₀ᴸ e^{imπx/L} dx is L for m = 0 and L((−1)^m − 1)/(imπ) otherwise. With an even number of sines (all the
// advection integrals) only m = 0 survives, which is what makes the coefficients sparse.
func triple(l float64, f1, f2, f3 trig) float64 {
	var sum complex128
	fs := [3]trig{f1, f2, f3}
	for s := 0; s < 8; s++ {
		coef := complex(1, 0)
		m := 0
		for t, f := range fs {
			sign := 1
			if s>>t&1 == 1 {
				sign = -1
			}
			m += sign * f.n
			if f.sin {
				coef *= complex(0, -0.5*float64(sign)) // e^{iθ}/(2i) and −e^{−iθ}/(2i)
			} else {
				coef *= 0.5
			}
		}
		if m == 0 {
			sum += coef * complex(l, 0)
			continue
		}
		odd := m%2 != 0
		if odd {
			sum += coef * complex(l, 0) * (-2) / complex(0, float64(m)*math.Pi)
		}
	}
	return real(sum)
}

// eigenAdvection is T_kij = ∫ b_k·(b_i·∇)b_j dA over the rectangle for three eigenfunctions, each the curl of
// its stream function ψ = sin(αx)·sin(βy), u = β sin(αx)cos(βy), v = −α cos(αx)sin(βy), scaled to unit L² norm
// (2/√(WH(α²+β²))). Written out, the four products of (u,v)_k, (u,v)_i and the derivatives of (u,v)_j are each a
// product of three sines or cosines in x and three in y, integrated by triple.
func eigenAdvection(w, h float64, k, i, j [2]int) float64 {
	al := func(m [2]int) float64 { return float64(m[0]) * math.Pi / w }
	be := func(m [2]int) float64 { return float64(m[1]) * math.Pi / h }
	norm := func(m [2]int) float64 { a, b := al(m), be(m); return 2 / math.Sqrt(w*h*(a*a+b*b)) }
	ak, bk, ai, bi, aj, bj := al(k), be(k), al(i), be(i), al(j), be(j)
	S := func(n int) trig { return trig{true, n} }
	C := func(n int) trig { return trig{false, n} }
	// u_k·u_i·∂x u_j, with ∂x u = αβ cos·cos
	t1 := bk * bi * aj * bj * triple(w, S(k[0]), S(i[0]), C(j[0])) * triple(h, C(k[1]), C(i[1]), C(j[1]))
	// u_k·v_i·∂y u_j, with ∂y u = −β² sin·sin
	t2 := bk * ai * bj * bj * triple(w, S(k[0]), C(i[0]), S(j[0])) * triple(h, C(k[1]), S(i[1]), S(j[1]))
	// v_k·u_i·∂x v_j, with ∂x v = α² sin·sin
	t3 := -ak * bi * aj * aj * triple(w, C(k[0]), S(i[0]), S(j[0])) * triple(h, S(k[1]), C(i[1]), S(j[1]))
	// v_k·v_i·∂y v_j, with ∂y v = −αβ cos·cos
	t4 := -ak * ai * aj * bj * triple(w, C(k[0]), C(i[0]), C(j[0])) * triple(h, S(k[1]), S(i[1]), C(j[1]))
	return norm(k) * norm(i) * norm(j) * (t1 + t2 + t3 + t4)
}

// eigenCoupled lists the wave numbers k that can couple with i and j: each component of k is the sum or the
// difference of those of i and j (any other product of three sines and cosines with an even number of sines
// integrates to zero).
func eigenCoupled(i, j [2]int) [][2]int {
	out := make([][2]int, 0, 4)
	for _, k1 := range []int{i[0] + j[0], abs(i[0] - j[0])} {
		for _, k2 := range []int{i[1] + j[1], abs(i[1] - j[1])} {
			if k1 > 0 && k2 > 0 && !slices.Contains(out, [2]int{k1, k2}) {
				out = append(out, [2]int{k1, k2})
			}
		}
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
