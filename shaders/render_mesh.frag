#version 410 core
// Obstacles: a neutral stone, Lambert with a little specular.
#include "render_common.glsl"

uniform vec3 uColor;

in vec3 vWorld;
in vec3 vNormal;
out vec4 fragColor;

void main() {
	vec3 n = normalize(vNormal);
	vec3 v = normalize(uEye.xyz - vWorld);
	fragColor = vec4(shade(uColor, n, uLightDir.xyz, v, n.y, 0.12, 32.0), 1.0);
}
