#version 410 core
// Lit triangle meshes (tank, obstacles, rigid bodies): position and normal per vertex, moved by uModel (identity
// for the static ones, a body's pose for a body).
#include "render_common.glsl"

layout(location = ATTR_MESH_POS) in vec3 aPos;
layout(location = ATTR_MESH_NORMAL) in vec3 aNormal;

uniform mat4 uModel; // rigid: rotation and translation only

out vec3 vWorld;
out vec3 vNormal;

void main() {
	vec4 w = uModel * vec4(aPos, 1.0);
	vWorld = w.xyz;
	vNormal = mat3(uModel) * aNormal;
	gl_Position = uViewProj * w;
}
