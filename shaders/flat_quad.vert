#version 410 core
// gpu/flat: a rectangle in normalised device coordinates from gl_VertexID alone (a 4-vertex triangle strip with an
// empty VAO), with texture coordinates 0..1 from its lower-left to its upper-right corner.

uniform vec4 uRect; // xy: lower-left corner, zw: upper-right corner, NDC

out vec2 vUV;

void main() {
	vec2 c = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
	vUV = c;
	gl_Position = vec4(mix(uRect.xy, uRect.zw, c), 0.0, 1.0);
}
