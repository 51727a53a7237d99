package rigid

import "math"

// Quaternions (x, y, z, w) and 3×3 matrices (rows) in float32, mirrored by shaders/pbf_rigid.glsl.

// Quat is a unit quaternion (x, y, z, w).
type Quat [4]float32

// IdentityQuat is no rotation.
var IdentityQuat = Quat{0, 0, 0, 1}

// Mat3 is a row-major 3×3 matrix.
type Mat3 [3][3]float32

// Matrix is the rotation matrix of q.
func (q Quat) Matrix() Mat3 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	return Mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
}

// Mul is the product a·b (first b, then a).
func (a Quat) Mul(b Quat) Quat {
	return Quat{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

// Normalized is q scaled to unit length (no rotation for a zero quaternion).
func (q Quat) Normalized() Quat {
	l := sqrt32(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !(l > 0) {
		return IdentityQuat
	}
	return Quat{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// AxisAngle is the rotation by |ω| radians about ω.
func AxisAngle(wx, wy, wz float32) Quat {
	a := sqrt32(wx*wx + wy*wy + wz*wz)
	if a < 1e-9 {
		return IdentityQuat
	}
	s := sin32(a/2) / a
	return Quat{wx * s, wy * s, wz * s, cos32(a / 2)}
}

// Apply rotates v by the matrix m.
func (m *Mat3) Apply(x, y, z float32) (float32, float32, float32) {
	return m[0][0]*x + m[0][1]*y + m[0][2]*z, m[1][0]*x + m[1][1]*y + m[1][2]*z, m[2][0]*x + m[2][1]*y + m[2][2]*z
}

// RotationIters is how many iterations ExtractRotation takes; warm-started from the last step's rotation, a few
// are plenty (Müller et al. report convergence in one or two for small changes).
const RotationIters = 8

// ExtractRotation returns the rotation of the polar decomposition A = R S, found by Müller, Bender, Chentanez and
// Macklin's iteration ("A robust method to extract the rotational part of deformations", 2016), started from q:
// each iteration rotates R towards A by ω = Σ_k r_k × a_k / (|Σ_k r_k · a_k| + ε), with r_k and a_k the columns of
// R and A. Unlike an SVD it is well defined for flat or degenerate A (a body that is a sheet or a line).
func ExtractRotation(a *Mat3, q Quat) Quat {
	for it := 0; it < RotationIters; it++ {
		r := q.Matrix()
		var wx, wy, wz, dot float32
		for k := 0; k < 3; k++ {
			rx, ry, rz := r[0][k], r[1][k], r[2][k]
			ax, ay, az := a[0][k], a[1][k], a[2][k]
			wx += ry*az - rz*ay
			wy += rz*ax - rx*az
			wz += rx*ay - ry*ax
			dot += rx*ax + ry*ay + rz*az
		}
		inv := 1 / (abs32(dot) + 1e-9)
		wx, wy, wz = wx*inv, wy*inv, wz*inv
		if wx*wx+wy*wy+wz*wz < 1e-18 {
			break
		}
		q = AxisAngle(wx, wy, wz).Mul(q).Normalized()
	}
	return q
}

func sin32(x float32) float32 { return float32(math.Sin(float64(x))) }
func cos32(x float32) float32 { return float32(math.Cos(float64(x))) }

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func abs32(x float32) float32 { return float32(math.Abs(float64(x))) }
