// Package surface computes the fluid surface's anisotropic kernels (Yu & Turk 2013) in an OpenGL 4.3 compute
// pass: for every particle of a positions buffer, the ellipsoid the renderer splats — the smoothed centre with the
// neighbour count, and three semi-axis vectors — as sim/surface.Ellipsoid lays it out (four vec4s, 64 bytes).
//
// A pass builds a gpu/nsearch grid over the positions (cell = r, sorted by index, the order sim/surface's grid
// uses) and runs shaders/surface_anisotropy.comp, which mirrors sim/surface operation for operation; the CPU pass
// is this one's test oracle. The positions can be any vec4 buffer: the GPU PBF solver's, or a CPU frame uploaded
// for drawing.
package surface

import (
	"fmt"
	"strconv"
	"unsafe"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/compute"
	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/nsearch"
	"github.com/slosh/slosh/shaders"
	"github.com/slosh/slosh/sim"
	csurface "github.com/slosh/slosh/sim/surface"
)

// Binding points, mirrored into GLSL as #defines. They stay clear of gpu/pbf (storage 0–21, uniform 0), the
// renderer (uniform 1), gpu/nsearch (storage 24–29, uniform 2) and the scan (storage 30, 31).
const (
	BindParams = 3  // uniform block SurfParams
	BindPos    = 22 // vec4 positions, read
	BindOut    = 23 // four vec4s per particle, written
)

// needBindings is how many storage binding points the pass, the grid and the scan use.
const needBindings = 32

// RecordSize is the size of one particle's record in the output buffer: four vec4s.
const RecordSize = int(unsafe.Sizeof(csurface.Ellipsoid{}))

// params mirrors the SurfParams uniform block of surface_common.glsl (std140).
type params struct {
	N, Neps, Enabled, _ uint32
	R2, InvR, Kr, Ks    float32
	Kn, Lambda, Rp      float32
	InvSigmaRef         float32
	InteriorN           uint32
	InteriorOffset2     float32
	_, _                uint32
}

// Defines are the constants the surface shaders need.
func Defines() []shaders.Define {
	return append(nsearch.Defines(),
		shaders.Int("SURF_BIND_PARAMS", BindParams), shaders.Int("SURF_BIND_POS", BindPos), shaders.Int("SURF_BIND_OUT", BindOut),
		shaders.Int("SURF_JACOBI_SWEEPS", csurface.JacobiSweeps),
		shaders.Define{Name: "SURF_MIN_SIGMA", Value: glslFloat(csurface.MinSigma)},
		shaders.Define{Name: "SURF_MAX_SIGMA", Value: glslFloat(csurface.MaxSigma)})
}

// glslFloat writes a float32 constant as a GLSL floating literal ("1e-06", "0.5").
func glslFloat(v float32) string {
	return strconv.FormatFloat(float64(v), 'e', -1, 32)
}

// Programs are the compiled pass and the neighbour grid's build passes. Compiling takes a while on a software
// rasteriser, so one set serves every Anisotropy made on a context.
type Programs struct {
	aniso *glh.Program
	grid  *nsearch.Programs
}

// CompilePrograms compiles the passes. ctx must be current and have compute shaders.
func CompilePrograms(ctx *glh.Context) (*Programs, error) {
	if ctx == nil || !ctx.Compute {
		return nil, fmt.Errorf("gpu surface: OpenGL 4.3 compute shaders are not available (%v)", ctx)
	}
	if have := compute.MaxStorageBindings(); have < needBindings {
		return nil, fmt.Errorf("gpu surface: needs %d shader-storage binding points, this GPU has %d", needBindings, have)
	}
	p := &Programs{}
	var err error
	if p.aniso, err = glh.NewProgram(shaders.FS(), Defines(), "surface_anisotropy.comp"); err != nil {
		return nil, fmt.Errorf("gpu surface: %w", err)
	}
	if p.grid, err = nsearch.CompilePrograms(); err != nil {
		p.Delete()
		return nil, fmt.Errorf("gpu surface: %w", err)
	}
	return p, nil
}

