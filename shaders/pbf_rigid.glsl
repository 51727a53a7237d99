// Rigid bodies of the PBF solver (gpu/pbf; sim/pbf rigid.go and rotation.go): the body table, quaternions,
// 3×3 matrices, the rotation extraction of shape matching, and the fixed-order workgroup reductions the per-body
// passes use. Every function mirrors its Go counterpart step for step. Include after pbf_common.glsl.
//
// Matrices follow Go's Mat3, rows first: a GLSL mat3 m here holds row k in m[k] (m[k][c] is row k, column c),
// the transpose of GLSL's own column convention. Quaternions are vec4(x, y, z, w).

// One rigid body, mirrored by gpu/pbf.bodyRecord (std430).
struct BodyRecord {
	uint first;    // the ids of its particles: first .. first+count−1
	uint count;
	float invMass; // each particle's inverse mass relative to a fluid particle's
	float pad;
	vec4 center;   // centre of mass (xyz)
	vec4 rot;      // orientation, rest frame → world
	vec4 drive;    // a velocity the body is held at (xyz) while w != 0: a body dragged by the mouse
};

const vec4 IDENTITY_QUAT = vec4(0.0, 0.0, 0.0, 1.0);

// The rotation matrix of q, by rows (Quat.Matrix).
mat3 quatRows(vec4 q) {
	float x = q.x, y = q.y, z = q.z, w = q.w;
	mat3 m;
	m[0] = vec3(1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - z * w), 2.0 * (x * z + y * w));
	m[1] = vec3(2.0 * (x * y + z * w), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - x * w));
	m[2] = vec3(2.0 * (x * z - y * w), 2.0 * (y * z + x * w), 1.0 - 2.0 * (x * x + y * y));
	return m;
}

// The product a·b: first b, then a (Quat.mul).
vec4 quatMul(vec4 a, vec4 b) {
	return vec4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
	            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
	            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
	            a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

// Quat.normalized: the identity for a zero or non-finite quaternion.
vec4 quatNormalized(vec4 q) {
	float l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
	if (!(l > 0.0)) return IDENTITY_QUAT;
	return vec4(q.x / l, q.y / l, q.z / l, q.w / l);
}

// The rotation by |ω| radians about ω (axisAngle).
vec4 axisAngle(float wx, float wy, float wz) {
	float a = sqrt(wx * wx + wy * wy + wz * wz);
	if (a < 1e-9) return IDENTITY_QUAT;
	float s = sin(a / 2.0) / a;
	return vec4(wx * s, wy * s, wz * s, cos(a / 2.0));
}

// The rotation of the polar decomposition A = R S (a by rows), by Müller, Bender, Chentanez and Macklin's 2016
// iteration started from q: each iteration rotates R towards A by ω = Σ_k r_k × a_k / (|Σ_k r_k · a_k| + ε), r_k
// and a_k the columns of R and A (extractRotation; ROTATION_ITERS is sim/pbf.RotationIters).
vec4 extractRotation(mat3 a, vec4 q) {
	for (int it = 0; it < ROTATION_ITERS; it++) {
		mat3 r = quatRows(q);
		float wx = 0.0, wy = 0.0, wz = 0.0, dotSum = 0.0;
		for (int k = 0; k < 3; k++) {
			float rx = r[0][k], ry = r[1][k], rz = r[2][k];
			float ax = a[0][k], ay = a[1][k], az = a[2][k];
			wx += ry * az - rz * ay;
			wy += rz * ax - rx * az;
			wz += rx * ay - ry * ax;
			dotSum += rx * ax + ry * ay + rz * az;
		}
		float inv = 1.0 / (abs(dotSum) + 1e-9);
		wx = wx * inv;
		wy = wy * inv;
		wz = wz * inv;
		if (wx * wx + wy * wy + wz * wz < 1e-18) break;
		q = quatNormalized(quatMul(axisAngle(wx, wy, wz), q));
	}
	return q;
}

// Workgroup reductions for the per-body passes (one workgroup of BODY_GROUP invocations per body): invocation t
// leaves its partial values in sRed[3t..3t+2] (a 3×3 matrix by rows, a centre, or the largest and smallest
// corrections) and reduceBody combines them in a fixed tree, so the result is deterministic; it lands in
// sRed[0..2], visible to every invocation.
shared vec4 sRed[3 * BODY_GROUP];

#define REDUCE_SUM 0
#define REDUCE_MAX_MIN 1 // slot 0 by max, slot 1 by min

void reduceBody(uint t, int op) {
	for (uint s = uint(BODY_GROUP) / 2u; s > 0u; s >>= 1) {
		memoryBarrierShared();
		barrier();
		if (t < s) {
			uint a = 3u * t, b = 3u * (t + s);
			if (op == REDUCE_SUM) {
				sRed[a] += sRed[b];
				sRed[a + 1u] += sRed[b + 1u];
				sRed[a + 2u] += sRed[b + 2u];
			} else {
				sRed[a] = max(sRed[a], sRed[b]);
				sRed[a + 1u] = min(sRed[a + 1u], sRed[b + 1u]);
			}
		}
	}
	memoryBarrierShared();
	barrier();
}
