package glh

import (
	"fmt"
	"unsafe"

	gl "github.com/go-gl/gl/v4.1-core/gl"
)

// Buffer is a GL buffer object of a fixed size in bytes. The same buffer can serve as a shader storage buffer for
// compute passes and as a vertex attribute source for drawing.
type Buffer struct {
	id   uint32
	size int
}

// NewBuffer allocates size bytes with the given usage hint (gl.DYNAMIC_DRAW, gl.STREAM_DRAW, ...), zero-filled.
func NewBuffer(size int, usage uint32) (*Buffer, error) {
	if size <= 0 {
		size = 16 // a zero-size store is legal but awkward to bind; keep a small one
	}
	var id uint32
	gl.GenBuffers(1, &id)
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, id)
	zeros := make([]byte, size)
	gl.BufferData(gl.COPY_WRITE_BUFFER, size, unsafe.Pointer(&zeros[0]), usage)
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
	if err := CheckError(fmt.Sprintf("allocating a %d-byte buffer", size)); err != nil {
		gl.DeleteBuffers(1, &id)
		return nil, fmt.Errorf("%w (out of GPU memory?)", err)
	}
	return &Buffer{id: id, size: size}, nil
}

// ID is the GL name of the buffer.
func (b *Buffer) ID() uint32 { return b.id }

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int { return b.size }

// Delete frees the buffer; safe to call twice and on nil.
func (b *Buffer) Delete() {
	if b != nil && b.id != 0 {
		gl.DeleteBuffers(1, &b.id)
		b.id = 0
	}
}

// Upload copies data into the buffer at a byte offset.
func Upload[T any](b *Buffer, offset int, data []T) {
	if len(data) == 0 {
		return
	}
	n := len(data) * int(unsafe.Sizeof(data[0]))
	if offset < 0 || offset+n > b.size {
		panic(fmt.Sprintf("glh: upload of %d bytes at %d overflows a %d-byte buffer", n, offset, b.size))
	}
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, b.id)
	gl.BufferSubData(gl.COPY_WRITE_BUFFER, offset, n, unsafe.Pointer(&data[0]))
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
}

// Read copies len(dst) elements out of the buffer from a byte offset. It waits for the GPU.
func Read[T any](b *Buffer, offset int, dst []T) {
	if len(dst) == 0 {
		return
	}
	n := len(dst) * int(unsafe.Sizeof(dst[0]))
	if offset < 0 || offset+n > b.size {
		panic(fmt.Sprintf("glh: read of %d bytes at %d overflows a %d-byte buffer", n, offset, b.size))
	}
	gl.BindBuffer(gl.COPY_READ_BUFFER, b.id)
	gl.GetBufferSubData(gl.COPY_READ_BUFFER, offset, n, unsafe.Pointer(&dst[0]))
	gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
}

// Copy copies n bytes between buffers on the GPU.
func Copy(dst *Buffer, dstOffset int, src *Buffer, srcOffset, n int) {
	gl.BindBuffer(gl.COPY_READ_BUFFER, src.id)
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, dst.id)
	gl.CopyBufferSubData(gl.COPY_READ_BUFFER, gl.COPY_WRITE_BUFFER, srcOffset, dstOffset, n)
	gl.BindBuffer(gl.COPY_READ_BUFFER, 0)
	gl.BindBuffer(gl.COPY_WRITE_BUFFER, 0)
}

// VertexArray is a VAO. Core profiles need one bound for any draw, even one that pulls no attributes.
type VertexArray struct{ id uint32 }

// NewVertexArray creates an empty VAO.
func NewVertexArray() *VertexArray {
	var id uint32
	gl.GenVertexArrays(1, &id)
	return &VertexArray{id: id}
}

// Bind makes the VAO current.
func (v *VertexArray) Bind() { gl.BindVertexArray(v.id) }

// ID is the GL name of the VAO.
func (v *VertexArray) ID() uint32 { return v.id }

// Delete frees the VAO; safe to call twice.
func (v *VertexArray) Delete() {
	if v != nil && v.id != 0 {
		gl.DeleteVertexArrays(1, &v.id)
		v.id = 0
	}
}

// Attrib points float attribute `index` of the bound VAO at a buffer: `comps` floats per element, `stride` bytes
// apart from `offset`; divisor 1 makes it per instance.
func Attrib(index uint32, buf *Buffer, comps int32, stride int32, offset int, divisor uint32) {
	gl.BindBuffer(gl.ARRAY_BUFFER, buf.id)
	gl.EnableVertexAttribArray(index)
	gl.VertexAttribPointerWithOffset(index, comps, gl.FLOAT, false, stride, uintptr(offset))
	gl.VertexAttribDivisor(index, divisor)
	gl.BindBuffer(gl.ARRAY_BUFFER, 0)
}
