package flip

import (
	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim/pressure"
)

// The pressure solves (§3.1, DESIGN.md §4). With D the divergence and G the gradient of the MAC grid (each a 1/h),
// V_f the faces' volume fractions and ρ_f their rasterised densities, the matrix K = −D (V_f/ρ_f) G is a weighted
// Laplacian, symmetric positive semi-definite. The unilateral velocity solve is the LCP
//
//	w = Δt² K p + b ≥ 0,  p ≥ 0,  pᵀw = 0,  b = (1 − ρ_c/ρ_max) + Δt D(V_f u* + u_solid)
//
// (w is the free fraction of each cell after the step), divided through by Δt² so that K is assembled once for
// both solves; then u ← u* − Δt/ρ_f G p. The density correction is the same LCP with Δt = 1 and no velocity term,
// solved first on the rasterised densities: its pseudo-pressure's gradient −(1/ρ_f) G y is an offset the particles
// take before they advect, and the cells' and faces' densities are corrected by its divergence before the
// velocity solve sees them. Classic FLIP solves K p + b/Δt² = 0 with b = Δt D(u* + u_solid) on the cells that
// hold a particle, with V_f ∈ {0, 1} and the liquid's density.

// classify marks the cells in the system: UIC takes cells with more mass than the air threshold (and room for
// liquid); classic FLIP the cells holding a particle that are not solid.
func (s *Solver) classify() int {
	full := float64(s.Cfg.Density) * s.g.h * s.g.h * s.g.h
	thr := float64(s.Cfg.AirThreshold) * full
	rf := float64(s.Cfg.Density)
	classic := s.Cfg.Pressure == PressureClassic
	n := 0
	for c := range s.sys {
		var in bool
		if classic {
			in = s.start[c+1] > s.start[c] && sharp(s.sol.cell[c]) == 0
			s.rhoMax[c] = rf * (1 - sharp(s.sol.cell[c]))
		} else {
			s.rhoMax[c] = rf * (1 - s.sol.cell[c])
			in = s.cellMass[c] >= thr && s.rhoMax[c] > 1e-3*rf
		}
		s.sys[c] = in
		if in {
			n++
		}
	}
	return n
}

// faceWeights sets W_f = V_f/ρ_f on every face (0 on the domain's walls and fully solid faces). ρ_f is the
// liquid's density (flip.face_density = liquid) or, as in the paper's eq. 3.8, the face's rasterised density
// (flip.face_density = rasterised) taken over the face's liquid part: the rasterised density counts the solid's part
// of the face's support as empty, so beside a blurred wall it is V_f times the liquid's, and the pressure holding
// the rest up would lift the liquid there (a resting pool circulated along its walls at 0.2 m/s). Rasterised, the
// density also carries the particles' sampling noise, a few per cent inside the liquid: faces lighter than their
// neighbours rise under the hydrostatic pressure, and a resting pool shivers at 2–9 cm/s where it stays under
// 1 cm/s with the liquid's density.
func (s *Solver) faceWeights() {
	rf := float64(s.Cfg.Density)
	floor := float64(s.Cfg.AirThreshold) * rf
	classic := s.Cfg.Pressure == PressureClassic
	mode := s.Cfg.FaceDensity
	for a := 0; a < 3; a++ {
		w, sf, rho := s.wf[a], s.sol.face[a], s.rhoF[a]
		s.pool.For(len(w), 8192, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if classic {
					w[i] = (1 - sharp(sf[i])) / rf
				} else if vf := 1 - sf[i]; vf > 0 {
					// the density of the face's liquid: the rasterised density counts the solid's part of the
					// face's support as empty, so beside a blurred wall it is V_f times the liquid's
					var rl float64
					switch mode {
					case FaceDensityLiquid:
						rl = rf
					case FaceDensityRasterised:
						rl = max(rho[i]/vf, floor)
					default: // the liquid's where the face is nearly full, the rasterised below surfaceFill
						rl = max(rf*min(1, rho[i]/(vf*rf*surfaceFill)), floor)
					}
					if s.sand.on { // the face's true density: sand is heavier than its volume says
						rl *= s.sand.ratio[a][i]
					}
					w[i] = vf / rl
				} else {
					w[i] = 0
				}
			}
		})
	}
}

// volumeFraction is V_f of face i of axis a.
func (s *Solver) volumeFraction(a, i int) float64 {
	if s.Cfg.Pressure == PressureClassic {
		return 1 - sharp(s.sol.face[a][i])
	}
	return 1 - s.sol.face[a][i]
}

// assemble builds K on the cells in the system.
func (s *Solver) assemble() {
	m := &s.mat
	n := s.g.n
	m.Resize(n[0], n[1], n[2])
	inv2 := s.g.inv * s.g.inv
	offs := [3][]float64{m.X, m.Y, m.Z}
	s.cells(func(c int, ijk [3]int) {
		if !s.sys[c] {
			return
		}
		var diag float64
		for a := 0; a < 3; a++ {
			f0, f1 := s.g.faces(a, ijk)
			whi := s.wf[a][f1] * inv2
			diag += s.wf[a][f0]*inv2 + whi
			if next := c + s.g.cellStep(a); ijk[a]+1 < n[a] && s.sys[next] {
				offs[a][c] = -whi
			}
		}
		m.Diag[c] = diag
	})
}

// divergence sets out[c] = D(flux)_c, flux_f = V_f u_f + the moving solids' flux, on the cells in the system.
func (s *Solver) divergence(out []float64) { s.divergenceOf(&s.u, out) }

