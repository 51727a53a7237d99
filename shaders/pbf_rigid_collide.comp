#version 430 core
// After the last shape match, rigid collision of every body with the domain and the obstacles (sim/pbf
// collideBodies), one workgroup per body: the largest positive and negative correction its particles need along
// each axis (max and min: exact in any order), then the whole body moves by their sum.
layout(local_size_x = BODY_GROUP) in;
#include "pbf_common.glsl"
#include "pbf_rigid.glsl"
layout(std430, binding = BIND_PRED) buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_SLOT_OF) readonly buffer SlotOf { uint slotOf[]; };
layout(std430, binding = BIND_BODIES) readonly buffer Bodies { BodyRecord bodies[]; };

void main() {
	uint b = groupIndex();
	if (b >= P.numBodies) return; // the whole workgroup leaves together
	uint t = gl_LocalInvocationID.x;
	uint first = bodies[b].first;
	uint end = first + bodies[b].count;
	vec3 up = vec3(0.0), down = vec3(0.0);
	for (uint id = first + t; id < end; id += uint(BODY_GROUP)) {
		vec3 p = pred[slotOf[id]].xyz;
		vec3 q = collide(p);
		vec3 d = vec3(q.x - p.x, q.y - p.y, q.z - p.z);
		up = max(up, d);
		down = min(down, d);
	}
	sRed[3u * t] = vec4(up, 0.0);
	sRed[3u * t + 1u] = vec4(down, 0.0);
	sRed[3u * t + 2u] = vec4(0.0);
	reduceBody(t, REDUCE_MAX_MIN);
	vec3 tr = vec3(sRed[0].x + sRed[1].x, sRed[0].y + sRed[1].y, sRed[0].z + sRed[1].z);
	if (tr == vec3(0.0)) return;
	for (uint id = first + t; id < end; id += uint(BODY_GROUP)) {
		uint slot = slotOf[id];
		vec3 p = pred[slot].xyz;
		pred[slot] = vec4(p.x + tr.x, p.y + tr.y, p.z + tr.z, 0.0);
	}
}
