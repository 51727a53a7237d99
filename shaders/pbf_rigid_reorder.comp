#version 430 core
// With rigid bodies, alongside pbf_reorder.comp: gather the per-particle body arrays (body, rest offset) into the
// grid's sorted order, set each particle's inverse mass from its body's in the body table (which follows the rest
// density: sim/pbf updateBodyMasses), and build the id → slot map through which the per-body passes find a body's
// particles (sim/pbf sortByCell).
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
#include "pbf_rigid.glsl"
layout(std430, binding = BIND_IDS) readonly buffer Ids { uint ids[]; };
layout(std430, binding = BIND_BODY) readonly buffer Body { int body[]; };
layout(std430, binding = BIND_REST) readonly buffer Rest { vec4 rest[]; };
layout(std430, binding = BIND_BODY2) writeonly buffer Body2 { int body2[]; };
layout(std430, binding = BIND_REST2) writeonly buffer Rest2 { vec4 rest2[]; };
layout(std430, binding = BIND_WINV2) writeonly buffer WInv2 { float wInv2[]; };
layout(std430, binding = BIND_SLOT_OF) writeonly buffer SlotOf { uint slotOf[]; };
layout(std430, binding = BIND_BODIES) readonly buffer Bodies { BodyRecord bodies[]; };

void main() {
	uint k = globalIndex();
	if (k >= P.n) return;
	uint src = nsOrder[k];
	int b = body[src];
	body2[k] = b;
	rest2[k] = rest[src];
	wInv2[k] = b >= 0 ? bodies[b].invMass : 1.0;
	slotOf[ids[src]] = k;
}
