#version 430 core
// Algorithm 1, lines 1–4: apply gravity, predict positions, keep the predictions inside the boundaries.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
#include "pbf_rigid.glsl"
layout(std430, binding = BIND_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = BIND_BODY) readonly buffer Body { int body[]; };
layout(std430, binding = BIND_BODIES) readonly buffer Bodies { BodyRecord bodies[]; };
layout(std430, binding = BIND_VEL) buffer Vel { vec4 vel[]; };
layout(std430, binding = BIND_PRED) writeonly buffer Pred { vec4 pred[]; };

void main() {
	uint i = globalIndex();
	if (i >= P.n) return;
	vec3 v = vel[i].xyz;
	int b = P.numBodies > 0u ? body[i] : -1;
	if (b >= 0 && bodies[b].drive.w != 0.0) {
		v = bodies[b].drive.xyz; // a dragged body: held at the drive velocity, no gravity (sim/pbf predict)
	} else {
		v = vec3(v.x + P.dt * P.gravity.x, v.y + P.dt * P.gravity.y, v.z + P.dt * P.gravity.z);
	}
	vec3 x = pos[i].xyz;
	vec3 q = vec3(x.x + P.dt * v.x, x.y + P.dt * v.y, x.z + P.dt * v.z);
	if (!finite(v) || !finite(q)) atomicAdd(counters.badValues, 1u);
	vel[i] = vec4(v, 0.0);
	pred[i] = vec4(collide(q), 0.0);
}
