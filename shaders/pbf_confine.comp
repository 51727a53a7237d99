#version 430 core
// Algorithm 1, lines 22–23: vorticity confinement f = ε (N × ω) (eq. 16) with N = η/|η|,
// η = Σ_j (m/ρ0)(|ω_j| − |ω_i|) ∇_i W_ij, and XSPH viscosity v_i += c Σ_j (m/ρ0) v_ij W_ij (eq. 17); then x_i = x*_i.
// A body particle keeps its velocity, its body's rigid motion (sim/pbf confineAndSmooth).
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

void main() {
	uint i = globalIndex();
	if (i >= P.n) return;
	vec3 pi = pred[i].xyz;
	vec3 vi = vel[i].xyz;
	if (P.numBodies > 0u && body[i] >= 0) {
		if (!finite(vi)) atomicAdd(counters.badValues, 1u);
		vel2[i] = vec4(vi, 0.0);
		pos[i] = vec4(pi, 0.0);
		return;
	}
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
		vec3 wj = omega[j].xyz;
		float dw = sqrt(wj.x * wj.x + wj.y * wj.y + wj.z * wj.z) - wiLen;
		float g = dw * spikyGradScale(sqrt(r2));
		ex += g * rx;
		ey += g * ry;
		ez += g * rz;
		float w = poly6(r2);
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
	if (!finite(v)) atomicAdd(counters.badValues, 1u);
	vel2[i] = vec4(v, 0.0);
	pos[i] = vec4(pi, 0.0);
}
