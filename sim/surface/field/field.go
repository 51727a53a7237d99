// Package field reconstructs the liquid's surface from particles as the zero level set of an implicit function
// and meshes it (issue 16, parts 1 and 2).
//
// The function is Zhu & Bridson's (paper 002, §5, eq. 7–10): φ(x) = |x − x̄| − r, with x̄ = Σ w_i x_i the mean of
// the particles within the neighbourhood radius R weighted by w_i = k(|x − x_i|/R) / Σ_j k(|x − x_j|/R) and
// k(s) = max(0, (1 − s²)³). All particles share one radius r, so r̄ = r wherever a particle is within R; where
// none is, φ counts as outside and takes the value R − r (what a lone particle's φ reaches at distance R). An
// isolated particle gives the sphere of radius r exactly, a flat sheet of particles a flat surface.
//
// With Config.Correct the function is Solenthaler's (paper 004, eq. 6.20–6.23): φ(x) = |x − x̄| − r·f, where f
// falls smoothly from 1 to 0 as the largest eigenvalue EV_max of the Jacobian ∇x̄ rises from t_low to t_high. In
// concave corners and between separated particles x̄ moves much faster than x (Figure 6.8 of 004), which is where
// the plain function grows spurious blobs; there f pulls the surface in. The Jacobian is analytic (jacobian).
//
// Mesher samples φ on a grid of spacing h (Config.Cell) in a sparse band of blocks of 8³ cells: only the blocks
// holding grid points within R (plus a margin of cells) of some particle are sampled, never a dense box over the
// domain, and φ is positive beyond R of every particle, so every crossing of the zero level lies inside the band
// with its cells' corners sampled; the values of unsampled blocks count as outside. The blocks are sampled in
// parallel on a bounded pool, optionally smoothed on the grid by 002's smoothing restricted to decreasing φ (the
// liquid only grows: the mesh does not shrink), and meshed block by block in a fixed order by marching cubes
// (sim/surface/mc), which shares the vertices of edges between blocks, so the mesh is closed and manifold. Every
// value is a function of the positions alone, and the blocks are meshed in key order, so the mesh is identical
// for any number of workers.
package field

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	"github.com/slosh/slosh/sim/grid"
)

// Config holds the parameters of the implicit function and its meshing, in metres.
type Config struct {
	Radius      float64 // r, particle radius: an isolated particle's sphere, m
	Support     float64 // R, the kernel's radius, m (Zhu–Bridson: about twice the particle spacing)
	Cell        float64 // h, the grid spacing, m
	Correct     bool    // Solenthaler's concave correction
	TLow, THigh float64 // thresholds on EV_max of the correction (004 Figure 6.9: 0.4 and 2.0; ours 1 and 2)
	Smooth      int     // smoothing passes, 0 none
	Workers     int     // 0: runtime.GOMAXPROCS
}

// Defaults, in particle spacings where they are lengths.
const (
	defaultSupport = 2   // R: Zhu & Bridson's twice the particle spacing
	defaultCell    = 0.5 // h: half the particle spacing
	// The thresholds on EV_max. 004's Figure 6.9 plots 0.4 and 2.0, but in a uniform bulk x̄ = x, so J = I and
	// EV_max = 1: with t_low = 0.4 every surface is pulled in (f = 0.95 in the bulk) and, worse, a flat top over
	// an irregular interior is dented wherever the mean moves a little fast (a slab with a fifth of the particles
	// below its top layer removed: 0.18 spacings RMS roughness against 0.03 uncorrected). t_low = 1 corrects
	// only where x̄ outruns x, and keeps most of the gain in concave corners (TestConcaveCorner: the fillet of
	// 0.37 spacings falls to 0.09, against 0.04 with t_low = 0.4) and removes the blobs between separated
	// particles (TestSeparatedParticles) all the same.
	defaultTLow   = 1.0
	defaultTHigh  = 2.0
	defaultSmooth = 1
)

// MaxSmooth bounds Config.Smooth: each pass widens the band by a cell.
const MaxSmooth = 8

