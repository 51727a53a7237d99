#version 430 core
// After the neighbour grid is built (gpu/nsearch): gather the particle arrays into its sorted order, for memory
// coherence and so slot k of the grid is particle k.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = BIND_VEL) readonly buffer Vel { vec4 vel[]; };
layout(std430, binding = BIND_PRED) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_IDS) readonly buffer Ids { uint ids[]; };
layout(std430, binding = BIND_POS2) writeonly buffer Pos2 { vec4 pos2[]; };
layout(std430, binding = BIND_VEL2) writeonly buffer Vel2 { vec4 vel2[]; };
layout(std430, binding = BIND_PRED2) writeonly buffer Pred2 { vec4 pred2[]; };
layout(std430, binding = BIND_IDS2) writeonly buffer Ids2 { uint ids2[]; };
// material numbers, one byte per particle, four to a word (the renderer reads them as bytes)
layout(std430, binding = BIND_MAT) readonly buffer Materials { uint materials[]; };
layout(std430, binding = BIND_MAT2) writeonly buffer Materials2 { uint materials2[]; };

uint materialOf(uint i) { return (materials[i >> 2u] >> (8u * (i & 3u))) & 0xFFu; }

void main() {
	uint k = globalIndex();
	if (k >= P.n) return;
	uint src = nsOrder[k];
	pos2[k] = pos[src];
	vel2[k] = vel[src];
	pred2[k] = pred[src];
	ids2[k] = ids[src];
	// a word of bytes is written whole, by the invocation of its first slot: no two invocations share a word
	if ((k & 3u) == 0u) {
		uint w = 0u;
		for (uint b = 0u; b < 4u && k + b < P.n; b++) {
			w |= materialOf(nsOrder[k + b]) << (8u * b);
		}
		materials2[k >> 2u] = w;
	}
}
