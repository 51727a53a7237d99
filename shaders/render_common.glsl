// Shared by every render_ program: the per-frame uniform block (mirrored by frameBlock in gpu/render/renderer.go,
// std140, bound at binding point FRAME_BINDING from Go), the sky, the lighting and colour helpers, and the
// conversions between pixels, eye-space rays and depths that the impostors and the fluid surface share.

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

// skyColor is the environment seen in world direction dir (unit): a gradient from the horizon up to the zenith and
// down toward the ground's grey, with a soft glow around the light. The sky pass draws it; water reflects it.
vec3 skyColor(vec3 dir) {
	vec3 c;
	if (dir.y >= 0.0) {
		c = mix(SKY_HORIZON, SKY_ZENITH, pow(dir.y, 0.6));
	} else {
		c = mix(SKY_HORIZON, SKY_NADIR, pow(-dir.y, 0.5));
	}
	float sun = max(dot(dir, uLightDir.xyz), 0.0);
	return c + vec3(1.0, 0.95, 0.85) * 0.12 * pow(sun, 24.0);
}

// eyeRay is the eye-space direction through a point of the image given in NDC, scaled so that its z is −1: the
// point at eye depth z (distance along −z) on it is z·eyeRay(ndc). It handles off-centre projections.
vec3 eyeRay(vec2 ndc) {
	return vec3((ndc.x + uProj[2][0]) / uProj[0][0], (ndc.y + uProj[2][1]) / uProj[1][1], -1.0);
}

// eyeAtPixel is the eye-space point at eye depth z seen through window coordinate frag (pixels of a full-viewport
// target, centres at .5).
vec3 eyeAtPixel(vec2 frag, float z) {
	return z * eyeRay(frag * uViewport.zw * 2.0 - 1.0);
}

// windowDepth is the depth-buffer value of an eye-space point (what gl_FragDepth takes).
float windowDepth(vec3 eye) {
	vec4 clip = uProj * vec4(eye, 1.0);
	return 0.5 * (gl_DepthRange.diff * (clip.z / clip.w) + gl_DepthRange.near + gl_DepthRange.far);
}

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

// colormapCoolWarm maps t in [0, 1] through Moreland's cool-warm diverging map (2009): blue → light grey → red,
// even in lightness either side of the middle; piecewise linear through five of its points.
vec3 colormapCoolWarm(float t) {
	const vec3 c0 = vec3(0.230, 0.299, 0.754);
	const vec3 c1 = vec3(0.554, 0.690, 0.996);
	const vec3 c2 = vec3(0.867, 0.864, 0.863);
	const vec3 c3 = vec3(0.957, 0.598, 0.477);
	const vec3 c4 = vec3(0.706, 0.016, 0.150);
	t = clamp(t, 0.0, 1.0) * 4.0;
	if (t < 1.0) return mix(c0, c1, t);
	if (t < 2.0) return mix(c1, c2, t - 1.0);
	if (t < 3.0) return mix(c2, c3, t - 2.0);
	return mix(c3, c4, t - 3.0);
}

// colormapDiverging maps s in [−1, 1] through blue → white → red, white at 0.
vec3 colormapDiverging(float s) {
	const vec3 neg = vec3(0.19, 0.32, 0.80);
	const vec3 pos = vec3(0.80, 0.15, 0.13);
	s = clamp(s, -1.0, 1.0);
	return s < 0.0 ? mix(vec3(1.0), neg, -s) : mix(vec3(1.0), pos, s);
}
