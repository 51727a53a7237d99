#version 410 core
// Sphere impostor: intersect the eye ray through this fragment with the particle's sphere (exactly, in
// perspective), discard misses, shade the hit and write its depth so spheres meet each other and the scene
// correctly.
#include "render_common.glsl"

uniform float uRadius;

in vec3 vViewPos;
flat in vec3 vCenter;
flat in vec3 vColor;
out vec4 fragColor;

void main() {
	vec3 dir = normalize(vViewPos); // the eye is the origin of eye space
	float b = dot(dir, vCenter);
	vec3 off = vCenter - b * dir;            // from the ray's closest approach to the centre
	float disc = uRadius * uRadius - dot(off, off);
	if (disc < 0.0) {
		discard;
	}
	float t = b - sqrt(disc);
	vec3 hit = t * dir;
	vec3 n = (hit - vCenter) / uRadius;
	vec3 v = -dir;

	gl_FragDepth = windowDepth(hit);

	vec3 l = normalize(mat3(uView) * uLightDir.xyz);
	vec3 up = mat3(uView) * vec3(0.0, 1.0, 0.0);
	vec3 c = shade(vColor, n, l, v, dot(n, up), 0.35, 48.0);
	float rim = pow(1.0 - max(dot(n, v), 0.0), 3.0);
	c += 0.12 * rim * vec3(0.9, 0.95, 1.0);
	fragColor = vec4(c, 1.0);
}
