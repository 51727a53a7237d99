package sph

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim/kernel"
	"github.com/slosh/slosh/sim/scene"
)

// The point-based elastoplastic material: dough, clay and jelly (Gerszewski 000 ch. 4; DESIGN.md restates the
// equations the extracted text lost). Its particles take part in everything the liquid's do (densities, the SPH
// pressure, which the chapter keeps on for stability, viscosity, heat) and add elastic forces from a deformation
// gradient each particle carries.
//
// The deformation gradient (§4.1–4.2): at the end of each step, for every elastoplastic particle i, the affine map
// F that best carries its neighbours' offsets at the start of the step, x_j − x_i, to their offsets at the end,
// y_j − y_i, minimising Σ_j w_ij |F(x_j − x_i) − (y_j − y_i)|² with the poly6 weights w_ij of the start (eq. 4.1–4.7):
// F = (Σ w y xᵀ)(Σ w x xᵀ)⁻¹ from the normal equations. The neighbours are the particles of the same material within
// the kernel radius h (the step's neighbour lists): two blocks of one dough that touch stick, as dough does, and
// materials do not deform each other. F composes into the particle's stored F ← F_step F (eq. 4.8), which holds
// the elastic part alone, F = Fₑ, because the plasticity below takes the plastic part out of it in place.
//
// Deficient neighbourhoods (§4.4) keep their F unchanged for the step, the thesis's rule: fewer than 6 neighbours,
// a normal matrix Σ w x xᵀ whose smallest eigenvalue is below 10⁻³ of its trace (the neighbours nearly coplanar or
// collinear), an F_step or a composed F that is not finite, an F_step that stretches or squashes by more than
// maxStepStretch in some direction or changes the volume by more than maxStepVolume, or a composed F whose
// determinant is not positive (the neighbourhood would invert). The step counts them (Stats, "F kept").
//
// The constitutive model (§4.3): F = U F̂ Vᵀ (svd3). The plasticity of Bargteil et al. 2007: the diagonal stress
// P̂ = 2μ(F̂ − I) + λ tr(F̂ − I) I (eq. 4.9, Irving et al. 2004, μ and λ from E and ν) has the deviatoric part P̂′;
// where |P̂′| exceeds the yield stress plus the hardening K times the particle's accumulated plastic strain α, a
// fraction γ = min(ν Δt (|P̂′| − Y − Kα)/|P̂′|, 1) of the deviatoric deformation flows, F̂ ← F̂ (det F̂)^(γ/3) F̂^(−γ)
// (the volume-preserving ΔF̂ₚ = (det F̂)^(−γ/3) F̂^γ taken out), and α grows by the length of ln ΔF̂ₚ. The flow rate
// ν is per second (Δt in γ makes the flow independent of the step). The chapter's two variants: "hyperelastic"
// squares the singular values before eq. 4.9 (Figure 4.4), and "non-newtonian" divides the flow rate by the
// stress in units of the shear modulus, ν μ/|P̂′|, so small stresses flow readily and large ones bounce (Figure 4.2).
//
// The forces (eq. 4.10–4.13): particle i's stress pushes neighbour j with f_ij = −2 v_i U F̂ P̂ Vᵀ d_ij,
// d_ij = v_j ∇W(F⁻¹(y_i − y_j)) with W the sine kernel of 004 eq. 5.8, the neighbour vector taken back to the
// reference space through F⁻¹ (its direction from j to i, so that a stretched body pulls together; the extracted
// text does not say which way it points). f_ij and f_ji are averaged into an equal and opposite pair, which sums
// both particles' strain energies: ½(2 v_i P_i d_ij + 2 v_j P_j d_ji) is −∂(U_i + U_j)/∂y for the corotated energy.
// The volumes are the body volumes of 004 eq. 5.2 in the reference space, v_i = m_i / Σ_j m_j W(F⁻¹(y_i − y_j)).
//
// One departure, measured: the pairs' forces as the chapter gives them have a torque. Particle i's pairs turn the
// body by the axial vector of M_i C_i F_iᵀ, C_i = Σ_j v_j ∇W(r_ij) r_ijᵀ with r_ij = F_i⁻¹(y_i − y_j) (since
// y_i − y_j = F_i r_ij). Where C_i is isotropic, inside a body, M_i C_i F_iᵀ = c U F̂ P̂ F̂ Uᵀ is symmetric and the
// torque zero; at the surface, with half the neighbours, it is not: a free body thrown spinning and sheared lost
// 4.4e-4 of its angular momentum in 0.2 s. The kernel gradient correction (Bonet & Lok 1999, M_i C_i⁻¹, which the
// solids use) removes the torque but multiplies a sparse neighbourhood's forces up to fourfold, and a bunny's ears
// then rang themselves apart within 40 steps. Instead M_i loses the smallest change (Frobenius) that makes the
// torque of its pairs zero (torqueFree): nothing inside a body or at rest, no amplification anywhere, and the free
// body keeps its angular momentum to 1e-7 (TestFreeBodiesKeepMomentum).

