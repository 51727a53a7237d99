package pressure

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/slosh/slosh/sim/par"
)

// randomMatrix is a weighted grid Laplacian with Dirichlet holes: each face has a weight in [0.5, 2], a cell's
// diagonal sums the weights of all six of its faces (faces to holes and past the grid's edge act as p = 0
// there), so the system is symmetric positive definite. About holes of the cells are out of the system, some
// with Diag 0 and some with negative Diag, and their couplings (and those past the edges) are set to junk that
// every operation must ignore. bodies low-rank terms are added, each over distinct random cells (one of them
// off the grid, one possibly out of the system).
func randomMatrix(rng *rand.Rand, nx, ny, nz int, holes float64, bodies int) *Matrix {
	m := &Matrix{}
	m.Resize(nx, ny, nz)
	n := m.Len()
	in := make([]bool, n)
	for c := range in {
		in[c] = rng.Float64() >= holes
	}
	face := func() float64 { return 0.5 + 1.5*rng.Float64() }
	for k := range nz {
		for j := range ny {
			for i := range nx {
				c := i + nx*(j+ny*k)
				m.X[c], m.Y[c], m.Z[c] = -face(), -face(), -face()
			}
		}
	}
	sxy := nx * ny
	for k := range nz {
		for j := range ny {
			for i := range nx {
				c := i + nx*(j+ny*k)
				if !in[c] {
					m.Diag[c] = -float64(c % 2) // 0 or −1: both out
					continue
				}
				// the -x, -y, -z faces belong to the neighbour's coupling when there is one on the grid
				d := 0.0
				if i > 0 {
					d -= m.X[c-1]
				} else {
					d += face()
				}
				if j > 0 {
					d -= m.Y[c-nx]
				} else {
					d += face()
				}
				if k > 0 {
					d -= m.Z[c-sxy]
				} else {
					d += face()
				}
				d -= m.X[c] + m.Y[c] + m.Z[c] // +x, +y, +z faces (past the edge: a Dirichlet face of that weight)
				m.Diag[c] = d
			}
		}
	}
	for range bodies {
		var lr LowRank
		perm := rng.Perm(n)
		cells := min(n, 3+rng.IntN(8))
		for _, c := range perm[:cells] {
			lr.Cells = append(lr.Cells, int32(c))
			var r [6]float64
			for a := range r {
				r[a] = rng.NormFloat64() * 0.5
			}
			lr.Rows = append(lr.Rows, r)
		}
		lr.Cells = append(lr.Cells, int32(n+3)) // off the grid: ignored
		lr.Rows = append(lr.Rows, [6]float64{1, 1, 1, 1, 1, 1})
		// W = R Rᵀ, symmetric positive semi-definite (rank 3)
		var r [6][3]float64
		for a := range 6 {
			for b := range 3 {
				r[a][b] = rng.NormFloat64() * 0.7
			}
		}
		for a := range 6 {
			for b := range 6 {
				for q := range 3 {
					lr.W[a][b] += r[a][q] * r[b][q]
				}
			}
		}
		m.Bodies = append(m.Bodies, lr)
	}
	return m
}

// dense builds the full matrix, rows and columns of cells out of the system left zero, from the definition in
// Matrix's doc (independently of mulLines).
func dense(m *Matrix) [][]float64 {
	n := m.Len()
	a := make([][]float64, n)
	for c := range a {
		a[c] = make([]float64, n)
	}
	in := func(c int) bool { return c >= 0 && c < n && m.Diag[c] > 0 }
	couple := func(c, e int, v float64) {
		if in(c) && in(e) {
			a[c][e] += v
			a[e][c] += v
		}
	}
	for k := range m.Nz {
		for j := range m.Ny {
			for i := range m.Nx {
				c := i + m.Nx*(j+m.Ny*k)
				if in(c) {
					a[c][c] += m.Diag[c]
				}
				if i+1 < m.Nx {
					couple(c, c+1, m.X[c])
				}
				if j+1 < m.Ny {
					couple(c, c+m.Nx, m.Y[c])
				}
				if k+1 < m.Nz {
					couple(c, c+m.Nx*m.Ny, m.Z[c])
				}
			}
		}
	}
	for _, b := range m.Bodies {
		for p := range b.Cells {
			for q := range b.Cells {
				c, e := int(b.Cells[p]), int(b.Cells[q])
				if !in(c) || !in(e) {
					continue
				}
				for x := range 6 {
					for y := range 6 {
						a[c][e] += b.Rows[p][x] * b.W[x][y] * b.Rows[q][y]
					}
				}
			}
		}
	}
	return a
}

// denseSolve solves A p = −b on the cells in the system by Cholesky factorisation (p = 0 elsewhere).
func denseSolve(t *testing.T, m *Matrix, b []float64) []float64 {
	t.Helper()
	a := dense(m)
	var idx []int
	for c := range m.Diag {
		if m.Diag[c] > 0 {
			idx = append(idx, c)
		}
	}
	k := len(idx)
	l := make([][]float64, k)
	for i := range l {
		l[i] = make([]float64, k)
		for j := 0; j <= i; j++ {
			s := a[idx[i]][idx[j]]
			for q := 0; q < j; q++ {
				s -= l[i][q] * l[j][q]
			}
			if i == j {
				if !(s > 0) {
					t.Fatalf("dense matrix not positive definite at %d", i)
				}
				l[i][i] = math.Sqrt(s)
			} else {
				l[i][j] = s / l[j][j]
			}
		}
	}
	y := make([]float64, k)
	for i := range k {
		s := -b[idx[i]]
		for q := 0; q < i; q++ {
			s -= l[i][q] * y[q]
		}
		y[i] = s / l[i][i]
	}
	x := make([]float64, k)
	for i := k - 1; i >= 0; i-- {
		s := y[i]
		for q := i + 1; q < k; q++ {
			s -= l[q][i] * x[q]
		}
		x[i] = s / l[i][i]
	}
	p := make([]float64, m.Len())
	for i, c := range idx {
		p[c] = x[i]
	}
	return p
}

// gradient returns w = A p + b on the cells in the system (0 elsewhere).
func gradient(m *Matrix, b, p []float64) []float64 {
	w := make([]float64, m.Len())
	m.Mul(par.Pool{Workers: 1}, p, w)
	for c := range w {
		if m.Diag[c] > 0 {
			w[c] += b[c]
		}
	}
	return w
}

// norm is the Euclidean norm over the cells in the system.
func norm(m *Matrix, v []float64) float64 {
	var s float64
	for c, x := range v {
		if m.Diag[c] > 0 {
			s += x * x
		}
	}
	return math.Sqrt(s)
}

// diffNorm is ‖a − b‖ over the cells in the system.
func diffNorm(m *Matrix, a, b []float64) float64 {
	var s float64
	for c := range a {
		if m.Diag[c] > 0 {
			s += (a[c] - b[c]) * (a[c] - b[c])
		}
	}
	return math.Sqrt(s)
}

func randomVec(rng *rand.Rand, n int, lo, hi float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = lo + (hi-lo)*rng.Float64()
	}
	return v
}
