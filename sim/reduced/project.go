package reduced

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/par"
)

// Projector makes face fields divergence free on a Grid with solid walls: it solves the pressure Poisson
// equation L p = ∇·u (the 5-point Laplacian on cells, zero normal gradient at the walls) exactly, by the
// discrete cosine transform that diagonalises L, and subtracts ∇p from the interior faces. Wall-normal faces are
// zeroed first, so the result has no flow through the walls and a discrete divergence of zero to rounding.
//
// A Projector keeps scratch buffers: it is not safe for concurrent use.
type Projector struct {
	g      Grid
	pool   par.Pool
	cx, cy []float64 // orthonormal DCT-II matrices, row p holds w_p·cos(pπ(i+½)/n)
	lambda []float64 // eigenvalues of L, index q·NX+p
	a, b   []float64 // NX·NY scratch
}

// NewProjector prepares the transforms for g.
func NewProjector(g Grid, pool par.Pool) (*Projector, error) {
	if _, err := NewGrid(g.W, g.H, g.NX, g.NY); err != nil {
		return nil, fmt.Errorf("projector: %w", err)
	}
	nx, ny := g.NX, g.NY
	p := &Projector{g: g, pool: pool, cx: dct(nx), cy: dct(ny), lambda: make([]float64, nx*ny),
		a: make([]float64, nx*ny), b: make([]float64, nx*ny)}
	for q := 0; q < ny; q++ {
		sy := math.Sin(float64(q) * math.Pi / float64(2*ny))
		ly := 4 * sy * sy / (g.DY * g.DY)
		for k := 0; k < nx; k++ {
			sx := math.Sin(float64(k) * math.Pi / float64(2*nx))
			p.lambda[q*nx+k] = -(4*sx*sx/(g.DX*g.DX) + ly)
		}
	}
	return p, nil
}

// dct is the orthonormal n×n DCT-II matrix.
func dct(n int) []float64 {
	c := make([]float64, n*n)
	for p := 0; p < n; p++ {
		w := math.Sqrt(2 / float64(n))
		if p == 0 {
			w = math.Sqrt(1 / float64(n))
		}
		for i := 0; i < n; i++ {
			c[p*n+i] = w * math.Cos(float64(p)*math.Pi*(float64(i)+0.5)/float64(n))
		}
	}
	return c
}

// Project makes f divergence free in place (see Projector).
func (p *Projector) Project(f Field) error {
	g := p.g
	if err := g.Check(f); err != nil {
		return fmt.Errorf("project: %w", err)
	}
	nx, ny := g.NX, g.NY
	g.ZeroWalls(f)
	g.Divergence(p.a, f)
	// forward: â = Cy · a · Cxᵀ, divide by the eigenvalues, back: a = Cyᵀ · â · Cx
	p.rows(p.b, p.a, p.cx, false)
	p.cols(p.a, p.b, p.cy, false)
	for k := range p.a {
		if p.lambda[k] != 0 {
			p.a[k] /= p.lambda[k]
		} else {
			p.a[k] = 0 // the constant: pressure is defined up to it
		}
	}
	p.cols(p.b, p.a, p.cy, true)
	p.rows(p.a, p.b, p.cx, true)
	pr := p.a
	for j := 0; j < ny; j++ {
		for i := 1; i < nx; i++ {
			f.U[j*(nx+1)+i] -= (pr[j*nx+i] - pr[j*nx+i-1]) / g.DX
		}
	}
	for j := 1; j < ny; j++ {
		for i := 0; i < nx; i++ {
			f.V[j*nx+i] -= (pr[j*nx+i] - pr[(j-1)*nx+i]) / g.DY
		}
	}
	return nil
}

// rows transforms each row of src (NY rows of NX): dst[j][p] = Σ_i src[j][i]·c[p][i], or with the transpose
// when inverse is set.
func (p *Projector) rows(dst, src, c []float64, inverse bool) {
	nx, ny := p.g.NX, p.g.NY
	p.pool.For(ny, 8, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			s := src[j*nx : (j+1)*nx]
			d := dst[j*nx : (j+1)*nx]
			if !inverse {
				for k := 0; k < nx; k++ {
					d[k] = dot(c[k*nx:(k+1)*nx], s)
				}
				continue
			}
			clear(d)
			for k := 0; k < nx; k++ {
				axpy(d, s[k], c[k*nx:(k+1)*nx])
			}
		}
	})
}

// cols transforms each column of src: dst[q][·] = Σ_j c[q][j]·src[j][·], or with the transpose when inverse
// is set.
func (p *Projector) cols(dst, src, c []float64, inverse bool) {
	nx, ny := p.g.NX, p.g.NY
	p.pool.For(ny, 8, func(lo, hi int) {
		for q := lo; q < hi; q++ {
			d := dst[q*nx : (q+1)*nx]
			clear(d)
			for j := 0; j < ny; j++ {
				w := c[q*ny+j]
				if inverse {
					w = c[j*ny+q]
				}
				axpy(d, w, src[j*nx:(j+1)*nx])
			}
		}
	})
}

// axpy is dst += a·x.
func axpy(dst []float64, a float64, x []float64) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += a * x[i]
	}
}
