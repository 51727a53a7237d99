#version 410 core
// One triangle that covers the viewport, from gl_VertexID alone (draw 3 vertices with an empty VAO).

out vec2 vNDC;

void main() {
	vec2 p = vec2(float((gl_VertexID & 1) << 2) - 1.0, float((gl_VertexID & 2) << 1) - 1.0);
	vNDC = p;
	gl_Position = vec4(p, 0.0, 1.0);
}
