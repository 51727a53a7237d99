package sph

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim/kernel"
	"github.com/slosh/slosh/sim/scene"
)

// Solids that melt: Solenthaler's unified particle model (004 ch. 5). Liquids, elastic and plastic solids and rigid
// bodies are one set of particles: every particle takes part in the densities, the pressure solve, viscosity and
// heat, and solids add their own terms.
//
// Temperature (§5.4.1): every particle carries one (a state column). Each step it diffuses among neighbours (the
// viscosity pass sums the rates over the same pairs) by eq. 5.12, dT_i/dt = Σ_j c_ij V_j (T_j − T_i) ∇²W_ij, with the viscosity kernel's Laplacian (whose second moment is
// exactly 2, so c is the diffusivity of ∂T/∂t = c∇²T in the continuum) and c_ij the mean of the two materials'
// constants, integrated by explicit Euler; the scene's heaters and the heat tool relax it towards theirs. A
// particle's phase follows from its material and temperature (phaseOf, Figure 5.5): liquid above the melting point,
// solid below the solidifying point (rigid or elastic with the full E, as the kind says), elastic in between with E
// falling linearly to zero at the melting point and the viscosity going from the solid's to the liquid's.
//
// Bodies (§5.2.1): each solid particle owns a slot of the solids' table holding its body neighbours, each with the
// reference vector x_ij = X_i − X_j (eq. 5.6) taken when the pair bonded and never changed by deformation: the
// locally undeformed reference. Pairs bond when a body is made (the particles of one fluid block within the kernel
// radius h of each other) and when a particle solidifies (with every solid particle within h: it merges with what
// it touches, joining bodies). Bonds are the only thing that makes particles one body, so touching bodies stay
// distinct unless melting and solidifying join them. A particle that melts leaves: its bonds go on both sides.
// Slots are stable numbers (the particles are sorted every step), allocated lowest first, so a run is
// deterministic and a state reproduces it.
//
// Elasticity (§5.2.2–5.2.3): the body volume V_i = m_i / Σ_j m_j W(x_ij) over i and its body neighbours (eq. 5.2),
// the displacement gradient G_i = Σ_j u_ji g_ijᵀ with u_ji = r_j − r_i + x_ij and g_ij = V_j ∇W(x_ij) (eq. 5.5–5.7;
// the thesis writes ∇u_i = G_iᵀ), W the sine kernel of eq. 5.8, F = I + G, the Green–Saint-Venant strain
// ε = ½(G + Gᵀ + GᵀG), the elastic part ε_e = ε − ε_p, and Hooke's isotropic stress S = λ tr(ε_e) I + 2μ ε_e from
// E and ν. The energy U_i = ½ V_i ε_e:S gives the force on neighbour j, −∂U_i/∂u_j = −V_i F S g_ij (eq. 5.3; the
// thesis and Müller et al. 2004 print a factor 2 that the energy does not give: with it a beam sags half as far as
// Euler–Bernoulli says, TestCantileverSagsAsEulerBernoulli), and on i itself minus their sum, so the internal forces
// of a body sum to zero and its angular momentum is kept (each pair's forces are equal and opposite in sum).
//
// Plasticity and fracture (§5.2.4, after O'Brien et al. 2002): where the deviatoric part of ε_e is longer
// (Frobenius) than the elastic limit, the excess flows into the plastic strain ε_p, whose length is capped at the
// plastic limit; a bond stretched beyond the material's fracture ratio of its reference length is forgotten by
// both particles, so the body breaks there.
//
// Rigid bodies (§5.3): the particles in the rigid phase, connected by bonds, are clusters found each step. Their
// SPH forces (non-pressure and each PCISPH iteration's pressure) are summed per cluster into a force and a torque
// τ = Σ (r_i − r_cm) × F_i (eq. 5.9); L ← L + τΔt (eq. 5.11), ω = I⁻¹L (eq. 5.10), and the particles move with
// the cluster. A cluster's mass, centre of mass, inertia, velocity and angular momentum are measured from its
// particles at each step's start (their velocities are the cluster's rigid motion), so a cluster that splits or
// merges as particles melt and solidify keeps the momentum of its parts. Viscosity between two particles of one
// cluster is skipped, as the thesis skips their forces (pressure pairs inside a cluster cancel in its sums).
// Where the collision projection moves a cluster's particles, the cluster takes the rigid motion that best fits
// the projected positions (shape matching, sim/rigid's rotation extraction).

