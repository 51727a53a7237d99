//go:build !linux || !cgo

package glh

// keepHeap tunes the C allocator for the GL driver where that helps (heap_linux.go); here there is nothing to do.
func keepHeap() {}
