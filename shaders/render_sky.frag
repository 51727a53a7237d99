#version 410 core
// Background: a procedural sky gradient over the view direction, with a soft glow around the light.
#include "render_common.glsl"

in vec2 vNDC;
out vec4 fragColor;

void main() {
	vec4 far = uInvViewProj * vec4(vNDC, 1.0, 1.0);
	vec3 dir = normalize(far.xyz / far.w - uEye.xyz);
	vec3 c;
	if (dir.y >= 0.0) {
		c = mix(SKY_HORIZON, SKY_ZENITH, pow(dir.y, 0.6));
	} else {
		c = mix(SKY_HORIZON, SKY_NADIR, pow(-dir.y, 0.5));
	}
	float sun = max(dot(dir, uLightDir.xyz), 0.0);
	c += vec3(1.0, 0.95, 0.85) * 0.12 * pow(sun, 24.0);
	fragColor = vec4(c, 1.0);
}