// maxBonds is the most body neighbours a particle keeps: 26 on the cubic lattice within h = 2 spacings, more in a
// solid that solidified from compressed liquid. A particle with its list full bonds no further.
const maxBonds = 32

// Solid phases of a particle (phaseOf).
const (
	phaseLiquid  = 0
	phaseElastic = 1
	phaseRigid   = 2
)

// bond is a body neighbour: its slot and the reference vector x_ij = X_i − X_j.
type bond struct {
	Slot int32
	X    [3]float32
}

// solidSlot is a solid particle's entry in the solids' table: its bonds and plastic strain (state), and what each
// step computes for it.
type solidSlot struct {
	N       int32
	Bonds   [maxBonds]bond
	Plastic [6]float32 // ε_p: xx, yy, zz, xy, yz, zx

	owner int32                // the particle's index after this step's sort, −1 for a free slot
	free  bool                 // on the free list
	vol   float32              // body volume V_i (eq. 5.2)
	grad  [maxBonds][3]float32 // the sine kernel's gradient ∇W(x_ij) of each bond (elasticForces)
	m     [9]float32           // −V_i F S K⁺, row-major: the force on body neighbour j is m g_ij (stress)
}

// solidMat is a material's heat and solid parameters.
type solidMat struct {
	kind          scene.Kind
	e, nu         float32 // Young's modulus (Pa) and Poisson's ratio
	yield, pmax   float32 // plastic: the elastic and plastic limits
	fracture2     float32 // the squared stretch at which bonds break; 0 never
	change        bool    // melts and solidifies
	tSolid, tMelt float32
	diff          float32 // eq. 5.12's c, m²/s
	temp0         float32 // °C at the start
	muSolid       float32 // dynamic viscosity at the solidifying point, 0: the liquid's
}

// cluster is a rigid body of particles in one step: measured at x(t), then predicted by each pressure iteration.
type cluster struct {
	members []int32
	mass    float64
	cm      scene.Vec3 // centre of mass
	inv     scene.Mat3 // I⁻¹ at x(t)
	vel     scene.Vec3 // V
	ang     scene.Vec3 // L about cm
}

// solids is the solver's part for solids and heat.
type solids struct {
	on      bool // the scene has solid materials, heat diffusion or heaters
	diffuse bool // a material has a diffusivity
	mats    []solidMat
	slots   []solidSlot
	free    []int32 // free slots, highest first (allocation takes the lowest)
	sine    kernel.Sine[float32]
	clus    []cluster
	broken  int // bonds broken by fracture in the last step
	melted  int // particles that melted and solidified in the last step
	solidi  int
}

// solidMaterials reads the scene's materials' heat and solid parameters; the solver's material k is the scene's
// material number k.
func solidMaterials(sc *scene.Scene) (mats []solidMat, on bool) {
	n := sc.MaterialCount()
	mats = make([]solidMat, n)
	for k := range n {
		m := sc.MaterialOf(k)
		sm := solidMat{kind: m.Kind.Canonical(), e: float32(m.YoungsModulus), nu: float32(m.PoissonRatio), diff: float32(m.Diffusivity),
			temp0: float32(m.Temperature), yield: float32(m.ElasticLimit), pmax: float32(m.PlasticLimit)}
		if m.Fracture > 0 {
			sm.fracture2 = float32(m.Fracture * m.Fracture)
		}
		if pc := m.PhaseChange; pc != nil {
			sm.change, sm.tSolid, sm.tMelt = true, float32(pc.Solidifying), float32(pc.Melting)
		}
		if m.SolidViscosity > 0 {
			sm.muSolid = float32(m.SolidViscosity)
		}
		on = on || sm.kind.Solid() || sm.diff > 0
		mats[k] = sm
	}
	return mats, on || len(sc.Heaters) > 0
}

