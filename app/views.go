package app

import (
	"errors"
	"fmt"
	"math"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/internal/machine"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	csurface "github.com/slosh/slosh/sim/surface"
	"github.com/slosh/slosh/sim/surface/field"
	"github.com/slosh/slosh/sim/surface/upsample"
	"github.com/slosh/slosh/sim/trimesh"
)

// upsampleSupport is the support radius the upsampling's surface detection and first refinement use, in particle
// spacings: the SPH and PBF kernels' radius, and about as far as a particle of any mode sees its neighbours.
const upsampleSupport = 2

// viewJob says what the renderer needs from a frame besides its particles: the anisotropic kernels on the CPU (when
// compute shaders cannot make them), a mesh of the fluid (render.mode mesh), or the surface upsampled (a splatting
// mode with upsample.enabled on), and with which settings. The zero value needs nothing.
type viewJob struct {
	kernels bool
	kcfg    csurface.Config
	lo, hi  [3]float32 // the scene's domain, for the kernels

	mesh     bool
	meshCfg  field.Settings
	upsample bool
	upCfg    upsample.Params
	// split says the window shows the splatted surface and the mesh side by side: both kernels and a mesh
	split bool
}

// name is what the job makes, for benchmarks: "mesh", "upsampling", "anisotropy" or "nothing".
func (j viewJob) name() string {
	switch {
	case j.mesh:
		return "mesh"
	case j.upsample:
		return "upsampling"
	case j.kernels:
		return "anisotropy"
	}
	return "nothing"
}

// viewOut is what frameViews made from one frame, for the GL thread to upload with it (uploadView).
type viewOut struct {
	// Ellipsoids are the frame's anisotropic kernels (viewJob.kernels), one per particle; empty otherwise.
	Ellipsoids []csurface.Ellipsoid
	// Mesh is the fluid's surface mesh (viewJob.mesh); nil otherwise.
	Mesh *trimesh.Mesh
	// Up is what to draw in place of the frame's particles when the surface is upsampled: the interior fluid
	// particles and the refined surface points, each with a round kernel of its own radius in UpKernels; Up.N is 0
	// when the surface is not upsampled.
	Up        sim.Frame
	UpKernels []csurface.Ellipsoid
	// UpThick is how many of Up's points are the physical particles (the interior ones and the surface
	// particles, first): the water's thickness is theirs (render.Particles.ThicknessN).
	UpThick int
}

// frameViews computes viewOuts. It keeps its scratch and the upsampling's per-particle surface history between
// frames, so each simulation drawn (A, and B in an A/B view) has its own. Not safe for concurrent use.
type frameViews struct {
	aniso  *csurface.Anisotropy
	mesher *frameMesher
	up     *upsample.Upsampler
	pos    [][4]float32
	ids    []uint32
}

