package solid

import "math"

// Boundary density.
//
// The PBF paper's §9 names its main limitation: particles next to solids have deficient neighbourhoods, so their
// density is underestimated, they are pulled towards the walls and stack in corners and edges, where the
// collision projection turns the density solver's large corrections into fast sliding along the walls.
// Following Koschier & Bender (2017, "Density maps for improved SPH boundary handling"), each solid adds its own
// contribution Φ(d), a function of the distance d alone, to ρ_i/ρ0: a closed plane for the domain walls and, as the
// usual tangent-plane approximation, for the analytic obstacles. It enters the constraint (eq. 1) through ρ_i, its
// gradient ∇Φ_i joins ∇_{p_i} C_i in the denominator of eq. 11, and the position update gains λ_i ∇Φ_i — the PBD
// update Δp_i = Σ_k λ_k ∇_{p_i} C_k with the solid's term included — when it pushes (λ_i < 0): solids never pull,
// or an isolated under-dense particle would stick to the nearest wall. As in the paper, the density uses poly6
// and gradients use spiky.
//
// Φ is what the fluid's own lattice would contribute beyond the wall, not the kernel's continuous integral: the
// fluid's density is a sum over a lattice (a mode sets the mass so a filled one sits exactly at ρ0, as sim/pbf's Derive does), and the
// integral differs from that sum next to a wall — by 2.6% of ρ0 in the first layer at h = 2 spacings, 5.8% at
// 1.5 — so a resting pool was denser along its walls than in its bulk. Φ(d) is the kernel summed over a half-space
// of lattice points (ghosts) whose first plane lies half a spacing beyond the wall, as the fluid's first layer
// lies half a spacing inside it, and laterally aligned with the particle: the first layers of a resting lattice
// then sit exactly at ρ0, and their gradient sums to zero as in the bulk. Φ is tabulated once per kernel radius
// and spacing (WallKernel) and interpolated linearly; the table's nodes include the lattice distances (k + ½)·spacing,
// where it is exact.

// WallPerSpacing is the number of table intervals per particle spacing.
const WallPerSpacing = 16

// WallTableSize is the most table entries: distances 0..h at the largest kernel radius (4 spacings, the hard
// bound of pbf.kernel_radius), one entry per interval and one for the end.
const WallTableSize = 4*WallPerSpacing + 1

// WallKernel is the solids' density Φ(d) and the magnitude A(d) of its spiky gradient, tabulated at distances
// d_k = k·spacing/WallPerSpacing. The GPU reads the same table from its parameter block.
type WallKernel struct {
	H       float32
	InvStep float32 // 1 / (d_{k+1} − d_k)
	Last    int32   // the last entry in use: d_Last ≥ h
	// Table[k] = (Φ(d_k), A(d_k), Φ(d_{k+1}) − Φ(d_k), A(d_{k+1}) − A(d_k)): one read interpolates both.
	Table [WallTableSize][4]float32
}

// NewWallKernel tabulates Φ and A for kernel radius h and particle spacing d with particle volume mr = m/ρ0, by
// summing poly6 and the normal component of spiky's gradient over the ghost lattice in float64.
func NewWallKernel(h, d, mr float64) WallKernel {
	c6 := 315 / (64 * math.Pi * math.Pow(h, 9))
	cs := 45 / (math.Pi * math.Pow(h, 6))
	return tabulate(h, d, func(_, z, r2 float64) (phi, grad float64) {
		u := h*h - r2
		r := math.Sqrt(r2)
		return mr * c6 * u * u * u, mr * cs * (h - r) * (h - r) * z / r // |∂W_spiky/∂r| · z/r: the normal component
	})
}

// tabulate sums two functions of a ghost over the ghost lattice beyond a plane at each table distance d_k, in
// float64: term gets the ghost's offset x along one lateral axis, its depth z beyond the particle, and r², and
// returns its two contributions. The lattice's first plane lies half a spacing beyond the plane, laterally aligned
// with the particle.
func tabulate(h, d float64, term func(x, z, r2 float64) (a, b float64)) WallKernel {
	step := d / WallPerSpacing
	last := min(int(math.Ceil(h/step-1e-9)), WallTableSize-1)
	w := WallKernel{H: float32(h), InvStep: float32(1 / step), Last: int32(last)}
	n := int(math.Ceil(h / d))
	var sa, sb [WallTableSize]float64
	for k := 0; k <= last; k++ {
		dk := float64(k) * step
		for l := 0; ; l++ {
			z := dk + (float64(l)+0.5)*d // the ghost plane's distance from the particle
			if z >= h {
				break
			}
			for j := -n; j <= n; j++ {
				for i := -n; i <= n; i++ {
					r2 := d*d*float64(i*i+j*j) + z*z
					if r2 >= h*h {
						continue
					}
					a, b := term(d*float64(i), z, r2)
					sa[k] += a
					sb[k] += b
				}
			}
		}
	}
	for k := 0; k <= last; k++ {
		e := [4]float32{float32(sa[k]), float32(sb[k])}
		if k < last {
			e[2], e[3] = float32(sa[k+1])-e[0], float32(sb[k+1])-e[1]
		}
		w.Table[k] = e
	}
	return w
}

// At returns Φ(d), the solid's density beyond a plane at distance d as a fraction of ρ0, and A(d), the magnitude
// of its gradient, which points into the solid. Both are 0 from d = h on (in fact from h − spacing/2).
func (w *WallKernel) At(d float32) (phi, grad float32) {
	if d >= w.H {
		return 0, 0
	}
	t := max(d, 0) * w.InvStep
	k := min(int32(t), w.Last-1)
	f := t - float32(k)
	e := &w.Table[k]
	return e[0] + f*e[2], e[1] + f*e[3]
}