// phaseOf is the phase of a particle of material m at temperature t, and for the elastic phase the fraction of
// E it has (1 below the solidifying point, falling linearly to 0 at the melting point; Figure 5.5).
func (m *solidMat) phaseOf(t float32) (phase int, frac float32) {
	if !m.kind.Solid() {
		return phaseLiquid, 0
	}
	if m.change {
		if t > m.tMelt {
			return phaseLiquid, 0
		}
		if t > m.tSolid {
			return phaseElastic, (m.tMelt - t) / (m.tMelt - m.tSolid)
		}
	}
	if m.kind == scene.KindRigid {
		return phaseRigid, 1
	}
	return phaseElastic, 1
}

// Phase is particle i's phase (phaseLiquid, phaseElastic or phaseRigid).
func (s *Solver) phase(i int) int {
	if !s.sol.on {
		return phaseLiquid
	}
	p, _ := s.sol.mats[s.mat[i]].phaseOf(s.temp[i])
	return p
}

// resetSolids starts the solids of a reset: the materials, each particle's temperature, and the bodies: the
// particles of each fluid block in a solid phase, bonded within h. block is each particle's fluid block, in the
// order of the particles given to the reset (not yet sorted).
func (s *Solver) resetSolids(sc *scene.Scene, block []int) {
	so := &s.sol
	mats, on := solidMaterials(sc)
	*so = solids{on: on, mats: mats, sine: kernel.NewSine(s.dv.H)}
	for _, m := range mats {
		so.diffuse = so.diffuse || m.diff > 0
	}
	if !on {
		return
	}
	slotBlock := []int{}
	for i := range s.x {
		m := &so.mats[s.mat[i]]
		s.temp[i] = m.temp0
		s.slot[i] = -1
		if p, _ := m.phaseOf(m.temp0); p != phaseLiquid {
			s.slot[i] = s.allocSlot()
			slotBlock = append(slotBlock, block[i])
		}
	}
	if len(so.slots) == 0 {
		return
	}
	s.sortByCell()
	s.findNeighbors()
	h2 := s.dv.H * s.dv.H
	for i := range s.x {
		si := s.slot[i]
		if si < 0 {
			continue
		}
		for _, j := range s.neighbours(i) {
			sj := s.slot[j]
			if sj < 0 || slotBlock[si] != slotBlock[sj] {
				continue
			}
			if d := sub3(s.x[i], s.x[j]); dot3(d, d) < h2 {
				s.addBond(si, sj, d)
			}
		}
	}
}

// loadSolids sets the solids' table from a state checked against its particles (checkSolids): the free slots are
// those no particle owns.
func (s *Solver) loadSolids(slots []solidSlot) {
	so := &s.sol
	so.slots = append(so.slots[:0], slots...)
	owned := make([]bool, len(so.slots))
	for _, sl := range s.slot {
		if sl >= 0 {
			owned[sl] = true
		}
	}
	so.free = so.free[:0]
	for k := len(so.slots) - 1; k >= 0; k-- {
		so.slots[k].free = !owned[k]
		if !owned[k] {
			so.free = append(so.free, int32(k))
		}
	}
}

// checkSolidCount refuses a scene whose solid particles' table would not fit in the memory a simulation may take.
func checkSolidCount(sc *scene.Scene, ps []scene.Particle) error {
	n := 0
	for _, p := range ps {
		if sc.MaterialOf(p.Material).Kind.Canonical().Solid() {
			n++
		}
	}
	if n > maxStateSlots {
		return fmt.Errorf("sph: %d solid particles, at most %d: raise sph.spacing or make the solids smaller", n, maxStateSlots)
	}
	return nil
}

