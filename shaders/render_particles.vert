#version 410 core
// Particles as sphere impostors: one quad per particle (instanced, 4 vertices as a triangle strip), facing the
// eye and just large enough to cover the sphere's perspective silhouette. The fragment shader ray-casts the sphere.
#include "render_common.glsl"
#include "render_instance.glsl"

layout(location = ATTR_POS) in vec4 aPos; // xyz
layout(location = ATTR_VEL) in vec4 aVel; // xyz
layout(location = ATTR_RHO) in float aRho; // ρ/ρ0

layout(location = ATTR_ID) in uint aID;    // the particle's stable identity (render.Particles.ID; 0 without)

uniform float uRadius;       // drawn sphere radius, m
uniform int uSolids;         // 1: only the grains' and solids' particles (render.Particles.Phase); 0: every one
uniform int uHaveIDs;        // 1: aID holds the particles' identities, and grains are tinted by them

// hashID mixes a particle's identity into 32 well-spread bits (Wellons' lowbias32): neighbouring ids, which a
// lattice seeds side by side, get unrelated tints.
uint hashID(uint x) {
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

// grainTint is a grain's colour: its material's colour c made brighter or darker (×0.8 to ×1.15) and a little
// warmer or cooler by a hash of its identity, so that sand reads as grains. The identity, never the particle's
// place in the buffers (gl_InstanceID), which changes as the solver re-sorts its particles: each grain keeps its
// tint from frame to frame.
vec3 grainTint(vec3 c) {
	uint h = hashID(aID);
	float bright = mix(0.8, 1.15, float(h & 0xFFFFu) / 65535.0);
	float warm = (float(h >> 16) / 65535.0 - 0.5) * 0.16; // within ±0.08
	return c * bright * vec3(1.0 + warm, 1.0, 1.0 - warm);
}

out vec3 vViewPos;          // the point on the quad, eye space
flat out vec3 vCenter;      // sphere centre, eye space
flat out vec3 vColor;

void main() {
	if (nonFinite(aPos.xyz) || aBody >= 0 || (uSolids != 0 && aPhase == 0u)) {
		// a solver that went wrong restores its state a few steps later; never draw the broken particle. (Mesa
		// drops NaN vertices by itself, so no test here can see this; other drivers rasterise garbage.)
		gl_Position = CULLED;
		vViewPos = vec3(0.0);
		vCenter = vec3(0.0, 0.0, -1.0);
		vColor = vec3(0.0);
		return;
	}
	vec3 c = (uView * vec4(aPos.xyz, 1.0)).xyz;
	float d = length(c);
	vCenter = c;
	vColor = particleColor(aVel.xyz, aRho);
	if (aPhase == uint(PHASE_GRANULAR) && ownColor() && uHaveIDs != 0) {
		vColor = grainTint(vColor); // the colour maps stay exact
	}
	if (d <= uRadius * 1.001) {
		// the eye is inside the sphere: nothing sensible to draw
		vViewPos = c;
		gl_Position = CULLED;
		return;
	}
	// The silhouette is the cone from the eye tangent to the sphere, half-angle asin(r/d). In the plane through the
	// centre perpendicular to the cone's axis it is a circle of radius r·d/√(d²−r²); a square of that half-side
	// in that plane covers it, so its projection covers the sphere's.
	vec3 w = c / d;
	vec3 helper = abs(w.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0);
	vec3 u = normalize(cross(helper, w));
	vec3 v = cross(w, u);
	float s = uRadius * d / sqrt(d * d - uRadius * uRadius);
	vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1)) * 2.0 - 1.0;
	vViewPos = c + (corner.x * u + corner.y * v) * s;
	gl_Position = uProj * vec4(vViewPos, 1.0);
}
