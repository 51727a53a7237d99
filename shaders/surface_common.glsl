// Shared by the surface passes (gpu/surface): the parameter block, the eigen decomposition of a symmetric 3×3 and
// the anisotropic kernel of Yu & Turk (2013). Each function mirrors its Go counterpart in sim/surface operation for
// operation, so the CPU and GPU passes agree to float rounding. Binding points come from Go as #defines.
#include "nsearch.glsl"

// Mirrors gpu/surface.params (std140: scalars packed four to a vec4 slot).
layout(std140, binding = SURF_BIND_PARAMS) uniform SurfParams {
	uint n;            // particles
	uint neps;         // N_ε: at most this many neighbours keeps a kernel round
	uint enabled;      // 0: spheres of radius k_s·R_p at the particles
	uint pad0;
	float r2;          // r², m²
	float invR;        // 1 / r
	float kr;          // k_r
	float ks;          // k_s
	float kn;          // k_n
	float lambda;      // λ
	float rp;          // R_p, m
	float invSigmaRef; // 1 / σ_ref, 1/m²
	uint interiorN;    // the interior rule: at least this many neighbours
	float interiorOffset2; // and a squared weighted mean offset below this, m²
	uint pad1;
	uint pad2;
} S;

// sim/surface.jacobiRotate: zero a_pq by a rotation in the (p, q) plane.
void surfRotate(inout float app, inout float aqq, inout float apq, inout float arp, inout float arq, inout vec3 ep, inout vec3 eq) {
	float x = apq;
	if (!(abs(x) > 1e-30)) return;
	float theta = (aqq - app) / (2.0 * x);
	float t;
	if (abs(theta) > 1e6) {
		t = 0.5 / theta;
	} else {
		t = 1.0 / (abs(theta) + sqrt(theta * theta + 1.0));
		if (theta < 0.0) t = -t;
	}
	float c = 1.0 / sqrt(t * t + 1.0);
	float s = t * c;
	app -= t * x;
	aqq += t * x;
	apq = 0.0;
	float rp = arp, rq = arq;
	arp = c * rp - s * rq;
	arq = s * rp + c * rq;
	vec3 vp = ep, vq = eq;
	ep = c * vp - s * vq;
	eq = s * vp + c * vq;
}

// sim/surface.eigen: a symmetric 3×3 (diagonal d, off-diagonal o = (xy, xz, yz)) as R diag(val) Rᵀ, eigenvalues
// descending, e[k] the unit eigenvector of val[k].
void surfEigen(vec3 d, vec3 o, out vec3 val, out vec3 e0, out vec3 e1, out vec3 e2) {
	float a00 = d.x, a11 = d.y, a22 = d.z, a01 = o.x, a02 = o.y, a12 = o.z;
	e0 = vec3(1.0, 0.0, 0.0);
	e1 = vec3(0.0, 1.0, 0.0);
	e2 = vec3(0.0, 0.0, 1.0);
	for (int sweep = 0; sweep < SURF_JACOBI_SWEEPS; sweep++) {
		float off = a01 * a01 + a02 * a02 + a12 * a12;
		float diag = a00 * a00 + a11 * a11 + a22 * a22;
		if (!(off > 1e-12 * diag)) break;
		surfRotate(a00, a11, a01, a02, a12, e0, e1);
		surfRotate(a00, a22, a02, a01, a12, e0, e2);
		surfRotate(a11, a22, a12, a01, a02, e1, e2);
	}
	val = vec3(a00, a11, a22);
	vec3 t;
	float f;
	if (val.x < val.y) { f = val.x; val.x = val.y; val.y = f; t = e0; e0 = e1; e1 = t; }
	if (val.y < val.z) { f = val.y; val.y = val.z; val.z = f; t = e1; e1 = e2; e2 = t; }
	if (val.x < val.y) { f = val.x; val.x = val.y; val.y = f; t = e0; e0 = e1; e1 = t; }
}

// The kernel as four vec4s (sim/surface.Ellipsoid): the centre with N_i in w, then the semi-axis vectors.
struct SurfEllipsoid {
	vec4 center;
	vec4 axes[3];
};

void surfRound(inout SurfEllipsoid e, float rad) {
	e.axes[0] = vec4(rad, 0.0, 0.0, 0.0);
	e.axes[1] = vec4(0.0, rad, 0.0, 0.0);
	e.axes[2] = vec4(0.0, 0.0, rad, 0.0);
}

// sim/surface.(*Anisotropy).ellipsoid: the kernel of a particle at p with nb neighbours from its weighted sums
// Σw, Σ w (x_j − x_i) (m) and Σ w (x_j − x_i)(x_j − x_i)ᵀ (diagonal cd, off-diagonal co = (xy, xz, yz)).
// sim/surface.(*Anisotropy).interior: 1 for a particle deep inside the fluid (a full, balanced neighbourhood),
// which the renderer's depth pass leaves out; else 0.
float surfInterior(uint nb, float wsum, vec3 m) {
	if (nb < S.interiorN) return 0.0;
	float inv = 1.0 / wsum;
	float mx = m.x * inv, my = m.y * inv, mz = m.z * inv;
	if (!(mx * mx + my * my + mz * mz < S.interiorOffset2)) return 0.0;
	return 1.0;
}

SurfEllipsoid surfEllipsoidShape(vec3 p, uint nb, float wsum, vec3 m, vec3 cd, vec3 co);

// The kernel with the interior flag in the first axis's w (sim/surface.Ellipsoid.Interior).
SurfEllipsoid surfEllipsoid(vec3 p, uint nb, float wsum, vec3 m, vec3 cd, vec3 co) {
	SurfEllipsoid e = surfEllipsoidShape(p, nb, wsum, m, cd, co);
	e.axes[0].w = surfInterior(nb, wsum, m);
	return e;
}

SurfEllipsoid surfEllipsoidShape(vec3 p, uint nb, float wsum, vec3 m, vec3 cd, vec3 co) {
	SurfEllipsoid e;
	e.center = vec4(p, float(nb));
	if (S.enabled == 0u) {
		surfRound(e, S.rp * S.ks);
		return e;
	}
	float inv = 1.0 / wsum;
	float mx = m.x * inv, my = m.y * inv, mz = m.z * inv;
	e.center.x = p.x + S.lambda * mx;
	e.center.y = p.y + S.lambda * my;
	e.center.z = p.z + S.lambda * mz;
	if (nb <= S.neps) {
		surfRound(e, S.rp * S.kn);
		return e;
	}
	float s = inv * S.invSigmaRef;
	float sx = mx * S.invSigmaRef, sy = my * S.invSigmaRef, sz = mz * S.invSigmaRef;
	vec3 nd = vec3(cd.x * s - sx * mx, cd.y * s - sy * my, cd.z * s - sz * mz);
	vec3 no = vec3(co.x * s - sx * my, co.y * s - sx * mz, co.z * s - sy * mz);
	vec3 val, e0, e1, e2;
	surfEigen(nd, no, val, e0, e1, e2);
	float s1 = val.x;
	if (!(s1 > SURF_MIN_SIGMA && s1 < SURF_MAX_SIGMA)) {
		surfRound(e, S.rp * S.kn);
		return e;
	}
	float floorS = s1 / S.kr;
	float scale = S.rp * S.ks;
	e.axes[0] = vec4((scale * s1) * e0, 0.0);
	e.axes[1] = vec4((scale * max(val.y, floorS)) * e1, 0.0);
	e.axes[2] = vec4((scale * max(val.z, floorS)) * e2, 0.0);
	return e;
}