// solidDensity is relDensity's poly6 sum for a solid particle at (px, py, pz): its neighbours in pos but those it
// is bonded to, and its bonds at their reference (bondMask).
//
// A particle of a rigid cluster counts its bonds at most at the rest density and, of its other neighbours, only
// those of other rigid bodies. Its own body's particles cannot move against it, so no pressure could undo their
// excess: one solidified from compressed liquid, with bonds shorter than the lattice's or more body neighbours than
// its list holds, would stay over-dense while its pressure grew without bound (chocolate-dip diverged so). Its
// liquid and elastic neighbours are kept out by their own density constraint and push it with their pressure
// mirrored (mirroredPressure); counted, a few of them at the kernel's edge over bonds a little tighter than the
// lattice keep a floating body's particles over-dense by a percent or two, and PCISPH iterates to its cap.
func (s *Solver) solidDensity(i int, px, py, pz float32, pos [][4]float32, standard bool) float32 {
	h2 := s.dv.H * s.dv.H
	nb := s.neighbours(i)
	mask := s.bonded[i*s.dv.Stride:][:len(nb)]
	inv := 1 / s.rho0[s.mat[i]]
	acc := s.restAcc[i]
	rb := s.rbody[i]
	if rb >= 0 {
		acc = min(acc, (1/s.dv.V0-s.dv.W0)/s.dv.Poly6.Coef())
	}
	for k, j := range nb {
		if mask[k] || rb >= 0 && (s.rbody[j] < 0 || s.rbody[j] == rb) {
			continue
		}
		q := &pos[j]
		rx, ry, rz := px-q[0], py-q[1], pz-q[2]
		if d := h2 - (rx*rx + ry*ry + rz*rz); d > 0 {
			w := d * d * d
			if standard {
				w *= s.rho0[s.mat[j]] * inv
			}
			acc += w
		}
	}
	return acc
}

// startTemperatures gives particles [from, to), just added, their material's starting temperature; those of a
// solid phase bond at the next step (changePhases), with each other and with the solids they touch.
func (s *Solver) startTemperatures(from, to int) {
	if !s.sol.on {
		return
	}
	for i := from; i < to; i++ {
		s.temp[i] = s.sol.mats[s.mat[i]].temp0
	}
}

// allocSlot takes the lowest free slot, or a new one.
func (s *Solver) allocSlot() int32 {
	so := &s.sol
	if k := len(so.free); k > 0 {
		sl := so.free[k-1]
		so.free = so.free[:k-1]
		so.slots[sl] = solidSlot{owner: -1}
		return sl
	}
	so.slots = append(so.slots, solidSlot{owner: -1})
	return int32(len(so.slots) - 1)
}

// freeSlot returns a slot whose bonds are gone, keeping the free list highest first.
func (s *Solver) freeSlot(sl int32) {
	so := &s.sol
	so.slots[sl] = solidSlot{owner: -1, free: true}
	k := len(so.free)
	for k > 0 && so.free[k-1] < sl {
		k--
	}
	so.free = append(so.free, 0)
	copy(so.free[k+1:], so.free[k:])
	so.free[k] = sl
}

// addBond records the bond of slot a to slot b with reference vector x (X_a − X_b), on a's side only; false when a's
// list is full or holds b already.
func (s *Solver) addBond(a, b int32, x [3]float32) bool {
	sa := &s.sol.slots[a]
	if sa.N >= maxBonds {
		return false
	}
	for k := range sa.N {
		if sa.Bonds[k].Slot == b {
			return false
		}
	}
	sa.Bonds[sa.N] = bond{Slot: b, X: x}
	sa.N++
	return true
}

