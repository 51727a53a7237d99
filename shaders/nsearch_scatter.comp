#version 430 core
// Neighbour grid build, step 3 (after the prefix sum turned the counts into cell starts): each particle takes a
// slot in its cell's range. Slots within a cell come in atomic order; nsearch_sort.comp makes it deterministic.
layout(local_size_x = GROUP_SIZE) in;
#include "nsearch_build.glsl"

void main() {
	uint i = globalIndex();
	if (i >= nsN) return;
	uint c = nsCell[i];
	nsOrderW[nsCount[c] + atomicAdd(nsFill[c], 1u)] = i;
}