// compute fills out for f as job asks. A part that fails is left empty (the renderer falls back to splats, or to
// the particles) and its error returned with the others'.
func (v *frameViews) compute(job viewJob, f *sim.Frame, out *viewOut) error {
	var errs []error
	out.Ellipsoids = out.Ellipsoids[:0]
	out.Mesh = nil
	out.Up.N = 0
	if job.kernels && f.N > 0 {
		if v.aniso == nil {
			v.aniso = csurface.NewAnisotropy()
		}
		out.Ellipsoids = grow.Resize(out.Ellipsoids, f.N)
		v.aniso.Cfg = job.kcfg
		if err := v.aniso.Compute(out.Ellipsoids, f.Pos[:f.N], f.Radius, job.lo, job.hi); err != nil {
			out.Ellipsoids = out.Ellipsoids[:0]
			errs = append(errs, fmt.Errorf("surface: %w", err))
		}
	}
	if job.mesh && f.N > 0 {
		if v.mesher == nil {
			v.mesher = newFrameMesher()
		}
		m, _, err := v.mesher.surface(f, job.meshCfg)
		if err != nil {
			errs = append(errs, err)
		}
		out.Mesh = m
	}
	if job.upsample && f.N > 0 {
		if err := v.upsample(job.upCfg, f, out); err != nil {
			if !errors.Is(err, errUpsampleCapped) {
				out.Up.N = 0 // capped, it still draws the points it made
			}
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// reset forgets the upsampling's surface history (a new scene, or particles renumbered by a load).
func (v *frameViews) reset() {
	if v.up != nil {
		v.up.Reset()
	}
}

// upsample refines f's liquid surface and lays out what to draw in out.Up and out.UpKernels: the interior liquid
// particles as round kernels of the particle radius, then the refined points (the surface particles first) as
// round kernels of their levels' radii, then the grains' and solids' particles as they are, with their phases,
// materials, ids and temperatures (drawn as particles, never refined into the water). When f has temperatures the
// liquid's points have none (NaN: render.color temperature draws them as water): a refined point is no particle's.
// Rigid bodies' particles are left out (their shapes are drawn).
func (v *frameViews) upsample(p upsample.Params, f *sim.Frame, out *viewOut) error {
	if v.up == nil {
		v.up = upsample.New()
	}
	pos, ids := fluidOnly(f, &v.pos, &v.ids)
	spacing := 2 * float64(f.Radius)
	cfg := upsampleBudget(p.Config(upsample.DefaultConfig()), machine.MemoryBudget(8<<30, 0))
	pts, st, err := v.up.Update(pos, ids, len(pos), upsampleSupport*spacing, cfg)
	if err != nil {
		return fmt.Errorf("upsampling: %w", err)
	}
	var solids []int // f's grains and solids
	if f.Phase != nil {
		for i := range f.N {
			if i < len(f.Phase) && f.Phase[i] != scene.PhaseLiquid && (i >= len(f.Body) || f.Body[i] < 0) {
				solids = append(solids, i)
			}
		}
	}
	n := len(pts.Interior) + pts.Len() + len(solids)
	up := &out.Up
	up.Resize(n)
	up.Radius, up.Time, up.Steps = f.Radius, f.Time, f.Steps
	up.Bodies = append(up.Bodies[:0], f.Bodies...)
	up.Body, up.Material, up.Palette, up.Phase, up.Temperature = nil, nil, nil, nil, nil
	out.UpKernels = grow.Resize(out.UpKernels, n)
	const inBulk = 1e4 // a neighbour count no spray threshold reaches: refined points are surface, never spray
	put := func(k int, x [3]float32, r float32) {
		up.Pos[k] = [4]float32{x[0], x[1], x[2], 0}
		up.Vel[k] = [4]float32{}
		up.Rho[k] = 1
		up.ID[k] = uint32(k)
		out.UpKernels[k] = csurface.Ellipsoid{
			Center: [4]float32{x[0], x[1], x[2], inBulk},
			Axes:   [3][4]float32{{r, 0, 0, 0}, {0, r, 0, 0}, {0, 0, r, 0}},
		}
	}
	k := 0
	for _, i := range pts.Interior {
		q := pos[i]
		put(k, [3]float32{q[0], q[1], q[2]}, f.Radius)
		k++
	}
	out.UpThick = len(pts.Interior) + st.Surface // the surface particles lead pts.Pos
	for i, x := range pts.Pos {
		// the package's splat radius is half the level's neighbourhood radius, twice the particle radius at level
		// 0: capped at the particle radius, the surface stays where the particles' own splats put it and the finer
		// levels' smaller splats carve its detail
		put(k, x, min(pts.Radius[i], f.Radius))
		k++
	}
	if len(solids) > 0 {
		up.Phase = grow.Resize(up.Phase[:0], n)
		clear(up.Phase)
		if f.Material != nil {
			up.Material, up.Palette = grow.Resize(up.Material[:0], n), append(up.Palette[:0], f.Palette...)
			clear(up.Material)
		}
		if len(f.Temperature) >= f.N && f.Temperature != nil {
			up.Temperature = grow.Resize(up.Temperature[:0], n)
			nan := float32(math.NaN())
			for j := range k { // the liquid's points so far
				up.Temperature[j] = nan
			}
		}
		for _, i := range solids {
			q := f.Pos[i]
			put(k, [3]float32{q[0], q[1], q[2]}, f.Radius)
			up.Vel[k], up.Rho[k], up.Phase[k] = f.Vel[i], f.Rho[i], f.Phase[i]
			up.ID[k] = f.ID[i] // a grain's tint follows its identity (render.Particles.ID)
			if up.Material != nil && i < len(f.Material) {
				up.Material[k] = f.Material[i]
			}
			if up.Temperature != nil {
				up.Temperature[k] = f.Temperature[i]
			}
			k++
		}
	}
	if st.Capped {
		return fmt.Errorf("%w at %d points of %d levels, the most this machine's memory gives it: lower upsample.levels or raise upsample.beta",
			errUpsampleCapped, st.Points, p.Levels)
	}
	return nil
}

// errUpsampleCapped says the upsampling stopped at its budget; the points it made are drawn.
var errUpsampleCapped = errors.New("upsampling stopped")

// cappedOnly says whether compute's err reports nothing but the upsampling's budget.
func cappedOnly(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			if !errors.Is(e, errUpsampleCapped) {
				return false
			}
		}
		return true
	}
	return errors.Is(err, errUpsampleCapped)
}

// Bytes the upsampling holds per point (its arrays and the frame and kernels the renderer gets) and per
// neighbourhood entry (the lists, their owners, the step's relations and registrations).
const upsamplePointBytes, upsampleLinkBytes = 200, 28

// upsampleBudget caps cfg's points and neighbourhood entries so that they take at most a quarter of budget bytes,
// the memory a simulation may take: with a small upsample.beta and many levels the refinement would otherwise grow
// until the machine runs out.
func upsampleBudget(cfg upsample.Config, budget int64) upsample.Config {
	need := int64(cfg.MaxPoints)*upsamplePointBytes + int64(cfg.MaxLinks)*upsampleLinkBytes
	if f := float64(budget/4) / float64(need); f < 1 {
		cfg.MaxPoints = max(1, int(f*float64(cfg.MaxPoints)))
		cfg.MaxLinks = max(1, int(f*float64(cfg.MaxLinks)))
	}
	return cfg
}

// uploadView uploads f, or what out says to draw in its place, with out's kernels and mesh into bufs.
func uploadView(bufs *render.FrameBuffers, f *sim.Frame, out *viewOut) (render.Particles, error) {
	if out.Up.N > 0 {
		return attachView(bufs, render.Particles{}, out) // the upsampled points replace f's particles
	}
	p, err := bufs.Upload(f)
	if err != nil {
		return p, err
	}
	return attachView(bufs, p, out)
}

// attachView gives p, a frame's particles as they are drawn (uploaded, or a GPU solver's own buffers), what out
// made from the frame, uploading it into bufs: the upsampled points with their kernels in p's place, or p with
// out's kernels and mesh.
func attachView(bufs *render.FrameBuffers, p render.Particles, out *viewOut) (render.Particles, error) {
	if out.Up.N > 0 {
		q, err := bufs.Upload(&out.Up)
		if err != nil {
			return p, err
		}
		if q, err = bufs.UploadEllipsoids(q, out.UpKernels); err != nil {
			return p, err
		}
		q.ThicknessN = out.UpThick
		return q, nil
	}
	if len(out.Ellipsoids) == p.N && p.N > 0 {
		var err error
		if p, err = bufs.UploadEllipsoids(p, out.Ellipsoids); err != nil {
			return p, err
		}
	}
	return bufs.UploadMesh(p, out.Mesh)
}
