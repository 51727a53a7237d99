#version 410 core
// Tank: the inside of the domain's far walls and floor (front faces are culled), a light translucent glass tint
// that thickens at grazing angles, with thin dark lines along the box edges.
#include "render_common.glsl"

uniform vec3 uBoxMin;
uniform vec3 uBoxMax;

in vec3 vWorld;
in vec3 vNormal;
out vec4 fragColor;

void main() {
	vec3 n = -normalize(vNormal); // we see the inner side
	vec3 v = normalize(uEye.xyz - vWorld);
	vec3 glass = shade(vec3(0.80, 0.86, 0.88), n, uLightDir.xyz, v, n.y, 0.25, 48.0);
	float alpha = 0.22 + 0.35 * pow(1.0 - abs(dot(n, v)), 3.0);

	// distance to the nearest edge: of the distances to the six walls, the smallest is ~0 (our own face), the
	// middle one is to the nearest edge of this face.
	vec3 d = min(vWorld - uBoxMin, uBoxMax - vWorld);
	float lo = min(d.x, min(d.y, d.z)), hi = max(d.x, max(d.y, d.z));
	float e = d.x + d.y + d.z - lo - hi;
	float px = e / max(fwidth(e), 1e-6);
	float edge = 1.0 - smoothstep(0.5, 1.5, px);
	vec3 c = mix(glass, vec3(0.12, 0.14, 0.16), edge);
	fragColor = vec4(c, mix(alpha, 0.85, edge));
}
