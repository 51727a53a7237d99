package app

import (
	"fmt"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/render"
	gsurface "github.com/slosh/slosh/gpu/surface"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	csurface "github.com/slosh/slosh/sim/surface"
)

// The prefixes of the surface's parameters: its anisotropic kernels (surface.kr, ...), its meshes (mesh.cell, ...)
// and its upsampling (upsample.levels, ...), all in the surfacer's set.
const (
	surfacePrefix  = "surface"
	meshPrefix     = "mesh"
	upsamplePrefix = "upsample"
)

// surfacer supplies the renderer with each particle's anisotropic kernel (Yu & Turk 2013) when the render mode
// draws the surface or ellipsoids. With compute shaders it runs gpu/surface on the GL thread over whatever the
// driver draws — the GPU solver's own buffers or an uploaded CPU frame — and only again when the particles, the
// parameters or the domain changed. Without them it hands the work to the CPU runner (sim/surface), which
// publishes the kernels with each frame, so the GL thread never waits for it.
type surfacer struct {
	cfg csurface.Config // the live values of set
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
	cpu *csurface.Anisotropy // for one-off pictures without compute shaders
	// what the CPU runner was last asked to do
	sent struct {
		drv    driver
		on     bool
		cfg    csurface.Config
		lo, hi [3]float32
	}
}

// surfaceParams returns the surface parameters with their defaults (no GL): for listing and checking --set.
func surfaceParams() *param.Set {
	c := csurface.DefaultConfig()
	s := param.NewSet()
	c.Register(s)
	return s
}

// newSurfacer prepares the kernels' computation; ctx may be nil (headless CPU runs) or lack compute shaders.
func newSurfacer(ctx *glh.Context) (*surfacer, error) {
	s := &surfacer{cfg: csurface.DefaultConfig(), set: param.NewSet()}
	s.cfg.Register(s.set)
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

// Params is the set the panel shows and --set surface.* assigns.
func (s *surfacer) Params() *param.Set { return s.set }

func domainOf(sc *scene.Scene) (lo, hi [3]float32) {
	for k := 0; k < 3; k++ {
		lo[k], hi[k] = float32(sc.Domain.Min[k]), float32(sc.Domain.Max[k])
	}
	return lo, hi
}

// particles returns what to draw: the driver's particles, with their kernels when want.
func (s *surfacer) particles(drv driver, want bool, sc *scene.Scene) (render.Particles, error) {
	p := drv.Particles()
	lo, hi := domainOf(sc)
	if s.gpu == nil {
		if cd, ok := drv.(*cpuDriver); ok && (s.sent.drv != drv || s.sent.on != want || s.sent.cfg != s.cfg || s.sent.lo != lo || s.sent.hi != hi) {
			cd.runner.SetSurface(want, s.cfg, lo, hi)
			s.sent.drv, s.sent.on, s.sent.cfg, s.sent.lo, s.sent.hi = drv, want, s.cfg, lo, hi
		}
		if !want {
			p.Ellipsoids = nil
		}
		return p, nil // the CPU driver uploads the kernels the runner published
	}
	if !want {
		p.Ellipsoids = nil
		return p, nil
	}
	return s.onGPU(p, drv, drv.Version(), lo, hi)
}

// twin returns what to draw for the second simulation of an A/B comparison, with its kernels when want. The
// twin has a surfacer of its own (its cache of GPU kernels is the twin's), configured like the window's; without
// compute shaders the CPU runner computes the twin's kernels with A's, as the window's surfacer asked it to.
func (s *surfacer) twin(drv driver, want bool, sc *scene.Scene) (render.Particles, error) {
	p, _, _ := drv.Twin()
	if !want {
		p.Ellipsoids = nil
		return p, nil
	}
	if s.gpu == nil {
		return p, nil
	}
	lo, hi := domainOf(sc)
	return s.onGPU(p, drv, drv.Version(), lo, hi)
}

// onGPU returns p with its kernels computed by gpu/surface, again only when src's particles (version), the
// parameters or the domain changed since the last time.
func (s *surfacer) onGPU(p render.Particles, src any, version uint64, lo, hi [3]float32) (render.Particles, error) {
	if p.N == 0 || p.Pos == nil {
		p.Ellipsoids = nil
		return p, nil
	}
	d := &s.done
	if d.src != src || d.version != version || d.cfg != s.cfg || d.n != p.N || d.lo != lo || d.hi != hi {
		s.gpu.Cfg = s.cfg
		if err := s.gpu.Compute(p.Pos, p.N, p.Radius, lo, hi); err != nil {
			d.src = nil
			return p, fmt.Errorf("surface: %w", err)
		}
		d.src, d.version, d.cfg, d.n, d.lo, d.hi = src, version, s.cfg, p.N, lo, hi
	}
	p.Ellipsoids = s.gpu.Ellipsoids()
	return p, nil
}

// once gives a picture outside the window (a screenshot, a clip's frame) its kernels: on the GPU when it can, else
// from the frame's positions on the CPU (uploaded into bufs). frame holds the particles p was uploaded from; it is
// unused for a GPU solver's own buffers when compute shaders are there. version numbers the pictures of one
// sequence: the GPU kernels are computed again when it changes.
func (s *surfacer) once(p render.Particles, frame *sim.Frame, version uint64, bufs *render.FrameBuffers, sc *scene.Scene) (render.Particles, error) {
	lo, hi := domainOf(sc)
	if s.gpu != nil {
		return s.onGPU(p, s, version, lo, hi)
	}
	if frame.N == 0 {
		return p, nil
	}
	if s.cpu == nil {
		s.cpu = csurface.NewAnisotropy()
	}
	s.cpu.Cfg = s.cfg
	kernels := make([]csurface.Ellipsoid, frame.N)
	if err := s.cpu.Compute(kernels, frame.Pos[:frame.N], frame.Radius, lo, hi); err != nil {
		return p, fmt.Errorf("surface: %w", err)
	}
	return bufs.UploadEllipsoids(p, kernels)
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
	if s != nil && s.gpu != nil {
		s.gpu.Delete()
		s.gpu = nil
	}
}