// DefaultConfig is the configuration for particles spacing m apart: R = 2·spacing, h = spacing/2, Solenthaler's
// correction with t_low = 1 and t_high = 2 (see defaultTLow), one smoothing pass, and the radius r that puts the surface of a flat lattice
// of particles half a spacing beyond its outer layer (FlatRadius), so that a block of N particles encloses about
// N·spacing³. An invalid spacing gives a Config that Check refuses.
func DefaultConfig(spacing float64) Config {
	c := Config{
		Support: defaultSupport * spacing,
		Cell:    defaultCell * spacing,
		Correct: true,
		TLow:    defaultTLow,
		THigh:   defaultTHigh,
		Smooth:  defaultSmooth,
	}
	r, err := FlatRadius(spacing, c)
	if err != nil {
		r = math.NaN()
	}
	c.Radius = r
	return c
}

// Check reports the first field that is not finite or out of range.
func (c Config) Check() error {
	finite := func(name string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("field: %s is %v, want a finite number", name, v)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Radius", c.Radius}, {"Support", c.Support}, {"Cell", c.Cell}, {"TLow", c.TLow}, {"THigh", c.THigh}} {
		if err := finite(f.name, f.v); err != nil {
			return err
		}
	}
	switch {
	case !(c.Radius > 0):
		return fmt.Errorf("field: Radius %g m must be positive", c.Radius)
	case !(c.Support > c.Radius):
		return fmt.Errorf("field: Support %g m must exceed Radius %g m (a lone particle's sphere lies within it)", c.Support, c.Radius)
	case !(c.Cell > 0):
		return fmt.Errorf("field: Cell %g m must be positive", c.Cell)
	case c.Cell > c.Support-c.Radius:
		return fmt.Errorf("field: Cell %g m must not exceed Support − Radius = %g m (the grid would miss the band)", c.Cell, c.Support-c.Radius)
	case c.Support > 64*c.Cell:
		return fmt.Errorf("field: Support %g m is more than 64 cells of %g m", c.Support, c.Cell)
	case c.Correct && !(c.TLow >= 0):
		return fmt.Errorf("field: TLow %g must not be negative", c.TLow)
	case c.Correct && !(c.THigh > c.TLow):
		return fmt.Errorf("field: THigh %g must exceed TLow %g", c.THigh, c.TLow)
	case c.Smooth < 0 || c.Smooth > MaxSmooth:
		return fmt.Errorf("field: Smooth %d passes, want 0 to %d", c.Smooth, MaxSmooth)
	case c.Workers < 0:
		return fmt.Errorf("field: Workers %d must not be negative", c.Workers)
	}
	return nil
}

func (c Config) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// maxCoord bounds the particles' coordinates in grid cells (|x| ≤ maxCoord·h), far inside the mesher's keys.
const maxCoord = 1 << 18

// Field is the implicit function of one set of particles.
type Field struct {
	cfg  Config
	r2   float64   // R²
	inv2 float64   // 1/R²
	p    []float32 // positions in the neighbour grid's order, xyz packed
	v    []float32 // Means' vectors in that order, xyz packed
	g    *grid.Grid
	ids  []uint32
}

// New builds the field of particles at pos (xyz of each; w is ignored). Non-finite positions and a bad config
// are refused.
func New(pos [][4]float32, cfg Config) (*Field, error) {
	f := &Field{}
	if err := f.reset(pos, cfg); err != nil {
		return nil, err
	}
	return f, nil
}

// maxGridCells bounds the neighbour grid (cells of side R over the particles' box).
const maxGridCells = 1 << 24

