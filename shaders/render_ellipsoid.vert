#version 410 core
// Ellipsoid splats: one screen-aligned quad per particle (instanced, 4 vertices as a triangle strip) that bounds
// the exact perspective projection of the particle's ellipsoid — its anisotropic kernel (Yu & Turk 2013) when the
// caller supplies them, else a sphere of uRadius. The fragment shaders ray-cast the ellipsoid exactly. Shared by
// the fluid depth, fluid thickness and shaded-ellipsoid programs.
#include "render_common.glsl"
#include "render_instance.glsl"
#include "render_ellipsoid.glsl"

layout(location = ATTR_POS) in vec4 aPos;   // xyz: particle position (the sphere centre without ellipsoids)
layout(location = ATTR_VEL) in vec4 aVel;   // xyz
layout(location = ATTR_RHO) in float aRho;  // ρ/ρ0
layout(location = ATTR_ELL0) in vec4 aEll0; // xyz: smoothed kernel centre, w: neighbour count
layout(location = ATTR_ELL1) in vec4 aEll1; // xyz: semi-axis, world space, m; w: 1 for an interior particle
layout(location = ATTR_ELL2) in vec4 aEll2;
layout(location = ATTR_ELL3) in vec4 aEll3;

uniform bool uEllipsoids;  // the ELL attributes hold kernels; false: spheres of uRadius at aPos
uniform float uRadius;     // sphere radius, m (also the fallback for a degenerate kernel)
uniform float uScale;      // render.splat_scale
uniform float uSprayBelow; // with kernels: fewer neighbours than this make a particle spray, not drawn here
uniform bool uSkipInterior; // with kernels: leave out interior particles (the depth pass: never the nearest)

out vec3 vRay;         // eye-space ray through the fragment, z = −1
flat out vec3 vR0;     // rows of A⁻¹ (render_ellipsoid.glsl)
flat out vec3 vR1;
flat out vec3 vR2;
flat out vec3 vC;      // the centre in the unit-sphere frame, A⁻¹c
flat out vec3 vColor;

void cull() {
	gl_Position = CULLED;
	vRay = vec3(0.0, 0.0, -1.0);
	vR0 = vR1 = vR2 = vC = vColor = vec3(0.0);
}

void main() {
	if (uSkipInterior && uEllipsoids && aEll1.w != 0.0) {
		cull(); // deep inside the fluid (sim/surface.Ellipsoid.Interior): first, the cheapest way out
		return;
	}
	if (!liquid()) {
		cull(); // a rigid body's particle (the body is drawn as its shape), or a grain's or solid's (drawSolids)
		return;
	}
	vec3 centre = aPos.xyz;
	mat3 axes = mat3(uRadius);
	if (uEllipsoids) {
		if (aEll0.w < uSprayBelow) {
			cull();
			return;
		}
		centre = aEll0.xyz;
		mat3 k = mat3(aEll1.xyz, aEll2.xyz, aEll3.xyz);
		if (nonFinite(k[0]) || nonFinite(k[1]) || nonFinite(k[2])) {
			cull();
			return;
		}
		// a kernel squashed to (nearly) nothing along an axis cannot be inverted: draw the sphere instead
		float shortest = min(dot(k[0], k[0]), min(dot(k[1], k[1]), dot(k[2], k[2])));
		if (shortest > 1e-6 * uRadius * uRadius) {
			axes = k;
		}
	}
	if (nonFinite(centre)) {
		cull(); // see render_particles.vert
		return;
	}
	vec3 c = (uView * vec4(centre, 1.0)).xyz;
	mat3 A = mat3(uView) * axes * uScale;
	vec4 box;
	if (!ellipsoidBounds(c, A, box)) {
		cull();
		return;
	}
	// grow by a pixel so that rounding never clips the silhouette
	box += vec4(-2.0 * uViewport.zw, 2.0 * uViewport.zw);
	vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
	vec2 ndc = mix(box.xy, box.zw, corner);
	gl_Position = vec4(ndc, 0.0, 1.0);
	vRay = eyeRay(ndc);
	vR0 = A[0] / dot(A[0], A[0]);
	vR1 = A[1] / dot(A[1], A[1]);
	vR2 = A[2] / dot(A[2], A[2]);
	vC = vec3(dot(vR0, c), dot(vR1, c), dot(vR2, c));
	vColor = particleColor(aVel.xyz, aRho);
}
