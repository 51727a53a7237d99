#version 430 core
// Second half of a multi-block scan: add each block's scanned total to its elements.
layout(local_size_x = GROUP_SIZE) in;
#include "compute_common.glsl"
layout(std430, binding = BIND_SCAN_DATA) buffer Data { uint data[]; };
layout(std430, binding = BIND_SCAN_SUMS) readonly buffer Sums { uint sums[]; };
uniform uint uCount;

void main() {
	uint i = globalIndex();
	if (i < uCount) data[i] += sums[i / uint(SCAN_BLOCK)];
}
