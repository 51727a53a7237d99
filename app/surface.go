package app

import (
	"fmt"
	"io"
	"os"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/render"
	gsurface "github.com/slosh/slosh/gpu/surface"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	csurface "github.com/slosh/slosh/sim/surface"
	"github.com/slosh/slosh/sim/surface/field"
	"github.com/slosh/slosh/sim/surface/upsample"
)

// The prefixes of the surface's parameters: its anisotropic kernels (surface.kr, ...), its meshes (mesh.cell, ...)
// and its upsampling (upsample.levels, ...), all in the surfacer's set.
const (
	surfacePrefix  = "surface"
	meshPrefix     = "mesh"
	upsamplePrefix = "upsample"
)

// viewSettings are the surface's parameters, one set for the panel, --set and presets: the anisotropic kernels
// (surface.*), the mesh of render.mode mesh and of mesh exports (mesh.*), and the upsampling of the splatted
// surface (upsample.*).
type viewSettings struct {
	kernels  csurface.Config
	mesh     field.Settings
	upsample upsample.Params
	upOn     bool // upsample.enabled
	split    bool // mesh.side_by_side: the window shows the splatted surface and the mesh side by side
}

// splitParam is the name of the side-by-side view's switch.
const splitParam = "mesh.side_by_side"

func defaultViewSettings() viewSettings {
	return viewSettings{kernels: csurface.DefaultConfig(), mesh: field.DefaultSettings(), upsample: upsample.DefaultParams()}
}

// register adds the settings' parameters, with their values in vs, to s.
func (vs *viewSettings) register(s *param.Set) {
	vs.kernels.Register(s)
	vs.mesh.Register(s)
	s.Bool(&vs.split, param.Spec{Name: splitParam, Label: "Splats | mesh side by side", Group: "Surface|Mesh",
		Desc: "The window shows the splatted surface on the left and the mesh of the same frame on the right (unless an A/B comparison runs)"})
	s.Bool(&vs.upOn, param.Spec{Name: "upsample.enabled", Label: "Upsample the surface", Group: "Surface|Upsampling",
		Desc: "Splat the surface as the interior particles and the surface particles refined into denser points (Solenthaler 2009, §6.2): sharper water from few particles"})
	vs.upsample.Register(s)
}

// surfacer supplies the renderer with what it draws beyond the particles: each particle's anisotropic kernel (Yu
// & Turk 2013) when the render mode draws the surface or ellipsoids, a mesh of the fluid in render.mode mesh, or
// the upsampled surface (upsample.enabled). With compute shaders the kernels come from gpu/surface on the GL
// thread over whatever the driver draws — the GPU solver's own buffers or an uploaded CPU frame — and only again
// when the particles, the parameters or the domain changed. Everything else (and the kernels without compute
// shaders) is made on the CPU: by the runner for CPU modes, published with each frame so the GL thread never
// waits for it; on the GL thread from a read-back frame for the GPU mode, again only when its particles change.
type surfacer struct {
	cfg viewSettings // the live values of set
	set *param.Set
	gpu *gsurface.Anisotropy // nil without compute shaders

	// what the kernels on the GPU were computed from
	done struct {
		src     any // the driver (or session) whose particles they are
		version uint64
		cfg     csurface.Config
		n       int
		lo, hi  [3]float32
	}
	// views made on this thread: for one-off pictures, and the GPU mode's meshes and upsampled surfaces
	views     frameViews
	out       viewOut
	bufs      render.FrameBuffers // where they are uploaded
	twinFrame sim.Frame           // a GPU pair's B, read back (the twin's surfacer only)
	made      struct {
		src     any
		version uint64
		job     viewJob
		p       render.Particles
	}
	// what the CPU runner was last asked to make
	sent struct {
		drv driver
		job viewJob
	}
	// notes is where once says, a single time, that a picture's surface was made within a budget (the upsampling
	// capped) rather than failing the picture
	notes io.Writer
	noted bool
}

// SurfaceParams returns the surface's parameters (surface.*, mesh.*, upsample.*) with their defaults, without
// GL: for listing and checking --set.
func SurfaceParams() *param.Set {
	vs := defaultViewSettings()
	s := param.NewSet()
	vs.register(s)
	return s
}

// newSurfacer prepares the kernels' computation; ctx may be nil (headless CPU runs) or lack compute shaders.
func newSurfacer(ctx *glh.Context) (*surfacer, error) {
	s := &surfacer{cfg: defaultViewSettings(), set: param.NewSet(), notes: os.Stderr}
	s.cfg.register(s.set)
	if ctx != nil && ctx.Compute {
		progs, err := ctx.Shared("gpu/surface programs", func() (any, error) { return gsurface.CompilePrograms(ctx) })
		if err != nil {
			return nil, fmt.Errorf("surface: %w", err)
		}
		if s.gpu, err = gsurface.NewWithPrograms(progs.(*gsurface.Programs)); err != nil {
			return nil, fmt.Errorf("surface: %w", err)
		}
	}
	return s, nil
}

