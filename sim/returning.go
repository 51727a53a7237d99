package sim

import (
	"math"

	"github.com/slosh/slosh/sim/scene"
)

// Returning places particles taken out earlier — an undone drain, the fluid a dropped body displaced — back where
// there is room in f now, for Refill. The liquid has flowed since they left: a particle whose place is still free
// returns there; the others fill the lowest room there is, level by level on a lattice of a spacing across dom —
// the pockets, then the surface, in an even layer rather than a mound that falls; one that finds none inside dom is
// left out. Free means that a particle there would sit no denser than inside a fluid at rest: its neighbours within
// the kernel radius 2d (f's particles, liquid or solid, and those returned before it) weigh no more, by the poly6
// kernel, than a filled lattice of spacing d does, and none is closer than freeGap spacings. Every particle comes
// back at rest. So an undo never packs particles denser than the fluid, which the solver would answer by launching
// them (a pool undone after a drain used to jump off its floor), and never brings back the motion the particles
// had: it adds no energy beyond the height of the layer it lays on the surface.
func Returning(f *Frame, ps []Particle, dom scene.Box) []Particle {
	d := 2 * float64(f.Radius)
	if !(d > 0) || len(ps) == 0 {
		return nil
	}
	g := occupancy{cell: 2 * d, cells: map[[3]int32][]int32{}, h2: float32(4 * d * d), ref: latticeSum(d)}
	pts := make([][3]float32, 0, f.N+len(ps))
	add := func(p [3]float32) {
		g.put(p, int32(len(pts)))
		pts = append(pts, p)
	}
	for i := range f.N {
		add([3]float32{f.Pos[i][0], f.Pos[i][1], f.Pos[i][2]})
	}
	gap := float32(freeGap * d)
	lo, hi := dom.Min, dom.Max
	inside := func(p [3]float32) bool {
		for a := range 3 {
			if x := float64(p[a]); !(x >= lo[a]+0.5*d && x <= hi[a]-0.5*d) {
				return false
			}
		}
		return true
	}
	out := make([]Particle, 0, len(ps))
	var moved []Particle
	for _, q := range ps {
		if inside(q.Pos) && g.free(q.Pos, gap, pts) {
			add(q.Pos)
			out = append(out, Particle{Pos: q.Pos, Material: q.Material})
		} else {
			moved = append(moved, q)
		}
	}
	// the others fill the lowest room there is: a lattice of a spacing across the domain, raised half a spacing at
	// a time
	step, rise := float32(d), float32(0.5*d)
	for y := float32(lo[1] + 0.5*d); y <= float32(hi[1]-0.5*d) && len(moved) > 0; y += rise {
		for z := float32(lo[2] + 0.5*d); z <= float32(hi[2]-0.5*d) && len(moved) > 0; z += step {
			for x := float32(lo[0] + 0.5*d); x <= float32(hi[0]-0.5*d) && len(moved) > 0; x += step {
				if c := [3]float32{x, y, z}; g.free(c, gap, pts) {
					add(c)
					out = append(out, Particle{Pos: c, Material: moved[0].Material})
					moved = moved[1:]
				}
			}
		}
	}
	return out
}

// freeGap is how close, in particle spacings, another particle may be to a free place.
const freeGap = 0.8

// latticeSum is Σ (h² − r²)³ over the points of a cubic lattice of spacing d within h = 2d of one of them, itself
// left out: the poly6 weight (unnormalised) of a particle's neighbours inside a fluid at rest.
func latticeSum(d float64) float32 {
	h2 := 4 * d * d
	sum := 0.0
	for k := -2; k <= 2; k++ {
		for j := -2; j <= 2; j++ {
			for i := -2; i <= 2; i++ {
				r2 := float64(i*i+j*j+k*k) * d * d
				if r2 > 0 && r2 < h2 {
					w := h2 - r2
					sum += w * w * w
				}
			}
		}
	}
	return float32(sum)
}

// occupancy is a hash grid of points, cells a kernel radius (two spacings) wide.
type occupancy struct {
	cell  float64
	cells map[[3]int32][]int32
	h2    float32 // the kernel radius squared
	ref   float32 // latticeSum
}

func (g *occupancy) key(p [3]float32) [3]int32 {
	return [3]int32{int32(math.Floor(float64(p[0]) / g.cell)), int32(math.Floor(float64(p[1]) / g.cell)), int32(math.Floor(float64(p[2]) / g.cell))}
}

func (g *occupancy) put(p [3]float32, i int32) {
	k := g.key(p)
	g.cells[k] = append(g.cells[k], i)
}

// free says whether a particle at p would sit no denser than inside a fluid at rest, with no point within gap.
func (g *occupancy) free(p [3]float32, gap float32, pts [][3]float32) bool {
	k := g.key(p)
	var sum float32
	for dz := int32(-1); dz <= 1; dz++ {
		for dy := int32(-1); dy <= 1; dy++ {
			for dx := int32(-1); dx <= 1; dx++ {
				for _, j := range g.cells[[3]int32{k[0] + dx, k[1] + dy, k[2] + dz}] {
					q := pts[j]
					x, y, z := q[0]-p[0], q[1]-p[1], q[2]-p[2]
					r2 := x*x + y*y + z*z
					if r2 < gap*gap {
						return false
					}
					if w := g.h2 - r2; w > 0 {
						sum += w * w * w
					}
				}
			}
		}
	}
	return sum <= g.ref*(1+1e-4)
}