// Delete frees the programs; safe to call twice.
func (p *Programs) Delete() {
	if p == nil {
		return
	}
	p.aniso.Delete()
	p.grid.Delete()
}

// Anisotropy computes the kernels of a particle set on the GPU. All methods must be called on the GL thread with
// the context current.
type Anisotropy struct {
	// Cfg is read at each Compute; the CPU pass (sim/surface) takes the same values.
	Cfg csurface.Config

	progs     *Programs
	ownsProgs bool
	grid      *nsearch.Grid
	ubo       *glh.Buffer
	out       *glh.Buffer
	capacity  int // particles out holds
	n         int // particles of the last Compute

	dv       csurface.Derived
	dvCfg    csurface.Config
	dvRadius float32
	haveDv   bool

	timers glh.Timers
}

// New compiles the passes and returns an Anisotropy that owns them. ctx must be current and have compute shaders.
func New(ctx *glh.Context) (*Anisotropy, error) {
	progs, err := CompilePrograms(ctx)
	if err != nil {
		return nil, err
	}
	a, err := NewWithPrograms(progs)
	if err != nil {
		progs.Delete()
		return nil, err
	}
	a.ownsProgs = true
	return a, nil
}

// NewWithPrograms returns an Anisotropy with the default configuration that uses (and does not own) compiled
// programs.
func NewWithPrograms(progs *Programs) (*Anisotropy, error) {
	if progs == nil || progs.aniso == nil {
		return nil, fmt.Errorf("gpu surface: no compiled programs")
	}
	a := &Anisotropy{Cfg: csurface.DefaultConfig(), progs: progs}
	var err error
	if a.ubo, err = glh.NewBuffer(int(unsafe.Sizeof(params{})), gl.DYNAMIC_DRAW); err != nil {
		return nil, fmt.Errorf("gpu surface: %w", err)
	}
	if a.grid, err = nsearch.NewGrid(progs.grid); err != nil {
		a.ubo.Delete()
		return nil, fmt.Errorf("gpu surface: %w", err)
	}
	return a, nil
}

// Derived returns the constants of the last Compute (shared with the CPU pass).
func (a *Anisotropy) Derived() csurface.Derived { return a.dv }

// Compute writes the kernels of the first n particles of pos (a vec4 per particle, xyz used) into Ellipsoids, in
// the order of the particles, for particles of radius particleRadius (m) in the box [lo, hi] (particles outside
// are binned into its border cells). Writes by earlier compute passes to pos must be visible (a shader-storage
// barrier); afterwards the records can be read as vertex attributes, shader storage or buffer copies.
func (a *Anisotropy) Compute(pos *glh.Buffer, n int, particleRadius float32, lo, hi [3]float32) error {
	if n < 0 || (n > 0 && (pos == nil || pos.ID() == 0)) {
		return fmt.Errorf("gpu surface: %d particles in a missing positions buffer", n)
	}
	if n > 0 && pos.Size() < 16*n {
		return fmt.Errorf("gpu surface: a %d-byte positions buffer cannot hold %d particles", pos.Size(), n)
	}
	if !a.haveDv || a.Cfg != a.dvCfg || particleRadius != a.dvRadius {
		dv, err := csurface.Derive(&a.Cfg, float64(particleRadius))
		if err != nil {
			return fmt.Errorf("gpu %w", err) // "gpu surface: ...": Derive's errors begin with "surface: "
		}
		a.dv, a.dvCfg, a.dvRadius, a.haveDv = dv, a.Cfg, particleRadius, true
	}
	if err := a.allocate(n); err != nil {
		return err
	}
	a.n = n
	if n == 0 {
		return nil
	}
	t := &a.timers
	t.Begin()
	if err := a.grid.Build(pos, nil, n, lo, hi, a.dv.R); err != nil {
		t.End()
		return fmt.Errorf("gpu surface: %w", err)
	}
	t.Mark("surface grid")
	a.upload(n)
	gl.BindBufferBase(gl.UNIFORM_BUFFER, BindParams, a.ubo.ID())
	a.grid.Bind()
	compute.BindStorage(BindPos, pos)
	compute.BindStorage(BindOut, a.out)
	a.progs.aniso.Use()
	compute.Dispatch(n, compute.GroupSize)
	// the renderer reads the records as instanced vertex attributes; later compute passes or copies may read them too
	gl.MemoryBarrier(gl.VERTEX_ATTRIB_ARRAY_BARRIER_BIT | gl.SHADER_STORAGE_BARRIER_BIT | gl.BUFFER_UPDATE_BARRIER_BIT)
	t.Mark("anisotropy")
	t.End()
	return nil
}

