#version 410 core
// Lit triangle meshes in world space (tank, obstacles): position and normal per vertex.
#include "render_common.glsl"

layout(location = ATTR_MESH_POS) in vec3 aPos;
layout(location = ATTR_MESH_NORMAL) in vec3 aNormal;

out vec3 vWorld;
out vec3 vNormal;

void main() {
	vWorld = aPos;
	vNormal = aNormal;
	gl_Position = uViewProj * vec4(aPos, 1.0);
}
