package render

import (
	"fmt"
	"image"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/sim"
)

// FrameBuffers holds the GL buffers a CPU solver's frames are uploaded into for drawing. The zero value is ready to
// use; Delete frees the buffers.
type FrameBuffers struct {
	pos, vel, rho *glh.Buffer
	capacity      int // particles the buffers hold
}

// Upload copies the positions, velocities and density ratios of f into the buffers, growing them when f has more
// particles than they hold (they are reused otherwise), and returns what to pass to Renderer.Draw. The returned
// buffers stay valid until the next Upload that grows them, or Delete.
func (u *FrameBuffers) Upload(f *sim.Frame) (Particles, error) {
	if f == nil {
		return Particles{}, fmt.Errorf("render: uploading a nil frame")
	}
	n := f.N
	if n < 0 || len(f.Pos) < n || len(f.Vel) < n || len(f.Rho) < n {
		return Particles{}, fmt.Errorf("render: frame of %d particles has %d positions, %d velocities and %d densities",
			n, len(f.Pos), len(f.Vel), len(f.Rho))
	}
	if u.pos == nil || n > u.capacity {
		if err := u.grow(n); err != nil {
			return Particles{}, err
		}
	}
	glh.Upload(u.pos, 0, f.Pos[:n])
	glh.Upload(u.vel, 0, f.Vel[:n])
	glh.Upload(u.rho, 0, f.Rho[:n])
	return Particles{Pos: u.pos, Vel: u.vel, Rho: u.rho, N: n, Radius: f.Radius}, nil
}

// grow replaces the buffers by ones for at least n particles, with a quarter to spare so a slowly growing count
// (an emitter) does not reallocate every frame.
func (u *FrameBuffers) grow(n int) error {
	u.Delete()
	c := max(n+n/4, 256)
	var err error
	if u.pos, err = glh.NewBuffer(c*sizeofVec4, gl.DYNAMIC_DRAW); err == nil {
		if u.vel, err = glh.NewBuffer(c*sizeofVec4, gl.DYNAMIC_DRAW); err == nil {
			u.rho, err = glh.NewBuffer(c*sizeofFloat, gl.DYNAMIC_DRAW)
		}
	}
	if err != nil {
		u.Delete()
		return fmt.Errorf("render: particle buffers for %d particles: %w", n, err)
	}
	u.capacity = c
	return nil
}

// Delete frees the buffers; safe to call twice. Upload after Delete allocates new ones.
func (u *FrameBuffers) Delete() {
	u.pos.Delete()
	u.vel.Delete()
	u.rho.Delete()
	*u = FrameBuffers{}
}

// Screenshot reads the colour of framebuffer fbo (0: the window's back buffer) into an image, top row first. It
// waits for the GPU to finish drawing.
func Screenshot(fbo uint32, w, h int) *image.RGBA { return glh.ReadRGBA(fbo, w, h) }
