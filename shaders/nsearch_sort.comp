#version 430 core
// Neighbour grid build, step 4: one thread per cell sorts its particles by key (their ids) or by index —
// insertion sort, cells hold a handful — so the order depends on positions and keys alone, as on the CPU.
layout(local_size_x = GROUP_SIZE) in;
#include "nsearch_build.glsl"

uint sortKey(uint i) { return nsHasKey != 0u ? nsKey[i] : i; }

void main() {
	uint c = globalIndex();
	if (c >= nsNumCells) return;
	uint s = nsCount[c];
	uint e = nsCount[c + 1u];
	for (uint a = s + 1u; a < e; a++) {
		uint v = nsOrderW[a];
		uint key = sortKey(v);
		uint b = a;
		while (b > s && sortKey(nsOrderW[b - 1u]) > key) {
			nsOrderW[b] = nsOrderW[b - 1u];
			b--;
		}
		nsOrderW[b] = v;
	}
}
