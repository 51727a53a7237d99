// gpu/nsearch's parameter block and cell function, shared by the grid's build passes (nsearch_build.glsl) and its
// consumers (nsearch.glsl).
layout(std140, binding = NS_BIND_PARAMS) uniform NSParams {
	ivec4 nsDims;   // cells per axis
	vec4 nsOrigin;  // the grid's low corner; w = 1 / cell size
	uint nsN;       // particles binned
	uint nsNumCells;
	uint nsHasKey;  // the build sorted by a key buffer (else by index)
	uint nsPad;
};

// The integer cell of a position, clamped into the grid (sim/grid Grid.Coord).
ivec3 nsCellCoord(vec3 p) {
	vec3 c = floor((p - nsOrigin.xyz) * nsOrigin.w);
	return clamp(ivec3(clamp(c, vec3(-1e9), vec3(1e9))), ivec3(0), nsDims.xyz - 1);
}

uint nsCellIndex(vec3 p) {
	ivec3 c = nsCellCoord(p);
	return uint((c.z * nsDims.y + c.y) * nsDims.x + c.x);
}
