#version 410 core
// Fluid depth: the eye depth of the nearest ellipsoid along each pixel's ray, exact, into an R32F target (0 where
// no fluid is), with the matching gl_FragDepth so that the depth test keeps the nearest and hides the fluid behind
// the opaque scene, whose depth the target starts with.
#include "render_common.glsl"
#include "render_ellipsoid.glsl"

in vec3 vRay;
flat in vec3 vR0;
flat in vec3 vR1;
flat in vec3 vR2;
flat in vec3 vC;
layout(location = 0) out float outDepth;

void main() {
	float t0, t1;
	if (!rayEllipsoid(vRay, vR0, vR1, vR2, vC, t0, t1) || t0 < uClip.x) {
		discard;
	}
	outDepth = t0;
	gl_FragDepth = windowDepth(t0 * vRay);
}
