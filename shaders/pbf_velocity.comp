#version 430 core
// Algorithm 1, line 21: v_i = (x*_i − x_i) / Δt.
layout(local_size_x = GROUP_SIZE) in;
#include "pbf_common.glsl"
layout(std430, binding = BIND_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = BIND_PRED) readonly buffer Pred { vec4 pred[]; };
layout(std430, binding = BIND_VEL) writeonly buffer Vel { vec4 vel[]; };

void main() {
	uint i = globalIndex();
	if (i >= P.n) return;
	float inv = 1.0 / P.dt;
	vec3 p = pred[i].xyz, x = pos[i].xyz;
	vel[i] = vec4((p.x - x.x) * inv, (p.y - x.y) * inv, (p.z - x.z) * inv, 0.0);
}
