#version 410 core
// Fluid thickness from the fluid's closed triangle mesh (render.mode mesh), by additive blending over all its
// faces: a back face adds its eye depth, a front face subtracts its own, so each pixel sums the chords its ray
// cuts through the water.
#include "render_common.glsl"

uniform float uThicknessScale; // render.thickness_scale

in vec3 vWorld;
in vec3 vNormal;
layout(location = 0) out float outThickness;

void main() {
	vec3 eye = (uView * vec4(vWorld, 1.0)).xyz;
	float chord = length(eye); // the distance along the ray, like the splats' chord lengths
	outThickness = (gl_FrontFacing ? -chord : chord) * uThicknessScale;
}
