package surface

import "math"

// JacobiSweeps bounds the cyclic Jacobi sweeps of the eigen decomposition. A 3×3 converges quadratically: three
// or four sweeps reach float32 precision, and the loop stops as soon as the off-diagonal is negligible. The GPU
// pass (shaders/surface_common.glsl) receives this as SURF_JACOBI_SWEEPS.
const JacobiSweeps = 8

// sym3 is a symmetric 3×3 matrix by its six distinct entries.
type sym3 struct{ xx, yy, zz, xy, xz, yz float32 }

// eigen decomposes a symmetric 3×3 by cyclic Jacobi rotations: m = R diag(val) Rᵀ with val in descending order
// and vec[k] the unit eigenvector of val[k] (the k-th column of R). Operation for operation the same as
// surfEigen in shaders/surface_common.glsl.
func eigen(m sym3) (val [3]float32, vec [3][3]float32) {
	a00, a11, a22, a01, a02, a12 := m.xx, m.yy, m.zz, m.xy, m.xz, m.yz
	e0, e1, e2 := [3]float32{1, 0, 0}, [3]float32{0, 1, 0}, [3]float32{0, 0, 1}
	for sweep := 0; sweep < JacobiSweeps; sweep++ {
		off := a01*a01 + a02*a02 + a12*a12
		diag := a00*a00 + a11*a11 + a22*a22
		if !(off > 1e-12*diag) { // converged (or not finite: nothing to gain)
			break
		}
		// the pairs (p, q) = (0, 1), (0, 2), (1, 2); r is the third index
		jacobiRotate(&a00, &a11, &a01, &a02, &a12, &e0, &e1)
		jacobiRotate(&a00, &a22, &a02, &a01, &a12, &e0, &e2)
		jacobiRotate(&a11, &a22, &a12, &a01, &a02, &e1, &e2)
	}
	val = [3]float32{a00, a11, a22}
	vec = [3][3]float32{e0, e1, e2}
	// sort descending (three compare-and-swaps)
	if val[0] < val[1] {
		val[0], val[1], vec[0], vec[1] = val[1], val[0], vec[1], vec[0]
	}
	if val[1] < val[2] {
		val[1], val[2], vec[1], vec[2] = val[2], val[1], vec[2], vec[1]
	}
	if val[0] < val[1] {
		val[0], val[1], vec[0], vec[1] = val[1], val[0], vec[1], vec[0]
	}
	return val, vec
}

// jacobiRotate zeroes the entry a_pq by a rotation in the (p, q) plane: app, aqq and apq are its diagonal and
// off-diagonal entries, arp and arq the entries of the remaining index r in columns p and q, and ep, eq the
// eigenvector columns p and q.
func jacobiRotate(app, aqq, apq, arp, arq *float32, ep, eq *[3]float32) {
	x := *apq
	if !(abs32(x) > 1e-30) { // nothing to rotate; also keeps θ below finite when denormals flush to zero
		return
	}
	theta := (*aqq - *app) / (2 * x)
	// t = tan φ, the smaller root of t² + 2θt − 1 = 0; for huge θ, t ≈ 1/(2θ) without squaring θ
	var t float32
	if abs32(theta) > 1e6 {
		t = 0.5 / theta
	} else {
		t = 1 / (abs32(theta) + sqrt32(theta*theta+1))
		if theta < 0 {
			t = -t
		}
	}
	c := 1 / sqrt32(t*t+1)
	s := t * c
	*app -= t * x
	*aqq += t * x
	*apq = 0
	rp, rq := *arp, *arq
	*arp = c*rp - s*rq
	*arq = s*rp + c*rq
	for k := 0; k < 3; k++ {
		vp, vq := ep[k], eq[k]
		ep[k] = c*vp - s*vq
		eq[k] = s*vp + c*vq
	}
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }
