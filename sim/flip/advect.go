package flip

import (
	"math"
	"sync/atomic"

	"github.com/slosh/slosh/sim/scene"
)

// extrapolate is §3.2.2: faces that received mass are marked; each of sweeps sweeps gives every unmarked face with
// marked neighbours (along its own grid) their mean and marks it. A sweep reads the marks of the sweep before, so it
// is a Jacobi sweep: the same on any number of cores.
func (s *Solver) extrapolate(sweeps int) {
	for a := 0; a < 3; a++ {
		d := s.g.dims(a)
		u, mass := s.u[a], s.faceMass[a]
		mk, next := s.mark[a], s.mark2[a]
		for i := range mk {
			if mass[i] > 0 || s.sol.face[a][i] >= 1 {
				mk[i] = 1 // received mass, or a solid face whose velocity is the solid's
			} else {
				mk[i] = 0
			}
		}
		steps := [3]int{1, d[0], d[0] * d[1]}
		for sweep := 0; sweep < sweeps; sweep++ {
			copy(next, mk)
			var changed atomic.Bool
			s.pool.For(d[2], 1, func(lo, hi int) {
				any := false
				for k := lo; k < hi; k++ {
					for j := 0; j < d[1]; j++ {
						for i := 0; i < d[0]; i++ {
							f := i + d[0]*(j+d[1]*k)
							if mk[f] != 0 {
								continue
							}
							ijk := [3]int{i, j, k}
							var sum float64
							n := 0
							for b := 0; b < 3; b++ {
								if ijk[b] > 0 && mk[f-steps[b]] != 0 {
									sum += u[f-steps[b]]
									n++
								}
								if ijk[b] < d[b]-1 && mk[f+steps[b]] != 0 {
									sum += u[f+steps[b]]
									n++
								}
							}
							if n > 0 {
								u[f] = sum / float64(n)
								next[f] = 1
								any = true
							}
						}
					}
				}
				if any {
					changed.Store(true)
				}
			})
			mk, next = next, mk
			if !changed.Load() {
				break
			}
		}
		s.mark[a], s.mark2[a] = mk, next
	}
}

// transfer is §3.2.3: each particle takes (1 − α) of the grid's velocity at its position (PIC) and α of its own
// velocity plus the grid's change over the step (FLIP).
func (s *Solver) transfer() {
	for a := 0; a < 3; a++ {
		u, old, du := s.u[a], s.uOld[a], s.du[a]
		s.pool.For(len(u), 8192, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				du[i] = u[i] - old[i]
			}
		})
	}
	alpha := float64(s.Cfg.FLIPRatio)
	sandAlpha := float64(s.Cfg.Sand.FLIPRatio)
	s.pool.For(len(s.x), 2048, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			alpha := alpha
			if s.sand.on && s.grains[s.material[p]] { // the sand's own blend (PIC-heavy)
				alpha = sandAlpha
			}
			st := s.g.faceStencilAt(s.g.gridCoords(s.x[p]))
			pic := st.vec(&s.u)
			d := st.vec(&s.du)
			v := &s.v[p]
			for a := 0; a < 3; a++ {
				v[a] = float32((1-alpha)*pic[a] + alpha*(float64(v[a])+d[a]))
			}
		}
	})
}

