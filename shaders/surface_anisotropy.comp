#version 430 core
// The anisotropic kernel of each particle (Yu & Turk 2013; sim/surface): weighted mean and covariance of the
// neighbours within r found through gpu/nsearch's grid (cell = r, sorted by index), eigen decomposition, clamped
// stretch, smoothed centre. One thread per sorted slot, so neighbouring threads treat neighbouring particles
// whatever the input order; the records are written in the input order. Mirrors sim/surface's kernels().
layout(local_size_x = GROUP_SIZE) in;
#include "surface_common.glsl"
layout(std430, binding = SURF_BIND_POS) readonly buffer SurfPos { vec4 surfPos[]; };
layout(std430, binding = SURF_BIND_OUT) writeonly buffer SurfOut { vec4 surfOut[]; };

void main() {
	uint slot = globalIndex();
	if (slot >= S.n) return;
	uint i = nsOrder[slot];
	vec3 p = surfPos[i].xyz;
	ivec3 c = nsCellCoord(p);
	// the particle itself: w = 1 at zero offset
	float wsum = 1.0;
	float mx = 0.0, my = 0.0, mz = 0.0;
	float cxx = 0.0, cyy = 0.0, czz = 0.0, cxy = 0.0, cxz = 0.0, cyz = 0.0;
	uint nb = 0u;
	for (int dz = -1; dz <= 1; dz++) {
		for (int dy = -1; dy <= 1; dy++) {
			uint b, e;
			if (!nsRow(c, dy, dz, b, e)) continue;
			for (uint k = b; k < e; k++) {
				uint j = nsOrder[k];
				vec3 q = surfPos[j].xyz;
				float ex = q.x - p.x, ey = q.y - p.y, ez = q.z - p.z;
				float d2 = ex * ex + ey * ey + ez * ez;
				if (!(d2 < S.r2) || j == i) continue;
				nb++;
				float s = sqrt(d2) * S.invR;
				float w = 1.0 - s * s * s;
				if (w < 0.0) w = 0.0;
				wsum += w;
				float wx = w * ex, wy = w * ey, wz = w * ez;
				mx += wx;
				my += wy;
				mz += wz;
				cxx += wx * ex;
				cyy += wy * ey;
				czz += wz * ez;
				cxy += wx * ey;
				cxz += wx * ez;
				cyz += wy * ez;
			}
		}
	}
	SurfEllipsoid el = surfEllipsoid(p, nb, wsum, vec3(mx, my, mz), vec3(cxx, cyy, czz), vec3(cxy, cxz, cyz));
	surfOut[4u * i] = el.center;
	surfOut[4u * i + 1u] = el.axes[0];
	surfOut[4u * i + 2u] = el.axes[1];
	surfOut[4u * i + 3u] = el.axes[2];
}
