package solid

import "math"

// The box's edges and corners, exactly.
//
// Boundary combines solids by the volume of their union, Φ = 1 − Π(1 − Φ_b), as if each covered its share of the
// kernel independently. Where two walls of the domain meet, the ghosts beyond both (a quarter-space of them) are
// what that rule estimates as Φ_1 Φ_2; the lattice holds a little less, and the gradient's product rule gets their
// push wrong by more: at hydrostatic pressure a resting particle in a vertical edge of a tank was pulled into the
// edge at 1.7 m/s² along each wall and a particle in a bottom corner at 4.2, which stirred water at rest. The box's
// walls are planes along the axes, so their union has an exact form: inclusion–exclusion over the walls,
//
//	Φ_box = Σ_b Φ_b − Σ_{b<c} Φ_bc + Φ_bcd,
//
// and the same for ∇Φ and the first moment, where Φ_bc sums the ghost lattice beyond both walls b and c (each
// wall's planes offset from the particle as in WallKernel: the first half a spacing beyond the wall, the lattice
// aligned with the particle along the third axis) and Φ_bcd the octant beyond three. For a particle on the fluid's
// lattice this is the lattice continued beyond the box, exactly, as the single-wall tables are for one wall. The
// overlaps are summed directly (at most (2⌈h/d⌉+1)·⌈h/d⌉² ghosts, and only for particles within h of an edge):
// tables would be two- and three-dimensional for a few per cent of the particles.

// Ghosts sums the ghost lattice directly, for the overlaps of walls (BoundaryExact).
type Ghosts struct {
	h, d, mr, c6, cs float64
	n                int // lateral reach in spacings, ⌈h/d⌉
}

// NewGhosts prepares the direct sums for kernel radius h, particle spacing d and particle volume mr, the
// arguments NewWallKernel and NewWallMoment take.
func NewGhosts(h, d, mr float64) Ghosts {
	return Ghosts{h: h, d: d, mr: mr, c6: 315 / (64 * math.Pi * math.Pow(h, 9)), cs: 45 / (math.Pi * math.Pow(h, 6)),
		n: min(int(math.Ceil(h/d-1e-9)), maxReach)}
}

// maxReach is the most spacings a kernel radius spans (WallTableSize's bound).
const maxReach = (WallTableSize - 1) / WallPerSpacing

// wall is a wall within h of a particle: the axis of its normal, the normal's sign (+1: the fluid lies on the
// positive side) and the particle's distance from it.
type wall struct {
	axis int
	sign float32
	dist float32
}

// overlap sums the ghosts beyond every wall in ws (two or three, along distinct axes): their density, the
// gradient Σ V0 ∇W_ib and, when moment is set, the first moment applied to g, Σ V0 ∇W_ib ((x_i − x_b)·g).
func (gh *Ghosts) overlap(ws []wall, moment bool, g [3]float32) (phi float32, grad, mg [3]float32) {
	h, d := gh.h, gh.d
	// the ghosts' offsets x_i − x_b along each axis: sign·z along a wall's normal (the ghost lies beyond the
	// wall), i·d along an axis no wall constrains
	var buf [3][2*maxReach + 1]float64
	var vals [3][]float64
	for k := 0; k < 3; k++ {
		for i := -gh.n; i <= gh.n; i++ {
			buf[k][i+gh.n] = float64(i) * d
		}
		vals[k] = buf[k][:2*gh.n+1]
	}
	for _, w := range ws {
		n := 0
		for z := float64(max(w.dist, 0)) + 0.5*d; z < h; z += d {
			buf[w.axis][n] = float64(w.sign) * z
			n++
		}
		vals[w.axis] = buf[w.axis][:n]
	}
	var acc float64
	var sg, sm [3]float64
	gx, gy, gz := float64(g[0]), float64(g[1]), float64(g[2])
	for _, rx := range vals[0] {
		for _, ry := range vals[1] {
			for _, rz := range vals[2] {
				r2 := rx*rx + ry*ry + rz*rz
				if r2 >= h*h {
					continue
				}
				u := h*h - r2
				acc += u * u * u
				q := math.Sqrt(r2)
				c := -(h - q) * (h - q) / q // W'(r)/r of spiky without its constant: ∇W_ib ∝ c (x_i − x_b)
				sg[0] += c * rx
				sg[1] += c * ry
				sg[2] += c * rz
				if moment {
					rg := c * (rx*gx + ry*gy + rz*gz)
					sm[0] += rg * rx
					sm[1] += rg * ry
					sm[2] += rg * rz
				}
			}
		}
	}
	cg := gh.mr * gh.cs
	return float32(gh.mr * gh.c6 * acc),
		[3]float32{float32(cg * sg[0]), float32(cg * sg[1]), float32(cg * sg[2])},
		[3]float32{float32(cg * sm[0]), float32(cg * sm[1]), float32(cg * sm[2])}
}

// box is the union of the walls ws by inclusion–exclusion: each wall's plane terms less the ghosts beyond two
// walls plus those beyond three. Walls along the same axis (a domain thinner than 2h) share no ghosts.
func (gh *Ghosts) box(ws []wall, plane func(float32, [3]float32) (float32, [3]float32, [3]float32), moment bool, g [3]float32) (phi float32, grad, mg [3]float32) {
	acc := func(sign float32, ph float32, gb, mb [3]float32) {
		phi += sign * ph
		for k := range 3 {
			grad[k] += sign * gb[k]
			mg[k] += sign * mb[k]
		}
	}
	for _, w := range ws {
		var n [3]float32
		n[w.axis] = w.sign
		ph, gb, mb := plane(w.dist, n)
		acc(1, ph, gb, mb)
	}
	for a := range ws {
		for b := a + 1; b < len(ws); b++ {
			if ws[a].axis == ws[b].axis {
				continue
			}
			ph, gb, mb := gh.overlap([]wall{ws[a], ws[b]}, moment, g)
			acc(-1, ph, gb, mb)
			for c := b + 1; c < len(ws); c++ {
				if ws[c].axis != ws[a].axis && ws[c].axis != ws[b].axis {
					ph, gb, mb := gh.overlap([]wall{ws[a], ws[b], ws[c]}, moment, g)
					acc(1, ph, gb, mb)
				}
			}
		}
	}
	// the ghosts beyond several walls are a part of each wall's; a float's rounding cannot make the union cover
	// the whole kernel, but keep 1 − Φ away from zero for the callers' division regardless
	phi = min(max(phi, 0), 0.95)
	return phi, grad, mg
}
