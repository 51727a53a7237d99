#version 410 core
// gpu/flat: shapes, outlines and lines as triangles in world coordinates (metres, y up). aEdge carries, for line
// vertices, the signed distance in pixels from the line's centre and the line's half width in pixels, so the
// fragment shader can antialias the edges; filled polygons carry a half width too large to matter.

layout(location = ATTR_POS) in vec2 aPos;
layout(location = ATTR_COLOR) in vec4 aColor;
layout(location = ATTR_EDGE) in vec2 aEdge;

uniform vec4 uWorld; // NDC = world * uWorld.xy + uWorld.zw

out vec4 vColor;
out vec2 vEdge;

void main() {
	vColor = aColor;
	vEdge = aEdge;
	gl_Position = vec4(aPos * uWorld.xy + uWorld.zw, 0.0, 1.0);
}
