// Package compute holds building blocks for OpenGL 4.3 compute passes: dispatching over any number of items
// (more than 65535 workgroups spill into a second dimension), and a parallel exclusive prefix sum.
//
// Shaders index items with the helper in shaders/compute_common.glsl, which matches Dispatch's layout.
package compute

import (
	"fmt"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/shaders"
)

// GroupSize is the workgroup size of the one-item-per-thread passes.
const GroupSize = 256

// maxGroupsX is the smallest maximum workgroup count GL guarantees per dimension.
const maxGroupsX = 65535

// Defines are the constants every compute shader of this package's layout needs.
func Defines() []shaders.Define {
	return []shaders.Define{shaders.Int("GROUP_SIZE", GroupSize), shaders.Int("SCAN_BLOCK", ScanBlock), shaders.Int("SCAN_THREADS", ScanBlock/2)}
}

// Dispatch runs the bound program over n items with groups of size `group`.
func Dispatch(n, group int) {
	if n <= 0 {
		return
	}
	groups := (n + group - 1) / group
	x, y := groups, 1
	if groups > maxGroupsX {
		x = maxGroupsX
		y = (groups + maxGroupsX - 1) / maxGroupsX
	}
	gl.DispatchCompute(uint32(x), uint32(y), 1)
}

// Barrier makes shader-storage writes visible to later shader reads.
func Barrier() { gl.MemoryBarrier(gl.SHADER_STORAGE_BARRIER_BIT) }

// BindStorage binds a buffer to a shader-storage binding point.
func BindStorage(binding uint32, b *glh.Buffer) {
	gl.BindBufferBase(gl.SHADER_STORAGE_BUFFER, binding, b.ID())
}

// ClearUint fills a buffer of 32-bit words with v.
func ClearUint(b *glh.Buffer, v uint32) {
	gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, b.ID())
	gl.ClearBufferData(gl.SHADER_STORAGE_BUFFER, gl.R32UI, gl.RED_INTEGER, gl.UNSIGNED_INT, glPtr(&v))
	gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, 0)
}

// ClearUintRange fills `count` 32-bit words starting at word `first` with v.
func ClearUintRange(b *glh.Buffer, first, count int, v uint32) {
	gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, b.ID())
	gl.ClearBufferSubData(gl.SHADER_STORAGE_BUFFER, gl.R32UI, 4*first, 4*count, gl.RED_INTEGER, gl.UNSIGNED_INT, glPtr(&v))
	gl.BindBuffer(gl.SHADER_STORAGE_BUFFER, 0)
}

// MaxStorageBindings is the number of shader-storage binding points the context has.
func MaxStorageBindings() int {
	var v int32
	gl.GetIntegerv(gl.MAX_SHADER_STORAGE_BUFFER_BINDINGS, &v)
	return int(v)
}

// MaxStorageBlockSize is the largest shader-storage buffer a shader may access, in bytes.
func MaxStorageBlockSize() int64 {
	var v int64
	gl.GetInteger64v(gl.MAX_SHADER_STORAGE_BLOCK_SIZE, &v)
	return v
}

// CheckStorageSize errors when a buffer of `bytes` would exceed the shader-storage limit.
func CheckStorageSize(what string, bytes int64) error {
	if limit := MaxStorageBlockSize(); bytes > limit {
		return fmt.Errorf("%s needs a %d MB storage buffer; this GPU allows %d MB; use fewer particles or a larger spacing",
			what, bytes>>20, limit>>20)
	}
	return nil
}
