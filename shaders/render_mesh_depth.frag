#version 410 core
// Fluid depth from the fluid's triangle mesh (render.mode mesh): the eye depth of the nearest front face into the
// R32F target the splats would fill, depth-tested against the opaque scene the same way.
#include "render_common.glsl"

in vec3 vWorld;
in vec3 vNormal;
layout(location = 0) out float outDepth;

void main() {
	outDepth = -(uView * vec4(vWorld, 1.0)).z;
}
