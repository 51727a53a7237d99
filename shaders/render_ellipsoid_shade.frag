#version 410 core
// The ellipsoids render mode: each particle's ellipsoid ray-cast and shaded like the sphere impostors, with its
// exact depth, unsmoothed — what the surface is built from.
#include "render_common.glsl"
#include "render_ellipsoid.glsl"

in vec3 vRay;
flat in vec3 vR0;
flat in vec3 vR1;
flat in vec3 vR2;
flat in vec3 vC;
flat in vec3 vColor;
out vec4 fragColor;

void main() {
	float t0, t1;
	if (!rayEllipsoid(vRay, vR0, vR1, vR2, vC, t0, t1) || t0 < uClip.x) {
		discard;
	}
	vec3 hit = t0 * vRay;
	gl_FragDepth = windowDepth(hit);
	vec3 n = ellipsoidNormal(vRay, t0, vR0, vR1, vR2, vC);
	vec3 v = -normalize(vRay);
	vec3 l = normalize(mat3(uView) * uLightDir.xyz);
	vec3 up = mat3(uView) * vec3(0.0, 1.0, 0.0);
	vec3 c = shade(vColor, n, l, v, dot(n, up), 0.35, 48.0);
	c += 0.12 * pow(1.0 - max(dot(n, v), 0.0), 3.0) * vec3(0.9, 0.95, 1.0);
	fragColor = vec4(c, 1.0);
}
