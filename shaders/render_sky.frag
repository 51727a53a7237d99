#version 410 core
// Background: the procedural sky of render_common.glsl over the view direction.
#include "render_common.glsl"

in vec2 vNDC;
uniform float uAlpha; // 1; 0 for a transparent background (Renderer.SetTransparent)
out vec4 fragColor;

void main() {
	vec4 far = uInvViewProj * vec4(vNDC, 1.0, 1.0);
	vec3 dir = normalize(far.xyz / far.w - uEye.xyz);
	fragColor = vec4(skyColor(dir), uAlpha);
}
