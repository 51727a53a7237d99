#version 410 core
// Fluid tint, for frames whose particles carry materials: like the thickness pass, each ellipsoid adds the chord
// the pixel's ray cuts through it (additive blending, depth-tested against the opaque scene only), here weighted
// by the particle's fluid colour: rgb = Σ colour·chord, a = Σ chord. The composite divides the two, which gives the
// mean colour of the fluids along the ray — one fluid's own colour, a blend where fluids mix.
#include "render_common.glsl"
#include "render_ellipsoid.glsl"

in vec3 vRay;
flat in vec3 vR0;
flat in vec3 vR1;
flat in vec3 vR2;
flat in vec3 vC;
flat in vec3 vColor; // fluidColor() (the tint pass draws with render.color water)
layout(location = 0) out vec4 outTint;

void main() {
	float t0, t1;
	if (!rayEllipsoid(vRay, vR0, vR1, vR2, vC, t0, t1) || t1 <= uClip.x) {
		discard;
	}
	t0 = max(t0, uClip.x);
	float chord = (t1 - t0) * length(vRay);
	outTint = vec4(vColor * chord, chord);
	gl_FragDepth = windowDepth(t0 * vRay);
}