// Elastoplastic variants (epMat.variant).
const (
	variantStandard = iota
	variantHyperelastic
	variantNonNewtonian
)

// Rules for a deficient neighbourhood (see above).
const (
	minEPNeighbours = 6
	minEPCondition  = 1e-3
	// maxStepStretch bounds the stretch one step's F may claim, either way: the velocity condition lets two
	// neighbours close or part by about a spacing in a step, a strain of 0.5 at the kernel radius, and a step
	// that claims more is a neighbourhood the collision projection flattened against a wall or that tore
	// apart, not a deformation. A bunny's ears landing on the floor composed such steps into stretches of 76 and
	// 1/70 and were thrown off at 60 m/s.
	maxStepStretch = 1.5
	// maxStepVolume bounds the volume change one step's F may claim, either way. The SPH pressure holds every
	// particle's volume within η of its rest (1 % by default), so a step that claims more is a fit gone wrong;
	// composed, such steps took a putty bunny's F to 14 times its volume in every direction within 600 steps,
	// and its elastic forces against the pressure until it blew up. (The thesis relaxes the plastic flow's
	// volume preservation where F encodes large volume changes, §4.4; keeping the steps that would make them is
	// the same rule one step earlier, and it keeps the elastic material's memory of its volume intact.)
	maxStepVolume = 1.2
	// maxElasticStretch bounds the elastic stretch F records, its singular values within [1/4, 4]: beyond, the
	// material yields, as no elastic solid stretches four-fold and springs back. A composed F beyond is pulled
	// back to the bound, which only ever lowers the stored energy. Without it a coarse non-Newtonian bunny
	// (700 particles, ears one particle thick) stretched its ears' F without end at every landing and threw them.
	maxElasticStretch = 4
)

// epMat is a material's elastoplastic parameters, as the scene gives them.
type epMat struct {
	on                      bool
	e, nu                   float64 // Young's modulus (Pa), Poisson's ratio
	yield, flow, hard       float64 // Pa, 1/s, Pa
	variant                 int
	lameMu, lameLam, modulo float64 // filled per step from e × sph.stiffness_scale: μ, λ, and the P-wave modulus
}

// elastoplastic is the solver's part for the material.
type elastoplastic struct {
	on   bool
	mats []epMat
	sine kernel.Sine[float64]

	// the last step's counts
	kept   int // particles whose F stayed unchanged (a deficient neighbourhood)
	flowed int // particles that flowed plastically
}

// epMaterials reads the scene's elastoplastic materials.
func epMaterials(sc *scene.Scene) (mats []epMat, on bool) {
	n := sc.MaterialCount()
	mats = make([]epMat, n)
	for k := range n {
		m := sc.MaterialOf(k)
		if m.Kind.Canonical() != scene.KindElastoplastic {
			continue
		}
		v := variantStandard
		switch m.Variant {
		case scene.VariantHyperelastic:
			v = variantHyperelastic
		case scene.VariantNonNewtonian:
			v = variantNonNewtonian
		}
		mats[k] = epMat{on: true, e: m.YoungsModulus, nu: m.PoissonRatio, yield: m.YieldStress, flow: m.FlowRate, hard: m.Hardening, variant: v}
		on = true
	}
	return mats, on
}

// resetElastoplastic starts the material of a reset: every particle undeformed (the store's default F = I, α = 0).
func (s *Solver) resetElastoplastic(sc *scene.Scene) {
	mats, on := epMaterials(sc)
	s.ep = elastoplastic{on: on, mats: mats, sine: kernel.NewSine(float64(s.dv.H))}
}

