#version 430 core
// Eq. 15: vorticity ω_i = Σ_j (m/ρ0) ∇_i W_ij × v_ij, and the density at the final positions for the statistics
// and the renderer. Body particles get their ω too, from every neighbour, so the fluid's η = ∇|ω| beside a body sees
// the flow's rotation; their density stays 1 (sim/pbf computeVorticity).
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_PRED) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = BIND_NBR) readonly buffer Nbr { uint nbr[]; };
layout(std430, binding = BIND_NCOUNT) readonly buffer NCount { uint ncount[]; };
layout(std430, binding = BIND_RHO) writeonly buffer Rho { float rho[]; };
layout(std430, binding = BIND_OMEGA) writeonly buffer Omega { vec4 omega[]; };
layout(std430, binding = BIND_BODY) readonly buffer Body { int body[]; };

void main() {
	uint i = globalIndex();
	if (i >= P.n) return;
	vec3 pi = pred[i].xyz;
	vec3 vi = vel[i].xyz;
	float density = P.w0;
	float wx = 0.0, wy = 0.0, wz = 0.0;
	uint base = i * P.stride;
	uint cnt = ncount[i];
	for (uint k = 0u; k < cnt; k++) {
		uint j = nbr[base + k];
		vec3 pj = pred[j].xyz;
		float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z;
		float r2 = rx * rx + ry * ry + rz * rz;
		if (r2 >= P.h2) continue;
		density += poly6(r2);
		float g = spikyGradScale(sqrt(r2));
		float gx = g * rx, gy = g * ry, gz = g * rz;
		vec3 vj = vel[j].xyz;
		float ux = vj.x - vi.x, uy = vj.y - vi.y, uz = vj.z - vi.z;
		wx += gy * uz - gz * uy;
		wy += gz * ux - gx * uz;
		wz += gx * uy - gy * ux;
	}
	omega[i] = vec4(P.mOverR0 * wx, P.mOverR0 * wy, P.mOverR0 * wz, 0.0);
	if (P.numBodies > 0u && body[i] >= 0) {
		rho[i] = 1.0;
		return;
	}
	rho[i] = density * P.mOverR0 + boundary(pi).w;
}
