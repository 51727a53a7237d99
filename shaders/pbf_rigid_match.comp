#version 430 core
// Shape matching (Müller et al. 2005, stiffness 1) of every rigid body after each Δp pass (sim/pbf matchShapes),
// one workgroup per body: the centre of mass c of its particles (found through the id → slot map, summed as offsets
// from the body's last centre), A = Σ (x_i − c) r_iᵀ against their rest offsets r_i, the rotation R of A
// warm-started from the body's last one, then every x_i = c + R r_i. The sums run in a fixed order (each
// invocation's strided share, then a tree), so the result is deterministic; it differs from the Go code's id-order
// sums by rounding only. With uInIDOrder (for tests) one invocation sums every particle in id order, as the Go code
// does, and the two agree to a few ulps.
layout(local_size_x = BODY_GROUP) in;
#include "pbf_common.glsl"
#include "pbf_rigid.glsl"
layout(std430, binding = BIND_PRED) buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_REST) readonly buffer Rest { vec4 rest[]; };
layout(std430, binding = BIND_SLOT_OF) readonly buffer SlotOf { uint slotOf[]; };
layout(std430, binding = BIND_BODIES) buffer Bodies { BodyRecord bodies[]; };

uniform bool uInIDOrder;

shared vec4 sRot;

void main() {
	uint b = groupIndex();
	if (b >= P.numBodies) return; // the whole workgroup leaves together
	uint t = gl_LocalInvocationID.x;
	uint first = bodies[b].first;
	uint count = bodies[b].count;
	uint end = first + count;
	// the sums' share of this invocation: ids from, from+step, ... below end
	uint from = first + t, step = uint(BODY_GROUP);
	if (uInIDOrder) {
		from = t == 0u ? first : end;
		step = 1u;
	}
	// the centre as the last one plus the mean offset from it (sim/pbf matchShapes): sums of offsets round far less
	// than sums of positions, so the tree's order and the Go code's id order agree closely
	vec3 c0 = bodies[b].center.xyz;
	float cx = 0.0, cy = 0.0, cz = 0.0;
	for (uint id = from; id < end; id += step) {
		vec3 p = pred[slotOf[id]].xyz;
		cx += p.x - c0.x;
		cy += p.y - c0.y;
		cz += p.z - c0.z;
	}
	sRed[3u * t] = vec4(cx, cy, cz, 0.0);
	sRed[3u * t + 1u] = vec4(0.0);
	sRed[3u * t + 2u] = vec4(0.0);
	reduceBody(t, REDUCE_SUM);
	float k = 1.0 / float(count);
	vec3 c = vec3(c0.x + sRed[0].x * k, c0.y + sRed[0].y * k, c0.z + sRed[0].z * k);
	barrier(); // every invocation has read the centre before the slots are reused

	vec3 a0 = vec3(0.0), a1 = vec3(0.0), a2 = vec3(0.0); // the rows of Σ (x_i − c) r_iᵀ
	for (uint id = from; id < end; id += step) {
		uint slot = slotOf[id];
		vec3 p = pred[slot].xyz;
		vec3 r = rest[slot].xyz;
		float dx = p.x - c.x, dy = p.y - c.y, dz = p.z - c.z;
		a0 += vec3(dx * r.x, dx * r.y, dx * r.z);
		a1 += vec3(dy * r.x, dy * r.y, dy * r.z);
		a2 += vec3(dz * r.x, dz * r.y, dz * r.z);
	}
	sRed[3u * t] = vec4(a0, 0.0);
	sRed[3u * t + 1u] = vec4(a1, 0.0);
	sRed[3u * t + 2u] = vec4(a2, 0.0);
	reduceBody(t, REDUCE_SUM);
	if (t == 0u) {
		vec4 q = extractRotation(mat3(sRed[0].xyz, sRed[1].xyz, sRed[2].xyz), bodies[b].rot);
		bodies[b].rot = q;
		bodies[b].center = vec4(c, 0.0);
		sRot = q;
	}
	memoryBarrierShared();
	barrier();

	// the sums' reads of pred all happened before the barriers above
	mat3 m = quatRows(sRot);
	for (uint id = first + t; id < end; id += uint(BODY_GROUP)) {
		uint slot = slotOf[id];
		vec3 r = rest[slot].xyz;
		float x = m[0].x * r.x + m[0].y * r.y + m[0].z * r.z;
		float y = m[1].x * r.x + m[1].y * r.y + m[1].z * r.z;
		float z = m[2].x * r.x + m[2].y * r.y + m[2].z * r.z;
		pred[slot] = vec4(c.x + x, c.y + y, c.z + z, 0.0);
	}
}
