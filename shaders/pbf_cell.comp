#version 430 core
// Neighbour grid, step 1: each particle's cell, and how many particles each cell holds.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_PRED) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_CELL) writeonly buffer CellOf { uint cellOf[]; };
layout(std430, binding = BIND_COUNT) buffer Count { uint count[]; };

void main() {
	uint i = globalIndex();
	if (i >= P.n) return;
	uint c = cellIndex(pred[i].xyz);
	cellOf[i] = c;
	atomicAdd(count[c], 1u);
}