// isEP says whether particle i is of an elastoplastic material.
func (s *Solver) isEP(i int) bool {
	k := int(s.mat[i])
	return k < len(s.ep.mats) && s.ep.mats[k].on
}

// updateEPMaterials sets each material's Lamé parameters from E × sph.stiffness_scale.
func (s *Solver) updateEPMaterials() {
	for k := range s.ep.mats {
		m := &s.ep.mats[k]
		if !m.on {
			continue
		}
		e := m.e * float64(s.Cfg.StiffnessScale)
		m.lameMu = e / (2 * (1 + m.nu))
		m.lameLam = e * m.nu / ((1 + m.nu) * (1 - 2*m.nu))
		m.modulo = m.lameLam + 2*m.lameMu
		if m.variant == variantHyperelastic {
			m.modulo *= 2 // P̂ of σ² grows twice as fast near the rest shape
		}
	}
	if s.ep.sine.H != float64(s.dv.H) {
		s.ep.sine = kernel.NewSine(float64(s.dv.H))
	}
}

// epDt is the longest step the elastic forces allow: the P-wave crossing 0.4 h, Δt ≤ 0.4 h/√((λ + 2μ)/ρ0), as
// for the solids (solidDt). +Inf without the material. At twice that step the plastic scenes still ran, but the
// hyperelastic cubes blew up at their landing (measured 2026-11-29).
func (s *Solver) epDt() float64 {
	dt := math.Inf(1)
	if !s.ep.on {
		return dt
	}
	s.updateEPMaterials()
	h := float64(s.dv.H)
	for k, m := range s.ep.mats {
		if m.on && k < len(s.rho0) && m.modulo > 0 {
			dt = math.Min(dt, LambdaSound*h/math.Sqrt(m.modulo/float64(s.rho0[k])))
		}
	}
	return dt
}

// toMat is a stored matrix (row-major float32) in float64.
func toMat(m *[9]float32) scene.Mat3 {
	return scene.Mat3{{float64(m[0]), float64(m[1]), float64(m[2])}, {float64(m[3]), float64(m[4]), float64(m[5])}, {float64(m[6]), float64(m[7]), float64(m[8])}}
}

// fromMat stores a matrix.
func fromMat(m scene.Mat3) [9]float32 {
	return [9]float32{float32(m[0][0]), float32(m[0][1]), float32(m[0][2]), float32(m[1][0]), float32(m[1][1]), float32(m[1][2]), float32(m[2][0]), float32(m[2][1]), float32(m[2][2])}
}

// identity9 is the undeformed F.
var identity9 = [9]float32{1, 0, 0, 0, 1, 0, 0, 0, 1}

// checkDeformation checks an F read from a state: finite, of bounded size, not inverted.
func checkDeformation(m [9]float32) error {
	for _, x := range m {
		if !(math.Abs(float64(x)) <= maxStretch) {
			return fmt.Errorf("a deformation gradient entry %g: entries are finite and within ±%d", x, maxStretch)
		}
	}
	if d := det3(toMat(&m)); !(d > 0) {
		return fmt.Errorf("a deformation gradient of determinant %g: it must be positive", d)
	}
	return nil
}

// maxStretch bounds a deformation gradient's entries in a state (and the singular values the stress reads).
const maxStretch = 100

// checkPlasticStrain checks an accumulated plastic strain read from a state.
func checkPlasticStrain(a float32) error {
	if !(a >= 0) || math.IsInf(float64(a), 0) {
		return fmt.Errorf("a plastic strain of %g: it is finite and not negative", a)
	}
	return nil
}