// reset rebuilds the field for new positions, reusing its arrays.
func (f *Field) reset(pos [][4]float32, cfg Config) error {
	if err := cfg.Check(); err != nil {
		return err
	}
	lim := float32(maxCoord * cfg.Cell)
	lo := [3]float32{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
	hi := [3]float32{float32(math.Inf(-1)), float32(math.Inf(-1)), float32(math.Inf(-1))}
	for i, p := range pos {
		for a := range 3 {
			v := p[a]
			if v-v != 0 || v > lim || v < -lim {
				return fmt.Errorf("field: particle %d has coordinate %d = %v, want finite and within ±%g m (2¹⁸ cells)", i, a, v, lim)
			}
			lo[a] = min(lo[a], v)
			hi[a] = max(hi[a], v)
		}
	}
	f.cfg = cfg
	f.r2 = cfg.Support * cfg.Support
	f.inv2 = 1 / f.r2
	f.p = f.p[:0]
	if len(pos) == 0 {
		f.g = nil
		return nil
	}
	if len(pos) > math.MaxInt32 {
		return fmt.Errorf("field: %d particles, at most %d", len(pos), math.MaxInt32)
	}
	cell := float32(cfg.Support)
	for a := range 3 { // a margin of a cell on each side keeps every extent positive
		lo[a] -= cell
		hi[a] += cell
	}
	dims, err := grid.Dims(lo, hi, cell)
	if err != nil {
		return fmt.Errorf("field: neighbour grid: %w", err)
	}
	if n := int(dims[0]) * int(dims[1]) * int(dims[2]); n > maxGridCells {
		return fmt.Errorf("field: the particles' box needs %d neighbour cells of %g m, at most %d", n, cell, maxGridCells)
	}
	if f.g == nil || f.g.Dims != dims || f.g.Cell != cell {
		if f.g, err = grid.New(lo, hi, cell); err != nil {
			return fmt.Errorf("field: neighbour grid: %w", err)
		}
	}
	f.g.Origin = lo
	if cap(f.ids) < len(pos) {
		f.ids = make([]uint32, len(pos))
		for i := range f.ids {
			f.ids[i] = uint32(i)
		}
	}
	if len(f.ids) < len(pos) {
		f.ids = f.ids[:len(pos)]
		for i := range f.ids {
			f.ids[i] = uint32(i)
		}
	}
	f.g.Build(pos, f.ids[:len(pos)])
	if cap(f.p) < 3*len(pos) {
		f.p = make([]float32, 0, 3*len(pos))
	}
	for _, i := range f.g.Order {
		f.p = append(f.p, pos[i][0], pos[i][1], pos[i][2])
	}
	return nil
}

// Config returns the field's configuration.
func (f *Field) Config() Config { return f.cfg }

// At is φ(x): negative inside the liquid, positive outside, R − r where no particle is within R.
func (f *Field) At(x [3]float64) float64 {
	d, fac, ok := f.eval(x)
	if !ok {
		return f.empty()
	}
	return d - f.cfg.Radius*fac
}

// Gradient is ∇φ(x) by central differences over a step of R/1000 (φ is smooth within the particles' reach, but
// its analytic gradient with the correction needs second derivatives of x̄).
func (f *Field) Gradient(x [3]float64) [3]float64 {
	e := f.cfg.Support * 1e-3
	var g [3]float64
	for a := range 3 {
		xp, xm := x, x
		xp[a] += e
		xm[a] -= e
		g[a] = (f.At(xp) - f.At(xm)) / (2 * e)
	}
	return g
}

// empty is φ where no particle is within R: outside, and what a lone particle's φ reaches at distance R.
func (f *Field) empty() float64 { return f.cfg.Support - f.cfg.Radius }

// eval returns |x − x̄| and the factor f of r (1 without the correction); ok is false when no particle is within R.
func (f *Field) eval(x [3]float64) (dist, fac float64, ok bool) {
	s := f.gather(x, f.cfg.Correct)
	if !(s.k > 0) {
		return 0, 0, false
	}
	ybar := s.ybar()
	dist = math.Sqrt(ybar[0]*ybar[0] + ybar[1]*ybar[1] + ybar[2]*ybar[2])
	if !f.cfg.Correct {
		return dist, 1, true
	}
	j := f.jacobian(&s, ybar)
	ev := maxEigenSym(j[0][0], j[1][1], j[2][2],
		0.5*(j[0][1]+j[1][0]), 0.5*(j[0][2]+j[2][0]), 0.5*(j[1][2]+j[2][1])) // see jacobian
	return dist, factor(ev, f.cfg.TLow, f.cfg.THigh), true
}

// gather sums over the particles within R of x, the Jacobian's sums too when jac is set.
func (f *Field) gather(x [3]float64, jac bool) sums {
	var s sums
	g := f.g
	if g == nil {
		return s
	}
	cx, cy, cz := g.Coord(float32(x[0]), float32(x[1]), float32(x[2]))
	p := f.p
	for dz := int32(-1); dz <= 1; dz++ {
		for dy := int32(-1); dy <= 1; dy++ {
			b, e, ok := g.Row(cx, cy, cz, dy, dz)
			if !ok {
				continue
			}
			if jac {
				s.addJacobian(p[3*b:3*e], x, f.inv2)
			} else {
				s.add(p[3*b:3*e], x, f.inv2)
			}
		}
	}
	return s
}

// sums accumulates, over the particles within R of x with y_i = x_i − x, s_i = |y_i|/R, k_i = (1 − s_i²)³ and
// g_i = (1 − s_i²)²: K = Σ k_i, Σ k_i y_i, and for the Jacobian Σ g_i y_i and Σ g_i y_i y_iᵀ.
type sums struct {
	k   float64
	ky  [3]float64
	gy  [3]float64
	gyy [6]float64 // xx, yy, zz, xy, xz, yz
}

// add accumulates K and Σ k_i y_i over the packed positions q.
func (s *sums) add(q []float32, x [3]float64, inv2 float64) {
	for i := 0; i+2 < len(q); i += 3 {
		y0, y1, y2 := float64(q[i])-x[0], float64(q[i+1])-x[1], float64(q[i+2])-x[2]
		t := 1 - (y0*y0+y1*y1+y2*y2)*inv2
		if t <= 0 {
			continue
		}
		k := t * t * t
		s.k += k
		s.ky[0] += k * y0
		s.ky[1] += k * y1
		s.ky[2] += k * y2
	}
}

// addJacobian accumulates everything add does and the Jacobian's sums.
func (s *sums) addJacobian(q []float32, x [3]float64, inv2 float64) {
	for i := 0; i+2 < len(q); i += 3 {
		y0, y1, y2 := float64(q[i])-x[0], float64(q[i+1])-x[1], float64(q[i+2])-x[2]
		t := 1 - (y0*y0+y1*y1+y2*y2)*inv2
		if t <= 0 {
			continue
		}
		g := t * t
		k := g * t
		s.k += k
		s.ky[0] += k * y0
		s.ky[1] += k * y1
		s.ky[2] += k * y2
		s.gy[0] += g * y0
		s.gy[1] += g * y1
		s.gy[2] += g * y2
		s.gyy[0] += g * y0 * y0
		s.gyy[1] += g * y1 * y1
		s.gyy[2] += g * y2 * y2
		s.gyy[3] += g * y0 * y1
		s.gyy[4] += g * y0 * y2
		s.gyy[5] += g * y1 * y2
	}
}

// ybar is x̄ − x.
func (s *sums) ybar() [3]float64 {
	inv := 1 / s.k
	return [3]float64{s.ky[0] * inv, s.ky[1] * inv, s.ky[2] * inv}
}

// jacobian is J = ∂x̄/∂x from the sums at x, with ybar = x̄ − x.
func (f *Field) jacobian(s *sums, ybar [3]float64) [3][3]float64 {
	return s.jacobian(ybar, 6*f.inv2/s.k)
}

// jacobian is J = ∂x̄/∂x, with c = 6/(R²K) and ybar = x̄ − x. With ∇k_i = (6/R²) g_i y_i, differentiating
// x̄ = Σ k_i x_i / K gives
//
//	J = c Σ_i g_i (x_i − x̄) y_iᵀ = c (Σ g_i y_i y_iᵀ − ȳ (Σ g_i y_i)ᵀ),
//
// the identity inside a uniform bulk (the kernel's moments make c·Σ g_i y_i y_iᵀ = I there).
//
// J is not symmetric and its eigenvalues can be complex. For EV_max (004 eq. 6.22) we take the largest eigenvalue
// of its symmetric part (J + Jᵀ)/2, which is real and is the largest u·J·u over unit u: the fastest rate at which
// x̄ follows x along the direction x moves, which is what makes |x − x̄| stall and the surface bulge. It bounds the
// real part of every eigenvalue of J from above, so it detects whatever J's own largest eigenvalue would, a little
// more eagerly.
func (s *sums) jacobian(ybar [3]float64, c float64) [3][3]float64 {
	j := [3][3]float64{
		{s.gyy[0], s.gyy[3], s.gyy[4]},
		{s.gyy[3], s.gyy[1], s.gyy[5]},
		{s.gyy[4], s.gyy[5], s.gyy[2]},
	}
	for a := range 3 {
		for b := range 3 {
			j[a][b] = c * (j[a][b] - ybar[a]*s.gy[b])
		}
	}
	return j
}

// maxEigenSym is the largest eigenvalue of the symmetric matrix [[a, d, e], [d, b, f], [e, f, c]], in closed form
// (the trigonometric solution of the characteristic cubic).
func maxEigenSym(a, b, c, d, e, f float64) float64 {
	p1 := d*d + e*e + f*f
	q := (a + b + c) / 3
	if p1 == 0 {
		return max(a, b, c)
	}
	a0, b0, c0 := a-q, b-q, c-q
	p2 := a0*a0 + b0*b0 + c0*c0 + 2*p1
	p := math.Sqrt(p2 / 6)
	// det((M − qI)/p) / 2
	det := a0*(b0*c0-f*f) - d*(d*c0-f*e) + e*(d*f-b0*e)
	r := det / (2 * p * p * p)
	r = max(-1, min(1, r))
	phi := math.Acos(r) / 3
	return q + 2*p*math.Cos(phi)
}

// factor is f of 004 eq. 6.22–6.23: 1 below t_low, γ³ − 3γ² + 3γ = 1 − (1 − γ)³ otherwise with
// γ = (t_high − EV_max)/(t_high − t_low) clamped to [0, 1], smooth in its first and second derivatives at t_low.
func factor(ev, tLow, tHigh float64) float64 {
	if ev < tLow {
		return 1
	}
	g := (tHigh - ev) / (tHigh - tLow)
	g = max(0, min(1, g))
	return g*g*g - 3*g*g + 3*g
}

// FlatRadius is the radius r that puts the surface of a flat cubic lattice of particles spacing m apart half a
// spacing beyond its outer layer, under c's Support and correction (c.Radius is ignored): r = |x − x̄|/f at the
// points half a spacing above the top layer, averaged over a point above a particle and one above the centre of
// a lattice square. Zhu & Bridson fix r to about the spacing; this is that choice made exact for our R.
func FlatRadius(spacing float64, c Config) (float64, error) {
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return 0, fmt.Errorf("field: particle spacing %v must be positive and finite", spacing)
	}
	c.Radius = spacing / 2
	c.Cell = min(c.Support-c.Radius, spacing/2)
	c.Smooth, c.Workers = 0, 1
	if err := c.Check(); err != nil {
		return 0, err
	}
	n := int(math.Ceil(c.Support/spacing)) + 1
	var pos [][4]float32
	for k := -n; k <= 0; k++ {
		for j := -n; j <= n; j++ {
			for i := -n; i <= n; i++ {
				pos = append(pos, [4]float32{float32(float64(i) * spacing), float32(float64(j) * spacing), float32(float64(k) * spacing), 0})
			}
		}
	}
	f, err := New(pos, c)
	if err != nil {
		return 0, err
	}
	r := 0.0
	for _, off := range []float64{0, 0.5} {
		d, fac, ok := f.eval([3]float64{off * spacing, off * spacing, spacing / 2})
		if !ok || !(fac > 0) {
			return 0, errors.New("field: the correction removes a flat surface entirely; raise THigh")
		}
		r += d / fac / 2
	}
	return r, nil
}
