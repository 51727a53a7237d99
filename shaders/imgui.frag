#version 410 core
// Dear ImGui draw lists (ui/renderer.go): vertex colour modulated by the bound texture (the font atlas, whose
// white texel draws solid shapes). The renderer blends the result with SRC_ALPHA, ONE_MINUS_SRC_ALPHA.

uniform sampler2D uTexture;

in vec2 vUV;
in vec4 vColor;

layout(location = 0) out vec4 fragColor;

void main() {
	fragColor = vColor * texture(uTexture, vUV);
}