// dropBond removes slot b from a's bonds.
func (s *Solver) dropBond(a, b int32) {
	sa := &s.sol.slots[a]
	for k := int32(0); k < sa.N; k++ {
		if sa.Bonds[k].Slot == b {
			copy(sa.Bonds[k:sa.N], sa.Bonds[k+1:sa.N])
			sa.N--
			sa.Bonds[sa.N] = bond{}
			return
		}
	}
}

// solidsTopology is the solids' part of a step's start, after the neighbour search: slot owners, phase changes
// at the temperatures the last step left, the bonded pairs among the neighbour lists (bondMask) and the rigid
// clusters.
func (s *Solver) solidsTopology() {
	if !s.sol.on {
		return
	}
	s.findOwners()
	s.changePhases()
	s.bondMask()
	s.findClusters()
}

// bondMask marks the pairs of each particle's neighbour list that are bonded (bonded, parallel to the lists) and
// sets restAcc_i, the poly6 sum Σ_j (h² − |x_ij|²)³ over i's bonds at their reference vectors (times ρ0_j/ρ0_i
// for the standard density). A solid particle's density counts its body neighbours where the reference puts them
// and the rest where they are (relDensity), and no pressure acts between bonded particles (pairGradients): the
// body's own deformation is the elastic forces' to resist, and the pressure only meets what the body touches.
// Otherwise a bent beam's compressed side would be held incompressible by the pressure solve, and the density
// error of a squeezed solid would keep PCISPH iterating to its limit.
func (s *Solver) bondMask() {
	so := &s.sol
	stride := s.dv.Stride
	s.bonded = grow.Resize(s.bonded, len(s.x)*stride)
	h2 := s.dv.H * s.dv.H
	standard := s.Cfg.Density == DensityStandard
	s.pool.For(len(s.x), 512, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			nb := s.neighbours(i)
			mask := s.bonded[i*stride:][:len(nb)]
			clear(mask)
			s.restAcc[i] = 0
			sl := s.slot[i]
			if sl < 0 {
				continue
			}
			st := &so.slots[sl]
			if st.N == 0 {
				continue
			}
			for k, j := range nb {
				if sj := s.slot[j]; sj >= 0 {
					for b := range st.N {
						if st.Bonds[b].Slot == sj {
							mask[k] = true
							break
						}
					}
				}
			}
			var acc float32
			inv := 1 / s.rho0[s.mat[i]]
			for b := range st.N {
				x := st.Bonds[b].X
				if d := h2 - dot3(x, x); d > 0 {
					w := d * d * d
					if standard {
						w *= s.rho0[s.mat[so.slots[st.Bonds[b].Slot].owner]] * inv
					}
					acc += w
				}
			}
			s.restAcc[i] = acc
		}
	})
}

// findOwners sets each slot's owner from the particles (sorted this step); slots whose particle is gone (drained)
// are freed with their bonds.
func (s *Solver) findOwners() {
	so := &s.sol
	for k := range so.slots {
		so.slots[k].owner = -1
	}
	for i, sl := range s.slot {
		if sl >= 0 {
			so.slots[sl].owner = int32(i)
		}
	}
	var orphans []int32
	for k := range so.slots {
		if so.slots[k].owner < 0 && !so.slots[k].free {
			orphans = append(orphans, int32(k))
		}
	}
	for _, sl := range orphans {
		s.unbond(sl)
		s.freeSlot(sl)
	}
}

// unbond removes every bond of slot sl, on both sides.
func (s *Solver) unbond(sl int32) {
	st := &s.sol.slots[sl]
	for k := range st.N {
		s.dropBond(st.Bonds[k].Slot, sl)
	}
	st.N = 0
	st.Bonds = [maxBonds]bond{}
}

// heat integrates eq. 5.12 over dt by explicit Euler from the rates nonPressure summed into dtemp (the pairs it
// visits for viscosity, with the same Laplacian; sph.heat_scale scales them), then applies the heaters and the heat
// tool.
func (s *Solver) heat(dt float64) {
	if s.sol.diffuse {
		h := float32(dt) * s.Cfg.HeatScale
		for i := range s.temp {
			s.temp[i] += h * s.dtemp[i]
		}
	}
	s.applyHeaters(dt)
}

