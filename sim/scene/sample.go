package scene

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/jsonmsg"
)

// MaxParticles bounds what a scene may ask for, so a typo in a spacing cannot take all memory: the limit of
// particles.count, of what sampling at any spacing may yield (fluid and bodies), and of the solvers' pbf.particles.
const MaxParticles = 1 << 24

// Particle is one sampled fluid particle.
type Particle struct {
	Pos, Vel Vec3
	// Material is the material number of the block the particle was sampled in: 0 for the default material
	// (water), k for the scene's Materials[k−1] (Scene.MaterialOf).
	Material int
	// Block is the index of the fluid block it was sampled in: the solids of two blocks are two bodies, even of
	// one material and touching.
	Block int
}

// Sample places fluid particles on a cubic lattice of the given spacing, each block's placed symmetrically between
// the walls it touches (blockLattice): every lattice point that lies in the domain, inside a fluid block, and at
// least half a spacing outside every obstacle (a moving one where it is at time 0, Obstacle.ShapeAt(0)). A point
// inside several blocks belongs to the first (its velocity and material). The order is deterministic: block by
// block, in each x fastest, then y, then z. A block naming a material the scene does not define is an error. The
// spacing is checked first (CheckSpacing) and the particles counted (Count) before anything is allocated.
func (s *Scene) Sample(spacing float64) (_ []Particle, err error) {
	if err := s.Need3D(); err != nil {
		return nil, err
	}
	mats := make([]int, len(s.Fluid)) // each block's material number
	for i := range s.Fluid {
		if mats[i], err = s.MaterialNumber(s.Fluid[i].Material); err != nil {
			return nil, fmt.Errorf("fluid[%d].material: %w", i, err)
		}
	}
	n, err := s.Count(spacing)
	if err != nil {
		return nil, err
	}
	out := make([]Particle, 0, n)
	if n == 0 {
		return out, nil
	}
	s.lattice(spacing, func(p Vec3, block int) bool {
		out = append(out, Particle{Pos: p, Vel: s.Fluid[block].Velocity, Material: mats[block], Block: block})
		return len(out) < n
	})
	return out, nil
}

// Count is the number of particles Sample would return, without storing them; more than MaxParticles is an
// error, found without visiting more lattice points than needed to see it.
func (s *Scene) Count(spacing float64) (int, error) {
	if err := s.Need3D(); err != nil {
		return 0, err
	}
	return s.count(spacing, MaxParticles)
}

// count is Count with the limit as a parameter, so tests can reach it with small scenes.
func (s *Scene) count(spacing float64, limit int) (int, error) {
	if err := s.CheckSpacing(spacing); err != nil {
		return 0, err
	}
	n := 0
	s.lattice(spacing, func(Vec3, int) bool { n++; return n <= limit })
	if n > limit {
		return 0, fmt.Errorf("scene %s asks for more than %d particles at spacing %g m; use a larger spacing (about %.3g m)",
			jsonmsg.Quote(s.Name), limit, spacing, spacing*math.Cbrt(max(1.01, s.FluidVolume()/(spacing*spacing*spacing)/float64(limit))))
	}
	return n, nil
}