// divergenceOf is divergence of the face field u.
func (s *Solver) divergenceOf(u *[3][]float64, out []float64) {
	s.cells(func(c int, ijk [3]int) {
		if !s.sys[c] {
			out[c] = 0
			return
		}
		var div float64
		for a := 0; a < 3; a++ {
			f0, f1 := s.g.faces(a, ijk)
			div += s.volumeFraction(a, f1)*u[a][f1] + s.sol.flux[a][f1] - s.volumeFraction(a, f0)*u[a][f0] - s.sol.flux[a][f0]
		}
		out[c] = div * s.g.inv
	})
}

// cells calls fn for every cell with its indices, in parallel over z layers, each cell once.
func (s *Solver) cells(fn func(c int, ijk [3]int)) {
	n := s.g.n
	s.pool.For(n[2], 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			for j := 0; j < n[1]; j++ {
				for i := 0; i < n[0]; i++ {
					fn(i+n[0]*(j+n[1]*k), [3]int{i, j, k})
				}
			}
		}
	})
}

// applyGradient subtracts scale·(1/ρ_f) G q from field f (per axis) on every face with liquid room next to a cell
// in the system; other faces are left as they are.
func (s *Solver) applyGradient(q []float64, scale float64, f *[3][]float64) {
	for a := 0; a < 3; a++ {
		dst, w := f[a], s.wf[a]
		s.interiorFaces(a, func(fi, c0, c1 int) {
			if w[fi] == 0 || !s.sys[c0] && !s.sys[c1] {
				return
			}
			dst[fi] -= scale * (w[fi] / s.volumeFraction(a, fi)) * (q[c1] - q[c0]) * s.g.inv
		})
	}
}

// interiorFaces calls fn for every face of axis a that is not on the domain's walls, with the cells below (c0) and
// above (c1) it along a; in parallel over z layers, each face once.
func (s *Solver) interiorFaces(a int, fn func(fi, c0, c1 int)) {
	s.interiorFacesIJK(a, func(fi, c0, c1 int, _ [3]int) { fn(fi, c0, c1) })
}

// correctDensity is the density-correction LCP: y ≥ 0 pushes liquid out of cells fuller than ρ_max; the offsets go
// to the particles in advect, and ρ_c and the faces' densities are corrected by the offsets' divergence. The rigid
// bodies are coupled into it as into the velocity solve, so a body that moved into full cells is pushed back by
// its share (by mass) instead of the liquid alone making room: with the bodies left out, a body thrown into water
// ploughed through it by the liquid's offsets alone, and the water and the body's momentum grew by 2 %.
func (s *Solver) correctDensity() error {
	for c := range s.b {
		if s.sys[c] {
			s.b[c] = 1 - s.rhoC[c]/s.rhoMax[c]
		} else {
			s.b[c] = 0
		}
	}
	s.faceWeights()
	s.assemble()
	s.couple() // the bodies take their share of the correction, as of the pressure
	clear(s.y) // from zero: see State
	res, err := s.solveLCP(s.b, s.y)
	s.last.correction = res
	if err != nil {
		return err
	}
	s.shiftBodies()
	for a := 0; a < 3; a++ {
		clear(s.delta[a])
	}
	s.applyGradient(s.y, 1, &s.delta) // δ = −(1/ρ_f) G y
	// ρ_c ← ρ_c − ρ_max (K y)_c, and the faces take the mean change of their cells
	s.mat.Mul(s.pool, s.y, s.w)
	s.drho = grow.Resize(s.drho, len(s.w))
	overfull := 0.0
	for c := range s.w {
		s.drho[c] = 0
		if s.sys[c] {
			s.drho[c] = -s.rhoMax[c] * s.w[c]
			s.rhoC[c] += s.drho[c]
			overfull = max(overfull, s.rhoC[c]/s.rhoMax[c]-1)
		}
	}
	s.last.overfull = overfull
	for a := 0; a < 3; a++ {
		rho := s.rhoF[a]
		s.interiorFaces(a, func(fi, c0, c1 int) {
			if dr := 0.5 * (s.drho[c0] + s.drho[c1]); dr != 0 {
				rho[fi] = max(rho[fi]+dr, 0)
			}
		})
	}
	return nil
}

// solveLCP runs MPRGP on K p + b ≥ 0 from p's contents (zero outside the system).
func (s *Solver) solveLCP(b, p []float64) (pressure.Result, error) {
	for c := range p {
		if !s.sys[c] || !(p[c] > 0) {
			p[c] = 0
		}
	}
	return s.ps.MPRGP(&s.mat, b, p, float64(s.Cfg.Tolerance), int(s.Cfg.MaxIterations))
}

// project is the velocity solve: gravity, then the unilateral LCP or the classic Poisson equation, and the
// pressure gradient applied to the faces (and, through the coupling, to the bodies).
func (s *Solver) project(dt float64) error {
	s.faceWeights()
	s.assemble()
	s.couple() // the bodies' rows (bodies.go)
	s.divergence(s.b)
	inv := 1 / (dt * dt)
	var err error
	classic := s.Cfg.Pressure == PressureClassic
	for c := range s.b {
		if !s.sys[c] {
			s.b[c] = 0
			continue
		}
		b := dt * s.b[c]
		if !classic {
			b += 1 - s.rhoC[c]/s.rhoMax[c]
		}
		s.b[c] = b * inv
	}
	if classic {
		clear(s.p)
		s.last.pressure, err = s.ps.CG(&s.mat, s.b, s.p, float64(s.Cfg.Tolerance), int(s.Cfg.MaxIterations))
	} else {
		clear(s.p) // from zero: see State
		s.last.pressure, err = s.solveLCP(s.b, s.p)
	}
	if err != nil {
		return err
	}
	s.applyGradient(s.p, dt, &s.u)
	s.pushBodies(dt) // the pressure's force and torque on the bodies (bodies.go)
	return nil
}
