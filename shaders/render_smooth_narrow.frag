#version 410 core
// One 1D pass of the narrow-range filter (Truong & Yuksel 2018), run along x and then along y as a separable
// approximation of the 2D filter. It is a Gaussian over the samples of the pixel's own surface: a sample more than
// δ nearer the eye belongs to something in front and is ignored; pixels without fluid are ignored and stay
// without fluid, so silhouettes never move. Unlike the paper, which clamps a sample more than δ farther to δ (so
// that a surface is pulled a little toward what lies behind its edge), we ignore it too: with δ several particle
// radii, the clamped samples pulled each pixel within the kernel's reach of a gap or an edge back by a visible
// step that ended abruptly where the kernel did, and in the y pass a gap between splats one or two pixels wide
// became a vertical streak of bent normals. Edges between a surface and one behind it stay sharp.
//
// The range is measured from the surface's local slope, not from the pixel's depth alone: a surface seen at a
// grazing angle changes depth across the kernel by much more than δ, and a flat range would leave streaks there.
// A first loop fits the slope g (weighted least squares through the centre over samples within a wide, slope-
// tolerant range, walking out from the centre and stopping on each side at the first sample that jumps from the
// one before by more than δ and the steepest slope: a gap or an edge, past which the samples are another
// surface's, however well their depth happens to fit the wide range); the filter then averages z_j − g·j, which
// also keeps a one-sided kernel at an edge from sliding the surface along its slope (the paper's bias correction
// does this job).
//
// The kernel covers uWorldRadius metres of surface, projected at the pixel's depth, but at most uMaxRadius
// pixels (and MAX_FILTER_RADIUS): a bounded cost, and far-away fluid is not smoothed across many particles.
#include "render_common.glsl"
#include "render_surface.glsl"
#include "render_smooth_fill.glsl"

uniform sampler2D uDepth;
uniform ivec2 uDir;         // (1, 0) or (0, 1)
uniform float uMaxRadius;   // pixels
uniform float uWorldRadius; // m
uniform float uRange;       // δ, m

layout(location = 0) out float outDepth;

// MAX_SLOPE is the steepest surface the slope fit follows: depth change per unit of screen-parallel distance
// (4: 76° from facing the eye).
const float MAX_SLOPE = 4.0;

void main() {
	ivec2 p = ivec2(gl_FragCoord.xy);
	if (uFill) {
		outDepth = pinholeFilled(uDepth, p);
		return;
	}
	float z = fluidAt(uDepth, p);
	if (z <= 0.0) {
		outDepth = 0.0;
		return;
	}
	float f = uDir.x != 0 ? focalPixels().x : focalPixels().y;
	float radius = min(min(uMaxRadius, float(MAX_FILTER_RADIUS)), uWorldRadius * f / z);
	int n = int(radius);
	if (n < 1) {
		outDepth = z;
		return;
	}
	float k = -0.5 / (0.25 * radius * radius); // σ = radius/2
	float pixel = z / f;                       // metres per pixel at this depth

	// the slope, in metres of depth per pixel, over the samples reached from the centre without a break: each
	// within the wide range of the centre and within δ plus the steepest slope of the sample before it
	float num = 0.0, den = 0.0;
	float jump = uRange + MAX_SLOPE * pixel;
	vec2 last = vec2(z);      // the last sample taken on the − and + side
	bvec2 open = bvec2(true); // no break yet on that side
	for (int i = 1; i <= MAX_FILTER_RADIUS; i++) {
		if (i > n || !any(open)) {
			break;
		}
		float w = exp(k * float(i * i));
		float wide = uRange + MAX_SLOPE * float(i) * pixel;
		for (int s = -1; s <= 1; s += 2) {
			int side = (s + 1) / 2;
			if (!open[side]) {
				continue;
			}
			float zj = fluidAt(uDepth, p + s * i * uDir);
			if (zj <= 0.0 || abs(zj - z) > wide || abs(zj - last[side]) > jump) {
				open[side] = false;
				continue;
			}
			last[side] = zj;
			num += w * float(s * i) * (zj - z);
			den += w * float(i * i);
		}
	}
	float g = den > 0.0 ? num / den : 0.0;

	// the narrow range about the plane z + g·j
	float sum = z, wsum = 1.0;
	for (int i = 1; i <= MAX_FILTER_RADIUS; i++) {
		if (i > n) {
			break;
		}
		float w = exp(k * float(i * i));
		for (int s = -1; s <= 1; s += 2) {
			float zj = fluidAt(uDepth, p + s * i * uDir);
			float plane = z + g * float(s * i);
			if (zj <= 0.0 || abs(zj - plane) > uRange) {
				continue;
			}
			sum += w * (zj - g * float(s * i));
			wsum += w;
		}
	}
	outDepth = sum / wsum;
}