// stress is the constitutive model at one particle (§4.3) on the singular values sg of its elastic F: the plastic
// flow over dt (which adds to alpha), then the singular values after it and the diagonal stress P̂ of eq. 4.9 on
// them. flowed says whether it flowed, and so whether F must be recomposed from the new singular values.
func (m *epMat) stress(sg [3]float64, dt float64, yieldScale, flowScale, hardScale float32, alpha *float32) (sOut, p [3]float64, flowed bool) {
	sg = clampStretch(sg)
	p = m.diagonalStress(sg)
	mean := (p[0] + p[1] + p[2]) / 3
	dev := math.Sqrt((p[0]-mean)*(p[0]-mean) + (p[1]-mean)*(p[1]-mean) + (p[2]-mean)*(p[2]-mean))
	yield := max(0, m.yield*float64(yieldScale)+m.hard*float64(hardScale)*float64(*alpha))
	rate := m.flow * float64(flowScale)
	if m.variant == variantNonNewtonian && dev > 0 {
		rate *= m.lameMu / dev
	}
	if rate > 0 && dev > yield {
		gamma := min(rate*dt*(dev-yield)/dev, 1)
		// F̂ ← F̂ (det F̂)^(γ/3) F̂^(−γ) in logarithms; the flow is ln ΔF̂ₚ = γ (ln F̂ − mean)
		l := [3]float64{math.Log(sg[0]), math.Log(sg[1]), math.Log(sg[2])}
		lm := (l[0] + l[1] + l[2]) / 3
		var flow float64
		for a := range 3 {
			d := gamma * (l[a] - lm)
			flow += d * d
			sg[a] = math.Exp(l[a] - d)
		}
		*alpha += float32(math.Sqrt(flow))
		p = m.diagonalStress(sg)
		flowed = true
	}
	return sg, p, flowed
}

// clampStretch keeps the singular values the stress reads within [1/maxStretch, maxStretch].
func clampStretch(sg [3]float64) [3]float64 {
	for a := range 3 {
		sg[a] = min(max(sg[a], 1.0/maxStretch), maxStretch)
	}
	return sg
}

// diagonalStress is eq. 4.9 on the singular values (squared for the hyperelastic variant).
func (m *epMat) diagonalStress(sg [3]float64) (p [3]float64) {
	if m.variant == variantHyperelastic {
		sg = [3]float64{sg[0] * sg[0], sg[1] * sg[1], sg[2] * sg[2]}
	}
	tr := sg[0] + sg[1] + sg[2] - 3
	for a := range 3 {
		p[a] = 2*m.lameMu*(sg[a]-1) + m.lameLam*tr
	}
	return p
}

// epStresses is the first pass of the elastic forces: for each elastoplastic particle the plastic flow (which
// updates its F and α), F⁻¹, the body volume in the reference space, each neighbour of the material's reference
// offset and sine-kernel gradient scale (epg, by neighbour-list entry), and the matrix −2 v_i U F̂ P̂ Vᵀ of
// eq. 4.10 (epTorqueFree then takes its torque out).
func (s *Solver) epStresses(dt float64) {
	ep := &s.ep
	s.updateEPMaterials()
	// epg holds each particle's entries one after another from epOff[i] (the neighbour lists' lengths summed), so
	// that the passes stream through it and a neighbour's entries lie near: strided by the lists' capacity, as
	// the lists are, three quarters of it would be empty
	s.epOff = grow.Resize(s.epOff, len(s.x)+1)
	n := 0
	for i := range s.x {
		s.epOff[i] = int32(n)
		if s.isEP(i) {
			n += int(s.ncount[i])
		}
	}
	s.epOff[len(s.x)] = int32(n)
	s.epg = grow.Resize(s.epg, n)
	var flowed atomic.Int64
	cfg := &s.Cfg
	s.pool.For(len(s.x), 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if !s.isEP(i) {
				continue
			}
			m := &ep.mats[s.mat[i]]
			u, sg, v := svd3(toMat(&s.fe[i]))
			sg, p, fl := m.stress(sg, dt, cfg.YieldScale, cfg.FlowScale, cfg.HardeningScale, &s.alpha[i])
			if fl {
				flowed.Add(1)
				s.fe[i] = fromMat(recompose(u, sg, v))
			}
			inv := recompose(v, [3]float64{1 / sg[0], 1 / sg[1], 1 / sg[2]}, u) // F⁻¹ = V F̂⁻¹ Uᵀ
			s.fin[i] = inv
			// v_i = m_i / Σ_j m_j W(F⁻¹ (y_i − y_j)) over i and its neighbours of the material
			mi := float64(s.mass[s.mat[i]])
			sum := mi * ep.sine.W(0)
			xi := s.x[i]
			grads := s.epg[s.epOff[i]:]
			for k, j := range s.neighbours(i) {
				if s.mat[j] != s.mat[i] {
					continue // its entry is never read: the passes pair only particles of one material
				}
				r := inv.MulVec(scene.Vec3{float64(xi[0] - s.x[j][0]), float64(xi[1] - s.x[j][1]), float64(xi[2] - s.x[j][2])})
				w, g := ep.sine.WGrad(math.Sqrt(r.Dot(r)))
				sum += float64(s.mass[s.mat[j]]) * w
				grads[k] = [4]float32{float32(r[0]), float32(r[1]), float32(r[2]), float32(g)}
			}
			vol := mi / sum
			s.epv[i] = float32(vol)
			s.epm[i] = recompose(u, [3]float64{-2 * vol * sg[0] * p[0], -2 * vol * sg[1] * p[1], -2 * vol * sg[2] * p[2]}, v)
		}
	})
	ep.flowed = int(flowed.Load())
}

