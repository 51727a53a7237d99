#version 430 core
// Exclusive prefix sum of one block of SCAN_BLOCK uints in shared memory (Blelloch's up-sweep and down-sweep);
// the block's total goes to sums[block] for the next level.
layout(local_size_x = SCAN_THREADS) in;
#include "compute_common.glsl"
layout(std430, binding = BIND_SCAN_DATA) buffer Data { uint data[]; };
layout(std430, binding = BIND_SCAN_SUMS) writeonly buffer Sums { uint sums[]; };
uniform uint uCount;

shared uint temp[SCAN_BLOCK];

void main() {
	uint t = gl_LocalInvocationID.x;
	uint base = groupIndex() * uint(SCAN_BLOCK);
	uint a = base + 2u * t;
	uint b = a + 1u;
	temp[2u * t] = a < uCount ? data[a] : 0u;
	temp[2u * t + 1u] = b < uCount ? data[b] : 0u;

	uint offset = 1u;
	for (uint d = uint(SCAN_BLOCK) >> 1; d > 0u; d >>= 1) {
		memoryBarrierShared();
		barrier();
		if (t < d) {
			uint ai = offset * (2u * t + 1u) - 1u;
			uint bi = offset * (2u * t + 2u) - 1u;
			temp[bi] += temp[ai];
		}
		offset <<= 1;
	}
	memoryBarrierShared();
	barrier();
	if (t == 0u) {
		sums[groupIndex()] = temp[SCAN_BLOCK - 1];
		temp[SCAN_BLOCK - 1] = 0u;
	}
	for (uint d = 1u; d < uint(SCAN_BLOCK); d <<= 1) {
		offset >>= 1;
		memoryBarrierShared();
		barrier();
		if (t < d) {
			uint ai = offset * (2u * t + 1u) - 1u;
			uint bi = offset * (2u * t + 2u) - 1u;
			uint x = temp[ai];
			temp[ai] = temp[bi];
			temp[bi] += x;
		}
	}
	memoryBarrierShared();
	barrier();
	if (a < uCount) data[a] = temp[2u * t];
	if (b < uCount) data[b] = temp[2u * t + 1u];
}
