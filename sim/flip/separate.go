package flip

import "math"

// Particle separation, beyond the paper. The trilinear rasterisation cannot see how particles are arranged inside
// a cell, and a cell at the free surface whose support reaches into the air is never full, so the unilateral
// solve puts no pressure in it: its particles fall onto the cell boundary below, where they weigh half into the
// full cell, and gather there into a sheet several layers thick in one (a pool with a floating sphere lost 4 cm of
// its 20 cm depth that way at 5 cm cells). Where a cell is not full, particles closer than flip.separation
// particle spacings are pushed apart, each by half the overlap (a Jacobi sweep, applied with the density
// correction's offset before advection), as production FLIP solvers separate their particles. Full cells are left
// to the density correction.

// separate computes the separation offsets of the particles in cells that are not full, from the positions
// sorted by cell at the step's start.
func (s *Solver) separate() {
	clear(s.sepOff) // a scratch column of the store: as many as the particles
	r := float64(s.Cfg.Separation) * s.spacing
	if !(r > 0) {
		return
	}
	r2 := r * r
	g := s.g.n
	nc := s.g.cells()
	s.pool.For(nc, 256, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			a, b := s.start[c], s.start[c+1]
			if a == b || s.sys[c] && s.rhoC[c] >= s.rhoMax[c]*(1-1e-3) {
				continue
			}
			ci, cj, ck := c%g[0], (c/g[0])%g[1], c/(g[0]*g[1])
			cell := [3]int{ci, cj, ck}
			for p := a; p < b; p++ {
				xp := s.x[p]
				var off [3]float64
				// the cells within r of the particle: its own, and along each axis the neighbour on the near side
				// when the particle is closer than r to that face
				var lo, hi [3]int
				for ax := 0; ax < 3; ax++ {
					lo[ax], hi[ax] = cell[ax], cell[ax]
					f := (float64(xp[ax]) - s.g.lo[ax]) * s.g.inv
					if f-float64(cell[ax]) < r*s.g.inv && cell[ax] > 0 {
						lo[ax]--
					}
					if float64(cell[ax]+1)-f < r*s.g.inv && cell[ax] < g[ax]-1 {
						hi[ax]++
					}
				}
				for k := lo[2]; k <= hi[2]; k++ {
					for j := lo[1]; j <= hi[1]; j++ {
						row := g[0] * (j + g[1]*k)
						q0, q1 := s.start[row+lo[0]], s.start[row+hi[0]+1]
						for q := q0; q < q1; q++ {
							if q == p {
								continue
							}
							xq := s.x[q]
							d := [3]float64{float64(xp[0] - xq[0]), float64(xp[1] - xq[1]), float64(xp[2] - xq[2])}
							l2 := d[0]*d[0] + d[1]*d[1] + d[2]*d[2]
							if l2 >= r2 {
								continue
							}
							l := math.Sqrt(l2)
							if l < 1e-9*r {
								// coincident: apart along an axis chosen by the ids, the same every run
								axis := int(s.id[p]+s.id[q]) % 3
								sgn := 1.0
								if s.id[p] < s.id[q] {
									sgn = -1
								}
								off[axis] += sgn * 0.5 * r
								continue
							}
							k := 0.5 * (r - l) / l
							off[0] += k * d[0]
							off[1] += k * d[1]
							off[2] += k * d[2]
						}
					}
				}
				s.sepOff[p] = [4]float32{float32(off[0]), float32(off[1]), float32(off[2]), 0}
			}
		}
	})
}