// epTorqueFree is the second pass: each elastoplastic particle's M_i less the smallest change that makes its pairs'
// torque zero (torqueFree), from the offsets and kernel scales epStresses kept and the neighbours' volumes.
func (s *Solver) epTorqueFree() {
	s.pool.For(len(s.x), 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if !s.isEP(i) {
				continue
			}
			grads := s.epg[s.epOff[i]:]
			var c scene.Mat3 // Σ_j v_j ∇W(r_ij) r_ijᵀ = Σ_j v_j g_ij r_ij r_ijᵀ
			for k, j := range s.neighbours(i) {
				if s.mat[j] != s.mat[i] {
					continue
				}
				e := &grads[k]
				r := scene.Vec3{float64(e[0]), float64(e[1]), float64(e[2])}
				vg := float64(s.epv[j]) * float64(e[3])
				for a := range 3 {
					for b := a; b < 3; b++ {
						c[a][b] += vg * r[a] * r[b]
					}
				}
			}
			c[1][0], c[2][0], c[2][1] = c[0][1], c[0][2], c[1][2]
			s.epm[i] = torqueFree(s.epm[i], c.Mul(toMat(&s.fe[i]).Transpose()))
		}
	})
}

// torqueFree is m less the smallest change Δ (Frobenius) for which (m − Δ) b is symmetric, b = C_i F_iᵀ: the
// change solves N x = τ(m b) for the axial vector τ(X)_k = ½ ε_kab X_ab and Δ = ½ K(x) bᵀ with K(x)_ab = ε_kab x_k,
// N the matrix of x ↦ τ(½ K(x) bᵀ b) (the normal equations of the three constraints). Where N is singular (the
// neighbours on a line) m is kept.
func torqueFree(m, b scene.Mat3) scene.Mat3 {
	axial := func(x scene.Mat3) scene.Vec3 {
		return scene.Vec3{0.5 * (x[1][2] - x[2][1]), 0.5 * (x[2][0] - x[0][2]), 0.5 * (x[0][1] - x[1][0])}
	}
	skew := func(x scene.Vec3) scene.Mat3 { // K(x)_ab = ε_kab x_k
		return scene.Mat3{{0, x[2], -x[1]}, {-x[2], 0, x[0]}, {x[1], -x[0], 0}}
	}
	bt := b.Transpose()
	btb := bt.Mul(b)
	var n [3][3]float64
	for k := range 3 {
		var e scene.Vec3
		e[k] = 0.5
		col := axial(skew(e).Mul(btb))
		for r := range 3 {
			n[r][k] = col[r]
		}
	}
	d := det3(n)
	tr := n[0][0] + n[1][1] + n[2][2]
	if !(math.Abs(d) > 1e-9*tr*tr*tr) {
		return m
	}
	x := inverse(n).MulVec(axial(m.Mul(b)))
	delta := skew(x.Scale(0.5)).Mul(bt)
	for r := range 3 {
		for c := range 3 {
			m[r][c] -= delta[r][c]
		}
	}
	return m
}

// recompose is U diag(d) Vᵀ.
func recompose(u scene.Mat3, d [3]float64, v scene.Mat3) (m scene.Mat3) {
	for r := range 3 {
		for c := range 3 {
			m[r][c] = u[r][0]*d[0]*v[c][0] + u[r][1]*d[1]*v[c][1] + u[r][2]*d[2]*v[c][2]
		}
	}
	return m
}

