// Package surface builds the fluid's surface from its particles. Anisotropy computes the anisotropic kernels of
// J. Yu and G. Turk, "Reconstructing surfaces of particle-based fluids using anisotropic kernels", ACM TOG 32(1),
// 2013 (the surfacing of papers/001 §7): each particle becomes an ellipsoid stretched along its neighbourhood, so
// a flat surface is drawn flat instead of as a layer of balls, and thin sheets stay thin.
//
// For particle i and its neighbours j within r (i itself included):
//
//	w_ij   = 1 − (|x_i − x_j| / r)³                                    isotropic weights, 0 beyond r
//	x_i^w  = Σ_j w_ij x_j / Σ_j w_ij                                    weighted mean
//	C_i    = Σ_j w_ij (x_j − x_i^w)(x_j − x_i^w)ᵀ / Σ_j w_ij            weighted covariance
//	C_i    = R diag(σ1, σ2, σ3) Rᵀ,  σ1 ≥ σ2 ≥ σ3                       eigen decomposition (cyclic Jacobi)
//	σ̃      = k_s (σ1, max(σ2, σ1/k_r), max(σ3, σ1/k_r))  if N_i > N_ε   stretched, at most k_r : 1
//	σ̃      = (k_n, k_n, k_n)                               otherwise    sparse particles (spray) stay round
//	x̄_i    = (1 − λ) x_i + λ x_i^w                                      Laplacian smoothing of the centre
//
// N_i counts the neighbours of i, i excluded. The sums accumulate offsets x_j − x_i so that float32 keeps its
// precision far from the origin. The paper's k_s = 1400 makes σ̃ dimensionless for its scenes; here the
// eigenvalues are divided by σ_ref, the per-axis weighted variance of a particle inside a filled cubic lattice of
// spacing 2·R_p (Derive), so that k_s = 1 gives spheres of the particle radius R_p inside the fluid at any
// resolution, and the splat's semi-axes are a_k = R_p σ̃_k / σ_ref along the eigenvectors e_k (the round
// kernels: R_p k_n). As in the paper, every centre is smoothed, the round kernels' too (a lone particle's weighted
// mean is itself). With Config.Enabled false the kernels are spheres of radius k_s·R_p at the particles; N_i is
// still counted, since the renderer tells spray by it.
//
// The result per particle is an Ellipsoid of four vec4s — the layout the renderer's splats read, and the one the
// GPU pass (gpu/surface) writes: the smoothed centre with N_i in w, then the three semi-axis vectors, longest
// first. Anisotropy is the GPU pass's test oracle and what CPU modes use where compute shaders are missing; both
// bin particles into the same grid (cell = r, sorted by (cell, index)), so they sum in the same order.
package surface

import (
	"fmt"

	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/par"
)

// Ellipsoid is one particle's kernel as the renderer reads it (64 bytes, four vec4s).
type Ellipsoid struct {
	// Center is the smoothed kernel centre x̄_i in xyz; w is N_i, the number of neighbours within r (i excluded),
	// as a float: particles with few neighbours are spray.
	Center [4]float32
	// Axes are the semi-axis vectors a_k e_k in world space (m), orthogonal, longest first. Round kernels use the
	// world axes x, y, z. The first axis's w is 1 for an interior particle (Interior), else 0; the others' are 0.
	Axes [3][4]float32
}

// Interior says whether the kernel's particle lies deep inside the fluid, so that it can never give the nearest
// depth along a ray (the renderer leaves it out of the splat depth pass, not out of the thickness).
func (e *Ellipsoid) Interior() bool { return e.Axes[0][3] != 0 }

// The rule for interior particles, conservative: a neighbourhood at least InteriorFill full (N_i ≥ InteriorFill
// times the neighbours of a particle inside a filled lattice, Derived.InteriorNeighbours) and balanced (the weighted
// mean offset |x_i^w − x_i| below InteriorOffset·r). A ball of radius r missing at most a tenth of its volume has
// its centre at least 0.6·r — 2.4 particle spacings at the default r — below a flat surface, behind two layers
// of particles; near walls, obstacles and splashes neighbourhoods are cut and particles count as surface.
const (
	InteriorFill   = 0.9
	InteriorOffset = 0.1
)

