// Shared by every render_ program: the per-frame uniform block (mirrored by frameBlock in gpu/render/renderer.go,
// std140, bound at binding point FRAME_BINDING from Go) and the lighting and colour helpers.

layout(std140) uniform FrameBlock {
	mat4 uView;        // world → eye
	mat4 uProj;        // eye → clip
	mat4 uViewProj;    // world → clip
	mat4 uInvViewProj; // clip → world
	vec4 uEye;         // eye position, world
	vec4 uLightDir;    // unit vector toward the light, world
	vec4 uViewport;    // width, height, 1/width, 1/height in pixels
	vec4 uClip;        // near, far
};

// Sky colours, shared by the sky and by the ground's fade toward the horizon.
const vec3 SKY_ZENITH  = vec3(0.42, 0.60, 0.85);
const vec3 SKY_HORIZON = vec3(0.86, 0.89, 0.92);
const vec3 SKY_NADIR   = vec3(0.52, 0.52, 0.54);

// shade is the lighting of an opaque surface: hemisphere ambient, Lambert diffuse and a Blinn–Phong highlight.
// n, l and v are unit vectors in one space: the normal, toward the light, toward the eye.
vec3 shade(vec3 base, vec3 n, vec3 l, vec3 v, float upness, float specular, float shininess) {
	float ambient = mix(0.28, 0.42, 0.5 + 0.5 * upness);
	float diffuse = max(dot(n, l), 0.0);
	vec3 h = normalize(l + v);
	float spec = diffuse > 0.0 ? pow(max(dot(n, h), 0.0), shininess) : 0.0;
	return base * (ambient + 0.75 * diffuse) + vec3(specular * spec);
}

// colormapSpeed maps t in [0, 1] through blue → cyan → yellow → red, with lightness rising to yellow.
vec3 colormapSpeed(float t) {
	const vec3 c0 = vec3(0.13, 0.25, 0.80);
	const vec3 c1 = vec3(0.15, 0.72, 0.86);
	const vec3 c2 = vec3(0.97, 0.85, 0.22);
	const vec3 c3 = vec3(0.85, 0.12, 0.08);
	t = clamp(t, 0.0, 1.0) * 3.0;
	if (t < 1.0) return mix(c0, c1, t);
	if (t < 2.0) return mix(c1, c2, t - 1.0);
	return mix(c2, c3, t - 2.0);
}

// colormapDiverging maps s in [−1, 1] through blue → white → red, white at 0.
vec3 colormapDiverging(float s) {
	const vec3 neg = vec3(0.19, 0.32, 0.80);
	const vec3 pos = vec3(0.80, 0.15, 0.13);
	s = clamp(s, -1.0, 1.0);
	return s < 0.0 ? mix(vec3(1.0), neg, -s) : mix(vec3(1.0), pos, s);
}
