package pbf

import "math"

// Boundary density.
//
// The paper's §9 names its main limitation: particles next to solids have deficient neighbourhoods, so their
// density is underestimated, they are pulled towards the walls and stack in corners and edges, where the
// collision projection turns the density solver's large corrections into fast sliding along the walls.
// Following Koschier & Bender (2017, "Density maps for improved SPH boundary handling"), each solid adds its own
// volume to the density estimate: a particle at distance d from a wall gets
//
//	Φ(d) = ∫_{beyond the wall} W(x − y) dy
//
// added to ρ_i/ρ0. For a plane this is a closed-form function of d alone (used for the domain walls and, as the
// usual tangent-plane approximation, for the analytic obstacles). It enters the constraint (eq. 1) through ρ_i, its
// gradient ∇Φ_i joins ∇_{p_i} C_i in the denominator of eq. 11, and the position update gains λ_i ∇Φ_i — the PBD
// update Δp_i = Σ_k λ_k ∇_{p_i} C_k with the solid's term included — when it pushes (λ_i < 0): solids never pull,
// or an isolated under-dense particle would stick to the nearest wall. As in the paper, the density uses poly6
// and gradients use spiky. WallKernel holds the two closed forms for one h.
type WallKernel struct {
	H        float32
	PhiCoef  float32 // πc/4 with c the poly6 constant
	GradCoef float32 // 2π c_s with c_s the spiky constant
}

func NewWallKernel(h float32) WallKernel {
	hf := float64(h)
	c := 315 / (64 * math.Pi * math.Pow(hf, 9))
	cs := 15 / (math.Pi * math.Pow(hf, 6))
	return WallKernel{H: h, PhiCoef: float32(math.Pi * c / 4), GradCoef: float32(2 * math.Pi * cs)}
}

// Phi is the fraction of the poly6 kernel's mass beyond a plane at distance d: ½ at d = 0, 0 at d ≥ h.
// Φ(d) = (πc/4) ∫_d^h (h² − z²)⁴ dz.
func (w WallKernel) Phi(d float32) float32 {
	if d >= w.H {
		return 0
	}
	d = max(d, 0)
	h := w.H
	prim := func(z float32) float32 {
		z2, h2 := z*z, h*h
		// ∫ (h² − z²)⁴ dz = h⁸z − 4h⁶z³/3 + 6h⁴z⁵/5 − 4h²z⁷/7 + z⁹/9, in Horner form in z²
		return z * (h2*h2*h2*h2 + z2*(-4*h2*h2*h2/3+z2*(6*h2*h2/5+z2*(-4*h2/7+z2/9))))
	}
	return w.PhiCoef * (prim(h) - prim(d))
}

// Grad is the magnitude of ∫ ∇W_spiky over the region beyond a plane at distance d; the gradient points into
// the wall. A(d) = 2π c_s [h(h − d)⁴/4 − (h − d)⁵/5].
func (w WallKernel) Grad(d float32) float32 {
	if d >= w.H {
		return 0
	}
	u := w.H - max(d, 0)
	u4 := u * u * u * u
	return w.GradCoef * (w.H*u4/4 - u4*u/5)
}

// Boundary returns the solids' density Φ_i (as a fraction of ρ0) and its spiky gradient ∇Φ_i at p: the six walls
// of the domain and every obstacle within h, each as a plane at its signed distance. Several solids combine as
// the volume of their union, Φ = 1 − Π_b (1 − Φ_b): exact for one wall, and exact by symmetry on an edge (¾) and in
// a corner (⅞) of the box, where simply adding the walls would count the corner region twice or three times. The
// gradient weights each solid's term the same way, ∇Φ = Σ_b ∇Φ_b Π_{c≠b} (1 − Φ_c) = Π (1 − Φ_c) Σ_b ∇Φ_b/(1 − Φ_b),
// which one pass accumulates without storing the contacts (1 − Φ_b ≥ ½, so the division is safe).
func (c *Collider) Boundary(w *WallKernel, x, y, z float32) (phi, gx, gy, gz float32) {
	inside := float32(1) // Π (1 − Φ_b): the fraction of the kernel not covered by solids
	var sx, sy, sz float32
	add := func(d, nx, ny, nz float32) {
		if d < w.H {
			ph := w.Phi(d)
			inside *= 1 - ph
			g := w.Grad(d) / (1 - ph) // ∇Φ_b = −A(d_b) n_b points into the solid
			sx -= g * nx
			sy -= g * ny
			sz -= g * nz
		}
	}
	p := [3]float32{x, y, z}
	for k := 0; k < 3; k++ {
		var axis [3]float32
		axis[k] = 1
		add(p[k]-(c.Lo[k]-c.Radius), axis[0], axis[1], axis[2])    // the wall at the domain's low side
		add((c.Hi[k]+c.Radius)-p[k], -axis[0], -axis[1], -axis[2]) // and at its high side
	}
	for i := range c.Obstacles {
		d, nx, ny, nz := c.Obstacles[i].SDF(x, y, z)
		add(d, nx, ny, nz)
	}
	return 1 - inside, inside * sx, inside * sy, inside * sz
}
