#version 410 core
// gpu/flat: a round dot, its rim antialiased over a pixel; dots under a pixel across fade with their area.

in vec4 vColor;
in vec2 vOffset;
flat in float vRadius;

out vec4 fragColor;

void main() {
	float r = max(vRadius, 0.5);
	float cover = clamp(r + 0.5 - length(vOffset), 0.0, 1.0) * min(vRadius * 2.0, 1.0);
	if (cover <= 0.0) {
		discard;
	}
	fragColor = vec4(vColor.rgb, vColor.a * cover);
}
