// The neighbour grid of gpu/nsearch, for compute passes that look up neighbours. Include after the local_size
// layout; the binding points come from nsearch.Defines().
#include "compute_common.glsl"

#include "nsearch_params.glsl"

layout(std430, binding = NS_BIND_START) readonly buffer NSStart { uint nsStart[]; };
layout(std430, binding = NS_BIND_ORDER) readonly buffer NSOrder { uint nsOrder[]; };

// The sorted slots [begin, end) of the row of (up to) three cells x−1..x+1 at offset (dy, dz) from cell c: the
// three are contiguous in sorted order. Returns false when the row lies outside the grid. Visiting dz, then dy,
// from −1 to 1 covers the 27 cells around c in the order sim/grid uses.
bool nsRow(ivec3 c, int dy, int dz, out uint begin, out uint end) {
	int z = c.z + dz, y = c.y + dy;
	begin = 0u;
	end = 0u;
	if (z < 0 || z >= nsDims.z || y < 0 || y >= nsDims.y) return false;
	int row = (z * nsDims.y + y) * nsDims.x;
	begin = nsStart[row + max(c.x - 1, 0)];
	end = nsStart[row + min(c.x + 1, nsDims.x - 1) + 1];
	return true;
}