// CheckSpacing checks, in closed form and before anything is sampled or allocated, that the scene can be sampled
// at particle spacing d within the limits: d itself (at least MinSpacing, and coarse enough for 32-bit positions
// in the domain), the lattice points sampling would visit, a lower bound on the particles the fluid blocks hold
// (each block's lattice points less what obstacles and bodies could take away), and each emitter's disc. Errors
// about the spacing as a whole carry no field path (Validate adds "particles.spacing"); an emitter's names its
// radius.
func (s *Scene) CheckSpacing(d float64) error {
	if !(d >= MinSpacing) || d > MaxLength {
		return errAt("", "particle spacing %g m is out of range: spacings lie within [%g, %g] m", d, MinSpacing, float64(MaxLength))
	}
	dom := s.Domain
	far := math.Max(dom.Min.Abs().MaxComp(), dom.Max.Abs().MaxComp())
	if f := float32(far); !(far <= MaxCoord) {
		return errAt("domain", "%g m from the origin is out of range: positions lie within ±%g m", far, float64(MaxCoord))
	} else if ulp := float64(math.Nextafter32(f, float32(math.Inf(1))) - f); d < 4*ulp {
		return errAt("", "particle spacing %g m is too fine for a domain %g m from the origin: the solvers' 32-bit positions there are %g m apart; use a spacing of at least %g m, or move the domain closer to the origin",
			d, far, ulp, 4*ulp)
	}
	if v := s.visitRange(d).count(); v > maxVisited {
		return errAt("", "particle spacing %g m is too fine: sampling would visit %.3g lattice points around the fluid blocks, over the limit of %d; use a spacing of at least %.3g m",
			d, v, maxVisited, d*math.Cbrt(v/maxVisited))
	}
	if n := s.leastParticles(d); n > MaxParticles {
		return errAt("", "at %g m the fluid blocks hold at least %.0f particles, over the limit of %d; use a spacing of at least %.3g m",
			d, n, MaxParticles, d*math.Cbrt(n/MaxParticles))
	}
	for k := range s.Emitters {
		e := &s.Emitters[k]
		if n := math.Pi * (e.Radius / d) * (e.Radius / d); n > MaxDiscPoints {
			return errAt(fmt.Sprintf("emitters[%d].radius", k), "%g m makes a disc of about %.3g particles at spacing %g m, over the limit of %d; at most %.3g m",
				e.Radius, n, d, MaxDiscPoints, d*math.Sqrt(MaxDiscPoints/math.Pi))
		}
	}
	return nil
}

// fluidBox is the box around the fluid blocks.
func (s *Scene) fluidBox() Box {
	fb := Box{Min: s.Domain.Max, Max: s.Domain.Min}
	for i := range s.Fluid {
		b := s.Fluid[i].Bounds()
		fb.Min, fb.Max = fb.Min.Min(b.Min), fb.Max.Max(b.Max)
	}
	return fb
}

// latticeRange is a range of lattice indices [i0, i1) along each axis, in floats so that no count overflows.
type latticeRange struct{ i0, i1 [3]float64 }

// visitRange is the range of lattice points sampling visits: those around the box of the fluid blocks.
func (s *Scene) visitRange(d float64) latticeRange {
	lo, hi, fb := s.Domain.Min, s.Domain.Max, s.fluidBox()
	var r latticeRange
	for c := 0; c < 3; c++ {
		n := math.Floor((hi[c]-lo[c])/d + 1e-9)
		r.i0[c] = math.Max(0, math.Floor((fb.Min[c]-lo[c])/d-0.5))
		r.i1[c] = math.Min(n, math.Ceil((fb.Max[c]-lo[c])/d+0.5))
	}
	return r
}

// lattice3 is the range of the domain's lattice points (spacing d) within box b, which is grown by slack·d on
// every side (negative slack shrinks it): the points lo + (i + ½)d with i in [0, n) along each axis.
func lattice3(b, domain Box, d, slack float64) latticeRange {
	var r latticeRange
	for c := 0; c < 3; c++ {
		lo := domain.Min[c]
		n := math.Floor((domain.Max[c]-lo)/d + 1e-9)
		r.i0[c] = math.Max(0, math.Ceil((b.Min[c]-lo)/d-0.5-slack))
		r.i1[c] = math.Min(n, math.Floor((b.Max[c]-lo)/d-0.5+slack)+1)
	}
	return r
}

// count is the number of lattice points in the range.
func (r latticeRange) count() float64 {
	n := 1.0
	for c := 0; c < 3; c++ {
		n *= math.Max(0, r.i1[c]-r.i0[c])
	}
	return n
}

// leastParticles is a lower bound on the particles Sample finds at spacing d, in closed form: the most lattice
// points inside any one fluid block's inscribed axis-aligned box, less the points in the boxes around the
// obstacles and bodies grown by half a spacing (where a point may be blocked).
func (s *Scene) leastParticles(d float64) float64 {
	best := 0.0
	for i := range s.Fluid {
		in, ok := s.Fluid[i].innerBox()
		if !ok {
			continue
		}
		r := lattice3(in, s.Domain, d, -1e-6)
		n := r.count()
		if n <= best {
			continue
		}
		// a point within half a spacing of an obstacle or body is blocked; a mesh's distances come from a grid,
		// a few of whose cells may reach past its vertices
		grow := func(sh *Shape) Box {
			g := d / 2
			if sh.Kind == ShapeMesh {
				g += 4 * sh.Extent / MeshSDFCells
			}
			b := sh.Bounds()
			return Box{Min: b.Min.Sub(Vec3{g, g, g}), Max: b.Max.Add(Vec3{g, g, g})}
		}
		var blockers []Box
		for o := range s.Obstacles {
			sh := s.Obstacles[o].ShapeAt(0)
			blockers = append(blockers, grow(&sh))
		}
		for b := range s.Bodies {
			blockers = append(blockers, grow(&s.Bodies[b].Shape))
		}
		for _, b := range blockers {
			br := lattice3(b, s.Domain, d, 1e-6)
			for c := 0; c < 3; c++ {
				br.i0[c], br.i1[c] = math.Max(br.i0[c], r.i0[c]), math.Min(br.i1[c], r.i1[c])
			}
			n -= br.count()
		}
		best = math.Max(best, n)
	}
	return best
}