// Params is the set the panel shows and --set surface.*, mesh.* and upsample.* assign.
func (s *surfacer) Params() *param.Set { return s.set }

func domainOf(sc *scene.Scene) (lo, hi [3]float32) {
	for k := 0; k < 3; k++ {
		lo[k], hi[k] = float32(sc.Domain.Min[k]), float32(sc.Domain.Max[k])
	}
	return lo, hi
}

// job is what the renderer's mode needs made on the CPU for sc: a mesh (render.mode mesh, or the side-by-side
// view when split, which only the window shows), else the upsampled surface (upsample.enabled, in a mode that
// splats); and the kernels when they are needed and compute shaders cannot make them.
func (s *surfacer) job(rend *render.Renderer, sc *scene.Scene, split bool) viewJob {
	j := viewJob{split: split}
	switch {
	case rend.WantsMesh() || split:
		j.mesh, j.meshCfg = true, s.cfg.mesh
	case s.cfg.upOn && rend.WantsEllipsoids():
		j.upsample, j.upCfg = true, s.cfg.upsample
	}
	if s.gpu == nil && s.needKernels(rend, j) {
		j.kernels, j.kcfg = true, s.cfg.kernels
		j.lo, j.hi = domainOf(sc)
	}
	return j
}

// needKernels says whether the particles are splatted with their anisotropic kernels: the mode splats (or the
// side-by-side view's left half does), neither a mesh nor upsampled points take their place, and the kernels are
// not just the spheres the renderer draws without them (spheresSuffice).
func (s *surfacer) needKernels(rend *render.Renderer, j viewJob) bool {
	if s.spheresSuffice(rend, j.split) {
		return false
	}
	return j.split || rend.WantsEllipsoids() && !rend.WantsMesh() && !j.upsample
}

// spheresSuffice says whether the kernels would tell the renderer nothing it does not draw without them: with
// surface.enabled false each kernel is a sphere of k_s particle radii at the particle, with k_s = 1 the sphere
// the renderer draws for a particle without a kernel, and then only their neighbour counts are news, which only
// the spray reads. Their pass is all neighbour search, the most costly part of a frame on a software rasteriser
// (90 ms at 8,000 particles on llvmpipe, 340 ms at 30,000), so it is left out.
func (s *surfacer) spheresSuffice(rend *render.Renderer, split bool) bool {
	k := &s.cfg.kernels
	return !k.Enabled && k.Ks == 1 && !rend.WantsNeighborCounts(split)
}

// gpuKernels says whether the kernels come from gpu/surface.
func (s *surfacer) gpuKernels(rend *render.Renderer, j viewJob) bool {
	return s.gpu != nil && s.needKernels(rend, j)
}

// particles returns what to draw for the driver's newest frame as rend's mode wants it.
func (s *surfacer) particles(drv driver, rend *render.Renderer, sc *scene.Scene) (render.Particles, error) {
	j := s.job(rend, sc, s.cfg.split)
	p := drv.Particles()
	if cd, ok := drv.(*cpuDriver); ok {
		if s.sent.drv != drv || s.sent.job != j {
			cd.runner.SetView(j) // the driver uploads what the runner publishes with each frame
			s.sent.drv, s.sent.job = drv, j
		}
	} else if j.mesh || j.upsample {
		var err error
		p, err = s.viewsHere(p, drv, drv.Version(), j, drv.PickFrame)
		if err != nil {
			return p, err
		}
	}
	return s.kernelsFor(p, drv, drv.Version(), rend, j, sc)
}

// kernelsFor gives p its GPU kernels when they are what the mode needs; otherwise p keeps what it was uploaded
// with (a CPU mode's kernels, upsampled points or mesh), or no kernels when the mode draws none.
func (s *surfacer) kernelsFor(p render.Particles, src any, version uint64, rend *render.Renderer, j viewJob, sc *scene.Scene) (render.Particles, error) {
	if !s.needKernels(rend, j) && !j.upsample {
		p.Ellipsoids = nil
	}
	if !s.gpuKernels(rend, j) {
		return p, nil
	}
	lo, hi := domainOf(sc)
	return s.onGPU(p, src, version, lo, hi)
}

// viewsHere makes j's mesh or upsampled surface on this thread from the frame read returns (a read-back of the
// GPU's particles), uploads them into the surfacer's buffers, and keeps the result while src's particles (version)
// and j stay the same. p is what the frame's particles are drawn from (a mesh is drawn beside them).
func (s *surfacer) viewsHere(p render.Particles, src any, version uint64, j viewJob, read func() *sim.Frame) (render.Particles, error) {
	m := &s.made
	if m.src == src && m.version == version && m.job == j {
		return m.p, nil
	}
	m.src = nil
	f := read()
	if f == nil || f.N == 0 {
		return p, nil
	}
	err := s.views.compute(j, f, &s.out)
	q, uerr := attachView(&s.bufs, p, &s.out)
	if uerr != nil {
		return p, uerr
	}
	m.src, m.version, m.job, m.p = src, version, j, q
	return q, err
}

