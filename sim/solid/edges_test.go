package solid

import (
	"math"
	"testing"
)

// At a particle of the fluid's lattice by an edge or a corner of the box, BoundaryExact's density, gradient and
// first moment are the kernel sums over the lattice continued beyond the box (every lattice point outside it,
// summed here by brute force); the product rule of Boundary misses them. Away from the edges the two agree.
func TestBoundaryExactIsTheLatticeBeyondTheBox(t *testing.T) {
	for _, hs := range []float64{1.5, 2, 3} {
		d := 0.02
		h := hs * d
		mr := d * d * d
		w, m, gh := NewWallKernel(h, d, mr), NewWallMoment(h, d, mr), NewGhosts(h, d, mr)
		c := Collider{Hi: [3]float32{0.2, 0.3, 0.16}} // walls at 0 and Hi: lattice points at (k + ½) d
		g := [3]float32{0.3, -9.81, 0.7}
		c6 := 315 / (64 * math.Pi * math.Pow(h, 9))
		cs := 45 / (math.Pi * math.Pow(h, 6))
		worst, worstProduct := 0.0, 0.0
		for _, k := range [][3]int{{0, 4, 4}, {0, 0, 4}, {0, 0, 0}, {1, 0, 0}, {1, 1, 2}, {9, 0, 7}, {9, 14, 7}, {2, 5, 0}, {4, 4, 4}} {
			x := [3]float64{(float64(k[0]) + 0.5) * d, (float64(k[1]) + 0.5) * d, (float64(k[2]) + 0.5) * d}
			// brute force: every lattice point outside the box within h
			var phi float64
			var grad, mg [3]float64
			n := int(math.Ceil(hs)) + 1
			for i := -n; i <= n; i++ {
				for j := -n; j <= n; j++ {
					for l := -n; l <= n; l++ {
						q := [3]float64{x[0] + float64(i)*d, x[1] + float64(j)*d, x[2] + float64(l)*d}
						out := false
						for a := 0; a < 3; a++ {
							out = out || q[a] < 0 || q[a] > float64(c.Hi[a])
						}
						r := [3]float64{x[0] - q[0], x[1] - q[1], x[2] - q[2]}
						r2 := r[0]*r[0] + r[1]*r[1] + r[2]*r[2]
						if !out || r2 >= h*h {
							continue
						}
						u := h*h - r2
						phi += mr * c6 * u * u * u
						rr := math.Sqrt(r2)
						cc := -mr * cs * (h - rr) * (h - rr) / rr
						rg := r[0]*float64(g[0]) + r[1]*float64(g[1]) + r[2]*float64(g[2])
						for a := 0; a < 3; a++ {
							grad[a] += cc * r[a]
							mg[a] += cc * r[a] * rg
						}
					}
				}
			}
			ph, gr, hm := c.BoundaryMoment(&w, &m, &gh, g, float32(x[0]), float32(x[1]), float32(x[2]))
			pp, px, py, pz := c.Boundary(&w, float32(x[0]), float32(x[1]), float32(x[2]))
			// the gradient's scale: |∇Φ| of one wall at the first layer
			_, scale := w.At(float32(d / 2))
			e := math.Abs(float64(ph) - phi)
			for a := 0; a < 3; a++ {
				e = max(e, math.Abs(float64(gr[a])-grad[a])/float64(scale), math.Abs(float64(hm[a])-mg[a])/(9.81*float64(scale)*d))
			}
			worst = max(worst, e)
			ep := math.Abs(float64(pp) - phi)
			for a, v := range []float32{px, py, pz} {
				ep = max(ep, math.Abs(float64(v)-grad[a])/float64(scale))
			}
			worstProduct = max(worstProduct, ep)
			if e > 1e-4 {
				t.Errorf("h = %g spacings, lattice point %v: Φ %.6f, ∇Φ %v, Mg %v; the lattice beyond the box gives %.6f, %v, %v",
					hs, k, ph, gr, hm, phi, grad, mg)
			}
		}
		t.Logf("h = %g spacings: largest difference from the lattice %.2g (the product rule's %.2g)", hs, worst, worstProduct)
	}
}

// BoundaryExact is Boundary wherever at most one wall is within h, and it is continuous as a particle leaves an
// edge's reach.
func TestBoundaryExactAgreesAwayFromEdges(t *testing.T) {
	d, h := 0.02, 0.04
	w, gh := NewWallKernel(h, d, d*d*d), NewGhosts(h, d, d*d*d)
	c := Collider{Hi: [3]float32{0.2, 0.3, 0.16}}
	for _, p := range [][3]float32{{0.1, 0.15, 0.08}, {0.013, 0.15, 0.08}, {0.1, 0.005, 0.08}, {0.1, 0.15, 0.155}} {
		a, ax, ay, az := c.Boundary(&w, p[0], p[1], p[2])
		b, bx, by, bz := c.BoundaryExact(&w, &gh, p[0], p[1], p[2])
		if a != b || ax != bx || ay != by || az != bz {
			t.Errorf("at %v, one wall or none: exact (%g, %g %g %g), product rule (%g, %g %g %g)", p, b, bx, by, bz, a, ax, ay, az)
		}
	}
	// sweep away from the floor along a vertical wall's first layer: Φ and ∇Φ change by at most a small step
	prev, _, prevY, _ := c.BoundaryExact(&w, &gh, 0.01, 0, 0.08)
	for y := float32(0.0002); y < 0.06; y += 0.0002 {
		phi, _, gy, _ := c.BoundaryExact(&w, &gh, 0.01, y, 0.08)
		if math.Abs(float64(phi-prev)) > 0.01 || math.Abs(float64(gy-prevY)) > 0.05*float64(math.Abs(float64(prevY))+1) {
			t.Fatalf("at y = %g: Φ %g ∇Φ_y %g after %g %g a step before", y, phi, gy, prev, prevY)
		}
		prev, prevY = phi, gy
	}
}
