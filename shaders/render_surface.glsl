// Shared by the fluid-surface passes that read the fluid's eye-depth image (smoothing and composite). Depths are
// eye depths in metres, 0 where no fluid is. Include after render_common.glsl.

// focalPixels is the focal length in pixels along x and y: a length L at eye depth z spans L·f/z pixels.
vec2 focalPixels() {
	return 0.5 * uViewport.xy * vec2(uProj[0][0], uProj[1][1]);
}

// fluidAt is the depth of the fluid image at pixel p; pixels outside the image read as no fluid. NaN reads as no
// fluid too.
float fluidAt(sampler2D depth, ivec2 p) {
	ivec2 size = textureSize(depth, 0);
	if (any(lessThan(p, ivec2(0))) || any(greaterThanEqual(p, size))) {
		return 0.0;
	}
	float z = texelFetch(depth, p, 0).r;
	return z > 0.0 ? z : 0.0;
}
