#version 410 core
// Fluid surface composite (van der Laan et al. 2009, §5), one full-screen pass into the caller's target: where
// there is no fluid it copies the opaque scene (colour and depth); where there is, it shades the smoothed depth
// surface: normals from the depth image, Fresnel reflection of the sky, refraction of the scene behind the water
// displaced along the normal, Beer–Lambert absorption through the water's thickness, and a specular highlight.
// The debug views (uShow) show the intermediate images instead.
//
// Built a second time with COMPOSITE_SCALED for render.scale < 1: it then runs at the surface's size and writes
// the water alone (its colour with alpha 1, nothing elsewhere), which render_upsample.frag puts over the full-size
// scene; the scene it refracts is still the full-size one.
#include "render_common.glsl"
#include "render_surface.glsl"

uniform sampler2D uSceneColor; // the opaque scene, full size
uniform sampler2D uSceneDepth; // its depth-buffer values
uniform sampler2D uDepth;      // the smoothed fluid eye depth, full size, 0 without fluid
uniform sampler2D uThickness;  // fluid thickness, m (perhaps half size: sampled bilinearly)
uniform int uShow;             // VIEW_SURFACE, VIEW_DEPTH, VIEW_THICKNESS or VIEW_NORMALS
uniform float uAbsorption;     // k, 1/m
uniform float uRefraction;     // screen offset per metre of thickness along the normal
uniform float uSpecular;       // highlight strength
uniform float uRadius;         // particle radius, m: the scale of the thickness view
uniform vec3 uWaterColor;      // c: what thick water looks like; it absorbs 1 − c
uniform bool uTinted;          // the fluids have colours of their own: c comes from uTint
uniform sampler2D uTint;       // rgb: Σ colour·chord, a: Σ chord along the ray (thickness-sized), when uTinted

out vec4 fragColor;

const float F0 = 0.02; // reflectance of water at normal incidence

// tangent is the eye-space step from this pixel's point P to its neighbour along dir, taken from the side whose
// depth is closer to z (the smaller one-sided difference), so that normals at a depth edge come from the surface
// the pixel is on. A pixel with no fluid on either side gets the step of a surface facing the eye.
vec3 tangent(ivec2 p, vec3 P, float z, ivec2 dir) {
	float zp = fluidAt(uDepth, p + dir), zm = fluidAt(uDepth, p - dir);
	bool hasP = zp > 0.0, hasM = zm > 0.0;
	if (hasP && (!hasM || abs(zp - z) <= abs(z - zm))) {
		return eyeAtPixel(vec2(p + dir) + 0.5, zp) - P;
	}
	if (hasM) {
		return P - eyeAtPixel(vec2(p - dir) + 0.5, zm);
	}
	return eyeAtPixel(vec2(p + dir) + 0.5, z) - P;
}

void main() {
	ivec2 p = ivec2(gl_FragCoord.xy);
#ifdef COMPOSITE_SCALED
	float z = fluidAt(uDepth, p);
	if (z <= 0.0) {
		fragColor = vec4(0.0);
		return;
	}
	vec3 P = eyeAtPixel(gl_FragCoord.xy, z);
	float depth = windowDepth(P);
#else
	vec4 sceneRGBA = texelFetch(uSceneColor, p, 0); // alpha 0 where a transparent background shows
	vec3 scene = sceneRGBA.rgb;
	float sceneZ = texelFetch(uSceneDepth, p, 0).r;
	float z = fluidAt(uDepth, p);
	if (z <= 0.0) {
		// the debug views dim the scene so the image they show stands out
		fragColor = vec4(uShow == VIEW_SURFACE ? scene : 0.3 * scene, sceneRGBA.a);
		gl_FragDepth = sceneZ;
		return;
	}
	vec3 P = eyeAtPixel(gl_FragCoord.xy, z);
	float depth = windowDepth(P);
	gl_FragDepth = depth;
#endif
	vec3 n = cross(tangent(p, P, z, ivec2(1, 0)), tangent(p, P, z, ivec2(0, 1)));
	vec3 v = normalize(-P);
	n = dot(n, n) > 0.0 ? normalize(n) : v;
	if (dot(n, v) < 0.0) {
		n = -n; // the depth image only has surfaces facing the eye
	}
	mat3 eyeToWorld = transpose(mat3(uView));
	vec2 uv = gl_FragCoord.xy * uViewport.zw;
	float thickness = max(texture(uThickness, uv).r, 0.0);

	if (uShow == VIEW_DEPTH) {
		// grey rising with depth, mid-grey at the orbit camera's target distance (its near plane is 1% of that)
		float zRef = 100.0 * uClip.x;
		fragColor = vec4(vec3(clamp(0.5 + 1.5 * (z - zRef) / (z + zRef), 0.0, 1.0)), 1.0);
		return;
	}
	if (uShow == VIEW_THICKNESS) {
		float s = 1.0 - exp(-thickness / (20.0 * max(uRadius, 1e-6)));
		fragColor = vec4(mix(vec3(0.04, 0.02, 0.10), vec3(1.0, 0.92, 0.65), s), 1.0);
		return;
	}
	if (uShow == VIEW_NORMALS) {
		fragColor = vec4(eyeToWorld * n * 0.5 + 0.5, 1.0);
		return;
	}

	// Refraction: the scene behind, displaced along the normal by the thickness, but never something that lies in
	// front of the water there.
	vec2 offset = n.xy * thickness * uRefraction;
	float len = length(offset);
	if (len > 0.1) {
		offset *= 0.1 / len;
	}
	vec2 uvr = uv + offset;
	if (texture(uSceneDepth, uvr).r < depth) {
		uvr = uv;
	}
	vec3 behind = texture(uSceneColor, uvr).rgb;
	// Beer–Lambert: each channel is absorbed in proportion to how little of it the water colour has. What is
	// absorbed is replaced by light scattered in the water, which is the water colour, lit.
	// With several fluids, c is the chord-weighted mean colour of the fluids along the ray.
	vec3 c = uWaterColor;
	if (uTinted) {
		vec4 tint = texture(uTint, uv);
		if (tint.a > 1e-6) {
			c = clamp(tint.rgb / tint.a, 0.0, 1.0);
		}
	}
	vec3 l = normalize(mat3(uView) * uLightDir.xyz);
	vec3 T = exp(-uAbsorption * (1.0 - c) * thickness);
	vec3 inscatter = c * (0.45 + 0.45 * max(dot(n, l), 0.0));
	vec3 refracted = behind * T + inscatter * (1.0 - T);

	// Reflection of the environment, weighted by Schlick's Fresnel term.
	vec3 reflected = skyColor(normalize(eyeToWorld * reflect(-v, n)));
	float F = F0 + (1.0 - F0) * pow(1.0 - max(dot(n, v), 0.0), 5.0);
	vec3 h = normalize(l + v);
	float spec = uSpecular * pow(max(dot(n, h), 0.0), 300.0);

	fragColor = vec4(mix(refracted, reflected, F) + spec * vec3(1.0, 0.97, 0.9), 1.0);
}
