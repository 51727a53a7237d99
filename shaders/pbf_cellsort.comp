#version 430 core
// Neighbour grid, step 4: one thread per cell sorts its particles by id (insertion sort: cells hold a handful),
// making the order a function of positions and ids alone — the same order sim/grid builds on the CPU.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_COUNT) readonly buffer Start { uint start[]; };
layout(std430, binding = BIND_IDS) readonly buffer Ids { uint ids[]; };
layout(std430, binding = BIND_ORDER) buffer Order { uint order[]; };

void main() {
	uint c = globalIndex();
	if (c >= P.numCells) return;
	uint s = start[c];
	uint e = start[c + 1u];
	for (uint a = s + 1u; a < e; a++) {
		uint v = order[a];
		uint key = ids[v];
		uint b = a;
		while (b > s && ids[order[b - 1u]] > key) {
			order[b] = order[b - 1u];
			b--;
		}
		order[b] = v;
	}
}