// epForces adds the elastic forces (eq. 4.10–4.13) to the non-pressure accelerations: on particle i, over its
// neighbours j of the same material, ½ Σ_j (M_j d_ji − M_i d_ij), where M = −2 v U F̂ P̂ Vᵀ (epStresses) and
// d_ij = v_j ∇W(F_i⁻¹(y_i − y_j)); the pair's part on j is the same with the sign changed, so the forces are
// equal and opposite and sum to zero.
func (s *Solver) epForces(dt float64) {
	s.epStresses(dt)
	s.timer.Mark("ep stress")
	s.epTorqueFree()
	s.timer.Mark("ep torque")
	ep := &s.ep
	s.pool.For(len(s.x), 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if !s.isEP(i) {
				continue
			}
			xi := s.x[i]
			mi, vi := &s.epm[i], float64(s.epv[i])
			grads := s.epg[s.epOff[i]:]
			var acc, own scene.Vec3 // Σ_j M_j d_ji and Σ_j d_ij
			for k, j := range s.neighbours(i) {
				if s.mat[j] != s.mat[i] {
					continue
				}
				e := &grads[k]
				vg := float64(s.epv[j]) * float64(e[3])
				own = own.Add(scene.Vec3{float64(e[0]) * vg, float64(e[1]) * vg, float64(e[2]) * vg})
				// ∇W(r_ji) is j's entry for i (epStresses), unless j's list was clipped short of i. The grid's
				// lists run through the cells' rows in order, so they are sorted; one that were not would only
				// send the search to the kernel evaluation below
				var dji scene.Vec3
				if p, found := slices.BinarySearch(s.neighbours(int(j)), int32(i)); found {
					f := &s.epg[int(s.epOff[j])+p]
					vg := vi * float64(f[3])
					dji = scene.Vec3{float64(f[0]) * vg, float64(f[1]) * vg, float64(f[2]) * vg}
				} else {
					y := scene.Vec3{float64(s.x[j][0] - xi[0]), float64(s.x[j][1] - xi[1]), float64(s.x[j][2] - xi[2])} // y_j − y_i
					rj := s.fin[j].MulVec(y)
					_, g := ep.sine.WGrad(math.Sqrt(rj.Dot(rj)))
					dji = rj.Scale(g * vi)
				}
				acc = acc.Add(s.epm[j].MulVec(dji))
			}
			acc = acc.Sub(mi.MulVec(own))
			im := 0.5 / float64(s.mass[s.mat[i]])
			s.anp[i][0] += float32(acc[0] * im)
			s.anp[i][1] += float32(acc[1] * im)
			s.anp[i][2] += float32(acc[2] * im)
		}
	})
}

// lsq accumulates the normal equations of one particle's step (eq. 4.5 with the weights of eq. 4.7):
// A = Σ w y xᵀ and B = Σ w x xᵀ over its neighbours' offsets x at the start of the step and y at the end.
type lsq struct {
	a, b [3][3]float64
	n    int
}

// add takes one neighbour with weight w. B is symmetric: its lower triangle is filled by solve.
func (q *lsq) add(x, y scene.Vec3, w float64) {
	wx := scene.Vec3{w * x[0], w * x[1], w * x[2]}
	for r := range 3 {
		q.a[r][0] += y[r] * wx[0]
		q.a[r][1] += y[r] * wx[1]
		q.a[r][2] += y[r] * wx[2]
	}
	q.b[0][0] += x[0] * wx[0]
	q.b[0][1] += x[0] * wx[1]
	q.b[0][2] += x[0] * wx[2]
	q.b[1][1] += x[1] * wx[1]
	q.b[1][2] += x[1] * wx[2]
	q.b[2][2] += x[2] * wx[2]
	q.n++
}

