#version 430 core
// Neighbour grid build, step 1: each particle's cell, and how many particles each cell holds.
layout(local_size_x = GROUP_SIZE) in;
#include "nsearch_build.glsl"

void main() {
	uint i = globalIndex();
	if (i >= nsN) return;
	uint c = nsCellIndex(nsPos[i].xyz);
	nsCell[i] = c;
	atomicAdd(nsCount[c], 1u);
}