// applyHeaters relaxes the temperatures inside the scene's active heaters and under the heat tool.
func (s *Solver) applyHeaters(dt float64) {
	var active []*scene.Heater
	for k := range s.sc.Heaters {
		if h := &s.sc.Heaters[k]; h.Active(s.time) {
			active = append(active, h)
		}
	}
	tool := s.heatTool
	if len(active) == 0 && tool == nil {
		return
	}
	s.pool.For(len(s.x), 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := scene.Vec3{float64(s.x[i][0]), float64(s.x[i][1]), float64(s.x[i][2])}
			t := float64(s.temp[i])
			for _, h := range active {
				if d, _ := h.SDF(p); d <= 0 {
					t = h.Relax(t, dt)
				}
			}
			if tool != nil {
				if d, _ := tool.SDF(p); d <= 0 {
					t = tool.Relax(t, dt)
				}
			}
			s.temp[i] = float32(t)
		}
	})
}

// changePhases melts the solid particles whose temperature took them to the liquid phase (their bonds go on both
// sides) and solidifies the liquid ones of solid materials that cooled out of it (bonding with every solid
// particle within h, themselves included: they merge with what they touch). In particle order, so deterministic.
func (s *Solver) changePhases() {
	so := &s.sol
	so.melted, so.solidi = 0, 0
	var fresh []int
	for i := range s.x {
		p := s.phase(i)
		switch sl := s.slot[i]; {
		case sl >= 0 && p == phaseLiquid:
			s.unbond(sl)
			s.freeSlot(sl)
			s.slot[i] = -1
			so.melted++
		case sl < 0 && p != phaseLiquid:
			s.slot[i] = s.allocSlot()
			so.slots[s.slot[i]].owner = int32(i)
			fresh = append(fresh, i)
			so.solidi++
		}
	}
	h2 := s.dv.H * s.dv.H
	for _, i := range fresh {
		si := s.slot[i]
		for _, j := range s.neighbours(i) {
			sj := s.slot[j]
			if sj < 0 {
				continue
			}
			if d := sub3(s.x[i], s.x[j]); dot3(d, d) < h2 {
				if s.addBond(si, sj, d) && !s.addBond(sj, si, neg3(d)) {
					s.dropBond(si, sj) // j's list is full: no bond, on either side
				}
			}
		}
	}
}

// viscosities sets each particle's dynamic viscosity: its material's, or between the solidifying and melting
// points the interpolation from the solid's to the liquid's (Figure 5.5).
func (s *Solver) viscosities() {
	so := &s.sol
	for i := range s.x {
		mi := s.mat[i]
		mu := s.mu[mi]
		if m := &so.mats[mi]; m.muSolid > 0 && s.slot[i] >= 0 {
			solid := s.rho0[mi] * (m.muSolid/s.rho0[mi] + s.Cfg.Viscosity)
			_, f := m.phaseOf(s.temp[i])
			mu += f * (solid - mu)
		}
		s.visc[i] = mu
	}
}

