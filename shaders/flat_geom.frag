#version 410 core
// gpu/flat: a line's coverage falls from 1 to 0 over the pixel across its edge.

in vec4 vColor;
in vec2 vEdge; // x: distance from the centre line, px; y: half width, px

out vec4 fragColor;

void main() {
	float cover = clamp(vEdge.y + 0.5 - abs(vEdge.x), 0.0, 1.0);
	fragColor = vec4(vColor.rgb, vColor.a * cover);
}
