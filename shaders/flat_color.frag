#version 410 core
// gpu/flat: one colour (the background).

uniform vec4 uColor;

out vec4 fragColor;

void main() { fragColor = uColor; }