// innerBox is an axis-aligned box inside the shape (not necessarily the largest), or false for a mesh.
func (s *Shape) innerBox() (Box, bool) {
	cube := func(c Vec3, r float64) (Box, bool) { // the cube inscribed in a ball
		h := r / math.Sqrt(3)
		return Box{Min: c.Sub(Vec3{h, h, h}), Max: c.Add(Vec3{h, h, h})}, true
	}
	switch s.Kind {
	case ShapeBox:
		if s.Rotation == (Vec3{}) {
			h := s.Size.Scale(0.5)
			return Box{Min: s.Center.Sub(h), Max: s.Center.Add(h)}, true
		}
		return cube(s.Center, math.Min(s.Size[0], math.Min(s.Size[1], s.Size[2]))/2)
	case ShapeSphere:
		return cube(s.Center, s.Radius)
	case ShapeCapsule:
		return cube(s.A.Add(s.B).Scale(0.5), s.Radius)
	case ShapeCylinder:
		if s.Rotation == (Vec3{}) {
			h := Vec3{s.Radius / math.Sqrt2, s.Height / 2, s.Radius / math.Sqrt2}
			return Box{Min: s.Center.Sub(h), Max: s.Center.Add(h)}, true
		}
		return cube(s.Center, math.Min(s.Radius, s.Height/2))
	}
	return Box{}, false
}

// lattice calls emit with each lattice point inside the fluid (see Sample) and the index of the fluid block it
// belongs to, block by block and in each x fastest, then y, then z, until emit returns false. Each block has its
// own lattice of spacing d (blockLattice), placed between the walls it touches; a point of a later block inside
// an earlier one is the earlier one's. The caller has checked the spacing (CheckSpacing).
func (s *Scene) lattice(d float64, emit func(p Vec3, block int) bool) {
	obstacles := make([]Shape, len(s.Obstacles))
	for oi := range s.Obstacles {
		obstacles[oi] = s.Obstacles[oi].ShapeAt(0)
	}
	for fi := range s.Fluid {
		origin, i0, i1 := s.blockLattice(fi, d)
		for k := i0[2]; k < i1[2]; k++ {
			for j := i0[1]; j < i1[1]; j++ {
				for i := i0[0]; i < i1[0]; i++ {
					p := Vec3{origin[0] + float64(i)*d, origin[1] + float64(j)*d, origin[2] + float64(k)*d}
					if s.Fluid[fi].Distance(p) > 0 {
						continue
					}
					earlier := false
					for e := 0; e < fi && !earlier; e++ {
						earlier = s.Fluid[e].Distance(p) <= 0
					}
					if earlier {
						continue
					}
					blocked := false
					for oi := range obstacles {
						if obstacles[oi].Distance(p) < 0.5*d {
							blocked = true
							break
						}
					}
					for bi := 0; bi < len(s.Bodies) && !blocked; bi++ {
						blocked = s.Bodies[bi].Distance(p) < 0.5*d // a body displaces the fluid where it is placed
					}
					if blocked {
						continue
					}
					if !emit(p, fi) {
						return
					}
				}
			}
		}
	}
}

