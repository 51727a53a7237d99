#version 410 core
// Dear ImGui draw lists (ui/renderer.go): positions in display coordinates (window points, top-left origin),
// font-atlas texture coordinates and a packed RGBA8 colour per vertex.

uniform mat4 uProj; // display rectangle -> clip space, y flipped

layout(location = 0) in vec2 aPos;
layout(location = 1) in vec2 aUV;
layout(location = 2) in vec4 aColor; // normalised from 4 unsigned bytes

out vec2 vUV;
out vec4 vColor;

void main() {
	vUV = aUV;
	vColor = aColor;
	gl_Position = uProj * vec4(aPos, 0.0, 1.0);
}
