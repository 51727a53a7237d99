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
	t WallKernel // (α, β) where WallKernel holds (Φ, A)
}

// NewWallMoment tabulates α and β for kernel radius h, particle spacing d and particle volume mr, over the ghost
// lattice NewWallKernel sums.
func NewWallMoment(h, d, mr float64) WallMoment {
	cs := 45 / (math.Pi * math.Pow(h, 6))
	return WallMoment{tabulate(h, d, func(x, z, r2 float64) (alpha, beta float64) {
		r := math.Sqrt(r2)
		c := -mr * cs * (h - r) * (h - r) / r // W'(r)/r of spiky, times the ghost's volume
		return c * z * z, c * x * x
	})}
}

// At returns α(d) and β(d); both are 0 from d = h on.
func (m *WallMoment) At(d float32) (alpha, beta float32) { return m.t.At(d) }
