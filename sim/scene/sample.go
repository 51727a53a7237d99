package scene

import (
	"fmt"
	"math"
)

// MaxParticles bounds what a scene may ask for, so a typo in a spacing cannot take all memory.
const MaxParticles = 1 << 24

// Particle is one sampled fluid particle.
type Particle struct {
	Pos, Vel Vec3
}

// Sample places fluid particles on a cubic lattice of the given spacing anchored half a spacing inside the domain's
// minimum corner: every lattice point that lies in the domain, inside a fluid block, and at least half a spacing
// outside every obstacle (a moving one where it is at time 0, Obstacle.ShapeAt(0)). A point inside several blocks belongs to the first (its velocity). The order is
// deterministic: x fastest, then y, then z.
func (s *Scene) Sample(spacing float64) ([]Particle, error) {
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return nil, fmt.Errorf("particle spacing %g must be a positive number", spacing)
	}
	var out []Particle
	err := s.lattice(spacing, func(p Vec3, v Vec3) bool {
		if len(out) == MaxParticles {
			return false
		}
		out = append(out, Particle{Pos: p, Vel: v})
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Count is the number of particles Sample would return, without storing them.
func (s *Scene) Count(spacing float64) (int, error) {
	n := 0
	err := s.lattice(spacing, func(Vec3, Vec3) bool { n++; return n <= MaxParticles })
	return n, err
}

func (s *Scene) lattice(d float64, emit func(p, v Vec3) bool) error {
	lo, hi := s.Domain.Min, s.Domain.Max
	var n [3]int
	for c := 0; c < 3; c++ {
		n[c] = int(math.Floor((hi[c]-lo[c])/d + 1e-9))
	}
	if float64(n[0])*float64(n[1])*float64(n[2]) > 64*MaxParticles {
		return fmt.Errorf("particle spacing %g m is too fine for a %v m domain; use a spacing of at least %.3g m", d, s.Domain.Size(), minSpacing(s.Domain))
	}
	// Visit only lattice points in the bounds of some fluid block.
	fb := Box{Min: hi, Max: lo}
	for _, f := range s.Fluid {
		b := f.Bounds()
		fb.Min, fb.Max = fb.Min.Min(b.Min), fb.Max.Max(b.Max)
	}
	obstacles := make([]Shape, len(s.Obstacles))
	for oi := range s.Obstacles {
		obstacles[oi] = s.Obstacles[oi].ShapeAt(0)
	}
	var i0, i1 [3]int
	for c := 0; c < 3; c++ {
		i0[c] = max(0, int(math.Floor((fb.Min[c]-lo[c])/d-0.5)))
		i1[c] = min(n[c], int(math.Ceil((fb.Max[c]-lo[c])/d+0.5)))
	}
	for k := i0[2]; k < i1[2]; k++ {
		for j := i0[1]; j < i1[1]; j++ {
			for i := i0[0]; i < i1[0]; i++ {
				p := Vec3{lo[0] + (float64(i)+0.5)*d, lo[1] + (float64(j)+0.5)*d, lo[2] + (float64(k)+0.5)*d}
				owner := -1
				for fi := range s.Fluid {
					if s.Fluid[fi].Distance(p) <= 0 {
						owner = fi
						break
					}
				}
				if owner < 0 {
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
				if !emit(p, s.Fluid[owner].Velocity) {
					return fmt.Errorf("scene %q asks for more than %d particles at spacing %g m; use a larger spacing", s.Name, MaxParticles, d)
				}
			}
		}
	}
	return nil
}

// SampleBodies places each rigid body's particles on the same lattice as Sample's: the lattice points inside the
// body. A body too small to hold a lattice point is an error naming it.
func (s *Scene) SampleBodies(spacing float64) ([][]Vec3, error) {
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return nil, fmt.Errorf("particle spacing %g must be a positive number", spacing)
	}
	lo := s.Domain.Min
	out := make([][]Vec3, len(s.Bodies))
	for bi := range s.Bodies {
		b := &s.Bodies[bi]
		bb := b.Bounds()
		var i0, i1 [3]int
		for c := 0; c < 3; c++ {
			i0[c] = int(math.Floor((bb.Min[c]-lo[c])/spacing - 0.5))
			i1[c] = int(math.Ceil((bb.Max[c]-lo[c])/spacing + 0.5))
		}
		if n := float64(i1[0]-i0[0]) * float64(i1[1]-i0[1]) * float64(i1[2]-i0[2]); n > 8*MaxParticles {
			return nil, fmt.Errorf("bodies[%d]: %s is too large for spacing %g m", bi, b.String(), spacing)
		}
		for k := i0[2]; k < i1[2]; k++ {
			for j := i0[1]; j < i1[1]; j++ {
				for i := i0[0]; i < i1[0]; i++ {
					p := Vec3{lo[0] + (float64(i)+0.5)*spacing, lo[1] + (float64(j)+0.5)*spacing, lo[2] + (float64(k)+0.5)*spacing}
					if b.Distance(p) < 0 {
						out[bi] = append(out[bi], p)
					}
				}
			}
		}
		if len(out[bi]) == 0 {
			return nil, fmt.Errorf("bodies[%d]: %s holds no particle at spacing %g m; make it larger or the spacing finer", bi, b.String(), spacing)
		}
	}
	return out, nil
}

func minSpacing(b Box) float64 {
	sz := b.Size()
	return math.Cbrt(sz[0] * sz[1] * sz[2] / MaxParticles)
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
// cent: the lattice count is a step function of the spacing).
func (s *Scene) SpacingFor(n int) (float64, error) {
	if n <= 0 {
		return 0, fmt.Errorf("particle count %d must be positive", n)
	}
	if n > MaxParticles {
		return 0, fmt.Errorf("particle count %d exceeds the limit of %d", n, MaxParticles)
	}
	vol := s.FluidVolume()
	if !(vol > 0) {
		return 0, fmt.Errorf("scene %q has no fluid volume to fill", s.Name)
	}
	d := math.Cbrt(vol / float64(n))
	best, bestErr := d, math.Inf(1)
	for it := 0; it < 8; it++ {
		c, err := s.Count(d)
		if err != nil {
			return 0, err
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
	return best, nil
}

// Spacing resolves the scene's resolution: count (when > 0) wins over spacing.
func (s *Scene) Spacing(spacing float64, count int) (float64, error) {
	if count > 0 {
		return s.SpacingFor(count)
	}
	if !(spacing > 0) {
		return 0, fmt.Errorf("scene %q: particles.spacing must be > 0 (or give particles.count)", s.Name)
	}
	return spacing, nil
}