// upload fills the parameter block.
func (a *Anisotropy) upload(n int) {
	c, dv := &a.Cfg, &a.dv
	enabled := uint32(0)
	if c.Enabled {
		enabled = 1
	}
	block := params{
		N: uint32(n), Neps: uint32(max(c.Neps, 0)), Enabled: enabled,
		R2: dv.R * dv.R, InvR: dv.InvR, Kr: c.Kr, Ks: c.Ks,
		Kn: c.Kn, Lambda: c.Lambda, Rp: dv.ParticleRadius, InvSigmaRef: dv.InvSigmaRef,
		InteriorN: uint32(dv.InteriorNeighbours), InteriorOffset2: dv.InteriorOffset2,
	}
	glh.Upload(a.ubo, 0, []params{block})
}

// allocate grows the output buffer to hold n records, with a quarter to spare so a slowly growing particle count
// (an emitter) does not reallocate every frame.
func (a *Anisotropy) allocate(n int) error {
	if a.out != nil && n <= a.capacity {
		return nil
	}
	c := max(n+n/4, 256)
	if err := compute.CheckStorageSize("the surface kernels", int64(c)*int64(RecordSize)); err != nil {
		return fmt.Errorf("gpu surface: %w", err)
	}
	b, err := glh.NewBuffer(c*RecordSize, gl.DYNAMIC_COPY)
	if err != nil {
		return fmt.Errorf("gpu surface: kernels for %d particles: %w", n, err)
	}
	a.out.Delete()
	a.out, a.capacity = b, c
	return nil
}

// Ellipsoids is the output: RecordSize bytes per particle, in the order of the particles — the smoothed centre
// with the neighbour count in w, then the three semi-axis vectors, longest first, the first with the interior flag
// in w (sim/surface.Ellipsoid). It holds
// at least N() records, stays valid until a Compute with more particles than it holds or Delete, and is nil before
// the first Compute.
func (a *Anisotropy) Ellipsoids() *glh.Buffer { return a.out }

// N is the number of particles of the last Compute.
func (a *Anisotropy) N() int { return a.n }

// Timings returns the GPU time of the newest timed Compute — the grid build ("surface grid") and the kernels
// ("anisotropy") — in milliseconds; results arrive a few frames late, and ok is false until the first does.
func (a *Anisotropy) Timings() (passes []sim.Pass, totalMs float64, ok bool) { return a.timers.Poll() }

// SetWallTimings makes Timings report wall time, each pass finished (glFinish) before the next begins, instead
// of GPU timer queries (see glh.Timers.SetWall).
func (a *Anisotropy) SetWallTimings(on bool) { a.timers.SetWall(on) }

// Delete frees every GL object (and the programs when New compiled them); safe to call twice.
func (a *Anisotropy) Delete() {
	if a == nil {
		return
	}
	a.out.Delete()
	a.ubo.Delete()
	a.grid.Delete()
	a.timers.Delete()
	if a.ownsProgs {
		a.progs.Delete()
		a.progs = nil
	}
	a.out, a.capacity, a.n = nil, 0, 0
}
