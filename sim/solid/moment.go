package solid

import "math"

// Ghost pressures that carry the hydrostatic gradient.
//
// A solid made of the fluid's own lattice (Boundary) pushes a particle with the pressure force of ghosts that
// carry the particle's own pressure p_i. That is right across the wall but leaves out the pressure's variation
// beyond it: next to a side wall the ghosts above and below push alike, so the wall gives none of the vertical
// support the missing half of the neighbourhood would have given, and the layer along the wall sinks and stirs
// the water at rest. Following Adami, Hu and Adams (2012, "A generalized wall boundary condition for smoothed
// particle hydrodynamics"), a ghost at x_b instead carries p_b = p_i + ρ0 g·(x_b − x_i). Over a solid's ghosts,
//
//	Σ_b V0 (p_i + p_b) ∇W_ib = 2 p_i ∇Φ_i − ρ0 M_i g,   M_i = Σ_b V0 ∇W_ib ⊗ (x_i − x_b),
//
// and for a plane at distance d with unit normal n into the fluid M = α(d) n nᵀ + β(d) (I − n nᵀ): two functions
// of the distance alone, summed over the same ghost lattice as Φ and tabulated alike. Over a whole neighbourhood
// M is −I (the kernel gradient's first moment), so α and β are the wall's share of it, between −1 and 0.

// WallMoment is α(d) and β(d), the normal and tangential first moments of the spiky gradient over the ghost
// lattice beyond a plane at distance d, tabulated as WallKernel is.
type WallMoment struct {
	H       float32
	InvStep float32
	Last    int32
	// Table[k] = (α(d_k), β(d_k), α(d_{k+1}) − α(d_k), β(d_{k+1}) − β(d_k)).
	Table [WallTableSize][4]float32
}

// NewWallMoment tabulates α and β for kernel radius h, particle spacing d and particle volume mr, over the ghost
// lattice NewWallKernel sums.
func NewWallMoment(h, d, mr float64) WallMoment {
	step := d / WallPerSpacing
	last := min(int(math.Ceil(h/step-1e-9)), WallTableSize-1)
	m := WallMoment{H: float32(h), InvStep: float32(1 / step), Last: int32(last)}
	cs := 45 / (math.Pi * math.Pow(h, 6))
	n := int(math.Ceil(h / d))
	var al, be [WallTableSize]float64
	for k := 0; k <= last; k++ {
		dk := float64(k) * step
		for l := 0; ; l++ {
			z := dk + (float64(l)+0.5)*d
			if z >= h {
				break
			}
			for j := -n; j <= n; j++ {
				for i := -n; i <= n; i++ {
					x := d * float64(i)
					r2 := x*x + d*d*float64(j*j) + z*z
					if r2 >= h*h {
						continue
					}
					r := math.Sqrt(r2)
					c := -mr * cs * (h - r) * (h - r) / r // W'(r)/r of spiky, times the ghost's volume
					al[k] += c * z * z
					be[k] += c * x * x
				}
			}
		}
	}
	for k := 0; k <= last; k++ {
		e := [4]float32{float32(al[k]), float32(be[k])}
		if k < last {
			e[2], e[3] = float32(al[k+1])-e[0], float32(be[k+1])-e[1]
		}
		m.Table[k] = e
	}
	return m
}

// At returns α(d) and β(d); both are 0 from d = h on.
func (m *WallMoment) At(d float32) (alpha, beta float32) {
	if d >= m.H {
		return 0, 0
	}
	t := max(d, 0) * m.InvStep
	k := min(int32(t), m.Last-1)
	f := t - float32(k)
	e := &m.Table[k]
	return e[0] + f*e[2], e[1] + f*e[3]
}
