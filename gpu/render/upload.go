package render

import (
	"fmt"
	"image"
	"unsafe"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/sim"
	csurface "github.com/slosh/slosh/sim/surface"
	"github.com/slosh/slosh/sim/trimesh"
)

// The CPU kernels upload as they are: their layout is Particles.Ellipsoids'.
var _ [sizeofEllipsoid]byte = [unsafe.Sizeof(csurface.Ellipsoid{})]byte{}

// FrameBuffers holds the GL buffers a CPU solver's frames are uploaded into for drawing. The zero value is ready to
// use; Delete frees the buffers.
type FrameBuffers struct {
	pos, vel, rho, body *glh.Buffer
	temp                *glh.Buffer  // a float per particle
	material, phase     *glh.Buffer  // a byte per particle
	id                  *glh.Buffer  // a uint32 per particle
	palette             [][3]float32 // the last frame's, copied
	capacity            int          // particles the buffers hold
	ell                 *glh.Buffer
	ellCapacity         int // particles ell holds
	mesh                FluidMesh
}

// Upload copies the positions, velocities, density ratios, (when there are rigid bodies) bodies, (when it has
// several fluids) material numbers and palette, (when it has phases) the phases and the particles' ids (for the
// grains' tints) and (when it has them) the temperatures of f into the buffers, growing them when f has more
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
	p := Particles{Pos: u.pos, Vel: u.vel, Rho: u.rho, N: n, Radius: f.Radius, Bodies: f.Bodies}
	if len(f.Body) >= n && len(f.Bodies) > 0 {
		glh.Upload(u.body, 0, f.Body[:n])
		p.Body = u.body
	}
	if len(f.Material) >= n && len(f.Palette) > 0 {
		glh.Upload(u.material, 0, f.Material[:n])
		u.palette = append(u.palette[:0], f.Palette...)
		p.Material, p.Palette = u.material, u.palette
	}
	if len(f.Phase) >= n && f.Phase != nil {
		glh.Upload(u.phase, 0, f.Phase[:n])
		p.Phase = u.phase
		if len(f.ID) >= n { // only grains read them: a frame of liquid alone uploads none
			glh.Upload(u.id, 0, f.ID[:n])
			p.ID = u.id
		}
	}
	if len(f.Temperature) >= n && f.Temperature != nil {
		glh.Upload(u.temp, 0, f.Temperature[:n])
		p.Temperature = u.temp
	}
	return p, nil
}

// UploadEllipsoids copies the anisotropic kernels of p's particles (sim/surface's Anisotropy computes them on the
// CPU, in the order of the frame's particles) into a buffer, grown as Upload grows its buffers, and returns p with
// Ellipsoids set to it. kernels must cover p.N particles.
func (u *FrameBuffers) UploadEllipsoids(p Particles, kernels []csurface.Ellipsoid) (Particles, error) {
	n := p.N
	if n < 0 || len(kernels) < n {
		return p, fmt.Errorf("render: %d ellipsoids for %d particles", len(kernels), n)
	}
	if u.ell == nil || n > u.ellCapacity {
		u.ell.Delete()
		c := max(n+n/4, 256)
		var err error
		if u.ell, err = glh.NewBuffer(c*sizeofEllipsoid, gl.DYNAMIC_DRAW); err != nil {
			u.ell, u.ellCapacity = nil, 0
			return p, fmt.Errorf("render: ellipsoid buffer for %d particles: %w", n, err)
		}
		u.ellCapacity = c
	}
	glh.Upload(u.ell, 0, kernels[:n])
	p.Ellipsoids = u.ell
	return p, nil
}

// grow replaces the buffers by ones for at least n particles, with a quarter to spare so a slowly growing count
// (an emitter) does not reallocate every frame.
func (u *FrameBuffers) grow(n int) error {
	u.deleteParticles()
	c := max(n+n/4, 256)
	var err error
	for _, b := range []struct {
		dst   **glh.Buffer
		bytes int // a particle
	}{{&u.pos, sizeofVec4}, {&u.vel, sizeofVec4}, {&u.rho, sizeofFloat}, {&u.temp, sizeofFloat}, {&u.body, 4}, {&u.material, 1}, {&u.phase, 1}, {&u.id, 4}} {
		if *b.dst, err = glh.NewBuffer(c*b.bytes, gl.DYNAMIC_DRAW); err != nil {
			break
		}
	}
	if err != nil {
		u.deleteParticles()
		return fmt.Errorf("render: particle buffers for %d particles: %w", n, err)
	}
	u.capacity = c
	return nil
}

// Delete frees the buffers; safe to call twice. Upload after Delete allocates new ones.
func (u *FrameBuffers) Delete() {
	u.deleteParticles()
	u.ell.Delete()
	u.mesh.g.Delete()
	*u = FrameBuffers{}
}

// UploadMesh copies the fluid's surface mesh m into the buffers' mesh (reused while it is large enough) and returns
// p with Mesh set, for render.mode mesh; a nil or empty m returns p without a mesh.
func (u *FrameBuffers) UploadMesh(p Particles, m *trimesh.Mesh) (Particles, error) {
	p.Mesh = nil
	if m == nil || len(m.Triangles) == 0 {
		u.mesh.g.count = 0
		return p, nil
	}
	if err := u.mesh.g.upload(m); err != nil {
		return p, fmt.Errorf("render: the fluid mesh: %w", err)
	}
	p.Mesh = &u.mesh
	return p, nil
}

func (u *FrameBuffers) deleteParticles() {
	u.pos.Delete()
	u.vel.Delete()
	u.rho.Delete()
	u.temp.Delete()
	u.body.Delete()
	u.material.Delete()
	u.phase.Delete()
	u.id.Delete()
	u.pos, u.vel, u.rho, u.temp, u.body, u.material, u.phase, u.id, u.capacity = nil, nil, nil, nil, nil, nil, nil, nil, 0
}

// Screenshot reads the colour of framebuffer fbo (0: the window's back buffer) into an image, top row first. It
// waits for the GPU to finish drawing.
func Screenshot(fbo uint32, w, h int) *image.RGBA { return glh.ReadRGBA(fbo, w, h) }