// blockLattice is fluid block fi's lattice at spacing d: the points origin + (i, j, k)·d with indices in [i0, i1)
// around the block, all inside the domain. Along each axis the n = ⌊extent/d⌋ points that fit in the domain are
// placed symmetrically between the walls the block touches: half a spacing from the one it touches, or, for a block
// spanning wall to wall, centred so both gaps are equal (½d plus half the extent's remainder, below d). A block
// touching neither wall keeps the lattice half a spacing inside the domain's minimum corner. (Anchored at the
// minimum walls only, a spacing that does not divide the extent left a layer 0.5d from one wall and up to 1.5d
// from the other: a gap a resting pool closed with a jump at its edges.)
func (s *Scene) blockLattice(fi int, d float64) (origin Vec3, i0, i1 [3]int) {
	b := s.Fluid[fi].Bounds()
	lo, hi := s.Domain.Min, s.Domain.Max
	for c := 0; c < 3; c++ {
		ext := hi[c] - lo[c]
		n := math.Floor(ext/d + 1e-6) // a spacing rounded to float32 still fits the layers it divides into
		tol := 1e-3 * d
		touchLo, touchHi := b.Min[c] <= lo[c]+tol, b.Max[c] >= hi[c]-tol
		switch {
		case touchLo && touchHi:
			origin[c] = lo[c] + 0.5*(ext-n*d) + 0.5*d
		case touchHi:
			origin[c] = hi[c] - 0.5*d - (n-1)*d
		default:
			origin[c] = lo[c] + 0.5*d
		}
		i0[c] = int(math.Max(0, math.Floor((b.Min[c]-origin[c])/d)))
		i1[c] = int(math.Min(n, math.Ceil((b.Max[c]-origin[c])/d)+1))
	}
	return origin, i0, i1
}

// SampleBodies places each rigid body's particles on the same lattice as Sample's: the lattice points inside the
// body. A body too small to hold a lattice point is an error naming it, and so are bodies that would hold more
// than MaxParticles together (counted before they are stored).
func (s *Scene) SampleBodies(spacing float64) ([][]Vec3, error) {
	if err := s.CheckSpacing(spacing); err != nil {
		return nil, err
	}
	lo := s.Domain.Min
	ranges := make([][2][3]int, len(s.Bodies))
	visits := 0.0
	for bi := range s.Bodies {
		bb := s.Bodies[bi].Bounds()
		var r latticeRange
		for c := 0; c < 3; c++ {
			r.i0[c] = math.Floor((bb.Min[c]-lo[c])/spacing - 0.5)
			r.i1[c] = math.Ceil((bb.Max[c]-lo[c])/spacing + 0.5)
		}
		if visits += r.count(); visits > maxVisited {
			return nil, fmt.Errorf("bodies[%d]: the bodies are too large for spacing %g m: sampling them would visit more than %d lattice points; make them smaller or the spacing larger",
				bi, spacing, maxVisited)
		}
		for c := 0; c < 3; c++ {
			ranges[bi][0][c], ranges[bi][1][c] = int(r.i0[c]), int(r.i1[c])
		}
	}
	each := func(bi int, f func(p Vec3) bool) bool {
		b, r := &s.Bodies[bi], ranges[bi]
		for k := r[0][2]; k < r[1][2]; k++ {
			for j := r[0][1]; j < r[1][1]; j++ {
				for i := r[0][0]; i < r[1][0]; i++ {
					p := Vec3{lo[0] + (float64(i)+0.5)*spacing, lo[1] + (float64(j)+0.5)*spacing, lo[2] + (float64(k)+0.5)*spacing}
					if b.Distance(p) < 0 && !f(p) {
						return false
					}
				}
			}
		}
		return true
	}
	if visits > MaxParticles { // they might hold too many: count before storing
		n := 0
		for bi := range s.Bodies {
			if !each(bi, func(Vec3) bool { n++; return n <= MaxParticles }) {
				return nil, fmt.Errorf("bodies[%d]: the bodies hold more than %d particles at spacing %g m, the limit; make them smaller or the spacing larger", bi, MaxParticles, spacing)
			}
		}
	}
	out := make([][]Vec3, len(s.Bodies))
	for bi := range s.Bodies {
		each(bi, func(p Vec3) bool { out[bi] = append(out[bi], p); return true })
		if len(out[bi]) == 0 {
			b := &s.Bodies[bi]
			return nil, fmt.Errorf("bodies[%d]: %s holds no particle at spacing %g m; make it larger or the spacing finer", bi, b.String(), spacing)
		}
	}
	return out, nil
}

// FluidVolume is the summed volume of the fluid blocks (overlaps and obstacles not subtracted).
func (s *Scene) FluidVolume() float64 {
	v := 0.0
	for i := range s.Fluid {
		v += s.Fluid[i].Volume()
	}
	return v
}

