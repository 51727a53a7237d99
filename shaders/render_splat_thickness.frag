#version 410 core
// Fluid thickness: each ellipsoid adds the length of the chord the pixel's ray cuts through it (additive
// blending into a float target). The depth test is against the opaque scene only, so fluid hidden behind other
// fluid still counts but fluid behind an obstacle does not.
#include "render_common.glsl"
#include "render_ellipsoid.glsl"

uniform float uThicknessScale; // render.thickness_scale

in vec3 vRay;
flat in vec3 vR0;
flat in vec3 vR1;
flat in vec3 vR2;
flat in vec3 vC;
layout(location = 0) out float outThickness;

void main() {
	float t0, t1;
	if (!rayEllipsoid(vRay, vR0, vR1, vR2, vC, t0, t1) || t1 <= uClip.x) {
		discard;
	}
	t0 = max(t0, uClip.x);
	outThickness = (t1 - t0) * length(vRay) * uThicknessScale;
	gl_FragDepth = windowDepth(t0 * vRay);
}
