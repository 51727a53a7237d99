// Package sym3 decomposes symmetric 3×3 matrices: the covariance of a neighbourhood (sim/surface/upsample), a body's
// added-mass and damping tensors (sim/reduced/game).
package sym3

import "math"

// Eigen returns the eigenvalues of the symmetric matrix a (unordered) and its eigenvectors as the columns of v, by
// cyclic Jacobi rotations: each zeroes one off-diagonal entry, and a few sweeps reach rounding. A matrix holding
// NaN is returned as it is.
func Eigen(a [3][3]float64) (lam [3]float64, v [3][3]float64) {
	v = [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for sweep := 0; sweep < 12; sweep++ {
		off := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
		diag := a[0][0]*a[0][0] + a[1][1]*a[1][1] + a[2][2]*a[2][2]
		if !(off > 1e-24*diag) || off == 0 {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			if a[p][q] == 0 {
				continue
			}
			// the rotation by θ in the (p, q) plane with cot 2θ = (a_qq − a_pp)/(2 a_pq) zeroes a_pq
			theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
			t := 1 / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			if theta < 0 {
				t = -t
			}
			c := 1 / math.Sqrt(t*t+1)
			s := t * c
			for k := 0; k < 3; k++ { // a ← a J
				akp, akq := a[k][p], a[k][q]
				a[k][p], a[k][q] = c*akp-s*akq, s*akp+c*akq
			}
			for k := 0; k < 3; k++ { // a ← Jᵀ a
				apk, aqk := a[p][k], a[q][k]
				a[p][k], a[q][k] = c*apk-s*aqk, s*apk+c*aqk
			}
			for k := 0; k < 3; k++ {
				vkp, vkq := v[k][p], v[k][q]
				v[k][p], v[k][q] = c*vkp-s*vkq, s*vkp+c*vkq
			}
		}
	}
	return [3]float64{a[0][0], a[1][1], a[2][2]}, v
}
