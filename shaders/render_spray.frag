#version 410 core
// Spray: a round white point, lit from above.
#include "render_common.glsl"

in float vShade;
out vec4 fragColor;

void main() {
	vec2 q = gl_PointCoord * 2.0 - 1.0;
	float r2 = dot(q, q);
	if (r2 > 1.0) {
		discard;
	}
	float lit = 0.8 + 0.2 * sqrt(1.0 - r2) - 0.1 * q.y; // gl_PointCoord.y grows downward
	fragColor = vec4(vec3(0.96, 0.98, 1.0) * lit * vShade, 1.0);
}
