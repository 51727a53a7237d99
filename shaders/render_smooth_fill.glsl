// The pinhole fill that starts both smoothing methods (gpu/render/surface.go drawSmooth runs it as a first pass of
// the method's own program, with uFill set). Include after render_surface.glsl.
//
// Ellipsoid splats do not tile a surface exactly: between them a pixel can miss the front layer and take the depth
// of the fluid behind, a pinhole much deeper than the pixels around it. The smoothing filters must not see it: the
// narrow-range filter's y pass would smear its depth into the pixels above and below (its slope fit takes a deep
// sample for a steep slope), a vertical streak of bent normals, and curvature flow keeps it as a dot, since a
// neighbour across a step does not move a pixel. So first each pinhole takes the depth of the surface around it.
//
// A pixel is a pinhole when, along at least three of the four lines through it (row, column, both diagonals), both
// of its neighbours hold fluid more than uFillDepth in front of it: a hole at most one pixel wide in every
// direction but one (single pixels, pairs, one-pixel cracks). It takes the mean of those neighbours' pair means,
// which on a plane is the plane's depth to second order. A real edge between a surface in front and one behind
// never qualifies: a pixel of the far surface beside it, or in a corner of it, has the near surface on one side of
// at most two of those lines. Pixels without fluid stay without fluid, so silhouettes do not move.

uniform bool uFill;       // this pass fills pinholes instead of smoothing
uniform float uFillDepth; // how far behind its neighbours a pixel must lie to be a pinhole, m

float pinholeFilled(sampler2D depth, ivec2 p) {
	float z = fluidAt(depth, p);
	if (z <= 0.0) {
		return 0.0;
	}
	const ivec2 dirs[4] = ivec2[4](ivec2(1, 0), ivec2(0, 1), ivec2(1, 1), ivec2(1, -1));
	float sum = 0.0;
	int lines = 0;
	for (int k = 0; k < 4; k++) {
		float a = fluidAt(depth, p + dirs[k]), b = fluidAt(depth, p - dirs[k]);
		if (a > 0.0 && b > 0.0 && a < z - uFillDepth && b < z - uFillDepth) {
			sum += 0.5 * (a + b);
			lines++;
		}
	}
	return lines >= 3 ? sum / float(lines) : z;
}