// Anisotropy computes Ellipsoids on the CPU; NewAnisotropy gives one with the default configuration. It reuses its buffers
// between calls (nothing is allocated once they have grown to the particle count and the grid is unchanged) and
// is not safe for concurrent use.
type Anisotropy struct {
	Cfg Config

	pool           par.Pool
	grid           *grid.Grid
	gridLo, gridHi [3]float32 // the box the grid was made for
	dv             Derived
	// the configuration and particle radius dv was derived from
	dvCfg    Config
	dvRadius float32
	haveDv   bool

	ids    []uint32     // identity keys: the grid sorts by (cell, index), as gpu/nsearch does without keys
	sorted [][4]float32 // positions in sorted order, for cache-friendly neighbour loops

	// inputs of the current call, read by the loop bodies; the bodies are bound once so that handing them to the
	// worker pool allocates nothing
	pos              [][4]float32
	dst              []Ellipsoid
	gatherFn, kernFn func(lo, hi int)
}

// NewAnisotropy returns a pass with the default configuration.
func NewAnisotropy() *Anisotropy {
	return &Anisotropy{Cfg: DefaultConfig()}
}

// Derived returns the constants of the last Compute.
func (a *Anisotropy) Derived() Derived { return a.dv }

// Compute fills dst[i] with the kernel of particle pos[i] (xyz; w is ignored), for particles of radius
// particleRadius (m) in the box [lo, hi]; particles outside the box are binned into its border cells, which is
// correct but slow when many are. dst must hold at least len(pos) entries. Finite positions give finite
// ellipsoids whatever their arrangement; a non-finite position gives a non-finite centre (and round axes).
func (a *Anisotropy) Compute(dst []Ellipsoid, pos [][4]float32, particleRadius float32, lo, hi [3]float32) error {
	n := len(pos)
	if len(dst) < n {
		return fmt.Errorf("surface: %d ellipsoids for %d particles", len(dst), n)
	}
	if !a.haveDv || a.Cfg != a.dvCfg || particleRadius != a.dvRadius {
		dv, err := Derive(&a.Cfg, float64(particleRadius))
		if err != nil {
			return err
		}
		a.dv, a.dvCfg, a.dvRadius, a.haveDv = dv, a.Cfg, particleRadius, true
	}
	if n == 0 {
		return nil
	}
	if a.grid == nil || a.grid.Cell != a.dv.R || a.gridLo != lo || a.gridHi != hi {
		g, err := grid.New(lo, hi, a.dv.R)
		if err != nil {
			return fmt.Errorf("surface: %w", err)
		}
		a.grid, a.gridLo, a.gridHi = g, lo, hi
	}
	if cap(a.ids) < n {
		a.ids = make([]uint32, n)
		for i := range a.ids {
			a.ids[i] = uint32(i)
		}
		a.sorted = make([][4]float32, n)
	}
	if a.kernFn == nil {
		a.gatherFn, a.kernFn = a.gather, a.kernels
	}
	a.pos, a.dst, a.sorted = pos, dst, a.sorted[:n]
	a.grid.Build(pos, a.ids[:n])
	a.pool.For(n, 8192, a.gatherFn)
	a.pool.For(n, 256, a.kernFn)
	a.pos, a.dst = nil, nil
	return nil
}

// gather copies the positions into sorted order.
func (a *Anisotropy) gather(lo, hi int) {
	order := a.grid.Order
	for k := lo; k < hi; k++ {
		a.sorted[k] = a.pos[order[k]]
	}
}

// kernels computes the ellipsoids of the particles in sorted slots [lo, hi). The neighbour loop visits the rows of
// three cells z-major, slots in sorted order — the order surface_anisotropy.comp visits them through nsRow.
func (a *Anisotropy) kernels(lo, hi int) {
	g := a.grid
	sp := a.sorted
	r2 := a.dv.R * a.dv.R
	invR := a.dv.InvR
	for k := lo; k < hi; k++ {
		p := sp[k]
		cx, cy, cz := g.Coord(p[0], p[1], p[2])
		// the particle itself: w = 1 at zero offset
		wsum := float32(1)
		var mx, my, mz, cxx, cyy, czz, cxy, cxz, cyz float32
		nb := 0
		for dz := int32(-1); dz <= 1; dz++ {
			for dy := int32(-1); dy <= 1; dy++ {
				b32, e32, ok := g.Row(cx, cy, cz, dy, dz)
				if !ok {
					continue
				}
				b, e := int(b32), int(e32)
				for j, q := range sp[b:e] {
					ex, ey, ez := q[0]-p[0], q[1]-p[1], q[2]-p[2]
					d2 := ex*ex + ey*ey + ez*ez
					if !(d2 < r2) || b+j == k {
						continue
					}
					nb++
					s := sqrt32(d2) * invR
					w := 1 - s*s*s
					if w < 0 {
						w = 0
					}
					wsum += w
					wx, wy, wz := w*ex, w*ey, w*ez
					mx += wx
					my += wy
					mz += wz
					cxx += wx * ex
					cyy += wy * ey
					czz += wz * ez
					cxy += wx * ey
					cxz += wx * ez
					cyz += wy * ez
				}
			}
		}
		a.dst[g.Order[k]] = a.ellipsoid(p, nb, wsum, [3]float32{mx, my, mz}, sym3{cxx, cyy, czz, cxy, cxz, cyz})
	}
}

