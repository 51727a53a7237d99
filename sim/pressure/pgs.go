package pressure

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/par"
)

// PGS solves the same problem as MPRGPBounded (w = A p + b, p ≥ lower, w ≥ 0, (p − lower)ᵀw = 0 on the cells in
// the system; lower nil means 0, −Inf leaves a cell unconstrained) by projected Gauss–Seidel: sweeps over the
// cells in index order, each setting p_c = max(lower_c, p_c − w_c/A_cc) with w_c from the current p, the low-rank
// terms included exactly. It is slow (hundreds to thousands of sweeps) but simple enough to trust: it is the
// reference the tests check MPRGP against, and other packages' tests may use it the same way. It is sequential
// and allocates per call.
//
// It starts from p (projected), sweeps until the projected gradient's norm is at most tol·‖b‖ (checked after every
// sweep with a product; absolute when b is 0) or maxSweeps, and returns the sweeps taken and that relative
// residual. Non-finite input or iterates give an error wrapping ErrNotFinite.
func PGS(m *Matrix, b, lower, p []float64, tol float64, maxSweeps int) (sweeps int, residual float64, err error) {
	m.check(b, lower, p)
	n := m.Len()
	in := func(c int) bool { return m.Diag[c] > 0 }
	lo := make([]float64, n)
	var bb float64
	for c := range n {
		if !in(c) {
			p[c] = 0
			continue
		}
		if lower != nil {
			lo[c] = lower[c]
		}
		if !finite(b[c]) || !finite(m.Diag[c]) || !finite(p[c]) || math.IsNaN(lo[c]) || math.IsInf(lo[c], 1) {
			return 0, 0, fmt.Errorf("pressure: PGS's input is %w", ErrNotFinite)
		}
		p[c] = max(p[c], lo[c])
		bb += b[c] * b[c]
	}
	scale := math.Sqrt(bb)
	if scale == 0 {
		scale = 1
	}
	// the low-rank rows of each cell, and t_k = U_kᵀ p kept up to date as p changes
	type entry struct {
		body int
		row  [6]float64
	}
	rows := make(map[int][]entry)
	diag := make([]float64, n)
	copy(diag, m.Diag)
	m.bodyDiag(diag)
	t := make([][6]float64, len(m.Bodies))
	for k := range m.Bodies {
		bd := &m.Bodies[k]
		for i := 0; i < min(len(bd.Cells), len(bd.Rows)); i++ {
			c := bd.Cells[i]
			if !m.bodyCell(c) {
				continue
			}
			rows[int(c)] = append(rows[int(c)], entry{k, bd.Rows[i]})
			for a := range 6 {
				t[k][a] += bd.Rows[i][a] * p[c]
			}
		}
	}
	nx, ny, nz := m.Nx, m.Ny, m.Nz
	sxy := nx * ny
	w := make([]float64, n)
	for sweeps = 0; ; sweeps++ {
		m.Mul(par.Pool{Workers: 1}, p, w)
		var g2 float64
		for c := range n {
			if !in(c) {
				continue
			}
			v := w[c] + b[c]
			if p[c] > lo[c] || v < 0 {
				g2 += v * v
			}
		}
		residual = math.Sqrt(g2) / scale
		if !finite(residual) {
			return sweeps, residual, fmt.Errorf("pressure: PGS's residual after %d sweeps is %w", sweeps, ErrNotFinite)
		}
		if residual <= tol || sweeps >= maxSweeps {
			return sweeps, residual, nil
		}
		for k := range nz {
			for j := range ny {
				for i := range nx {
					c := i + nx*(j+ny*k)
					if !in(c) {
						continue
					}
					v := b[c] + m.Diag[c]*p[c]
					if i > 0 && in(c-1) {
						v += m.X[c-1] * p[c-1]
					}
					if i < nx-1 && in(c+1) {
						v += m.X[c] * p[c+1]
					}
					if j > 0 && in(c-nx) {
						v += m.Y[c-nx] * p[c-nx]
					}
					if j < ny-1 && in(c+nx) {
						v += m.Y[c] * p[c+nx]
					}
					if k > 0 && in(c-sxy) {
						v += m.Z[c-sxy] * p[c-sxy]
					}
					if k < nz-1 && in(c+sxy) {
						v += m.Z[c] * p[c+sxy]
					}
					for _, e := range rows[c] {
						s := mul6(&m.Bodies[e.body].W, &t[e.body])
						for a := range 6 {
							v += e.row[a] * s[a]
						}
					}
					np := max(lo[c], p[c]-v/diag[c])
					dp := np - p[c]
					p[c] = np
					for _, e := range rows[c] {
						for a := range 6 {
							t[e.body][a] += e.row[a] * dp
						}
					}
				}
			}
		}
	}
}
