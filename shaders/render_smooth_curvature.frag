#version 410 core
// One iteration of screen-space curvature flow (van der Laan, Green & Sainz 2009, §4): z ← z + Δt·H, with H the
// mean curvature of the surface that the depth image describes.
//
// Seen from a pixel grid with focal lengths (fx, fy) in pixels, the surface's unnormalised normal is
// (−fx·∂z/∂x, −fy·∂z/∂y, z) (the paper's (−Cy·∂z/∂x, −Cx·∂z/∂y, Cx·Cy·z) divided by Cx·Cy, Cx = 1/fx), and with
// D = fx²(∂z/∂x)² + fy²(∂z/∂y)² + z², the divergence of the unit normal is
//     2H = (fx·Ex + fy·Ey) / D^(3/2),  Ex = ½·∂z/∂x·∂D/∂x − ∂²z/∂x²·D  (Ey likewise),
// the paper's eq. with D scaled by 1/(CxCy)². Our depths grow away from the eye, so a bump toward the eye has
// H < 0 for that normal; we step by −Δt·H, which flattens bumps (for a flat patch it is a diffusion with
// coefficient Δt·f/(2z) pixels²). The explicit step is stable only up to about ¼ pixel², so Δt is capped at that
// bound at each pixel: high-resolution or near views never blow up.
//
// Silhouettes stay put (§4.2): pixels without fluid are never written, and a neighbour without fluid or more than
// uThreshold away in depth counts as the centre's own depth, which makes the derivatives across it zero.
#include "render_common.glsl"
#include "render_surface.glsl"
#include "render_smooth_fill.glsl"

uniform sampler2D uDepth;  // the previous iterate
uniform float uDt;         // Δt, render.smooth_dt
uniform float uThreshold;  // largest depth step between neighbours that is still surface, m

layout(location = 0) out float outDepth;

float neighbour(ivec2 p, float zc) {
	float z = fluidAt(uDepth, p);
	return (z > 0.0 && abs(z - zc) <= uThreshold) ? z : zc;
}

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
	float zl = neighbour(p + ivec2(-1, 0), z), zr = neighbour(p + ivec2(1, 0), z);
	float zd = neighbour(p + ivec2(0, -1), z), zu = neighbour(p + ivec2(0, 1), z);
	float zdl = neighbour(p + ivec2(-1, -1), z), zdr = neighbour(p + ivec2(1, -1), z);
	float zul = neighbour(p + ivec2(-1, 1), z), zur = neighbour(p + ivec2(1, 1), z);

	float zx = 0.5 * (zr - zl), zy = 0.5 * (zu - zd);
	float zxx = zr - 2.0 * z + zl, zyy = zu - 2.0 * z + zd;
	float zxy = 0.25 * (zur - zul - zdr + zdl);

	vec2 f = focalPixels();
	vec2 f2 = f * f;
	float D = f2.x * zx * zx + f2.y * zy * zy + z * z;
	float Dx = 2.0 * (f2.x * zx * zxx + f2.y * zy * zxy + z * zx);
	float Dy = 2.0 * (f2.x * zx * zxy + f2.y * zy * zyy + z * zy);
	float Ex = 0.5 * zx * Dx - zxx * D;
	float Ey = 0.5 * zy * Dy - zyy * D;
	float H = 0.5 * (f.x * Ex + f.y * Ey) / (D * sqrt(D));

	float dt = min(uDt, 0.4 * z / max(f.x, f.y)); // diffusion coefficient Δt·f/(2z) ≤ 0.2 pixel²
	float zn = z - dt * H;
	// a step can never leave the neighbourhood's range; this also keeps a non-finite H out of the image
	float lo = min(min(min(zl, zr), min(zd, zu)), z), hi = max(max(max(zl, zr), max(zd, zu)), z);
	outDepth = (zn >= lo && zn <= hi) ? zn : z;
}
