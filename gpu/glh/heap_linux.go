//go:build linux && cgo

package glh

/*
#include <malloc.h>

static void keep_heap(int bytes) {
#ifdef M_TRIM_THRESHOLD
	mallopt(M_TRIM_THRESHOLD, bytes);
#endif
}
*/
import "C"

// heapKept is how much free memory at the top of the C heap glibc may keep rather than return to the system.
const heapKept = 64 << 20

// keepHeap stops glibc from returning the top of the C heap to the system as soon as 128 KB of it is free, its
// default. llvmpipe (Mesa's software rasteriser) allocates the bins of a frame's triangles and frees them when the
// frame is drawn: with few tiles (a small framebuffer, render.scale < 1) that memory sat at the top of the heap, went
// back to the system after every frame and was faulted in again, page by page, in the next one — 6,000 page faults
// a frame for 15,000 particles, which tripled the splat passes' time (57 ms instead of 17 at 640×360). Up to
// heapKept of it now stays for the next frame. Other allocators (musl) have no such threshold; nothing changes
// there.
func keepHeap() { C.keep_heap(C.int(heapKept)) }
