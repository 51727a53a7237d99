#version 410 core
// render.scale < 1: the water, shaded at the surface's size (render_composite.frag built with COMPOSITE_SCALED),
// over the full-size scene, one full-screen pass into the caller's target that writes every pixel's colour and
// depth as the unscaled composite does. The water is filtered bilinearly, premultiplied by its coverage, so its
// outline is soft over a surface pixel; where the full-size scene lies in front of the nearest of the four fluid
// depths around the pixel (an obstacle's edge the surface's coarser depth test missed) the scene shows, sharp.
// Water writes its depth wherever it shows.
//
// Built a second time with UPSAMPLE_BLEND for a target that already holds a copy of the scene (colour and depth):
// it then leaves the pixels without water alone (discard) and gives the others the water, to be blended over the
// scene (ONE, ONE_MINUS_SRC_ALPHA), with the water's depth for a depth test against the scene's that hides it
// where the scene is in front: the same picture.
#include "render_common.glsl"

uniform sampler2D uSceneColor; // the opaque scene, full size
uniform sampler2D uSceneDepth; // its depth-buffer values
uniform sampler2D uWater;      // the shaded water: rgb premultiplied by alpha, the coverage (surface size)
uniform sampler2D uDepth;      // the smoothed fluid eye depth it was shaded from (surface size), 0 without fluid
uniform float uDim;            // the scene's brightness beside the water: 1, or 0.3 in the debug views

out vec4 fragColor;

// waterDepth is the depth-buffer value of the nearest fluid among the four surface pixels around uv, or 1 (the far
// plane) when none of them has fluid.
float waterDepth(vec2 uv) {
	vec4 zs = textureGather(uDepth, uv, 0);
	float z = 0.0;
	for (int k = 0; k < 4; k++) {
		if (zs[k] > 0.0 && (z == 0.0 || zs[k] < z)) {
			z = zs[k];
		}
	}
	return z > 0.0 ? windowDepth(eyeAtPixel(gl_FragCoord.xy, z)) : 1.0;
}

void main() {
	vec2 uv = gl_FragCoord.xy * uViewport.zw;
	vec4 water = textureLod(uWater, uv, 0.0);
#ifdef UPSAMPLE_BLEND
	if (water.a <= 0.0) {
		discard;
	}
	fragColor = water;
	gl_FragDepth = waterDepth(uv);
#else
	ivec2 p = ivec2(gl_FragCoord.xy);
	vec4 scene = texelFetch(uSceneColor, p, 0); // alpha 0 where a transparent background shows
	float sceneZ = texelFetch(uSceneDepth, p, 0).r;
	float depth = sceneZ;
	if (water.a > 0.0) {
		float wz = waterDepth(uv);
		if (wz < sceneZ) {
			depth = wz;
		} else {
			water = vec4(0.0); // the scene is in front here
		}
	}
	fragColor = vec4(water.rgb + (1.0 - water.a) * uDim * scene.rgb, water.a + (1.0 - water.a) * scene.a);
	gl_FragDepth = depth;
#endif
}
