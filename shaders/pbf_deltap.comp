#version 430 core
// Algorithm 1, lines 12–18: Δp_i with the artificial pressure s_corr (eq. 13–14) and the solids' min(λ_i, 0) ∇Φ_i, then
// collision with the domain and the obstacles. Jacobi: reads this iteration's positions, writes the next ones.
// With rigid bodies (sim/pbf applyDeltaP), a body particle gathers the corrections of its fluid neighbours'
// constraints, scaled by its inverse mass, and keeps two radii away from particles of other bodies.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_PRED) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_PRED2) writeonly buffer Pred2 { vec4 pred2[]; };
layout(std430, binding = BIND_NBR) readonly buffer Nbr { uint nbr[]; };
layout(std430, binding = BIND_NCOUNT) readonly buffer NCount { uint ncount[]; };
layout(std430, binding = BIND_LAMBDA) readonly buffer Lambda { float lambda[]; };
layout(std430, binding = BIND_BGRAD) readonly buffer BGrad { vec4 bgrad[]; };
layout(std430, binding = BIND_BODY) readonly buffer Body { int body[]; };
layout(std430, binding = BIND_WINV) readonly buffer WInv { float wInv[]; };

// Δp_i and the new position of particle i; bodies says whether the step has rigid bodies (a constant at each
// call, so the compiler drops the body branches from the fluid-only copy).
void solve(uint i, bool bodies) {
	vec3 pi = pred[i].xyz;
	float li = lambda[i];
	int bi = bodies ? body[i] : -1;
	bool isBody = bi >= 0;
	float contact = 2.0 * P.lo.w;
	float dx = 0.0, dy = 0.0, dz = 0.0, cx = 0.0, cy = 0.0, cz = 0.0;
	uint base = i * P.stride;
	uint cnt = ncount[i];
	for (uint k = 0u; k < cnt; k++) {
		uint j = nbr[base + k];
		vec3 pj = pred[j].xyz;
		float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z;
		float r2 = rx * rx + ry * ry + rz * rz;
		if (r2 >= P.h2) continue;
		if (isBody && body[j] >= 0) {
			// two bodies' particles closer than two radii: push apart, the lighter one further
			if (body[j] != bi && r2 < contact * contact && r2 > 0.0) {
				float d = sqrt(r2);
				float wi = wInv[i];
				float kc = (contact - d) / d * wi / (wi + wInv[j]);
				cx += kc * rx;
				cy += kc * ry;
				cz += kc * rz;
			}
			continue;
		}
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
	vec3 q;
	if (isBody) {
		float w = wInv[i] * P.mOverR0;
		q = vec3(pi.x + w * dx + cx, pi.y + w * dy + cy, pi.z + w * dz + cz);
	} else {
		// the solids push (λ_i < 0) but never pull an under-dense particle onto them
		vec4 b = bgrad[i];
		float lb = min(li, 0.0);
		q = vec3(pi.x + P.mOverR0 * dx + lb * b.x, pi.y + P.mOverR0 * dy + lb * b.y, pi.z + P.mOverR0 * dz + lb * b.z);
	}
	if (!finite(q)) atomicAdd(counters.badValues, 1u);
	pred2[i] = vec4(collide(q), 0.0);
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
