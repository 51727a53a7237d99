#version 410 core
// One 1D pass of a Gaussian blur of the thickness image (along x, then along y). Summed chords vary from pixel to
// pixel with how the particles happen to line up along the rays, which would show as speckle in the absorption
// and the refraction; the blur spans uWorldRadius metres at the fluid's depth, at most uMaxRadius pixels of the
// thickness image (which may be smaller than the viewport).
#include "render_common.glsl"
#include "render_surface.glsl"

uniform sampler2D uThickness;
uniform sampler2D uDepth;   // the fluid eye depth, full size
uniform ivec2 uDir;         // (1, 0) or (0, 1)
uniform float uMaxRadius;   // thickness-image pixels
uniform float uWorldRadius; // m

layout(location = 0) out float outThickness;

void main() {
	ivec2 p = ivec2(gl_FragCoord.xy);
	ivec2 size = textureSize(uThickness, 0);
	vec2 toFull = vec2(textureSize(uDepth, 0)) / vec2(size);
	float t = texelFetch(uThickness, p, 0).r;
	float z = fluidAt(uDepth, ivec2((vec2(p) + 0.5) * toFull));
	if (z <= 0.0) {
		outThickness = t;
		return;
	}
	vec2 f = focalPixels() / toFull;
	float radius = min(min(uMaxRadius, float(MAX_FILTER_RADIUS)), uWorldRadius * (uDir.x != 0 ? f.x : f.y) / z);
	int n = int(radius);
	if (n < 1) {
		outThickness = t;
		return;
	}
	float k = -0.5 / (0.25 * radius * radius); // σ = radius/2
	float sum = t, wsum = 1.0;
	for (int i = 1; i <= MAX_FILTER_RADIUS; i++) {
		if (i > n) {
			break;
		}
		float w = exp(k * float(i * i));
		for (int s = -1; s <= 1; s += 2) {
			ivec2 q = p + s * i * uDir;
			if (any(lessThan(q, ivec2(0))) || any(greaterThanEqual(q, size))) {
				continue;
			}
			sum += w * texelFetch(uThickness, q, 0).r;
			wsum += w;
		}
	}
	outThickness = sum / wsum;
}