// Boundary returns the solids' density Φ_i (as a fraction of ρ0) and its spiky gradient ∇Φ_i at p: the six walls
// of the domain and every obstacle within h, each as a plane at its signed distance. Several solids combine as
// the volume of their union, Φ = 1 − Π_b (1 − Φ_b), as if each covered its share of the kernel independently: exact
// for one wall, where simply adding the walls would count the corner region of an edge twice and of a corner three
// times. The lattice's corner regions hold a little less than that product, so the box's edges and corners come out
// slightly under-dense: by 0.6% and 1.5% of ρ0 in their first layer at h = 2 spacings (0.7% and 2% at 1.5), where
// the continuous integrals made them 3.5% and 3.4% over-dense (10% and 12%). The gradient weights each solid's term
// the same way, ∇Φ = Σ_b ∇Φ_b Π_{c≠b} (1 − Φ_c) = Π (1 − Φ_c) Σ_b ∇Φ_b/(1 − Φ_b), which one pass accumulates without
// storing the contacts (Φ_b ≤ 0.52, so the division is safe). BoundaryExact combines the box's own walls exactly
// (edges.go).
func (c *Collider) Boundary(w *WallKernel, x, y, z float32) (phi, gx, gy, gz float32) {
	if c.Clear(w.H, x, y, z) { // most of the fluid: what boundary returns there
		return 0, 0, 0, 0
	}
	phi, g, _ := c.boundary(w, nil, nil, [3]float32{}, x, y, z)
	return phi, g[0], g[1], g[2]
}

// BoundaryExact is Boundary with the domain's walls combined exactly where they meet (edges.go); the box as a
// whole then joins the obstacles' union as one solid.
func (c *Collider) BoundaryExact(w *WallKernel, gh *Ghosts, x, y, z float32) (phi, gx, gy, gz float32) {
	phi, g, _ := c.boundary(w, nil, gh, [3]float32{}, x, y, z)
	return phi, g[0], g[1], g[2]
}

// BoundaryMoment is BoundaryExact together with M·g, the solids' first moment (WallMoment) applied to an
// acceleration g, combined over the solids with the gradient's weights.
func (c *Collider) BoundaryMoment(w *WallKernel, m *WallMoment, gh *Ghosts, g [3]float32, x, y, z float32) (phi float32, grad, mg [3]float32) {
	return c.boundary(w, m, gh, g, x, y, z)
}

// Clear says whether no solid lies within h of (x, y, z): the scene has no obstacles and the point is at least h
// from each of the domain's walls, measured as boundary measures them. There boundary's Φ, ∇Φ and moment are zero
// and Apply moves nothing, so a solver may skip them. A non-finite point is never clear.
func (c *Collider) Clear(h, x, y, z float32) bool {
	if len(c.Obstacles) > 0 {
		return false
	}
	p := [3]float32{x, y, z}
	for k := range 3 {
		if !(p[k]-(c.Lo[k]-c.Radius) >= h && (c.Hi[k]+c.Radius)-p[k] >= h) {
			return false
		}
	}
	return true
}

// boundary combines the solids within h of (x, y, z); the moment only when m is set, the box's walls exactly
// when gh is.
func (c *Collider) boundary(w *WallKernel, m *WallMoment, gh *Ghosts, g [3]float32, x, y, z float32) (phi float32, grad, mg [3]float32) {
	inside := float32(1)  // Π (1 − Φ_b): the fraction of the kernel not covered by solids
	var sg, sm [3]float32 // Σ_b ∇Φ_b/(1 − Φ_b) and Σ_b M_b g/(1 − Φ_b)
	add := func(ph float32, gb, mb [3]float32) {
		inside *= 1 - ph
		f := 1 / (1 - ph)
		for k := range 3 {
			sg[k] += f * gb[k]
			sm[k] += f * mb[k]
		}
	}
	// plane is a solid's Φ_b, ∇Φ_b = −A(d) n and M_b g = α n (n·g) + β (g − n (n·g)) at distance d from a plane
	// with unit normal n into the fluid
	plane := func(d float32, n [3]float32) (ph float32, gb, mb [3]float32) {
		ph, a := w.At(d)
		gb = [3]float32{-a * n[0], -a * n[1], -a * n[2]}
		if m != nil {
			al, be := m.At(d)
			gn := g[0]*n[0] + g[1]*n[1] + g[2]*n[2]
			for k := range 3 {
				mb[k] = al*gn*n[k] + be*(g[k]-gn*n[k])
			}
		}
		return ph, gb, mb
	}
	p := [3]float32{x, y, z}
	var near [6]wall
	nw := 0
	for k := 0; k < 3; k++ {
		if d := p[k] - (c.Lo[k] - c.Radius); d < w.H { // the wall at the domain's low side
			near[nw] = wall{axis: k, sign: 1, dist: d}
			nw++
		}
		if d := (c.Hi[k] + c.Radius) - p[k]; d < w.H { // and at its high side
			near[nw] = wall{axis: k, sign: -1, dist: d}
			nw++
		}
	}
	if gh == nil || nw < 2 {
		for _, wl := range near[:nw] {
			var n [3]float32
			n[wl.axis] = wl.sign
			add(plane(wl.dist, n))
		}
	} else {
		add(gh.box(near[:nw], plane, m != nil, g))
	}
	for i := range c.Obstacles {
		d, nx, ny, nz := c.Obstacles[i].SDF(x, y, z)
		if d < w.H {
			add(plane(d, [3]float32{nx, ny, nz}))
		}
	}
	return 1 - inside, [3]float32{inside * sg[0], inside * sg[1], inside * sg[2]}, [3]float32{inside * sm[0], inside * sm[1], inside * sm[2]}
}
