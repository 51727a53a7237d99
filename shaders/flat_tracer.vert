#version 410 core
// gpu/flat: a tracer as a point sprite, a pixel wider than its dot on every side for the antialiased rim (points
// cost llvmpipe a quarter of what instanced quads do). Dots wider than the GL's largest point are drawn at that.

layout(location = ATTR_POS) in vec2 aPos;     // the centre, world
layout(location = ATTR_COLOR) in vec4 aColor;
layout(location = ATTR_SIZE) in float aSize;  // the dot's diameter, px

uniform vec4 uWorld;     // NDC = world * uWorld.xy + uWorld.zw
uniform float uMaxPoint; // the largest point size, px

out vec4 vColor;
flat out float vRadius; // the dot's, px
flat out float vReach;  // half the point's size, px

void main() {
	float reach = min(max(aSize, 0.0) * 0.5 + 1.0, uMaxPoint * 0.5);
	vColor = aColor;
	vRadius = reach - 1.0;
	vReach = reach;
	gl_PointSize = 2.0 * reach;
	gl_Position = vec4(aPos * uWorld.xy + uWorld.zw, 0.0, 1.0);
}
