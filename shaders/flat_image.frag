#version 410 core
// gpu/flat: the frame's image over its rectangle, linearly filtered; its alpha blends it over the background.

uniform sampler2D uImage;

in vec2 vUV;
out vec4 fragColor;

void main() { fragColor = texture(uImage, vUV); }