// solidDt is the longest step the solids' explicit terms allow, for the materials as the particles are now: the
// elastic P-wave crossing 0.4 h (as the sound condition of eq. 2.27), Δt ≤ 0.4 h/√((λ + 2μ)/ρ0) with E at the
// largest fraction a particle of the material has (a rigid material only between its points, where it is elastic);
// heat diffusion, Δt ≤ 0.1 h²/c; and the viscous condition at the solid viscosity where a particle has it. +Inf
// without solids. It reads the state alone (temperatures, materials), so a frame's substeps do too.
func (s *Solver) solidDt() float64 {
	so := &s.sol
	dt := math.Inf(1)
	if !so.on {
		return dt
	}
	n := min(len(so.mats), len(s.rho0))
	frac := make([]float32, n) // the largest fraction of E in use, per material
	solid := make([]bool, n)   // a particle of the material is not liquid
	for i := range s.x {
		k := s.mat[i]
		if int(k) >= n {
			continue
		}
		p, f := so.mats[k].phaseOf(s.temp[i])
		if p == phaseElastic {
			frac[k] = max(frac[k], f)
		}
		solid[k] = solid[k] || p != phaseLiquid
	}
	h := float64(s.dv.H)
	for k := range n {
		m := &so.mats[k]
		if frac[k] > 0 && m.e > 0 {
			nu := float64(m.nu)
			mod := float64(m.e*frac[k]*s.Cfg.StiffnessScale) * (1 - nu) / ((1 + nu) * (1 - 2*nu))
			dt = math.Min(dt, LambdaSound*h/math.Sqrt(mod/float64(s.rho0[k])))
		}
		if c := m.diff * s.Cfg.HeatScale; c > 0 {
			dt = math.Min(dt, 0.1*h*h/float64(c))
		}
		if m.muSolid > 0 && solid[k] {
			nu := float64(m.muSolid)/float64(s.rho0[k]) + float64(s.Cfg.Viscosity)
			dt = math.Min(dt, LambdaVisc*h*h/nu)
		}
	}
	return dt
}

// checkSolids says what is wrong with a solids' table read from a state against its particles' slots: slots in
// range and owned by one particle each, bonds to owned slots, symmetric, finite and within the kernel radius h
// (times the largest fracture stretch), plastic strains finite.
func checkSolids(slots []solidSlot, slot []int32, reach float32) error {
	owned := make([]bool, len(slots))
	for i, sl := range slot {
		if sl < -1 || int(sl) >= len(slots) {
			return fmt.Errorf("particle %d has solid slot %d; there are %d", i, sl, len(slots))
		}
		if sl >= 0 {
			if owned[sl] {
				return fmt.Errorf("solid slot %d belongs to two particles", sl)
			}
			owned[sl] = true
		}
	}
	for k := range slots {
		st := &slots[k]
		if st.N < 0 || st.N > maxBonds || (!owned[k] && st.N != 0) {
			return fmt.Errorf("solid slot %d has %d bonds (owned: %v; at most %d)", k, st.N, owned[k], maxBonds)
		}
		for _, v := range st.Plastic {
			if !finite(v) || math.Abs(float64(v)) > scene.MaxStrainLimit {
				return fmt.Errorf("solid slot %d has a plastic strain of %g", k, v)
			}
		}
		for b := range st.N {
			bd := st.Bonds[b]
			if bd.Slot < 0 || int(bd.Slot) >= len(slots) || !owned[bd.Slot] || int(bd.Slot) == k {
				return fmt.Errorf("solid slot %d is bonded to slot %d, which is not another particle's", k, bd.Slot)
			}
			x := bd.X
			if !finite(x[0]) || !finite(x[1]) || !finite(x[2]) || dot3(x, x) > reach*reach {
				return fmt.Errorf("solid slot %d's bond to %d has the reference vector %v, beyond the kernel radius", k, bd.Slot, x)
			}
			if !hasBond(&slots[bd.Slot], int32(k), x) {
				return fmt.Errorf("solid slot %d is bonded to %d, but not %d to %d", k, bd.Slot, bd.Slot, k)
			}
		}
	}
	return nil
}

// hasBond says whether st holds the bond to slot k with reference vector −x.
func hasBond(st *solidSlot, k int32, x [3]float32) bool {
	for b := range st.N {
		if bd := st.Bonds[b]; bd.Slot == k {
			return bd.X == neg3(x)
		}
	}
	return false
}

func sub3(a, b [4]float32) [3]float32 { return [3]float32{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot3(a, b [3]float32) float32    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func neg3(a [3]float32) [3]float32    { return [3]float32{-a[0], -a[1], -a[2]} }
