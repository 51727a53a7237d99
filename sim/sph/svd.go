package sph

import (
	"math"

	"github.com/slosh/slosh/internal/sym3"
	"github.com/slosh/slosh/sim/scene"
)

// svd3 is the singular value decomposition F = U diag(σ) Vᵀ of a 3×3 matrix with U and V rotations (determinant
// +1) and σ₀ ≥ σ₁ ≥ |σ₂|, σ₂ carrying F's sign (negative where F inverts): the "invertible" form of Irving et al.
// 2004 that 000 §4.3 diagonalises with. V and σ² are the eigenvectors and eigenvalues of FᵀF (sym3.Eigen); U
// is F V made orthonormal column by column, its last column the cross product of the first two, so that a
// deformation that flattens a neighbourhood (σ₂ = 0) still has a rotation U.
func svd3(f scene.Mat3) (u scene.Mat3, sg [3]float64, v scene.Mat3) {
	var a [3][3]float64 // FᵀF
	for r := range 3 {
		for c := range 3 {
			a[r][c] = f[0][r]*f[0][c] + f[1][r]*f[1][c] + f[2][r]*f[2][c]
		}
	}
	lam, vv := sym3.Eigen(a)
	v = vv
	// sort descending, columns of V with them
	for i := range 2 {
		for j := i + 1; j < 3; j++ {
			if lam[j] > lam[i] {
				lam[i], lam[j] = lam[j], lam[i]
				for r := range 3 {
					v[r][i], v[r][j] = v[r][j], v[r][i]
				}
			}
		}
	}
	if det3(v) < 0 {
		for r := range 3 {
			v[r][2] = -v[r][2]
		}
	}
	col := func(m scene.Mat3, c int) scene.Vec3 { return scene.Vec3{m[0][c], m[1][c], m[2][c]} }
	fv0, fv1, fv2 := f.MulVec(col(v, 0)), f.MulVec(col(v, 1)), f.MulVec(col(v, 2))
	scale := math.Sqrt(max(lam[0], 0))
	u0 := unitOr(fv0, scene.Vec3{1, 0, 0})
	w := fv1.Sub(u0.Scale(u0.Dot(fv1)))
	var u1 scene.Vec3
	if l := w.Len(); l > 1e-12*scale && l > 1e-300 {
		u1 = w.Scale(1 / l)
	} else {
		u1 = anyOrthogonal(u0)
	}
	u2 := u0.Cross(u1)
	sg = [3]float64{u0.Dot(fv0), u1.Dot(fv1), u2.Dot(fv2)}
	for r := range 3 {
		u[r] = [3]float64{u0[r], u1[r], u2[r]}
	}
	return u, sg, v
}

// unitOr is v made unit length, or alt where v has none to speak of.
func unitOr(v, alt scene.Vec3) scene.Vec3 {
	l := v.Len()
	if !(l > 1e-300) {
		return alt
	}
	return v.Scale(1 / l)
}

// anyOrthogonal is a unit vector orthogonal to the unit vector a.
func anyOrthogonal(a scene.Vec3) scene.Vec3 {
	b := scene.Vec3{1, 0, 0}
	if math.Abs(a[0]) > 0.6 {
		b = scene.Vec3{0, 1, 0}
	}
	return unitOr(b.Sub(a.Scale(a.Dot(b))), scene.Vec3{0, 0, 1})
}

// det3 is a 3×3 matrix's determinant.
func det3(m scene.Mat3) float64 {
	return m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
}
