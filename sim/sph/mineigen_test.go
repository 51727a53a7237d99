package sph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/slosh/slosh/internal/sym3"
	"github.com/slosh/slosh/sim/scene"
)

// minEigen's closed form agrees with Jacobi sweeps (internal/sym3) on random symmetric matrices, diagonal ones and
// ones with repeated eigenvalues, and inverse inverts.
func TestMinEigenAndInverse(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := [][3][3]float64{{{2, 0, 0}, {0, 0.3, 0}, {0, 0, 1}}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, {{0.5, 0.5, 0}, {0.5, 0.5, 0}, {0, 0, 1}}}
	for range 1000 {
		var m [3][3]float64
		for i := range 3 {
			for j := i; j < 3; j++ {
				m[i][j] = r.Float64()*2 - 1
				m[j][i] = m[i][j]
			}
		}
		cases = append(cases, m)
	}
	for _, m := range cases {
		val, _ := sym3.Eigen(m)
		want := min(val[0], val[1], val[2])
		if got := minEigen(m); math.Abs(got-want) > 1e-9 {
			t.Fatalf("%v: smallest eigenvalue %g, Jacobi's %g", m, got, want)
		}
		if math.Abs(want) < 0.05 {
			continue
		}
		p := scene.Mat3(m).Mul(inverse(m))
		for i := range 3 {
			for j := range 3 {
				if want := map[bool]float64{true: 1, false: 0}[i == j]; math.Abs(p[i][j]-want) > 1e-9 {
					t.Fatalf("%v times its inverse is %v", m, p)
				}
			}
		}
	}
}
