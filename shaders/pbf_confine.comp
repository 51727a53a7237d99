#version 430 core
// Algorithm 1, lines 22–23: vorticity confinement f = ε (N × ω) (eq. 16) with N = η/|η|,
// η = Σ_j (m/ρ0)(|ω_j| − |ω_i|) ∇_i W_ij, and XSPH viscosity in Monaghan's form v_i += c Σ_j (m/ρ0) v_ij W_ij
// (eq. 17); then x_i = x*_i. With rigid bodies (sim/pbf confineAndSmooth) XSPH is an equal and opposite exchange:
// particle i's share of each pair is weighted by 2 w_i/(w_i + w_j), body particles take the reaction (their bodies'
// motion at the next shape matching) and exchange nothing among themselves; confinement acts on fluid only.
// Real-time mode then clamps every particle's speed, fluid or body, to P.maxSpeed (sim.ClampSpeeds' arithmetic).
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_PRED) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = BIND_OMEGA) readonly buffer Omega { vec4 omega[]; };
layout(std430, binding = BIND_NBR) readonly buffer Nbr { uint nbr[]; };
layout(std430, binding = BIND_NCOUNT) readonly buffer NCount { uint ncount[]; };
layout(std430, binding = BIND_VEL2) writeonly buffer Vel2 { vec4 vel2[]; };
layout(std430, binding = BIND_POS) writeonly buffer Pos { vec4 pos[]; };
layout(std430, binding = BIND_BODY) readonly buffer Body { int body[]; };
layout(std430, binding = BIND_WINV) readonly buffer WInv { float wInv[]; };

// Real-time mode's clamp (sim/step.go clampSpeed): a velocity faster than P.maxSpeed is scaled down to it, one that
// is not finite is left for the check below.
vec3 clampSpeed(vec3 v) {
	float l = P.maxSpeed;
	float s2 = v.x * v.x + v.y * v.y + v.z * v.z;
	if (!(s2 > l * l) || ((floatBitsToUint(s2) >> 23u) & 0xFFu) == 0xFFu) return v;
	float k = l / sqrt(s2);
	atomicAdd(counters.clampedSpeeds, 1u);
	return vec3(v.x * k, v.y * k, v.z * k);
}

// The new velocity of particle i; bodies says whether the step has rigid bodies (a constant at each call, so the
// compiler drops the body branches from the fluid-only copy).
void solve(uint i, bool bodies) {
	vec3 pi = pred[i].xyz;
	vec3 vi = vel[i].xyz;
	bool isBody = bodies && body[i] >= 0;
	vec3 wi = omega[i].xyz;
	float wiLen = sqrt(wi.x * wi.x + wi.y * wi.y + wi.z * wi.z);
	float ex = 0.0, ey = 0.0, ez = 0.0, sx = 0.0, sy = 0.0, sz = 0.0;
	uint base = i * P.stride;
	uint cnt = ncount[i];
	for (uint k = 0u; k < cnt; k++) {
		uint j = nbr[base + k];
		vec3 pj = pred[j].xyz;
		float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z;
		float r2 = rx * rx + ry * ry + rz * rz;
		if (r2 >= P.h2) continue;
		float w = poly6(r2);
		if (bodies) {
			if (isBody && body[j] >= 0) continue;
			w *= 2.0 * wInv[i] / (wInv[i] + wInv[j]);
		}
		if (!isBody) {
			vec3 wj = omega[j].xyz;
			float dw = sqrt(wj.x * wj.x + wj.y * wj.y + wj.z * wj.z) - wiLen;
			float g = dw * spikyGradScale(sqrt(r2));
			ex += g * rx;
			ey += g * ry;
			ez += g * rz;
		}
		vec3 vj = vel[j].xyz;
		sx += (vj.x - vi.x) * w;
		sy += (vj.y - vi.y) * w;
		sz += (vj.z - vi.z) * w;
	}
	float fx = 0.0, fy = 0.0, fz = 0.0;
	float l = sqrt(ex * ex + ey * ey + ez * ez);
	if (l > 1e-20 && P.vorticity > 0.0) {
		float nx = ex / l, ny = ey / l, nz = ez / l;
		fx = P.vorticity * (ny * wi.z - nz * wi.y);
		fy = P.vorticity * (nz * wi.x - nx * wi.z);
		fz = P.vorticity * (nx * wi.y - ny * wi.x);
	}
	float kc = P.xsph * P.mOverR0;
	vec3 v = vec3(vi.x + P.dt * fx + kc * sx, vi.y + P.dt * fy + kc * sy, vi.z + P.dt * fz + kc * sz);
	if (P.maxSpeed > 0.0) v = clampSpeed(v);
	if (!finite(v)) atomicAdd(counters.badValues, 1u);
	vel2[i] = vec4(v, 0.0);
	pos[i] = vec4(pi, 0.0);
}

void main() {
	uint i = globalIndex();
	if (i >= P.n) return;
	if (P.numBodies == 0u) {
		solve(i, false);
	} else {
		solve(i, true);
	}
}
