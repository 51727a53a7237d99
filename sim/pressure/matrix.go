package pressure

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/par"
)

// Matrix is a symmetric 7-point matrix on an Nx×Ny×Nz grid of cells, cell index i + Nx*(j + Ny*k).
// A cell is in the system iff Diag[c] > 0; every other cell is out (its unknown is fixed at 0 and its
// couplings are ignored). X[c] is the coupling A(c, c+1) (to the +x neighbour), Y[c] = A(c, c+Nx),
// Z[c] = A(c, c+Nx*Ny); couplings are ≤ 0 in practice (a weighted Laplacian). Couplings to cells out of
// the system or past the grid's edge are ignored by every operation.
type Matrix struct {
	Nx, Ny, Nz    int
	Diag, X, Y, Z []float64
	// Low-rank terms, for rigid bodies coupled into the solve: the full matrix is
	// A + Σ_k U_k W_k U_kᵀ, U_k sparse (rows Cells[i], row values Rows[i]), W_k symmetric PSD 6×6.
	Bodies []LowRank
}

// LowRank is one term U W Uᵀ of a Matrix: U has the row Rows[i] at the cell Cells[i] and is zero elsewhere.
// A cell should appear at most once in Cells (repeats are summed by the products, but then the Gershgorin cap on
// ‖A‖ that MPRGP uses no longer bounds the term). Cells out of the system or off the grid are ignored.
type LowRank struct {
	Cells []int32
	Rows  [][6]float64
	W     [6][6]float64
}

// Len is the number of cells, Nx·Ny·Nz.
func (m *Matrix) Len() int { return m.Nx * m.Ny * m.Nz }

// In reports whether cell c is in the system.
func (m *Matrix) In(c int) bool { return m.Diag[c] > 0 }

// Resize sizes the slices to nx·ny·nz cells (reusing their capacity) and zeroes them; Bodies becomes empty (its
// backing array is kept).
func (m *Matrix) Resize(nx, ny, nz int) {
	if nx < 0 || ny < 0 || nz < 0 {
		panic(fmt.Sprintf("pressure: Resize(%d, %d, %d): negative size", nx, ny, nz))
	}
	m.Nx, m.Ny, m.Nz = nx, ny, nz
	n := nx * ny * nz
	m.Diag = zeroed(m.Diag, n)
	m.X = zeroed(m.X, n)
	m.Y = zeroed(m.Y, n)
	m.Z = zeroed(m.Z, n)
	m.Bodies = m.Bodies[:0]
}

