#version 430 core
// Algorithm 1, lines 5–7: each particle's neighbours within h of its predicted position, visiting the 27 cells
// z-major with a row's three cells as one contiguous range (as sim/grid does), cut at the list capacity.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_PRED) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_NBR) writeonly buffer Nbr { uint nbr[]; };
layout(std430, binding = BIND_NCOUNT) writeonly buffer NCount { uint ncount[]; };

void main() {
	uint i = globalIndex();
	if (i >= P.n) return;
	vec3 pi = pred[i].xyz;
	ivec3 c = nsCellCoord(pi);
	uint base = i * P.stride;
	uint k = 0u;
	bool full = false;
	for (int dz = -1; dz <= 1; dz++) {
		for (int dy = -1; dy <= 1; dy++) {
			uint jBegin, jEnd;
			if (!nsRow(c, dy, dz, jBegin, jEnd)) continue;
			// the arrays are in grid order, so slot j holds particle j
			for (uint j = jBegin; j < jEnd; j++) {
				if (j == i) continue;
				vec3 pj = pred[j].xyz;
				float ex = pi.x - pj.x, ey = pi.y - pj.y, ez = pi.z - pj.z;
				if (ex * ex + ey * ey + ez * ez < P.h2) {
					if (k < P.stride) {
						nbr[base + k] = j;
						k++;
					} else {
						full = true;
					}
				}
			}
		}
	}
	ncount[i] = k;
	if (full) atomicAdd(counters.clippedLists, 1u);
}
