// Package upsample turns the surface particles of a coarse simulation into a denser set of oriented surface points
// for rendering: the refinement of B. Solenthaler's thesis (papers/004, chapter 6, §6.2), "Point-normal
// interpolation" after Guennebaud et al. 2004. Every particle mode can use it; a renderer draws the interior
// particles as they are and splats the refined points, each with its own radius.
//
// One Update per frame:
//
//  1. Surface particle detection (§6.2.1, eq. 6.1). For each particle i with neighbours j within the support
//     radius r, d_i,cm = |Σ_j (x_i − x_j) m_j / Σ_j m_j| (equal masses: the distance from x_i to its neighbours'
//     centre of mass). A particle becomes surface when d_i,cm > Detect·r and stays surface while d_i,cm > Keep·r
//     (Keep ≤ Detect), so particles near the threshold do not flicker; the state is kept per particle id between
//     frames. Particles without neighbours (drops) are surface.
//
//  2. Normals of the surface particles, by weighted covariance analysis (the thesis' alternative to the colour
//     field of Müller et al. 2003, after Pajarola 2003): the eigenvector of the smallest eigenvalue of the
//     covariance of the neighbourhood (weights (1 − d²/r²)³, the particle itself included), oriented away from the
//     centre of mass. The thesis finds these normals better for splatting (its Figure 6.12), and unlike the colour
//     field gradient they need no densities, so every mode can supply them. Where the neighbourhood has no
//     dominant plane (fewer than two neighbours, or λ_min > λ_mid / 2: a small blob) the normal is the direction
//     from the centre of mass to the particle; an isolated particle's normal is +y.
//
//  3. Refinement (§6.2.2–6.2.4). The surface particles are the point set P0 and their surface neighbours within
//     r0 = r the initial neighbourhoods. Step s_i (i = 0 … Levels−1) inserts a child between every neighbour pair
//     p1, p2 with r_{i+1} ≤ |d| < r_i, d = x1 − x2, on the sphere through both (eq. 6.2–6.13):
//
//     a = d/|d|,  b' = n1 + n2 − ((n1 + n2)·a) a,  n_c = b = b'/|b'|         (eq. 6.11–6.13; |b'| ≈ 0: not refined)
//     h_k = (s_k / t_k) |d|/2,  s1 = n1·a, s2 = −n2·a,  t_k = n_k·b + 1      (eq. 6.5–6.10)
//     h = the h_k of smaller magnitude, |h| ≤ h_max = r_i (√2 − 1)/2         (eq. 6.4, 6.14)
//     x_c = (x1 + x2)/2 + h n_c                                              (eq. 6.2)
//     r_{i+1} = r_i √(4 − 2√2) / 2 ≈ 0.541 r_i                               (eq. 6.15)
//
//     The thesis writes s_k = |n_k·a|, which lifts every child outwards, concave pairs included. Here s_k is each
//     parent's signed slope towards the other parent: for a convex pair both are positive and this is the thesis'
//     formula; for a concave pair both are negative and the child sinks; where they disagree (an inflection) h = 0.
//
//     Point collision avoidance (§6.2.3), with β = Beta·r_i: pairs closer than r_{i+1} are left to the next step
//     (type 1); a child closer than β to a point of an earlier step in I = N1 ∩ N2 (type 2) or to a child of this
//     step in S = R1 ∩ R2 (type 3; R_p are the children registered at p: every accepted child registers at the
//     points of U = N1 ∪ N2 closer than r_{i+1} + β; the shorter of R1 and R2, which holds S, is checked whole,
//     cheaper than intersecting them) is rejected, and the point it hit moves towards it
//     (eq. 6.16–6.18: positions and normals averaged with weights w, w_p += w_c; a child's w is its distance to its
//     parents). The particles of P0 do not move, the limit of the thesis' "high weight", so level 0 is exactly
//     where the physics put it. As the thesis notes, a collision just outside U could go unseen; in the tests'
//     scenes none does, but the moves bring 1–7% of the children closer than β to another point (never closer
//     than about β/2); the tests measure both.
//
//     Neighbourhood update (§6.2.4), not after the last step: old neighbours are kept within r_{i+1} (type 1);
//     an accepted child is joined to the points of U within r_{i+1} (type 2) and to the children of this step
//     within r_{i+1} whose parents lie in U (type 3). The neighbourhoods are never searched again with a grid.
//
// Each point comes out with its level (0: a surface particle) and a splat radius r_level/2 (r/2 for the particles,
// one spacing when r is two spacings; about the spacing of the points a level adds).
//
// Determinism. The refinement's outcome depends on the order in which children are accepted. Each step runs in
// batches of neighbour pairs in a fixed order (point, then neighbour index): the workers compute the batch's
// children, their U sets with distances and their type-2 collisions, reading only the points of earlier steps at
// their positions from the start of the step; then one goroutine accepts or rejects them in pair order (type-3
// checks, registration, neighbourhoods, moves). Moves of points of earlier steps (eq. 6.16) are accumulated in that
// order and take effect when the step ends, so nothing the workers read changes under them. The output is
// identical for any number of workers.
//
// The support radius r is the physics interaction radius of the mode (the SPH or PBF kernel radius); modes without
// one (FLIP, Voronoi) pass about two particle spacings.
package upsample

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/par"
)

