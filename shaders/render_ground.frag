#version 410 core
// Ground: anti-aliased grid lines (1 m major, 0.1 m minor) that fade out with distance from the eye.
#include "render_common.glsl"

uniform float uFade; // distance at which the ground has faded into the sky, m

in vec3 vWorld;
out vec4 fragColor;

// gridLine is the coverage of lines every `spacing` metres, `widthPx` pixels wide; lines closer together than a
// few pixels fade out instead of aliasing.
float gridLine(vec2 p, float spacing, float widthPx) {
	vec2 c = p / spacing;
	vec2 fw = max(fwidth(c), vec2(1e-6));
	vec2 dist = abs(fract(c - 0.5) - 0.5) / fw; // distance to the nearest line, pixels
	float line = 1.0 - clamp(min(dist.x, dist.y) - 0.5 * widthPx + 0.5, 0.0, 1.0);
	return line * (1.0 - smoothstep(0.1, 0.35, max(fw.x, fw.y)));
}

void main() {
	float major = gridLine(vWorld.xz, 1.0, 1.5);
	float minor = gridLine(vWorld.xz, 0.1, 1.0);
	vec3 c = vec3(0.74, 0.73, 0.70);
	c = mix(c, vec3(0.50, 0.50, 0.52), minor * 0.5);
	c = mix(c, vec3(0.30, 0.30, 0.33), major * 0.8);
	float d = length(vWorld - uEye.xyz);
	float alpha = 1.0 - smoothstep(0.2 * uFade, uFade, d);
	fragColor = vec4(c, alpha);
}
