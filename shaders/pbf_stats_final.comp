#version 430 core
// Statistics, step 2: one workgroup reduces the partial records into the step's record, with the counters.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
#include "pbf_stats.glsl"
layout(std430, binding = BIND_PARTIAL) readonly buffer Partials { StatsRecord partial[]; };
layout(std430, binding = BIND_STATS) writeonly buffer Stats { StatsRecord total; };
uniform uint uGroups;
uniform uint uStep;

void main() {
	uint t = gl_LocalInvocationID.x;
	StatsRecord r = emptyRecord();
	for (uint g = t; g < uGroups; g += uint(GROUP_SIZE)) r = combine(r, partial[g]);
	reduceGroup(r, t);
	if (t == 0u) {
		StatsRecord s = shared_r[0];
		s.clipped = counters.clippedLists;
		s.clamped = counters.clampedSpeeds;
		s.badTotal = counters.badValues;
		s.step = uStep;
		total = s;
	}
}