// Limits on inputs and configuration.
const (
	// MaxLevels bounds Config.Levels: each level shrinks the radius by ≈ 0.54 and multiplies the points by ≈ 3–4.
	MaxLevels = 8
	// MaxID bounds particle ids: the surface state is a bitset indexed by id.
	MaxID = 1 << 28
	// MaxPointsLimit bounds Config.MaxPoints: point indices are int32.
	MaxPointsLimit = 1 << 30
	// maxBeta keeps a child out of its parents' collision spheres (β < r_{i+1}/2, §6.2.3).
	maxBeta = 0.27
	// physStride bounds the neighbours of one particle in the detection (a compressed lattice has about 30 within
	// two spacings); maxU bounds U = N1 ∪ N2 for one pair. Longer lists are cut (in a fixed order).
	physStride = 96
	maxU       = 192
)

// Config holds the tunables of Update.
type Config struct {
	Levels  int     // refinement steps: the output holds P0 … P_Levels (default 3)
	Detect  float64 // d_cm threshold, × r, above which a particle becomes surface (default 0.15)
	Keep    float64 // lower d_cm threshold, × r, above which a surface particle stays surface (default 0.1)
	Beta    float64 // collision distance β of step i, × r_i (default 0.2, the thesis' value)
	Workers int     // worker goroutines; 0: GOMAXPROCS
	// MaxPoints caps the output: refinement stops when it is reached (Stats.Capped). More surface particles than
	// this is an error.
	MaxPoints int
	// MaxLinks caps the neighbourhoods' entries, and a step's registrations and new relations: they grow faster
	// than the points when few children collide (a small Beta: 62 entries a point at β = 0.01 r_i after one step,
	// 8 at the default 0.2), and with them the memory and the time. Refinement stops when it is reached
	// (Stats.Capped).
	MaxLinks int
}

// DefaultConfig is the thesis' setting: three refinement steps (P0 … P3) and β = 0.2 r_i. The detection thresholds
// sit between the particles of a flat lattice face (d_cm ≈ 0.26 r at r = 2 spacings) and the interior (0).
func DefaultConfig() Config {
	return Config{Levels: 3, Detect: 0.15, Keep: 0.1, Beta: 0.2, MaxPoints: 4 << 20, MaxLinks: 32 << 20}
}

// Check reports a configuration Update would refuse.
func (c Config) Check() error {
	switch {
	case c.Levels < 0 || c.Levels > MaxLevels:
		return fmt.Errorf("upsample: %d levels outside [0, %d]", c.Levels, MaxLevels)
	case !(c.Detect > 0 && c.Detect < 1):
		return fmt.Errorf("upsample: detection threshold %g outside (0, 1) × r", c.Detect)
	case !(c.Keep >= 0 && c.Keep <= c.Detect):
		return fmt.Errorf("upsample: keep threshold %g outside [0, detect = %g]", c.Keep, c.Detect)
	case !(c.Beta > 0 && c.Beta <= maxBeta):
		return fmt.Errorf("upsample: β factor %g outside (0, %g]: a child must not collide with its parents", c.Beta, maxBeta)
	case c.Workers < 0:
		return fmt.Errorf("upsample: %d workers", c.Workers)
	case c.MaxPoints < 1 || c.MaxPoints > MaxPointsLimit:
		return fmt.Errorf("upsample: point budget %d outside [1, %d]", c.MaxPoints, MaxPointsLimit)
	case c.MaxLinks < 1 || c.MaxLinks > MaxPointsLimit:
		return fmt.Errorf("upsample: neighbour budget %d outside [1, %d]", c.MaxLinks, MaxPointsLimit)
	}
	return nil
}

