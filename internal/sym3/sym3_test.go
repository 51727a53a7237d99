package sym3

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Random symmetric matrices are decomposed: A v_k = λ_k v_k to rounding, and V is orthonormal.
func TestEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 1000; trial++ {
		var a [3][3]float64
		for i := 0; i < 3; i++ {
			for j := i; j < 3; j++ {
				a[i][j] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
				a[j][i] = a[i][j]
			}
		}
		if trial%5 == 0 { // a repeated eigenvalue: a diagonal with a tie
			a = [3][3]float64{{2, 0, 0}, {0, 2, 0}, {0, 0, rng.Float64()}}
		}
		lam, v := Eigen(a)
		scale := 0.0
		for i := range 3 {
			scale = max(scale, math.Abs(lam[i]))
		}
		for k := range 3 {
			for i := range 3 {
				av := a[i][0]*v[0][k] + a[i][1]*v[1][k] + a[i][2]*v[2][k]
				if d := math.Abs(av - lam[k]*v[i][k]); d > 1e-10*max(scale, 1e-300) {
					t.Fatalf("trial %d: (A v − λ v)[%d] of eigenpair %d is %g (λ %v)", trial, i, k, d, lam)
				}
			}
			for l := range 3 {
				dot := v[0][k]*v[0][l] + v[1][k]*v[1][l] + v[2][k]*v[2][l]
				want := 0.0
				if k == l {
					want = 1
				}
				if math.Abs(dot-want) > 1e-12 {
					t.Fatalf("trial %d: columns %d and %d of V: %g", trial, k, l, dot)
				}
			}
		}
	}
}