// solve is the step's F = A B⁻¹, or false for a deficient neighbourhood: fewer than minEPNeighbours, B's
// smallest eigenvalue below minEPCondition of its trace, or an F that is not finite.
func (q *lsq) solve() (scene.Mat3, bool) {
	q.b[1][0], q.b[2][0], q.b[2][1] = q.b[0][1], q.b[0][2], q.b[1][2]
	tr := q.b[0][0] + q.b[1][1] + q.b[2][2]
	if q.n < minEPNeighbours || !(tr > 0) || !(minEigen(q.b) >= minEPCondition*tr) {
		return scene.Mat3{}, false
	}
	f := scene.Mat3(q.a).Mul(inverse(q.b))
	for r := range 3 {
		for c := range 3 {
			if !finite64(f[r][c]) {
				return scene.Mat3{}, false
			}
		}
	}
	return f, true
}

func finite64(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// frobenius is |F − dI| in the Frobenius norm.
func frobenius(f scene.Mat3, d float64) float64 {
	sum := 0.0
	for r := range 3 {
		for c := range 3 {
			e := f[r][c]
			if r == c {
				e -= d
			}
			sum += e * e
		}
	}
	return math.Sqrt(sum)
}

// withinStretch says whether F's stretches (singular values) lie within [1/s, s]: at once where |F|² ≤ s² (the
// largest is at most |F|) and 2 det F/|F|² ≥ 1/s (the smallest is det F over the product of the other two, which
// is at most |F|²/2), which holds for nearly every F; by FᵀF's eigenvalues otherwise.
func withinStretch(f scene.Mat3, s float64) bool {
	n := frobenius(f, 0)
	n2 := n * n
	if d := det3(f); n2 <= s*s && 2*d >= n2/s {
		return true
	}
	lo, hi := eigenRange(f.Transpose().Mul(f))
	return hi <= s*s && lo >= 1/(s*s)
}

// epDeform composes each elastoplastic particle's step into its F (eq. 4.1–4.8), at the end of a step: old are
// the positions at its start (the neighbour lists'), s.x those at its end.
func (s *Solver) epDeform(old [][4]float32) {
	h2 := float64(s.dv.H) * float64(s.dv.H)
	var kept atomic.Int64
	s.pool.For(len(s.x), 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if !s.isEP(i) {
				continue
			}
			var q lsq
			oi, yi := old[i], s.x[i]
			for _, j := range s.neighbours(i) {
				if s.mat[j] != s.mat[i] {
					continue
				}
				x := scene.Vec3{float64(old[j][0]) - float64(oi[0]), float64(old[j][1]) - float64(oi[1]), float64(old[j][2]) - float64(oi[2])}
				d := h2 - x.Dot(x)
				if d <= 0 {
					continue
				}
				y := scene.Vec3{float64(s.x[j][0]) - float64(yi[0]), float64(s.x[j][1]) - float64(yi[1]), float64(s.x[j][2]) - float64(yi[2])}
				q.add(x, y, d*d*d)
			}
			f, ok := q.solve()
			if ok {
				j := det3(f)
				ok = j <= maxStepVolume && j >= 1/maxStepVolume
				// the stretches lie within 1 ± |F − I| (Frobenius), which settles nearly every step; FᵀF's
				// eigenvalues, the squared stretches, settle the rest
				if e := frobenius(f, 1); ok && !(e <= 1-1/maxStepStretch) {
					lo, hi := eigenRange(f.Transpose().Mul(f))
					ok = hi <= maxStepStretch*maxStepStretch && lo >= 1/(maxStepStretch*maxStepStretch)
				}
			}
			if ok {
				f = f.Mul(toMat(&s.fe[i]))
				ok = det3(f) > 0 && checkDeformation(fromMat(f)) == nil
			}
			if ok && !withinStretch(f, maxElasticStretch) {
				u, sg, v := svd3(f) // the elastic stretch limit: see maxElasticStretch
				f = recompose(u, [3]float64{min(sg[0], maxElasticStretch), min(max(sg[1], 1/maxElasticStretch), maxElasticStretch), max(sg[2], 1/maxElasticStretch)}, v)
			}
			if !ok {
				kept.Add(1)
				continue
			}
			s.fe[i] = fromMat(f)
		}
	})
	s.ep.kept = int(kept.Load())
}

// maxPlasticStrain is the largest accumulated plastic strain of the elastoplastic particles (a figure).
func (s *Solver) maxPlasticStrain() float64 {
	a := 0.0
	for i := range s.x {
		if s.isEP(i) {
			a = max(a, float64(s.alpha[i]))
		}
	}
	return a
}