// zeroed returns s resized to n (growing it when its capacity is short) with every element 0.
func zeroed(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// grown returns s resized to n, growing it when its capacity is short; the contents are unspecified.
func grown(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// check panics when the matrix's slices do not match its sizes, or a vector has the wrong length: both are
// programmer errors.
func (m *Matrix) check(vecs ...[]float64) {
	n := m.Len()
	if m.Nx < 0 || m.Ny < 0 || m.Nz < 0 || len(m.Diag) != n || len(m.X) != n || len(m.Y) != n || len(m.Z) != n {
		panic(fmt.Sprintf("pressure: matrix %d×%d×%d with slices of %d, %d, %d, %d", m.Nx, m.Ny, m.Nz,
			len(m.Diag), len(m.X), len(m.Y), len(m.Z)))
	}
	for _, v := range vecs {
		if v != nil && len(v) != n {
			panic(fmt.Sprintf("pressure: vector of %d for a matrix of %d cells", len(v), n))
		}
	}
}

// lineGrain is the number of x-lines a worker takes at least, so that a chunk has about 2048 cells.
func (m *Matrix) lineGrain() int { return max(1, 2048/max(1, m.Nx)) }

// Mul sets y = A x, the full matrix including the low-rank terms, with y = 0 on cells out of the system. x is
// read only on cells in the system. The 7-point part runs on the pool, line by line (each y[c] is computed the
// same way whatever the split, so the result does not depend on the worker count); the low-rank terms follow
// on the calling goroutine.
func (m *Matrix) Mul(pool par.Pool, x, y []float64) {
	m.check(x, y)
	m.mul(pool, x, y)
}

func (m *Matrix) mul(pool par.Pool, x, y []float64) {
	pool.For(m.Ny*m.Nz, m.lineGrain(), func(lo, hi int) {
		m.mulLines(x, y, lo, hi)
	})
	m.mulBodies(x, y)
}

// mulLines computes the 7-point product on the x-lines [lo, hi) (line l = j + Ny*k).
func (m *Matrix) mulLines(x, y []float64, lo, hi int) {
	nx, ny, nz := m.Nx, m.Ny, m.Nz
	sxy := nx * ny
	d, cx, cy, cz := m.Diag, m.X, m.Y, m.Z
	for l := lo; l < hi; l++ {
		j, k := l%ny, l/ny
		base := l * nx
		for i := range nx {
			c := base + i
			dc := d[c]
			if !(dc > 0) {
				y[c] = 0
				continue
			}
			v := dc * x[c]
			if i > 0 && d[c-1] > 0 {
				v += cx[c-1] * x[c-1]
			}
			if i < nx-1 && d[c+1] > 0 {
				v += cx[c] * x[c+1]
			}
			if j > 0 && d[c-nx] > 0 {
				v += cy[c-nx] * x[c-nx]
			}
			if j < ny-1 && d[c+nx] > 0 {
				v += cy[c] * x[c+nx]
			}
			if k > 0 && d[c-sxy] > 0 {
				v += cz[c-sxy] * x[c-sxy]
			}
			if k < nz-1 && d[c+sxy] > 0 {
				v += cz[c] * x[c+sxy]
			}
			y[c] = v
		}
	}
}

// mulSpan computes the 7-point product on the cells [lo, hi) of one x-line, all of them in the system.
func (m *Matrix) mulSpan(x, y []float64, lo, hi int) {
	nx, ny, nz := m.Nx, m.Ny, m.Nz
	sxy := nx * ny
	d, cx, cy, cz := m.Diag, m.X, m.Y, m.Z
	l := lo / nx
	j, k := l%ny, l/ny
	i0 := lo - l*nx
	hasYm, hasYp, hasZm, hasZp := j > 0, j < ny-1, k > 0, k < nz-1
	for c := lo; c < hi; c++ {
		i := i0 + c - lo
		v := d[c] * x[c]
		if i > 0 && d[c-1] > 0 {
			v += cx[c-1] * x[c-1]
		}
		if i < nx-1 && d[c+1] > 0 {
			v += cx[c] * x[c+1]
		}
		if hasYm && d[c-nx] > 0 {
			v += cy[c-nx] * x[c-nx]
		}
		if hasYp && d[c+nx] > 0 {
			v += cy[c] * x[c+nx]
		}
		if hasZm && d[c-sxy] > 0 {
			v += cz[c-sxy] * x[c-sxy]
		}
		if hasZp && d[c+sxy] > 0 {
			v += cz[c] * x[c+sxy]
		}
		y[c] = v
	}
}

// bodyCell reports whether the low-rank row at cell c takes part: on the grid and in the system.
func (m *Matrix) bodyCell(c int32) bool {
	return c >= 0 && int(c) < len(m.Diag) && m.Diag[c] > 0
}

// mulBodies adds Σ_k U_k W_k U_kᵀ x to y, sequentially (bodies are small next to the grid).
func (m *Matrix) mulBodies(x, y []float64) {
	for bi := range m.Bodies {
		b := &m.Bodies[bi]
		nr := min(len(b.Cells), len(b.Rows))
		var t [6]float64
		for i := 0; i < nr; i++ {
			c := b.Cells[i]
			if !m.bodyCell(c) {
				continue
			}
			xc := x[c]
			for a := range 6 {
				t[a] += b.Rows[i][a] * xc
			}
		}
		s := mul6(&b.W, &t)
		for i := 0; i < nr; i++ {
			c := b.Cells[i]
			if !m.bodyCell(c) {
				continue
			}
			r := &b.Rows[i]
			y[c] += r[0]*s[0] + r[1]*s[1] + r[2]*s[2] + r[3]*s[3] + r[4]*s[4] + r[5]*s[5]
		}
	}
}

func mul6(w *[6][6]float64, t *[6]float64) (s [6]float64) {
	for a := range 6 {
		var v float64
		for b := range 6 {
			v += w[a][b] * t[b]
		}
		s[a] = v
	}
	return s
}

// quad6 is rᵀ W r.
func quad6(w *[6][6]float64, r *[6]float64) float64 {
	s := mul6(w, r)
	return r[0]*s[0] + r[1]*s[1] + r[2]*s[2] + r[3]*s[3] + r[4]*s[4] + r[5]*s[5]
}

// bodyDiag adds the diagonal of the low-rank terms, rᵀ W r at each body cell in the system, to dst.
func (m *Matrix) bodyDiag(dst []float64) {
	for bi := range m.Bodies {
		b := &m.Bodies[bi]
		nr := min(len(b.Cells), len(b.Rows))
		for i := 0; i < nr; i++ {
			if c := b.Cells[i]; m.bodyCell(c) {
				dst[c] += quad6(&b.W, &b.Rows[i])
			}
		}
	}
}

// Gershgorin returns an upper bound on the largest eigenvalue of the full matrix (restricted to the cells in the
// system): the largest Gershgorin row sum of the 7-point part plus, for each low-rank term, trace(W UᵀU) =
// Σ rᵀ W r, which bounds ‖U W Uᵀ‖ when W is positive semi-definite and each cell appears once.
func (m *Matrix) Gershgorin() float64 {
	m.check()
	nx, ny, nz := m.Nx, m.Ny, m.Nz
	sxy := nx * ny
	d := m.Diag
	var g float64
	for k := range nz {
		for j := range ny {
			for i := range nx {
				c := i + nx*(j+ny*k)
				if !(d[c] > 0) {
					continue
				}
				v := d[c]
				if i > 0 && d[c-1] > 0 {
					v += math.Abs(m.X[c-1])
				}
				if i < nx-1 && d[c+1] > 0 {
					v += math.Abs(m.X[c])
				}
				if j > 0 && d[c-nx] > 0 {
					v += math.Abs(m.Y[c-nx])
				}
				if j < ny-1 && d[c+nx] > 0 {
					v += math.Abs(m.Y[c])
				}
				if k > 0 && d[c-sxy] > 0 {
					v += math.Abs(m.Z[c-sxy])
				}
				if k < nz-1 && d[c+sxy] > 0 {
					v += math.Abs(m.Z[c])
				}
				if !(v <= g) {
					g = v // NaN propagates, so a broken matrix is noticed
				}
			}
		}
	}
	for bi := range m.Bodies {
		b := &m.Bodies[bi]
		nr := min(len(b.Cells), len(b.Rows))
		for i := 0; i < nr; i++ {
			if c := b.Cells[i]; m.bodyCell(c) {
				g += math.Abs(quad6(&b.W, &b.Rows[i]))
			}
		}
	}
	return g
}
