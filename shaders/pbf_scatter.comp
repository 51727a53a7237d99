#version 430 core
// Neighbour grid, step 3 (after the prefix sum turned counts into cell starts): each particle takes a slot in its
// cell's range. Slots within a cell come in atomic order; pbf_cellsort.comp restores id order.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_CELL) readonly buffer CellOf { uint cellOf[]; };
layout(std430, binding = BIND_COUNT) readonly buffer Start { uint start[]; };
layout(std430, binding = BIND_FILL) buffer Fill { uint fill[]; };
layout(std430, binding = BIND_ORDER) writeonly buffer Order { uint order[]; };

void main() {
	uint i = globalIndex();
	if (i >= P.n) return;
	uint c = cellOf[i];
	order[start[c] + atomicAdd(fill[c], 1u)] = i;
}
