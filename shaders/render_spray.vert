#version 410 core
// Spray: particles with fewer neighbours than uSprayBelow are left out of the fluid surface and drawn as small
// round points (GL_POINTS, one per particle, instanced attributes as in render_ellipsoid.vert).
#include "render_common.glsl"
#include "render_instance.glsl"

layout(location = ATTR_POS) in vec4 aPos;   // xyz
layout(location = ATTR_ELL0) in vec4 aEll0; // w: neighbour count

uniform float uSprayBelow; // neighbours
uniform float uSize;       // point radius, m

out float vShade;

void main() {
	vShade = 1.0;
	if (!(aEll0.w < uSprayBelow) || nonFinite(aPos.xyz) || !liquid()) {
		gl_Position = CULLED;
		gl_PointSize = 1.0;
		return;
	}
	vec3 c = (uView * vec4(aPos.xyz, 1.0)).xyz;
	gl_Position = uProj * vec4(c, 1.0);
	float z = max(-c.z, 1e-6);
	gl_PointSize = clamp(2.0 * uSize * 0.5 * uViewport.y * uProj[1][1] / z, 1.0, 64.0);
	vShade = 0.85 + 0.15 * clamp(1.0 - z / (200.0 * uClip.x), 0.0, 1.0); // farther spray is a little greyer
}