// advect is §3.2.4: the density correction's offset and the separation's (separate.go), then the trapezoidal rule
// (RK2) through the grid's velocity, the particle put back outside every solid and inside the domain after each
// substep. A particle whose velocity would carry it more than a cell in the step takes as many substeps as keep
// each within a cell, at most flip.advect_substeps (Zhu & Bridson §4.2.5: "five substeps each of which is limited
// by the CFL condition"), so a grid step of several cells still carries it along the flow's curves.
func (s *Solver) advect(dt float64) {
	correct := s.Cfg.Pressure == PressureUIC && s.Cfg.Correction
	most := int(s.Cfg.Advect)
	s.pool.For(len(s.x), 1024, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			x := [3]float64{float64(s.x[p][0]), float64(s.x[p][1]), float64(s.x[p][2])}
			var v0 [3]float64
			correct := correct
			sep := s.sepOff[p]
			if s.rigidGrain(p) { // rigid sand moves with its group, never by the offsets (sand.go)
				correct, sep = false, [4]float32{}
			}
			if correct || sep != [4]float32{} {
				st := s.g.faceStencilAt(s.coords(x))
				var off [3]float64
				if correct {
					off = st.vec(&s.delta)
				}
				start := x
				for a := 0; a < 3; a++ {
					x[a] += off[a] + float64(sep[a])
				}
				x = s.collide(start, x)
				if x == start {
					v0 = st.vec(&s.u)
				} else {
					st = s.g.faceStencilAt(s.coords(x))
					v0 = st.vec(&s.u)
				}
			} else {
				st := s.g.faceStencilAt(s.coords(x))
				v0 = st.vec(&s.u)
			}
			k, h := 1, dt
			if cells := math.Sqrt(v0[0]*v0[0]+v0[1]*v0[1]+v0[2]*v0[2]) * dt * s.g.inv; cells > 1 && most > 1 {
				k = int(min(math.Ceil(cells), float64(most)))
				h = dt / float64(k)
			}
			for sub := 0; sub < k; sub++ {
				if sub > 0 {
					st := s.g.faceStencilAt(s.coords(x))
					v0 = st.vec(&s.u)
				}
				x1 := [3]float64{x[0] + h*v0[0], x[1] + h*v0[1], x[2] + h*v0[2]}
				st1 := s.g.faceStencilAt(s.coords(x1))
				v1 := st1.vec(&s.u)
				end := [3]float64{x[0] + 0.5*h*(v0[0]+v1[0]), x[1] + 0.5*h*(v0[1]+v1[1]), x[2] + 0.5*h*(v0[2]+v1[2])}
				x = s.collide(x, end)
			}
			s.x[p] = [4]float32{float32(x[0]), float32(x[1]), float32(x[2]), 0}
		}
	})
}

func (s *Solver) coords(x [3]float64) [3]float64 {
	return [3]float64{(x[0] - s.g.lo[0]) * s.g.inv, (x[1] - s.g.lo[1]) * s.g.inv, (x[2] - s.g.lo[2]) * s.g.inv}
}

// nearSolid says whether a solid may lie within a cell of x: the blurred solid fraction of x's cell.
func (s *Solver) nearSolid(x [3]float64) bool {
	if s.sol.cell[s.g.cellOf(s.coords(x))] > 0 {
		return true
	}
	for m := range s.sol.moving {
		ms := &s.sol.moving[m]
		if ms.body >= 0 && x[0] >= ms.lo[0] && x[0] <= ms.hi[0] && x[1] >= ms.lo[1] && x[1] <= ms.hi[1] && x[2] >= ms.lo[2] && x[2] <= ms.hi[2] {
			return true // a body moved here this step
		}
	}
	return false
}

// solidDistance is the signed distance from x to the nearest solid other than the domain's walls (the scene's
// obstacles where they are this step, the paddle and the bodies), with the outward normal there.
func (s *Solver) solidDistance(x [3]float64) (float64, [3]float64) {
	best, n := math.Inf(1), [3]float64{0, 1, 0}
	p := scene.Vec3(x)
	for i := range s.static {
		if d, g := s.static[i].SDF(p); d < best {
			best, n = d, g
		}
	}
	for m := range s.sol.moving {
		if d, g := s.sol.moving[m].shape.SDF(p); d < best {
			best, n = d, g
		}
	}
	return best, n
}

// collide moves end, reached from start, out of the solids (a margin off their surface) and into the domain:
// steps along the distance field's gradient, and bisection along the path from start when those do not get out.
func (s *Solver) collide(start, end [3]float64) [3]float64 {
	end = s.clampDomain(end)
	if !s.nearSolid(end) {
		return end
	}
	margin := s.margin
	x := end
	for it := 0; it < 4; it++ {
		d, n := s.solidDistance(x)
		if d >= margin {
			return x
		}
		for a := 0; a < 3; a++ {
			x[a] += (margin - d) * n[a]
		}
		x = s.clampDomain(x)
	}
	if d, _ := s.solidDistance(x); d >= 0 {
		return x
	}
	// bisection along the path: start is outside (it was put there last step)
	lo, hi := 0.0, 1.0
	for it := 0; it < 12; it++ {
		mid := 0.5 * (lo + hi)
		q := [3]float64{start[0] + mid*(end[0]-start[0]), start[1] + mid*(end[1]-start[1]), start[2] + mid*(end[2]-start[2])}
		if d, _ := s.solidDistance(q); d > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return s.clampDomain([3]float64{start[0] + lo*(end[0]-start[0]), start[1] + lo*(end[1]-start[1]), start[2] + lo*(end[2]-start[2])})
}

// clampDomain keeps x a margin inside the domain.
func (s *Solver) clampDomain(x [3]float64) [3]float64 {
	for a := 0; a < 3; a++ {
		x[a] = min(max(x[a], s.domLo[a]), s.domHi[a])
	}
	return x
}
