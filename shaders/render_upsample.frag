#version 410 core
// render.scale < 1: the water, shaded at the surface's size (render_composite.frag built with COMPOSITE_SCALED),
// over the full-size scene, one full-screen pass into the caller's target that writes every pixel's colour and
// depth as the unscaled composite does. The water is filtered bilinearly, premultiplied by its coverage, so its
// outline is soft over a surface pixel; where the full-size scene lies in front of the nearest of the four fluid
// depths around the pixel (an obstacle's edge the surface's coarser depth test missed) the scene shows, sharp.
#include "render_common.glsl"

uniform sampler2D uSceneColor; // the opaque scene, full size
uniform sampler2D uSceneDepth; // its depth-buffer values
uniform sampler2D uWater;      // the shaded water: rgb premultiplied by alpha, the coverage (surface size)
uniform sampler2D uDepth;      // the smoothed fluid eye depth it was shaded from (surface size), 0 without fluid
uniform float uDim;            // the scene's brightness beside the water: 1, or 0.3 in the debug views

out vec4 fragColor;

void main() {
	ivec2 p = ivec2(gl_FragCoord.xy);
	vec4 scene = texelFetch(uSceneColor, p, 0); // alpha 0 where a transparent background shows
	float sceneZ = texelFetch(uSceneDepth, p, 0).r;
	vec2 uv = gl_FragCoord.xy * uViewport.zw;
	vec4 water = texture(uWater, uv);
	float depth = sceneZ;
	if (water.a > 0.0) {
		vec4 zs = textureGather(uDepth, uv, 0);
		float z = 0.0;
		for (int k = 0; k < 4; k++) {
			if (zs[k] > 0.0 && (z == 0.0 || zs[k] < z)) {
				z = zs[k];
			}
		}
		float wz = z > 0.0 ? windowDepth(eyeAtPixel(gl_FragCoord.xy, z)) : sceneZ;
		if (!(wz < sceneZ)) {
			water = vec4(0.0); // the scene is in front here
		} else if (water.a >= 0.5) {
			depth = wz;
		}
	}
	fragColor = vec4(water.rgb + (1.0 - water.a) * uDim * scene.rgb, water.a + (1.0 - water.a) * scene.a);
	gl_FragDepth = depth;
}
