package flip

import "github.com/slosh/slosh/internal/grow"

// Particle rasterisation (§3.2.1): mass and momentum to the faces, mass to the cells, with the trilinear stencil.
//
// Particles are kept sorted by cell (z slowest), so the particles of a slab of two cell layers are one range of
// the arrays. A particle writes to samples at most one layer below and one above its own, so slabs two apart never
// write the same sample: the even slabs are rasterised in parallel, then the odd ones. Within a slab the order is
// the particles', so the sums are the same on any number of cores.

// sortParticles orders the particles by cell (a stable counting sort: within a cell they keep their order; the
// store moves every column with them) and fills start, the first particle of each cell.
func (s *Solver) sortParticles() {
	n := len(s.x)
	nc := s.g.cells()
	s.cellIdx = grow.Resize(s.cellIdx, n)
	s.start = grow.Resize(s.start, nc+1)
	s.pool.For(n, 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s.cellIdx[i] = int32(s.g.cellOf(s.g.gridCoords(s.x[i])))
		}
	})
	clear(s.start)
	for _, c := range s.cellIdx {
		s.start[c+1]++
	}
	for c := 0; c < nc; c++ {
		s.start[c+1] += s.start[c]
	}
	s.perm = grow.Resize(s.perm, n)
	next := append(s.tmpI[:0], s.start[:nc]...)
	for i, c := range s.cellIdx {
		s.perm[next[c]] = int32(i)
		next[c]++
	}
	s.tmpI = next
	s.sh.P.Permute(s.perm)
}

// rasterise fills the cells' mass and the faces' mass and momentum from the sorted particles.
func (s *Solver) rasterise() {
	clear(s.cellMass)
	for a := 0; a < 3; a++ {
		clear(s.faceMass[a])
		clear(s.u[a])
	}
	if s.sand.on {
		clear(s.sand.cell)
		for a := 0; a < 3; a++ {
			clear(s.sand.faceTrue[a])
		}
	}
	layer := s.g.n[0] * s.g.n[1]
	slabs := (s.g.n[2] + 1) / 2
	for colour := 0; colour < 2; colour++ {
		count := (slabs - colour + 1) / 2
		s.pool.For(count, 1, func(lo, hi int) {
			for q := lo; q < hi; q++ {
				slab := 2*q + colour
				k0, k1 := 2*slab, min(2*slab+2, s.g.n[2])
				for p := s.start[k0*layer]; p < s.start[k1*layer]; p++ {
					s.splat(int(p))
				}
			}
		})
	}
}

// splat adds particle p's mass to the cells and its mass and momentum to the faces around it.
func (s *Solver) splat(p int) {
	gx := s.g.gridCoords(s.x[p])
	m := s.mass
	v := s.v[p]
	if s.sand.on { // the volume-equivalent mass to the cells and faces, the true mass and momentum to the faces
		mt := m
		var sandCell []float64
		if s.grains[s.material[p]] {
			mt = s.sand.mass
			sandCell = s.sand.cell
		}
		addTo(s.g.dims(cellKind), gx, cellKind, m, s.cellMass, m, sandCell, 0, nil)
		for a := 0; a < 3; a++ {
			addTo(s.g.dims(a), gx, a, m, s.faceMass[a], mt, s.sand.faceTrue[a], mt*float64(v[a]), s.u[a])
		}
		return
	}
	addTo(s.g.dims(cellKind), gx, cellKind, m, s.cellMass, 0, nil, 0, nil)
	for a := 0; a < 3; a++ {
		addTo(s.g.dims(a), gx, a, m, s.faceMass[a], 0, nil, m*float64(v[a]), s.u[a])
	}
}

// addTo adds weight·m to mass, weight·m2 to mass2 (when not nil) and weight·mv to mom (when not nil) at the
// trilinear stencil of gx for samples of kind on a grid of dims d; samples past the grid's ends get nothing. One
// stencil serves the three fields: each gets the same sums, in the same order, as from a call of its own.
func addTo(d [3]int, gx [3]float64, kind int, m float64, mass []float64, m2 float64, mass2 []float64, mv float64, mom []float64) {
	sx := axisAt(gx[0]-offset(kind, 0), d[0])
	sy := axisAt(gx[1]-offset(kind, 1), d[1])
	sz := axisAt(gx[2]-offset(kind, 2), d[2])
	for dz := 0; dz < 2; dz++ {
		z, wz := sz.i0, sz.w0
		if dz == 1 {
			z, wz = sz.i1, sz.w1
		}
		if wz == 0 {
			continue
		}
		for dy := 0; dy < 2; dy++ {
			y, wy := sy.i0, sy.w0
			if dy == 1 {
				y, wy = sy.i1, sy.w1
			}
			w := wz * wy
			if w == 0 {
				continue
			}
			row := d[0] * (y + d[1]*z)
			w0, w1 := w*sx.w0, w*sx.w1
			mass[row+sx.i0] += m * w0
			mass[row+sx.i1] += m * w1
			if mass2 != nil {
				mass2[row+sx.i0] += m2 * w0
				mass2[row+sx.i1] += m2 * w1
			}
			if mom != nil {
				mom[row+sx.i0] += mv * w0
				mom[row+sx.i1] += mv * w1
			}
		}
	}
}

// normalise turns the faces' momentum into velocity, keeps a copy for the FLIP update, and turns cell masses
// into densities.
func (s *Solver) normalise() {
	vol := s.g.h * s.g.h * s.g.h
	s.pool.For(len(s.cellMass), 8192, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s.rhoC[i] = s.cellMass[i] / vol
		}
	})
	if s.sand.on {
		for a := 0; a < 3; a++ {
			mass, u, old, rho, tm, ratio := s.faceMass[a], s.u[a], s.uOld[a], s.rhoF[a], s.sand.faceTrue[a], s.sand.ratio[a]
			s.pool.For(len(u), 8192, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					ratio[i] = 1
					if tm[i] > 0 {
						u[i] /= tm[i]
						ratio[i] = tm[i] / mass[i]
					}
					old[i] = u[i]
					rho[i] = mass[i] / vol
				}
			})
		}
		return
	}
	for a := 0; a < 3; a++ {
		mass, u, old, rho := s.faceMass[a], s.u[a], s.uOld[a], s.rhoF[a]
		s.pool.For(len(u), 8192, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if mass[i] > 0 {
					u[i] /= mass[i]
				}
				old[i] = u[i]
				rho[i] = mass[i] / vol
			}
		})
	}
}