// ellipsoid turns the weighted sums of a particle at p — Σw, Σ w (x_j − x_i) and Σ w (x_j − x_i)(x_j − x_i)ᵀ —
// into its kernel. Mirrors surfEllipsoid in shaders/surface_common.glsl.
func (a *Anisotropy) ellipsoid(p [4]float32, nb int, wsum float32, m [3]float32, c sym3) Ellipsoid {
	cfg, dv := &a.Cfg, &a.dv
	var e Ellipsoid
	e.Center[3] = float32(nb)
	interior := a.interior(nb, wsum, m)
	if !cfg.Enabled {
		e.Center[0], e.Center[1], e.Center[2] = p[0], p[1], p[2]
		roundAxes(&e, dv.ParticleRadius*cfg.Ks)
		e.Axes[0][3] = interior
		return e
	}
	// the mean offset x_i^w − x_i, and the covariance about the mean: Σ w d dᵀ / Σ w − (x^w − x)(x^w − x)ᵀ,
	// in units of σ_ref so the eigen decomposition works on numbers near 1 whatever the spacing
	inv := 1 / wsum
	mx, my, mz := m[0]*inv, m[1]*inv, m[2]*inv
	e.Center[0] = p[0] + cfg.Lambda*mx
	e.Center[1] = p[1] + cfg.Lambda*my
	e.Center[2] = p[2] + cfg.Lambda*mz
	if nb <= int(cfg.Neps) {
		roundAxes(&e, dv.ParticleRadius*cfg.Kn)
		e.Axes[0][3] = interior
		return e
	}
	s := inv * dv.InvSigmaRef
	sx, sy, sz := mx*dv.InvSigmaRef, my*dv.InvSigmaRef, mz*dv.InvSigmaRef
	cn := sym3{
		xx: c.xx*s - sx*mx, yy: c.yy*s - sy*my, zz: c.zz*s - sz*mz,
		xy: c.xy*s - sx*my, xz: c.xz*s - sx*mz, yz: c.yz*s - sy*mz,
	}
	val, vec := eigen(cn)
	s1 := val[0]
	if !(s1 > MinSigma && s1 < MaxSigma) { // coincident particles: no extent to stretch along
		roundAxes(&e, dv.ParticleRadius*cfg.Kn)
		e.Axes[0][3] = interior
		return e
	}
	floor := s1 / cfg.Kr
	scale := dv.ParticleRadius * cfg.Ks
	sig := [3]float32{s1, max(val[1], floor), max(val[2], floor)}
	for k := 0; k < 3; k++ {
		ak := scale * sig[k]
		e.Axes[k] = [4]float32{ak * vec[k][0], ak * vec[k][1], ak * vec[k][2], 0}
	}
	e.Axes[0][3] = interior
	return e
}

// interior is the flag of Ellipsoid.Interior (1 or 0) for a particle with nb neighbours and weighted sums Σw and
// Σ w (x_j − x_i). Mirrors surfInterior in shaders/surface_common.glsl.
func (a *Anisotropy) interior(nb int, wsum float32, m [3]float32) float32 {
	if nb < a.dv.InteriorNeighbours {
		return 0
	}
	inv := 1 / wsum
	mx, my, mz := m[0]*inv, m[1]*inv, m[2]*inv
	if !(mx*mx+my*my+mz*mz < a.dv.InteriorOffset2) {
		return 0
	}
	return 1
}

// The largest eigenvalue, in units of σ_ref, below which a neighbourhood counts as a point (coincident particles)
// and above which as broken (offsets within r bound it by about r²/σ_ref ≈ 7): either gets a round kernel. The GPU
// pass receives them as SURF_MIN_SIGMA and SURF_MAX_SIGMA.
const (
	MinSigma = 1e-6
	MaxSigma = 1e6
)

// roundAxes makes e a sphere of radius rad along the world axes.
func roundAxes(e *Ellipsoid, rad float32) {
	e.Axes = [3][4]float32{{rad, 0, 0, 0}, {0, rad, 0, 0}, {0, 0, rad, 0}}
}
