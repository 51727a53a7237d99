#version 430 core
// Statistics, step 1: each workgroup reduces its particles' compression, speed, neighbour counts and non-finite
// values to one partial record (a fixed-order tree, so the result is deterministic). Non-finite values count for
// every particle; the rest describes the fluid, without rigid bodies' particles.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
#include "pbf_stats.glsl"
layout(std430, binding = BIND_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = BIND_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = BIND_RHO) readonly buffer Rho { float rho[]; };
layout(std430, binding = BIND_NCOUNT) readonly buffer NCount { uint ncount[]; };
layout(std430, binding = BIND_BODY) readonly buffer Body { int body[]; };
layout(std430, binding = BIND_PARTIAL) writeonly buffer Partials { StatsRecord partial[]; };

void main() {
	uint i = globalIndex();
	uint t = gl_LocalInvocationID.x;
	StatsRecord r = emptyRecord();
	if (i < P.n) {
		vec3 x = pos[i].xyz, v = vel[i].xyz;
		vec3 g = P.gravity.xyz;
		float gn = length(g);
		vec3 up = gn > 0.0 ? -g / gn : vec3(0.0);
		if (!finite(x) || !finite(v)) {
			r.bad = 1u;
			r.maxV2All = HUGE;
		} else {
			r.maxV2All = dot(v, v);
			float z = dot(x, up);
			r.upLo = z;
			r.upHi = z;
		}
		if (r.bad == 0u && (P.numBodies == 0u || body[i] < 0)) {
			float e = rho[i] - 1.0;
			if (e > 0.0) {
				r.sumErr = e;
				r.maxErr = e;
			}
			r.maxV2 = v.x * v.x + v.y * v.y + v.z * v.z;
			r.sumN = ncount[i];
			r.maxN = ncount[i];
		}
	}
	reduceGroup(r, t);
	if (t == 0u) partial[groupIndex()] = shared_r[0];
}
