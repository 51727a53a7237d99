#version 430 core
// Algorithm 1, lines 9–11: density ρ_i (eq. 2, plus the solids' Φ_i), constraint C_i (eq. 1) and the scaling
// factor λ_i with CFM relaxation (eq. 11). With rigid bodies, body particles carry no constraint of their own and
// each neighbour's gradient² is weighted by its inverse mass (sim/pbf computeLambda).
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_PRED) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_NBR) readonly buffer Nbr { uint nbr[]; };
layout(std430, binding = BIND_NCOUNT) readonly buffer NCount { uint ncount[]; };
layout(std430, binding = BIND_RHO) writeonly buffer Rho { float rho[]; };
layout(std430, binding = BIND_LAMBDA) writeonly buffer Lambda { float lambda[]; };
layout(std430, binding = BIND_BGRAD) writeonly buffer BGrad { vec4 bgrad[]; };
layout(std430, binding = BIND_BODY) readonly buffer Body { int body[]; };
layout(std430, binding = BIND_WINV) readonly buffer WInv { float wInv[]; };

// ρ_i, C_i and λ_i of particle i; bodies says whether the step has rigid bodies (a constant at each call, so the
// compiler drops the body branches from the fluid-only copy).
void solve(uint i, bool bodies) {
	if (bodies && body[i] >= 0) { // body particles carry no density constraint of their own
		lambda[i] = 0.0;
		rho[i] = 1.0;
		bgrad[i] = vec4(0.0);
		return;
	}
	vec3 pi = pred[i].xyz;
	float density = P.w0;
	float gx = 0.0, gy = 0.0, gz = 0.0, sum2 = 0.0;
	uint base = i * P.stride;
	uint cnt = ncount[i];
	for (uint k = 0u; k < cnt; k++) {
		uint j = nbr[base + k];
		vec3 pj = pred[j].xyz;
		float rx = pi.x - pj.x, ry = pi.y - pj.y, rz = pi.z - pj.z;
		float r2 = rx * rx + ry * ry + rz * rz;
		if (r2 >= P.h2) continue;
		density += poly6(r2);
		// ∇_{p_j} C_i = −(m/ρ0) ∇W_ij (eq. 8, k = j), weighted in the denominator by j's inverse mass
		float g = P.mOverR0 * spikyGradScale(sqrt(r2));
		float gjx = g * rx, gjy = g * ry, gjz = g * rz;
		float g2 = gjx * gjx + gjy * gjy + gjz * gjz;
		if (bodies) g2 *= wInv[j];
		sum2 += g2;
		gx += gjx;
		gy += gjy;
		gz += gjz;
	}
	vec4 b = boundary(pi);
	bgrad[i] = b;
	gx = gx + b.x;
	gy = gy + b.y;
	gz = gz + b.z;
	density = density * P.mOverR0 + b.w;
	float c = density - 1.0;
	if (P.unilateral != 0 && c < 0.0) c = 0.0;
	rho[i] = density;
	lambda[i] = -c / (sum2 + gx * gx + gy * gy + gz * gz + P.epsilon);
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
