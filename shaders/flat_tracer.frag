#version 410 core
// gpu/flat: a round dot, its rim antialiased over a pixel; dots under a pixel across fade with their size.

in vec4 vColor;
flat in float vRadius;
flat in float vReach;

out vec4 fragColor;

void main() {
	vec2 off = (gl_PointCoord * 2.0 - 1.0) * vReach; // from the centre, px
	float r = max(vRadius, 0.5);
	float cover = clamp(r + 0.5 - length(off), 0.0, 1.0) * min(vRadius * 2.0, 1.0);
	if (cover <= 0.0) {
		discard;
	}
	fragColor = vec4(vColor.rgb, vColor.a * cover);
}