// Points is the refined surface. Pos, Normal, Level and Radius have one entry per point: the surface particles
// first (level 0, in input order), then each step's children. Interior lists the input indices of the particles
// that are not surface, ascending.
type Points struct {
	Pos, Normal [][3]float32
	Level       []uint8
	Radius      []float32 // splat radius r_level / 2, m
	Interior    []int32
}

// Len is the number of points.
func (p *Points) Len() int { return len(p.Pos) }

// Stats describes one Update.
type Stats struct {
	Surface  int  // surface particles (the points of level 0)
	Points   int  // points in the output
	Rejected int  // children rejected by a collision (§6.2.3)
	Capped   bool // MaxPoints stopped the refinement
	Detect   time.Duration
	Refine   time.Duration
}

// Upsampler keeps the surface state per particle id between frames (the detection's hysteresis) and the scratch
// of the last Update. It is not safe for concurrent use.
type Upsampler struct {
	wasSurface, isSurface []uint64 // bitsets by id: the last frame's surface and this frame's

	// detection scratch
	grid           *grid.Grid
	gridLo, gridHi [3]float32
	sorted         [][4]float32
	nbr, cnt       []int32
	surf           []bool       // per sorted particle
	snrm           [][3]float32 // per sorted particle, surface only
	rank           []int32      // input index → sorted index
	pointOf        []int32      // sorted index → point index, −1 for interior

	ref refiner
	out Points
}

// New returns an Upsampler with no surface history.
func New() *Upsampler { return &Upsampler{} }

// Reset forgets the surface state (a new scene).
func (u *Upsampler) Reset() {
	clear(u.wasSurface)
	clear(u.isSurface)
}

// Update detects the surface particles among pos[:n] (xyz used; ids id[:n] carry the detection's state between
// frames) and refines them with support radius r (m) under cfg. The returned Points are owned by u and overwritten
// by the next Update.
func (u *Upsampler) Update(pos [][4]float32, id []uint32, n int, r float64, cfg Config) (*Points, Stats, error) {
	var st Stats
	if err := cfg.Check(); err != nil {
		return nil, st, err
	}
	if err := checkInput(pos, id, n, r); err != nil {
		return nil, st, err
	}
	pool := par.Pool{Workers: cfg.Workers}
	t0 := time.Now()
	out := &u.out
	out.Pos, out.Normal, out.Level, out.Radius, out.Interior = out.Pos[:0], out.Normal[:0], out.Level[:0], out.Radius[:0], out.Interior[:0]
	if err := u.detect(pool, pos[:n], id[:n], float32(r), cfg); err != nil {
		return nil, st, err
	}
	st.Surface = len(out.Pos)
	st.Detect = time.Since(t0)
	t1 := time.Now()
	u.ref.run(pool, out, float32(r), cfg, &st)
	out.Radius = grow(out.Radius, len(out.Pos), cfg.MaxPoints)
	ri := make([]float32, 0, MaxLevels+1)
	for l, rl := 0, r; l <= cfg.Levels; l++ {
		ri = append(ri, float32(rl/2))
		rl *= shrink
	}
	for k, l := range out.Level {
		out.Radius[k] = ri[l]
	}
	st.Points = len(out.Pos)
	st.Refine = time.Since(t1)
	return out, st, nil
}

// shrink is r_{i+1}/r_i (eq. 6.15).
var shrink = math.Sqrt(4-2*math.Sqrt2) / 2

func checkInput(pos [][4]float32, id []uint32, n int, r float64) error {
	if n < 0 || n > len(pos) || n > len(id) {
		return fmt.Errorf("upsample: %d particles with %d positions and %d ids", n, len(pos), len(id))
	}
	if n > MaxPointsLimit {
		return fmt.Errorf("upsample: %d particles, more than %d", n, MaxPointsLimit)
	}
	if !(r > 0) || math.IsInf(r, 0) || r > math.MaxFloat32/16 {
		return fmt.Errorf("upsample: support radius %g must be positive and finite", r)
	}
	for i, p := range pos[:n] {
		for c := 0; c < 3; c++ {
			if v := float64(p[c]); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("upsample: particle %d has position %v", i, p[:3])
			}
		}
		if id[i] >= MaxID {
			return fmt.Errorf("upsample: particle %d has id %d, beyond %d", i, id[i], MaxID-1)
		}
	}
	return nil
}

// errEmptyBudget is returned when the surface particles alone exceed MaxPoints.
var errEmptyBudget = errors.New("upsample: more surface particles than the point budget")

// grow returns s resized to n, reallocating at most to limit entries.
func grow[T any](s []T, n, limit int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	c := min(max(n, 2*cap(s)), max(limit, n))
	t := make([]T, n, c)
	copy(t, s)
	return t
}