// twin returns what to draw for the second simulation of an A/B comparison. The twin has a surfacer of its own
// (its caches are the twin's), configured like the window's; for CPU modes the runner makes the twin's views with
// A's, as the window's surfacer asked it to; for a GPU pair they are made here from a read-back of B.
func (s *surfacer) twin(drv driver, rend *render.Renderer, sc *scene.Scene) (render.Particles, error) {
	p, _, _ := drv.Twin()
	j := s.job(rend, sc, false) // an A/B view has no side-by-side halves
	if gd, ok := drv.(*gpuDriver); ok && (j.mesh || j.upsample) {
		read := twinReadBack(gd.s)
		if read == nil {
			return s.kernelsFor(p, drv, drv.Version(), rend, viewJob{}, sc)
		}
		var err error
		p, err = s.viewsHere(p, drv, drv.Version(), j, func() *sim.Frame { read(&s.twinFrame); return &s.twinFrame })
		if err != nil {
			return p, err
		}
	}
	return s.kernelsFor(p, drv, drv.Version(), rend, j, sc)
}

// onGPU returns p with its kernels computed by gpu/surface, again only when src's particles (version), the
// parameters or the domain changed since the last time.
func (s *surfacer) onGPU(p render.Particles, src any, version uint64, lo, hi [3]float32) (render.Particles, error) {
	if p.N == 0 || p.Pos == nil {
		p.Ellipsoids = nil
		return p, nil
	}
	d := &s.done
	if d.src != src || d.version != version || d.cfg != s.cfg.kernels || d.n != p.N || d.lo != lo || d.hi != hi {
		s.gpu.Cfg = s.cfg.kernels
		if err := s.gpu.Compute(p.Pos, p.N, p.Radius, lo, hi); err != nil {
			d.src = nil
			return p, fmt.Errorf("surface: %w", err)
		}
		d.src, d.version, d.cfg, d.n, d.lo, d.hi = src, version, s.cfg.kernels, p.N, lo, hi
	}
	p.Ellipsoids = s.gpu.Ellipsoids()
	return p, nil
}

// once gives a picture outside the window (a screenshot, a clip's frame) what rend's mode needs: kernels on the GPU
// when it can, else made on the CPU, or a mesh, or the upsampled surface, uploaded into bufs. p was uploaded from
// frame, or is a GPU solver's own buffers: then readBack (gpuReadBack) fills frame from them when the CPU needs
// the particles, and is nil otherwise. version numbers the pictures of one sequence: the GPU kernels are computed
// again when it changes.
func (s *surfacer) once(p render.Particles, readBack func(*sim.Frame), frame *sim.Frame, version uint64, bufs *render.FrameBuffers, rend *render.Renderer, sc *scene.Scene) (render.Particles, error) {
	j := s.job(rend, sc, false) // the side-by-side view is the window's: a picture is drawn in render.mode
	if s.gpuKernels(rend, j) {
		lo, hi := domainOf(sc)
		return s.onGPU(p, s, version, lo, hi)
	}
	if !s.needKernels(rend, j) {
		p.Ellipsoids = nil
	}
	if j == (viewJob{}) {
		return p, nil
	}
	if readBack != nil {
		readBack(frame)
	}
	if frame.N == 0 {
		return p, nil
	}
	err := s.views.compute(j, frame, &s.out)
	if err != nil && cappedOnly(err) {
		if !s.noted && s.notes != nil {
			fmt.Fprintf(s.notes, "slosh: note: %v\n", err)
		}
		s.noted, err = true, nil // the picture has the points made within the budget
	}
	q, uerr := attachView(bufs, p, &s.out)
	if uerr != nil {
		return p, uerr
	}
	return q, err
}

// gpuReadBack is what once reads a solver's particles back with: its Frame for a GPU solver (whose particles are
// drawn from its own buffers), nil for a CPU solver (its frame was uploaded from the Frame once is given).
func gpuReadBack(s sim.Solver) func(*sim.Frame) {
	if _, ok := s.(gpuSolver); ok {
		return s.Frame
	}
	return nil
}

// twinReadBack is gpuReadBack for an A/B pair's B: its TwinFrame when B is drawn from a GPU solver's buffers.
func twinReadBack(s sim.Solver) func(*sim.Frame) {
	ts, ok := s.(twinSolver)
	if _, gpu := s.(interface{ TwinParticles() render.Particles }); !ok || !gpu {
		return nil
	}
	return ts.TwinFrame
}

// Timings are the GPU milliseconds of the last kernels' computation, when they have arrived.
func (s *surfacer) Timings() []sim.Pass {
	if s.gpu == nil {
		return nil
	}
	passes, _, ok := s.gpu.Timings()
	if !ok {
		return nil
	}
	return passes
}

// Delete frees the GPU objects; safe to call twice.
func (s *surfacer) Delete() {
	if s == nil {
		return
	}
	if s.gpu != nil {
		s.gpu.Delete()
		s.gpu = nil
	}
	s.bufs.Delete()
	s.made.src = nil
}
