package pressure

import "math"

// MIC(0), the modified incomplete Cholesky factorisation with no fill-in, after Bridson, "Fluid Simulation for
// Computer Graphics" (2nd ed.), ch. 5: A ≈ L Lᵀ with L = F E⁻¹ + E, F the strictly lower part of A and E
// diagonal. precon[c] = 1/E_c, and the entries of L below the diagonal in column c are A(c', c)·precon[c] for c's
// +x, +y and +z neighbours c' (lx, ly, lz below). The natural (lexicographic) cell order is used, and both the
// factorisation and the triangular solves run sequentially on the calling goroutine.

const (
	micTau   = 0.97 // the modification's weight τ (Bridson's tuning)
	micSigma = 0.25 // safety σ: a pivot below σ·A_cc is replaced by A_cc
)

// mic holds a factorisation over a subset of the cells.
type mic struct {
	precon, lx, ly, lz []float64
}

// factor computes MIC(0) of the submatrix of m (its 7-point part, with diag on the diagonal: the caller adds the
// low-rank terms' diagonal there) on the cells where set[c]; set must lie inside the system, and only the cells
// of spans (the cells in the system, in index order) are visited: the factor's entries elsewhere must already be
// 0. Cells outside the set get zero rows, so applying the factor leaves them at 0.
func (f *mic) factor(m *Matrix, diag []float64, set []bool, spans []span) {
	f.factorSpans(m, diag, set, spans)
}

// factorSpans factors the cells of spans, in order: every cell before them that they read (the previous cell of
// their line, the cell below along y and along z) must be factored already.
func (f *mic) factorSpans(m *Matrix, diag []float64, set []bool, spans []span) {
	nx, ny, nz := m.Nx, m.Ny, m.Nz
	sxy := nx * ny
	pc, lx, ly, lz := f.precon, f.lx, f.ly, f.lz
	for _, sp := range spans {
		l := sp.lo / nx
		j, k := l%ny, l/ny
		i0 := sp.lo - l*nx
		for c := sp.lo; c < sp.hi; c++ {
			i := i0 + c - sp.lo
			if !set[c] {
				pc[c], lx[c], ly[c], lz[c] = 0, 0, 0, 0
				continue
			}
			// the entries of L in row c, from the columns before it (zero where a neighbour is outside the set:
			// its own lx/ly/lz toward c were masked when it was factored)
			e := diag[c]
			if i > 0 {
				a := lx[c-1]
				e -= a*a + micTau*a*(ly[c-1]+lz[c-1])
			}
			if j > 0 {
				a := ly[c-nx]
				e -= a*a + micTau*a*(lx[c-nx]+lz[c-nx])
			}
			if k > 0 {
				a := lz[c-sxy]
				e -= a*a + micTau*a*(lx[c-sxy]+ly[c-sxy])
			}
			if e < micSigma*diag[c] {
				e = diag[c]
			}
			p := 1 / math.Sqrt(e)
			pc[c] = p
			var ax, ay, az float64
			if i < nx-1 && set[c+1] {
				ax = m.X[c]
			}
			if j < ny-1 && set[c+nx] {
				ay = m.Y[c]
			}
			if k < nz-1 && set[c+sxy] {
				az = m.Z[c]
			}
			lx[c], ly[c], lz[c] = ax*p, ay*p, az*p
		}
	}
}

// apply sets z = (L Lᵀ)⁻¹ r: the forward substitution L q = r into z, then the backward one Lᵀ z = q in place,
// visiting the cells of spans only; z must be 0 on every other cell (the solvers keep it so).
func (f *mic) apply(m *Matrix, r, z []float64, spans []span) {
	f.forward(m, r, z, spans)
	f.backward(m, z, spans)
}

// forward is the forward substitution L q = r into z over the cells of spans, in order: the cells before them
// that they read must be done already. At a span's ends the neighbour along x is out of the system (or off the
// line): its entries are 0, so it is skipped.
func (f *mic) forward(m *Matrix, r, z []float64, spans []span) {
	nx, ny := m.Nx, m.Ny
	sxy := nx * ny
	pc, lx, ly, lz := f.precon, f.lx, f.ly, f.lz
	for _, sp := range spans {
		l := sp.lo / nx
		j, k := l%ny, l/ny
		for c := sp.lo; c < sp.hi; c++ {
			t := r[c]
			if c > sp.lo {
				t -= lx[c-1] * z[c-1]
			}
			if j > 0 {
				t -= ly[c-nx] * z[c-nx]
			}
			if k > 0 {
				t -= lz[c-sxy] * z[c-sxy]
			}
			z[c] = t * pc[c]
		}
	}
}

// backward is the backward substitution Lᵀ z = q in place over the cells of spans, last to first: the cells
// after them that they read must be done already.
func (f *mic) backward(m *Matrix, z []float64, spans []span) {
	nx, ny, nz := m.Nx, m.Ny, m.Nz
	sxy := nx * ny
	pc, lx, ly, lz := f.precon, f.lx, f.ly, f.lz
	for si := len(spans) - 1; si >= 0; si-- {
		sp := spans[si]
		l := sp.lo / nx
		j, k := l%ny, l/ny
		for c := sp.hi - 1; c >= sp.lo; c-- {
			t := z[c]
			if c+1 < sp.hi {
				t -= lx[c] * z[c+1]
			}
			if j < ny-1 {
				t -= ly[c] * z[c+nx]
			}
			if k < nz-1 {
				t -= lz[c] * z[c+sxy]
			}
			z[c] = t * pc[c]
		}
	}
}

// size grows the factor's arrays for n cells and zeroes them.
func (f *mic) size(n int) {
	f.precon = zeroed(f.precon, n)
	f.lx = zeroed(f.lx, n)
	f.ly = zeroed(f.ly, n)
	f.lz = zeroed(f.lz, n)
}