// SpacingFor finds the lattice spacing that fills the scene's fluid with about n particles (within a few per
// cent: the lattice count is a step function of the spacing), and never more than MaxParticles, so that any count
// up to the limit can be asked for.
func (s *Scene) SpacingFor(n int) (float64, error) {
	if err := s.Need3D(); err != nil {
		return 0, err
	}
	return s.spacingFor(n, MaxParticles)
}

// spacingFor is SpacingFor with the limit as a parameter, so tests can reach it with small scenes.
func (s *Scene) spacingFor(n, limit int) (float64, error) {
	if n <= 0 {
		return 0, fmt.Errorf("particle count %d must be positive", n)
	}
	if n > limit {
		return 0, fmt.Errorf("particle count %d exceeds the limit of %d", n, limit)
	}
	vol := s.FluidVolume()
	if !(vol > 0) {
		return 0, fmt.Errorf("scene %s has no fluid volume to fill", jsonmsg.Quote(s.Name))
	}
	d := math.Cbrt(vol / float64(n))
	best, bestErr := 0.0, math.Inf(1)
	var lastErr error
	for it := 0; it < 12; it++ {
		d = math.Max(d, MinSpacing)
		c, err := s.count(d, limit)
		if err != nil {
			// too many particles, or too fine a spacing for some other limit: try coarser
			lastErr = err
			d *= 1.02
			continue
		}
		if c == 0 {
			d *= 0.5
			continue
		}
		if e := math.Abs(float64(c)-float64(n)) / float64(n); e < bestErr {
			best, bestErr = d, e
		}
		if bestErr < 0.005 {
			break
		}
		d *= math.Cbrt(float64(c) / float64(n))
	}
	if best == 0 {
		if lastErr != nil {
			return 0, fmt.Errorf("no spacing gives about %d particles: %w", n, lastErr)
		}
		return 0, fmt.Errorf("scene %s: no spacing gives about %d particles: the fluid blocks lie inside obstacles or outside the domain", jsonmsg.Quote(s.Name), n)
	}
	return best, nil
}

// Expect is what a reset at spacing or count (as ResolveSpacing takes them) will sample, estimated in closed form
// before anything is: the spacing (for a count, the one that would fill the fluid's volume, which SpacingFor then
// refines by sampling) and the particles (the count asked for, or a lower bound of what the blocks hold at the
// spacing). A mode checks its memory against it first, so that a run the machine cannot hold is refused at once
// rather than after seconds of sampling.
func (s *Scene) Expect(spacing float64, count int) (d float64, n int, err error) {
	if err := s.Need3D(); err != nil {
		return 0, 0, err
	}
	if count <= 0 && !(spacing > 0) {
		spacing, count = s.Particles.Spacing, s.Particles.Count
	}
	if count > 0 {
		if count > MaxParticles {
			return 0, 0, fmt.Errorf("particle count %d exceeds the limit of %d", count, MaxParticles)
		}
		if vol := s.FluidVolume(); vol > 0 {
			return math.Cbrt(vol / float64(count)), count, nil
		}
		return 0, count, nil
	}
	if !(spacing > 0) {
		return 0, 0, fmt.Errorf("scene %s: particles.spacing must be > 0 (or give particles.count)", jsonmsg.Quote(s.Name))
	}
	if err := s.CheckSpacing(spacing); err != nil {
		return 0, 0, err
	}
	return spacing, int(s.leastParticles(spacing)), nil
}

// ResolveSpacing is the spacing a mode runs the scene at: a particle count it is given (when > 0) wins over a
// spacing it is given (when > 0), and either over the scene's own particles.count and particles.spacing.
func (s *Scene) ResolveSpacing(spacing float64, count int) (float64, error) {
	if count > 0 || spacing > 0 {
		return s.Spacing(spacing, count)
	}
	return s.Spacing(s.Particles.Spacing, s.Particles.Count)
}

// Spacing resolves the scene's resolution: count (when > 0) wins over spacing.
func (s *Scene) Spacing(spacing float64, count int) (float64, error) {
	if err := s.Need3D(); err != nil {
		return 0, err
	}
	if count > 0 {
		return s.SpacingFor(count)
	}
	if !(spacing > 0) {
		return 0, fmt.Errorf("scene %s: particles.spacing must be > 0 (or give particles.count)", jsonmsg.Quote(s.Name))
	}
	return spacing, nil
}
