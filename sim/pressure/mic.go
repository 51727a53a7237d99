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
// low-rank terms' diagonal there) on the cells where set[c]; set must lie inside the system. Cells outside the
// set get zero rows, so applying the factor leaves them at 0.
func (f *mic) factor(m *Matrix, diag []float64, set []bool) {
	n := m.Len()
	f.precon = grown(f.precon, n)
	f.lx = grown(f.lx, n)
	f.ly = grown(f.ly, n)
	f.lz = grown(f.lz, n)
	nx, ny, nz := m.Nx, m.Ny, m.Nz
	sxy := nx * ny
	pc, lx, ly, lz := f.precon, f.lx, f.ly, f.lz
	for k := range nz {
		for j := range ny {
			base := nx * (j + ny*k)
			for i := range nx {
				c := base + i
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
}

// apply sets z = (L Lᵀ)⁻¹ r: the forward substitution L q = r into z, then the backward one Lᵀ z = q in place.
// r must be zero (or at least finite) outside the factor's set; z is zero there.
func (f *mic) apply(m *Matrix, r, z []float64) {
	nx, ny, nz := m.Nx, m.Ny, m.Nz
	sxy := nx * ny
	pc, lx, ly, lz := f.precon, f.lx, f.ly, f.lz
	for k := range nz {
		for j := range ny {
			base := nx * (j + ny*k)
			for i := range nx {
				c := base + i
				t := r[c]
				if i > 0 {
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
	for k := nz - 1; k >= 0; k-- {
		for j := ny - 1; j >= 0; j-- {
			base := nx * (j + ny*k)
			for i := nx - 1; i >= 0; i-- {
				c := base + i
				t := z[c]
				if i < nx-1 {
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
}
