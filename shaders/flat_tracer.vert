#version 410 core
// gpu/flat: a tracer as an instanced quad (4-vertex triangle strip) around its centre, a pixel wider than its dot
// on every side for the antialiased rim.

layout(location = ATTR_POS) in vec2 aPos;     // per instance: the centre, world
layout(location = ATTR_COLOR) in vec4 aColor; // per instance
layout(location = ATTR_SIZE) in float aSize;  // per instance: the dot's diameter, px

uniform vec4 uWorld; // NDC = world * uWorld.xy + uWorld.zw
uniform vec2 uPixel; // one pixel in NDC

out vec4 vColor;
out vec2 vOffset;  // from the centre, px
flat out float vRadius;

void main() {
	vec2 c = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1)) * 2.0 - 1.0;
	float r = max(aSize, 0.0) * 0.5;
	float reach = r + 1.0;
	vColor = aColor;
	vOffset = c * reach;
	vRadius = r;
	gl_Position = vec4(aPos * uWorld.xy + uWorld.zw + vOffset * uPixel, 0.0, 1.0);
}
