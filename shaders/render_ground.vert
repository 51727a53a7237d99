#version 410 core
// Ground: a square in the plane y = uGroundY centred under uCenter, from gl_VertexID (4 vertices, triangle strip).
#include "render_common.glsl"

uniform vec2 uCenter; // xz
uniform float uHalf;
uniform float uGroundY;

out vec3 vWorld;

void main() {
	vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1)) * 2.0 - 1.0;
	vWorld = vec3(uCenter.x + corner.x * uHalf, uGroundY, uCenter.y + corner.y * uHalf);
	gl_Position = uViewProj * vec4(vWorld, 1.0);
}
