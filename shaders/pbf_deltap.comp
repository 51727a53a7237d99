#version 430 core
// Algorithm 1, lines 12–18: Δp_i with the artificial pressure s_corr (eq. 13–14) and the solids' min(λ_i, 0) ∇Φ_i, then
// collision with the domain and the obstacles. Jacobi: reads this iteration's positions, writes the next ones.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_PRED) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_PRED2) writeonly buffer Pred2 { vec4 pred2[]; };
layout(std430, binding = BIND_NBR) readonly buffer Nbr { uint nbr[]; };
layout(std430, binding = BIND_NCOUNT) readonly buffer NCount { uint ncount[]; };
layout(std430, binding = BIND_LAMBDA) readonly buffer Lambda { float lambda[]; };
layout(std430, binding = BIND_BGRAD) readonly buffer BGrad { vec4 bgrad[]; };

void main() {
	uint i = globalIndex();
	if (i >= P.n) return;
	vec3 pi = pred[i].xyz;
	float li = lambda[i];
	float dx = 0.0, dy = 0.0, dz = 0.0;
	uint base = i * P.stride;
	uint cnt = ncount[i];
	for (uint k = 0u; k < cnt; k++) {
		uint j = nbr[base + k];
		vec3 pj = pred[j].xyz;
		float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z;
		float r2 = rx * rx + ry * ry + rz * rz;
		if (r2 >= P.h2) continue;
		// s_corr = −k (W(r)/W(Δq))^n (eq. 13)
		float ratio = poly6(r2) * P.invWDq;
		float pw = ratio;
		for (int e = 1; e < P.scorrN; e++) pw *= ratio;
		float scorr = -P.scorrK * pw;
		float g = (li + lambda[j] + scorr) * spikyGradScale(sqrt(r2));
		dx += g * rx;
		dy += g * ry;
		dz += g * rz;
	}
	// the solids push (λ_i < 0) but never pull an under-dense particle onto them
	vec4 b = bgrad[i];
	float lb = min(li, 0.0);
	vec3 q = vec3(pi.x + P.mOverR0 * dx + lb * b.x, pi.y + P.mOverR0 * dy + lb * b.y, pi.z + P.mOverR0 * dz + lb * b.z);
	if (!finite(q)) atomicAdd(counters.badValues, 1u);
	pred2[i] = vec4(collide(q), 0.0);
}
