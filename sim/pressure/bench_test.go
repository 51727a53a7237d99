package pressure

import (
	"github.com/slosh/slosh/sim/par"
	"math/rand/v2"
	"testing"
)

// damBreak is the pressure matrix of a dam break's first steps on an nx×ny×nz grid: a block of liquid filling
// the lowest 60 % of the first 40 % of the tank along x; solid walls at the grid's edges (Neumann: no face), air
// elsewhere (Dirichlet: the face to an air cell counts on the diagonal). Unit face weights.
func damBreak(nx, ny, nz int) *Matrix {
	m := &Matrix{}
	m.Resize(nx, ny, nz)
	liquid := func(i, j, k int) bool {
		return i >= 0 && j >= 0 && k >= 0 && i < nx && j < ny && k < nz && float64(i) < 0.4*float64(nx) && float64(j) < 0.6*float64(ny)
	}
	wall := func(i, j, k int) bool { return i < 0 || j < 0 || k < 0 || i >= nx || j >= ny || k >= nz }
	for k := range nz {
		for j := range ny {
			for i := range nx {
				if !liquid(i, j, k) {
					continue
				}
				c := i + nx*(j+ny*k)
				var d float64
				for _, o := range [6][3]int{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}} {
					if !wall(i+o[0], j+o[1], k+o[2]) {
						d++
					}
				}
				m.Diag[c] = d
				if liquid(i+1, j, k) {
					m.X[c] = -1
				}
				if liquid(i, j+1, k) {
					m.Y[c] = -1
				}
				if liquid(i, j, k+1) {
					m.Z[c] = -1
				}
			}
		}
	}
	return m
}

// damRHS is b for the dam break: the discrete divergence of a compressing velocity field (gravity's dt·g
// downward on every face, zero through the floor, plus a fixed pseudo-random perturbation), and a little free
// space in the surface layer (1 − ρ/ρmax > 0), so the solution has both pressured and released cells.
func damRHS(m *Matrix) []float64 {
	nx, ny, nz := m.Nx, m.Ny, m.Nz
	rng := rand.New(rand.NewPCG(42, 43))
	n := m.Len()
	// face velocities u (x faces) and v (y faces): face i of cell c is its −x face
	u := make([]float64, (nx+1)*ny*nz)
	v := make([]float64, nx*(ny+1)*nz)
	w := make([]float64, nx*ny*(nz+1))
	const gdt = 0.3
	for k := range nz {
		for j := range ny {
			for i := range nx + 1 {
				if i > 0 && i < nx {
					u[i+(nx+1)*(j+ny*k)] = 0.1 * rng.NormFloat64()
				}
			}
			for i := range nx {
				if k > 0 {
					w[i+nx*(j+ny*k)] = 0.1 * rng.NormFloat64()
				}
			}
		}
		for j := range ny + 1 {
			for i := range nx {
				if j > 0 && j < ny {
					v[i+nx*(j+(ny+1)*k)] = -gdt + 0.1*rng.NormFloat64()
				}
			}
		}
	}
	b := make([]float64, n)
	for k := range nz {
		for j := range ny {
			for i := range nx {
				c := i + nx*(j+ny*k)
				if !(m.Diag[c] > 0) {
					continue
				}
				div := u[i+1+(nx+1)*(j+ny*k)] - u[i+(nx+1)*(j+ny*k)] +
					v[i+nx*(j+1+(ny+1)*k)] - v[i+nx*(j+(ny+1)*k)]
				if k+1 < nz {
					div += w[i+nx*(j+ny*(k+1))]
				}
				div -= w[i+nx*(j+ny*k)]
				b[c] = div
				if c+nx >= n || !(m.Diag[c+nx] > 0) {
					b[c] += 0.2 * rng.Float64() // the surface layer is not quite full
				}
			}
		}
	}
	return b
}

func benchmarkSolve(b *testing.B, nx, ny, nz int, mprgp bool) {
	m := damBreak(nx, ny, nz)
	rhs := damRHS(m)
	p := make([]float64, m.Len())
	var s Solver
	var res Result
	var err error
	solve := func() {
		clear(p)
		if mprgp {
			res, err = s.MPRGP(m, rhs, p, 1e-6, 0)
		} else {
			res, err = s.CG(m, rhs, p, 1e-6, 0)
		}
		if err != nil || !res.Converged {
			b.Fatalf("%+v %v", res, err)
		}
	}
	solve() // size the workspaces and warm the eigenvector, as in a running simulation
	b.ResetTimer()
	for b.Loop() {
		solve()
	}
	b.ReportMetric(float64(res.Iterations), "iterations")
	b.ReportMetric(float64(res.Products), "products")
	if mprgp {
		b.ReportMetric(float64(res.Expansions), "expansions")
		b.ReportMetric(float64(res.Proportionings), "proportionings")
		b.ReportMetric(float64(res.NormProducts), "norm-products")
	}
}

func BenchmarkCG(b *testing.B) {
	b.Run("64x64x64", func(b *testing.B) { benchmarkSolve(b, 64, 64, 64, false) })
	b.Run("128x64x64", func(b *testing.B) { benchmarkSolve(b, 128, 64, 64, false) })
}

func BenchmarkMPRGP(b *testing.B) {
	b.Run("64x64x64", func(b *testing.B) { benchmarkSolve(b, 64, 64, 64, true) })
	b.Run("128x64x64", func(b *testing.B) { benchmarkSolve(b, 128, 64, 64, true) })
}

// BenchmarkMul and BenchmarkMIC give the cost of one product and one preconditioner application (sequential)
// on the 64³ dam break: with the iteration counts above they give the preconditioner's share of a solve.
func BenchmarkMul(b *testing.B) {
	m := damBreak(64, 64, 64)
	x := damRHS(m)
	y := make([]float64, m.Len())
	var s Solver
	if _, err := s.prepare(m, x); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		s.mul(m, x, y)
	}
}

// micBench runs fn on a solver prepared for the 64³ dam break with its whole system as the free set, once on one
// worker (sequential MIC passes) and once on the default pool (pipelined).
func micBench(b *testing.B, fn func(s *Solver, m *Matrix, x, y []float64)) {
	for _, workers := range []int{1, 0} {
		b.Run(map[int]string{1: "sequential", 0: "pipelined"}[workers], func(b *testing.B) {
			m := damBreak(64, 64, 64)
			x := damRHS(m)
			y := make([]float64, m.Len())
			s := Solver{Pool: par.Pool{Workers: workers}}
			if _, err := s.prepare(m, x); err != nil {
				b.Fatal(err)
			}
			for c := range s.set {
				s.set[c] = m.Diag[c] > 0
			}
			s.factorMIC(m, s.set)
			b.ResetTimer()
			for b.Loop() {
				fn(&s, m, x, y)
			}
		})
	}
}

func BenchmarkMIC(b *testing.B) {
	micBench(b, func(s *Solver, m *Matrix, x, y []float64) { s.applyMIC(m, x, y) })
}

func BenchmarkMICFactor(b *testing.B) {
	micBench(b, func(s *Solver, m *Matrix, _, _ []float64) { s.factorMIC(m, s.set) })
}
