package glh

import (
	"fmt"
	"image"
	"unsafe"

	gl "github.com/go-gl/gl/v4.1-core/gl"
)

// Readback copies rendered pictures to the CPU without stalling the frame that drew them: Start queues a copy of
// a framebuffer into the next of a ring of pixel buffer objects (scaled to the readback's size when the source
// differs) and fences it; Next, a frame or two later, maps the oldest copy whose fence has passed. The GPU and the
// driver do the transfer while the application draws the next frames. It needs a current context; every method
// must be called on the thread that owns it.
type Readback struct {
	W, H   int
	pbos   []uint32
	fences []uintptr // 0: the slot is free
	tags   []int
	head   int // the oldest copy in flight
	count  int // copies in flight
	scaled *Framebuffer
}

// NewReadback makes a ring of depth buffers for pictures of w×h pixels.
func NewReadback(w, h, depth int) (*Readback, error) {
	if w <= 0 || h <= 0 || depth <= 0 {
		return nil, fmt.Errorf("glh: readback of %dx%d pixels, %d deep: every number must be positive", w, h, depth)
	}
	r := &Readback{W: w, H: h, pbos: make([]uint32, depth), fences: make([]uintptr, depth), tags: make([]int, depth)}
	gl.GenBuffers(int32(depth), &r.pbos[0])
	for _, id := range r.pbos {
		gl.BindBuffer(gl.PIXEL_PACK_BUFFER, id)
		gl.BufferData(gl.PIXEL_PACK_BUFFER, 4*w*h, nil, gl.STREAM_READ)
	}
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, 0)
	if err := CheckError("allocating the readback buffers"); err != nil {
		r.Delete()
		return nil, err
	}
	return r, nil
}

// Pending is how many copies are in flight.
func (r *Readback) Pending() int { return r.count }

// Full reports whether every buffer holds a copy not yet taken by Next; Start would fail.
func (r *Readback) Full() bool { return r.count == len(r.pbos) }

// Start queues a copy of the colour of framebuffer fbo (0: the window's back buffer), whose size is srcW×srcH,
// scaled (bilinearly) to the readback's size when that differs. tag comes back with the picture from Next. It
// returns false, doing nothing, when the ring is full. It leaves framebuffer 0 bound for drawing and reading.
func (r *Readback) Start(fbo uint32, srcW, srcH int, tag int) (bool, error) {
	return r.StartRect(fbo, 0, 0, srcW, srcH, tag)
}

// StartRect is Start for the srcW×srcH rectangle of fbo whose lower-left corner is (x, y): a part of the window,
// such as the view beside the panels.
func (r *Readback) StartRect(fbo uint32, x, y, srcW, srcH int, tag int) (bool, error) {
	if r.Full() {
		return false, nil
	}
	src := fbo
	if srcW != r.W || srcH != r.H || x != 0 || y != 0 {
		if r.scaled == nil {
			var err error
			if r.scaled, err = NewFramebuffer(r.W, r.H); err != nil {
				return false, err
			}
		}
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, fbo)
		if fbo == 0 {
			gl.ReadBuffer(gl.BACK)
		}
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, r.scaled.id)
		filter := uint32(gl.LINEAR)
		if srcW == r.W && srcH == r.H {
			filter = gl.NEAREST // a copy, not a resample
		}
		gl.BlitFramebuffer(int32(x), int32(y), int32(x+srcW), int32(y+srcH), 0, 0, int32(r.W), int32(r.H), gl.COLOR_BUFFER_BIT, filter)
		src = r.scaled.id
	}
	k := (r.head + r.count) % len(r.pbos)
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, src)
	if src == 0 {
		gl.ReadBuffer(gl.BACK)
	}
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, r.pbos[k])
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(0, 0, int32(r.W), int32(r.H), gl.RGBA, gl.UNSIGNED_BYTE, nil) // into the bound buffer: returns at once
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, 0)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	r.fences[k] = gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)
	r.tags[k] = tag
	r.count++
	return true, CheckError("starting a readback")
}

// Next copies the oldest finished picture into dst (W×H, top row first) and returns its tag. With wait it waits
// for the oldest copy in flight (up to 10 s); without, it returns ok false when that copy has not finished.
func (r *Readback) Next(dst *image.RGBA, wait bool) (tag int, ok bool, err error) {
	if r.count == 0 {
		return 0, false, nil
	}
	if b := dst.Bounds(); b.Dx() != r.W || b.Dy() != r.H {
		return 0, false, fmt.Errorf("glh: readback into a %dx%d image, want %dx%d", b.Dx(), b.Dy(), r.W, r.H)
	}
	k := r.head
	var flags uint32
	var timeout uint64
	if wait {
		flags, timeout = gl.SYNC_FLUSH_COMMANDS_BIT, 10e9
	}
	switch gl.ClientWaitSync(r.fences[k], flags, timeout) {
	case gl.ALREADY_SIGNALED, gl.CONDITION_SATISFIED:
	case gl.TIMEOUT_EXPIRED:
		if wait {
			return 0, false, fmt.Errorf("glh: a readback did not finish within 10 s")
		}
		return 0, false, nil
	default:
		return 0, false, fmt.Errorf("glh: waiting for a readback failed: %w", CheckError("glClientWaitSync"))
	}
	gl.DeleteSync(r.fences[k])
	r.fences[k] = 0
	tag = r.tags[k]
	r.head = (r.head + 1) % len(r.pbos)
	r.count--

	size := 4 * r.W * r.H
	gl.BindBuffer(gl.PIXEL_PACK_BUFFER, r.pbos[k])
	defer gl.BindBuffer(gl.PIXEL_PACK_BUFFER, 0)
	p := gl.MapBufferRange(gl.PIXEL_PACK_BUFFER, 0, size, gl.MAP_READ_BIT)
	if p == nil {
		return tag, false, fmt.Errorf("glh: mapping a readback buffer failed: %w", CheckError("glMapBufferRange"))
	}
	src := unsafe.Slice((*byte)(p), size)
	row := 4 * r.W
	for y := 0; y < r.H; y++ { // GL's first row is the bottom one
		copy(dst.Pix[y*dst.Stride:y*dst.Stride+row], src[(r.H-1-y)*row:(r.H-y)*row])
	}
	gl.UnmapBuffer(gl.PIXEL_PACK_BUFFER)
	return tag, true, nil
}

// Delete frees the buffers and fences; copies in flight are dropped. Safe to call twice and on nil.
func (r *Readback) Delete() {
	if r == nil {
		return
	}
	for k, f := range r.fences {
		if f != 0 {
			gl.DeleteSync(f)
			r.fences[k] = 0
		}
	}
	if len(r.pbos) > 0 && r.pbos[0] != 0 {
		gl.DeleteBuffers(int32(len(r.pbos)), &r.pbos[0])
		clear(r.pbos)
	}
	r.scaled.Delete()
	r.scaled = nil
	r.count = 0
}
