// Package sph is Smoothed Particle Hydrodynamics on the CPU after Solenthaler's thesis (papers/004, ch. 2–4):
// weakly compressible SPH with the Tait equation of state (WCSPH, ch. 2), predictive-corrective incompressible SPH
// (PCISPH, ch. 3, Algorithm 2), and several fluids of different rest densities through the particle number
// density (ch. 4 §4.2), with the adapted pressure forces, the adapted viscosity and a colour-field interface
// tension between different fluids.
//
// A step (Step) is, for PCISPH, Algorithm 2: neighbours once (uniform grid, particles reordered by (cell, id));
// densities, volumes and the solids' density at x(t); the non-pressure forces (gravity, viscosity eq. 4.13,
// interface tension eq. 4.14–4.17); then pressures from zero, corrected until the largest predicted density error
// (sph.stop=max) or its mean over the particles (sph.stop=mean) is below η (at least MinIterations, at most
// MaxIterations), each iteration predicting v*, x* with the current pressure forces, the density ρ* at x* with
// the step's neighbour lists, and p_i += δ ρ*_err,i (eq. 3.7–3.9).
// The step ends at the last prediction, so the density error it reports is that of the positions it leaves.
// WCSPH takes the pressures from the Tait equation (eq. 2.15 / 4.4) at x(t) and integrates once.
//
// Densities are relative, r_i = ρ_i/ρ0_i: with the number density r_i = V0 Σ_j W_ij + Φ_i (eq. 4.2 divided by
// ρ0_i = m_i/V0), with the standard density r_i = V0 Σ_j (ρ0_j/ρ0_i) W_ij + Φ_i (eq. 2.13). The particle volume is
// V_i = V0/r_i (eq. 4.3: 1/δ_i), the mass m_i = ρ0_i V0. Φ_i is the walls' and obstacles' density (sim/solid, the
// density map the PBF mode uses): the fluid's own lattice continued beyond each solid. The solids push back with
// the pressure force of that mirrored lattice (its particles carrying particle i's own pressure and volume), which
// for the two forms is −V_i p_i ∇Φ_i and −2 p_i V_i² ∇Φ_i / V0, plus the hydrostatic part its ghosts carry (Adami
// et al. 2012: p_b = p_i + ρ0 g·(x_b − x_i), summed through the solids' first moment, sim/solid moment.go), without
// which the water along the side walls had no vertical support from them and sank, stirring a resting tank; the
// collision projection keeps what is left inside.
//
// Several fluids: PCISPH scales a particle's density error by its neighbourhood's rest density (neighbourDensity),
// WCSPH's sound-speed step and the viscous step use the strongest pair of fluids (stiffest), and no pressure moves
// a particle more than half a spacing a step (pressureAccelPredict), so a diverging setting is reported (finish:
// a particle faster than any frame follows restores the last good state) instead of filling the domain.
//
// Kernels: poly6 for densities and the colour field (eq. 2.20), spiky gradients for pressure and colour gradients
// (eq. 2.21), the viscosity kernel's Laplacian for viscosity (eq. 2.22), as in the thesis.
package sph

import (
	"fmt"
	"math"
	"sync"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/internal/machine"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
	"github.com/slosh/slosh/sim/solid"
)

// Name is the mode name.
const Name = "sph"

// MaxMaterials is the most fluids a run holds (material indices are bytes).
const MaxMaterials = 256

// Material is one fluid.
type Material struct {
	RestDensity float32 // ρ0, kg/m³
	Viscosity   float32 // kinematic viscosity ν, m²/s (dynamic μ = ρ0 ν)
}

// Solver is the SPH solver. It is not safe for concurrent use.
type Solver struct {
	held   int64 // bytes the arrays were last sized for (machine.MemoryBudget)
	Cfg    Config
	params *param.Set
	dv     Derived
	dvCfg  Config
	col    solid.Collider
	grid   *grid.Grid
	sc     *scene.Scene
	pool   par.Pool

	mats    []Material
	cfgMats bool      // mats[0] follows Cfg.RestDensity and Cfg.Viscosity (the scene named no materials)
	rho0    []float32 // per material
	mu      []float32 // per material, μ = ρ0 ν
	mass    []float32 // per material, ρ0 V0

	// the scene's materials (materials.go); both nil when it names none
	sceneNu []float32    // per material, the scene's own ν_k = μ_k/ρ_k, to which sph.viscosity is added
	palette [][3]float32 // the materials' colours for Frame (sim.ScenePalette)

	// The particles, in sorted order after each step, held in sh.P (declareParticles says what each array is
	// to the store): x, v and ids, each particle's material and pressure, which a state keeps, and rs, which the
	// frame shows; the other arrays are the step's scratch.
	x, v [][4]float32
	id   []uint32
	mat  []uint8

	r, vol     []float32    // relative density ρ_i/ρ0_i and volume V_i at x(t)
	bg         [][4]float32 // ∇Φ_i of the solids at x(t), Φ_i in w
	pairs      []pair       // each particle's neighbours with their gradients at x(t), packed (pairGradients)
	off        []int32      // particle i's pairs are pairs[off[i]:off[i+1]] (findNeighbors)
	pa, pq     []float32    // the pressure force's factors of each particle (pressureTerms)
	prec       [][4]float32 // x_i and A_i q_i, what the pressure loop reads of a neighbour (pressureTerms)
	rbar       []float32    // PCISPH with several fluids: the rest density of i's neighbourhood (neighbourDensity)
	hyd        [][4]float32 // M_i g of the solids at x(t): their ghosts' hydrostatic push (sim/solid, moment.go)
	pres, pnxt []float32    // pressures, and the next iteration's candidates (PCISPH)
	rs         []float32    // relative density at the predicted positions (PCISPH), or r (WCSPH)
	anp, ap    [][4]float32 // non-pressure and pressure accelerations
	xs, vs     [][4]float32 // predicted positions and velocities
	col_       []float32    // smoothed colour <c> (eq. 4.15)
	nrm        [][4]float32 // colour normal n (eq. 4.16), |n| in w
	nbr        []int32
	ncount     []int32
	reach      reach        // where the solids act this step (solidReach)
	errSum     [][2]float64 // the density errors' sum and largest over each block of errBlock particles (densityError)
	tmp        [][4]float32

	// the solids and heat (solids.go): each particle's temperature (°C) and solid slot (−1: none), which a state
	// keeps; its dynamic viscosity and rigid cluster (−1: none) this step, and the next temperature
	temp, dtemp []float32
	slot, rbody []int32
	visc        []float32
	restAcc     []float32 // a solid particle's poly6 sum over its bonds at their reference (bondMask)
	contact     []bool    // whether a particle's pairs join a rigid cluster to what is not one (rigidContact)
	bonded      []bool    // which pairs of the neighbour lists are bonded (bondMask), when there are solids
	sol         solids
	// the elastoplastic material (elastoplastic.go): each particle's elastic deformation gradient F and
	// accumulated plastic strain α, which a state keeps; this step's stress matrix, F⁻¹ and body volume, and
	// each neighbour-list entry's reference offset r_ij and sine-kernel gradient scale g (∇W = g r_ij), from
	// epOff[i] for particle i
	fe         [][9]float32
	epm, fin   []scene.Mat3
	alpha, epv []float32
	epg        [][4]float32
	epOff      []int32
	ep         elastoplastic
	heatTool   *scene.Heater // the heat tool where it is held, nil when it is not

	// limited counts the particles of the last prediction whose pressure acceleration was cut to move them at most
	// half a spacing in the step: a safety net, never reached by water the solver keeps near η (PCISPH) or its
	// stiffness (WCSPH), that keeps a run bounded where the equations themselves diverge — the standard density
	// at a 1:10 interface, whose error (Figure 4.3 b) grows the light particles' pressures without end.
	limited int
	amax    float64 // largest acceleration of the last step, m/s² (the force condition of BeginFrame)
	accMax  float64 // largest acceleration of the last prediction
	time    float64
	steps   int

	// statistics of the last step
	iters, itersMax int
	errMax, errMean float64
	etaMissed       bool
	dtInner         float64
	clip            int
	frameSubsteps   int
	clamped         int // speeds real-time mode clamped at the end of the last step (clampSpeeds)
	timer           sim.Timer
	stats           sim.Stats

	sh      shell.Shell // the particles' store, the budget, the tools and the scene's emitters (hands.go)
	paddled bool        // the obstacles include the paddle (hands.go)
	bodies  bodySet     // rigid bodies (bodies.go)

	good State // the state a failed step goes back to

	// spacing is the particle spacing derive was given (Derived keeps it in float32): re-deriving after a
	// parameter change, and a loaded state, use it, so the constants stay what the reset made them
	spacing float64
}

// New returns a solver with the default configuration and no particles.
func New() *Solver {
	s := &Solver{Cfg: DefaultConfig(), params: param.NewSet()}
	s.Cfg.Register(s.params)
	s.declareParticles()
	return s
}

// declareParticles binds the particle arrays to the store, each with its role: the material and the pressure
// (where sph.warm_start starts a step) are state; rs, the density the frame shows, follows the particles and is
// recomputed by every step; the rest is the step's scratch. A new per-particle attribute is one line here.
func (s *Solver) declareParticles() {
	sh := &s.sh
	sh.Mode = Name
	sh.Bind(&s.x, &s.v, &s.id)
	sh.Materials(&s.mat, s.materialCount)
	particles.Add(&sh.P, &s.pres, particles.Spec[float32]{Name: colPressure, Role: particles.State, Check: checkPressure})
	particles.Add(&sh.P, &s.rs, particles.Spec[float32]{Name: "density", Role: particles.Carried, Default: 1})
	particles.Add(&sh.P, &s.r, particles.Spec[float32]{Name: "density at x(t)", Role: particles.Scratch, Default: 1})
	for _, c := range []struct {
		name string
		col  *[]float32
	}{{"volume", &s.vol}, {"next pressure", &s.pnxt}, {"colour", &s.col_}, {"pressure factor A", &s.pa},
		{"pressure factor q", &s.pq}, {"neighbourhood rest density", &s.rbar}} {
		particles.Add(&sh.P, c.col, particles.Spec[float32]{Name: c.name, Role: particles.Scratch})
	}
	for _, c := range []struct {
		name string
		col  *[][4]float32
	}{{"solids' gradient", &s.bg}, {"solids' hydrostatic push", &s.hyd}, {"non-pressure acceleration", &s.anp},
		{"pressure acceleration", &s.ap}, {"predicted position", &s.xs}, {"predicted velocity", &s.vs},
		{"colour normal", &s.nrm}, {"pressure record", &s.prec}, {"scratch", &s.tmp}} {
		particles.Add(&sh.P, c.col, particles.Spec[[4]float32]{Name: c.name, Role: particles.Scratch})
	}
	particles.Add(&sh.P, &s.ncount, particles.Spec[int32]{Name: "neighbour count", Role: particles.Scratch})
	particles.Add(&sh.P, &s.temp, particles.Spec[float32]{Name: colTemperature, Role: particles.State, Check: checkTemperature})
	particles.Add(&sh.P, &s.slot, particles.Spec[int32]{Name: colSlot, Role: particles.State, Default: -1, Check: checkSlot})
	particles.Add(&sh.P, &s.dtemp, particles.Spec[float32]{Name: "next temperature", Role: particles.Scratch})
	particles.Add(&sh.P, &s.visc, particles.Spec[float32]{Name: "dynamic viscosity", Role: particles.Scratch})
	particles.Add(&sh.P, &s.restAcc, particles.Spec[float32]{Name: "bonds' rest density", Role: particles.Scratch})
	particles.Add(&sh.P, &s.rbody, particles.Spec[int32]{Name: "rigid cluster", Role: particles.Scratch, Default: -1})
	particles.Add(&sh.P, &s.contact, particles.Spec[bool]{Name: "rigid contact", Role: particles.Scratch})
	particles.Add(&sh.P, &s.fe, particles.Spec[[9]float32]{Name: colDeformation, Role: particles.State, Default: identity9, Check: checkDeformation})
	particles.Add(&sh.P, &s.alpha, particles.Spec[float32]{Name: colPlasticStrain, Role: particles.State, Check: checkPlasticStrain})
	particles.Add(&sh.P, &s.epm, particles.Spec[scene.Mat3]{Name: "elastoplastic stress", Role: particles.Scratch})
	particles.Add(&sh.P, &s.fin, particles.Spec[scene.Mat3]{Name: "inverse deformation", Role: particles.Scratch})
	particles.Add(&sh.P, &s.epv, particles.Spec[float32]{Name: "elastoplastic volume", Role: particles.Scratch})
}

// checkTemperature checks a temperature read from a state.
func checkTemperature(t float32) error {
	if !(t >= scene.MinTemperature && t <= scene.MaxTemperature) {
		return fmt.Errorf("%g °C; temperatures are within [%g, %g]", t, scene.MinTemperature, float64(scene.MaxTemperature))
	}
	return nil
}

// checkSlot checks a solid slot read from a state (against the solids' table: checkSolids).
func checkSlot(sl int32) error {
	if sl < -1 {
		return fmt.Errorf("%d; a solid slot is −1 (none) or a slot's number", sl)
	}
	return nil
}

// materialCount is how many materials a particle may be of: the run's, or any before a reset (a state read
// without a run is checked against its own material table).
func (s *Solver) materialCount() int {
	if len(s.mats) == 0 {
		return MaxMaterials
	}
	return len(s.mats)
}

// checkPressure checks a pressure read from a state.
func checkPressure(p float32) error {
	if !(p >= 0) || math.IsInf(float64(p), 0) {
		return fmt.Errorf("%g Pa; pressures are finite and not negative", p)
	}
	return nil
}

// Name implements sim.Solver.
func (s *Solver) Name() string { return Name }

// Kinds implements sim.Kinds: sph simulates liquids, Solenthaler's solids (solids.go) and the elastoplastic
// material (elastoplastic.go).
func (s *Solver) Kinds() []scene.Kind {
	return []scene.Kind{scene.KindLiquid, scene.KindElastic, scene.KindPlastic, scene.KindRigid, scene.KindElastoplastic}
}

// Params implements sim.Solver.
func (s *Solver) Params() *param.Set { return s.params }

// Derived returns the constants of the current step.
func (s *Solver) Derived() Derived { return s.dv }

// Reset implements sim.Solver: the scene's fluid blocks, each of its material. A scene that names no materials
// is one fluid of sph.rest_density and sph.viscosity, following them as they change; one that names some gives
// material k the scene's rest density ρ_k and the kinematic viscosity ν_k = μ_k/ρ_k + sph.viscosity (materials.go),
// material 0 being scene.DefaultMaterial (water).
func (s *Solver) Reset(sc *scene.Scene) error {
	if err := sc.CheckKinds(Name, s.Kinds()); err != nil {
		return err
	}
	if err := s.expect(sc); err != nil {
		return err
	}
	d, err := sc.ResolveSpacing(float64(s.Cfg.Spacing), int(s.Cfg.Particles))
	if err != nil {
		return err
	}
	ps, err := sc.Sample(d)
	if err != nil {
		return err
	}
	if err := checkSolidCount(sc, ps); err != nil {
		return err
	}
	if len(ps) == 0 {
		return fmt.Errorf("scene %q has no fluid particles at spacing %g m: the fluid blocks lie inside obstacles or outside the domain", sc.Name, d)
	}
	pos := make([][4]float32, len(ps))
	vel := make([][4]float32, len(ps))
	mat := make([]uint8, len(ps))
	block := make([]int, len(ps))
	for i, q := range ps {
		pos[i] = [4]float32{float32(q.Pos[0]), float32(q.Pos[1]), float32(q.Pos[2]), 0}
		vel[i] = [4]float32{float32(q.Vel[0]), float32(q.Vel[1]), float32(q.Vel[2]), 0}
		mat[i] = uint8(q.Material)
		block[i] = q.Block
	}
	mats, nu := sceneMaterials(sc, s.Cfg.Viscosity)
	if err := s.ResetMaterials(sc, d, pos, vel, mat, mats); err != nil {
		return err
	}
	if nu != nil {
		s.sceneNu, s.palette = nu, sim.ScenePalette(sc)
	}
	s.resetSolids(sc, block) // solids and heat (solids.go)
	s.resetElastoplastic(sc) // elastoplastic.go
	return s.resetBodies(sc) // rigid bodies (bodies.go)
}

// ResetMaterials starts from given particles (ids 0..n−1 in order) of the given materials. mats nil is one
// material from the configuration (sph.rest_density, sph.viscosity), which follows the parameters as they change;
// given materials are kept as given.
func (s *Solver) ResetMaterials(sc *scene.Scene, spacing float64, pos, vel [][4]float32, material []uint8, mats []Material) error {
	n := len(pos)
	if len(vel) != n || len(material) != n {
		return fmt.Errorf("sph: %d positions, %d velocities and %d materials must be as many", n, len(vel), len(material))
	}
	if n == 0 {
		return fmt.Errorf("sph: no particles")
	}
	cfgMats := mats == nil
	if cfgMats {
		mats = []Material{{RestDensity: s.Cfg.RestDensity, Viscosity: s.Cfg.Viscosity}}
	}
	if len(mats) > MaxMaterials {
		return fmt.Errorf("sph: %d materials, at most %d", len(mats), MaxMaterials)
	}
	for k, m := range mats {
		if !(m.RestDensity > 0) || math.IsInf(float64(m.RestDensity), 0) || !(m.Viscosity >= 0) || math.IsInf(float64(m.Viscosity), 0) {
			return fmt.Errorf("sph: material %d has rest density %g kg/m³ and viscosity %g m²/s: the density must be positive and the viscosity not negative", k, m.RestDensity, m.Viscosity)
		}
	}
	for i, m := range material {
		if int(m) >= len(mats) {
			return fmt.Errorf("sph: particle %d is of material %d, but there are %d materials", i, m, len(mats))
		}
	}
	budget := s.Cfg.ResolveBudget(n)
	s.sc = sc
	s.time = 0
	if err := s.derive(spacing, budget); err != nil {
		return err
	}
	s.mats, s.cfgMats = append(s.mats[:0], mats...), cfgMats
	s.sh.P.Reset(n) // ids 0..n−1, pressures zero, densities 1
	copy(s.x, pos)
	copy(s.v, vel)
	copy(s.mat, material)
	s.steps, s.amax = 0, 0
	s.installBodies(nil) // rigid bodies (bodies.go): Reset adds the scene's after this
	s.iters, s.itersMax, s.errMax, s.errMean, s.etaMissed, s.dtInner = 0, 0, 0, 0, false, 0
	s.stats = sim.Stats{Particles: n}
	s.sceneNu, s.palette = nil, nil
	s.sol, s.heatTool, s.ep = solids{}, nil, elastoplastic{}
	s.sh.Reset(sc, budget)
	s.paddled = false
	s.updateMaterials()
	s.save()
	return nil
}

// BytesPerParticle is what the solver holds per particle: twelve arrays of vec4 (192 bytes), three of 3×3 matrices
// (180), fourteen of 4 bytes, the material, and the neighbour list, its gradients and the elastoplastic material's
// kernel gradients, stride entries each.
func BytesPerParticle(stride int) int64 { return 429 + 24*int64(stride) }

// checkMemory refuses a budget of particles whose arrays would not fit in the memory a simulation may take.
func (s *Solver) checkMemory(budget int, dv Derived) error {
	limit := machine.MemoryBudget(8<<30, s.held)
	if need := int64(budget) * BytesPerParticle(dv.Stride); need > limit {
		return fmt.Errorf("sph: %d particles (the budget) with neighbour lists of %d need about %s of memory, more than the %s a simulation may take here: lower sph.particles, sph.budget or sph.kernel_radius",
			budget, dv.Stride, machine.Bytes(need), machine.Bytes(limit))
	}
	return nil
}

// expect refuses, before anything is sampled, a reset whose particles would not fit in memory (scene.Expect).
func (s *Solver) expect(sc *scene.Scene) error {
	return sim.CheckExpected(sc, float64(s.Cfg.Spacing), int(s.Cfg.Particles), s.Cfg.Budget, func(d float64, budget int) error {
		dv, err := Derive(&s.Cfg, d)
		if err != nil {
			return nil // the reset says what is wrong
		}
		return s.checkMemory(budget, dv)
	})
}

// derive recomputes the constants, the collider and the grid for a spacing after checking memory; on error
// nothing changes.
func (s *Solver) derive(spacing float64, budget int) error {
	dv, err := Derive(&s.Cfg, spacing)
	if err != nil {
		return err
	}
	if err := s.checkMemory(budget, dv); err != nil {
		return err
	}
	g, err := grid.New(f32(s.sc.Domain.Min), f32(s.sc.Domain.Max), dv.H)
	if err != nil {
		return fmt.Errorf("sph: %w", err)
	}
	s.held = int64(budget) * BytesPerParticle(dv.Stride)
	s.dv, s.dvCfg, s.grid, s.spacing = dv, s.Cfg, g, spacing
	s.col = solid.NewCollider(s.sc, dv.Contact)
	s.col.Obstacles = solid.Moved(s.sc, s.time, nil)
	return nil
}

func f32(v scene.Vec3) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }

// updateMaterials refreshes the per-material constants (material 0 from the parameters when they define it).
func (s *Solver) updateMaterials() {
	if s.cfgMats {
		s.mats[0] = Material{RestDensity: s.Cfg.RestDensity, Viscosity: s.Cfg.Viscosity}
	}
	k := len(s.mats)
	s.rho0, s.mu, s.mass = grow.Resize(s.rho0, k), grow.Resize(s.mu, k), grow.Resize(s.mass, k)
	for m, mt := range s.mats {
		s.rho0[m] = mt.RestDensity
		s.mu[m] = mt.RestDensity * mt.Viscosity
		s.mass[m] = mt.RestDensity * s.dv.V0
	}
}

// Materials returns the fluids of the run.
func (s *Solver) Materials() []Material { return append([]Material(nil), s.mats...) }

// ParticleMaterials appends each particle's material to dst[:0], in the order Frame gives the particles.
func (s *Solver) ParticleMaterials(dst []uint8) []uint8 { return append(dst[:0], s.mat...) }

// stiffest is what the explicit terms' step conditions need of the materials: the largest viscosity a particle
// can feel, max μ / min ρ0 (a light particle beside the most viscous fluid: eq. 4.13 averages the μ of the pair and
// divides by the light particle's mass), and the density ratio max ρ0 / min ρ0, by which a heavy particle's Tait
// pressure (eq. 4.4) accelerates a light neighbour more than its own fluid's would.
func (s *Solver) stiffest() (nu, ratio float64) {
	muMax, lo, hi := 0.0, math.Inf(1), 0.0
	for _, m := range s.mats {
		rho := float64(m.RestDensity)
		muMax = math.Max(muMax, rho*float64(m.Viscosity))
		lo, hi = math.Min(lo, rho), math.Max(hi, rho)
	}
	return muMax / lo, hi / lo
}

// stableDt is StableDt for the run's configuration and materials.
func (s *Solver) stableDt() float64 {
	nu, ratio := s.stiffest()
	return min(StableDt(&s.Cfg, &s.dv, nu, ratio), s.solidDt(), s.epDt())
}

// Step implements sim.Solver. A step longer than the stiffness (WCSPH) or the viscosity allow is taken as several
// equal steps that do, so no setting of the substeps makes the explicit terms unstable.
func (s *Solver) Step(dt float64) error {
	if s.sc == nil {
		return fmt.Errorf("sph: Step before Reset")
	}
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("sph: time step %g must be positive", dt)
	}
	if s.Cfg != s.dvCfg {
		if err := s.derive(s.spacing, s.sh.Budget); err != nil {
			return err
		}
	}
	s.followViscosity() // materials.go
	s.pour(dt)          // hands.go: the emitters and the scene's blasts, before the step
	s.updateMaterials()
	s.timer.Begin()
	n := 1
	if lim := s.stableDt(); dt > lim {
		n = int(math.Ceil(dt / lim * (1 - 1e-9)))
	}
	h := dt / float64(n)
	s.dtInner = h
	s.itersMax, s.amax = 0, 0
	for k := 0; k < n; k++ {
		s.moveObstacles(s.time + float64(k+1)*h) // hands.go: moving obstacles and the paddle
		s.substep(h)
		s.amax = math.Max(s.amax, s.accMax)
	}
	s.clampSpeeds(dt)
	s.time += dt
	s.steps++
	return s.finish()
}

// clampSpeeds is real-time mode's clamp (sim.CFL) at the end of a step of dt, the frame's step however many parts
// the stability conditions split it into: every particle, and every body's fastest surface point, no faster than
// sph.cfl spacings a step. Off, it reads nothing.
func (s *Solver) clampSpeeds(dt float64) {
	limit := s.Cfg.Step.SpeedLimit(float64(s.dv.Spacing), dt)
	s.clamped = sim.ClampSpeeds(s.pool, s.v, limit) + s.bodies.ClampSpeeds(limit)
}

// substep is one pass of Algorithm 2 (PCISPH) or Algorithm 1 (WCSPH).
func (s *Solver) substep(dt float64) {
	s.beginBodies(dt) // rigid bodies (bodies.go): poses at t and as predicted at t + Δt
	s.reach = s.solidReach()
	s.sortByCell()
	s.timer.Mark("grid")
	s.findNeighbors()
	s.timer.Mark("neighbours")
	solids := s.sol.on
	if solids {
		s.solidsTopology() // solids (solids.go): phase changes, bonded pairs, rigid clusters
		s.timer.Mark("bonds")
	}
	s.computeDensity()
	s.timer.Mark("density")
	if solids {
		s.viscosities() // solids.go: each particle's viscosity at its temperature
	}
	s.nonPressure() // with the heat's rate (solids.go, heat)
	s.timer.Mark("forces")
	if solids {
		s.elasticForces()
		s.timer.Mark("elastic")
	}
	if s.ep.on {
		s.epForces(dt) // elastoplastic.go
		s.timer.Mark("ep forces")
	}
	s.predictBodies() // rigid bodies (bodies.go): hydrostatic correction; the solve sees them at t + Δt
	if s.Cfg.Pressure == WCSPH {
		s.pressureAccelPredict(s.pres, float32(dt), false)
		copy(s.rs, s.r)
		s.errMean, s.errMax = s.densityError(s.r)
		s.iters = 0
		s.timer.Mark("pressure")
	} else {
		s.solvePCISPH(dt)
	}
	s.stepBodies(dt) // rigid bodies (bodies.go): the reaction at the final pressures, then the bodies' step
	s.x, s.xs = s.xs, s.x
	s.v, s.vs = s.vs, s.v
	if s.ep.on {
		s.epDeform(s.xs) // elastoplastic.go: each particle's F after the step
		s.timer.Mark("ep deformation")
	}
	if solids {
		s.heat(dt) // solids.go: the temperatures after the step
		s.timer.Mark("heat")
	}
}

// solvePCISPH is lines 7–23 of Algorithm 2, with the convergence test after each prediction: the largest or the
// mean predicted density error (sph.stop) at most η.
func (s *Solver) solvePCISPH(dt float64) {
	if !s.Cfg.WarmStart {
		clear(s.pres)
	}
	k := s.dv.PCIFactor(dt, s.Cfg.PressureForm)
	eta := float64(s.Cfg.Eta) / 100
	mean := s.Cfg.Stop == StopMean
	met := func(emean, emax float64) bool {
		if mean {
			return emean <= eta
		}
		return emax <= eta
	}
	h := float32(dt)
	s.pressureAccelPredict(s.pres, h, !s.Cfg.WarmStart) // v*, x* from the non-pressure forces and the pressures the step starts with
	emean, emax := s.predictDensity(k)
	it := 0
	for (!met(emean, emax) || it < int(s.Cfg.MinIterations)) && it < int(s.Cfg.MaxIterations) {
		s.pres, s.pnxt = s.pnxt, s.pres // p_i += δ ρ*_err,i (eq. 3.9), computed by predictDensity
		s.pressureAccelPredict(s.pres, h, false)
		emean, emax = s.predictDensity(k)
		it++
	}
	s.timer.Mark("pressure")
	s.iters = it
	s.itersMax = max(s.itersMax, it)
	s.etaMissed = !met(emean, emax)
	s.errMean, s.errMax = emean, emax // the last prediction's, which the step leaves
}

// sortByCell bins the positions and reorders the particles by (cell, id).
func (s *Solver) sortByCell() {
	s.grid.Build(s.x, s.id)
	s.sh.P.Permute(s.grid.Order)
}

// findNeighbors builds the neighbour lists once per step at x(t) (Algorithm 2, lines 2–4); the PCISPH loop
// reuses them at the predicted positions (§3.2.3, neighbourhood approximation).
func (s *Solver) findNeighbors() {
	s.nbr = grow.Resize(s.nbr, len(s.x)*s.dv.Stride) // a larger kernel radius takes longer lists
	s.clip = s.grid.Neighbors(s.x, s.dv.H, s.dv.Stride, s.nbr, s.ncount)
	s.off = grow.Resize(s.off, len(s.x)+1)
	o := int32(0)
	for i, c := range s.ncount[:len(s.x)] {
		s.off[i] = o
		o += c
	}
	s.off[len(s.x)] = o
}

func (s *Solver) neighbours(i int) []int32 {
	b := i * s.dv.Stride
	return s.nbr[b : b+int(s.ncount[i])]
}

// relDensity is r_i at position p from the neighbour list of i, positions pos: the number density
// V0 Σ_j W_ij + Φ_i (eq. 4.2) or the standard V0 Σ_j (ρ0_j/ρ0_i) W_ij + Φ_i (eq. 2.13). It also returns ∇Φ_i and,
// when hyd is not nil, sets it to the solids' M_i g.
func (s *Solver) relDensity(i int, p [4]float32, pos [][4]float32, standard bool, hyd *[4]float32) (r float32, b [4]float32) {
	dv := &s.dv
	h2 := dv.H * dv.H
	px, py, pz := p[0], p[1], p[2]
	nb := s.neighbours(i)
	// Σ_j (h² − r²)³ (times ρ0_j/ρ0_i), poly6's constant applied once
	var acc float32
	if s.sol.on && s.slot[i] >= 0 {
		acc = s.solidDensity(i, px, py, pz, pos, standard)
	} else if standard {
		inv := 1 / s.rho0[s.mat[i]]
		for _, j := range nb {
			q := &pos[j]
			rx, ry, rz := px-q[0], py-q[1], pz-q[2]
			if d := h2 - (rx*rx + ry*ry + rz*rz); d > 0 {
				acc += d * d * d * s.rho0[s.mat[j]] * inv
			}
		}
	} else {
		for _, j := range nb {
			q := &pos[j]
			rx, ry, rz := px-q[0], py-q[1], pz-q[2]
			if d := h2 - (rx*rx + ry*ry + rz*rz); d > 0 {
				acc += d * d * d
			}
		}
	}
	return s.withSolids(p, acc, hyd)
}

// withSolids is r_i from the neighbours' poly6 sum acc = Σ_j (h² − r²)³ at position p: V0 (W(0) + coef·acc) + Φ_i,
// the solids' density there. It also returns ∇Φ_i and, when hyd is not nil, sets it to the solids' M_i g.
func (s *Solver) withSolids(p [4]float32, acc float32, hyd *[4]float32) (r float32, b [4]float32) {
	dv := &s.dv
	sum := dv.W0 + dv.Poly6.Coef()*acc
	if s.reach.free(p) { // Φ_i, ∇Φ_i and M_i g are zero out of the solids' reach
		if hyd != nil {
			*hyd = [4]float32{}
		}
		return dv.V0 * sum, [4]float32{}
	}
	var phi, gx, gy, gz float32
	if hyd != nil {
		var gr, mg [3]float32
		phi, gr, mg = s.col.BoundaryMoment(&dv.Wall, &dv.Ghost, &dv.Edges, s.Cfg.Gravity, p[0], p[1], p[2])
		gx, gy, gz = gr[0], gr[1], gr[2]
		*hyd = [4]float32{mg[0], mg[1], mg[2], 0}
	} else {
		phi, gx, gy, gz = s.col.BoundaryExact(&dv.Wall, &dv.Edges, p[0], p[1], p[2])
	}
	phi, gx, gy, gz = s.bodyBoundary(p, phi, gx, gy, gz) // rigid bodies (bodies.go)
	return dv.V0*sum + phi, [4]float32{gx, gy, gz, phi}
}

// computeDensity evaluates the pair gradients, r_i, V_i and the solids' ∇Φ_i at x(t); for WCSPH also the Tait pressure (eq. 2.15 and
// 4.4 with ρ̃ for ρ), p_i = k ρ0_i/γ ((ρ_i/ρ0_i)^γ − 1), clamped at zero so the free surface does not pull.
func (s *Solver) computeDensity() {
	standard := s.Cfg.Density == DensityStandard
	wc := s.Cfg.Pressure == WCSPH
	k := s.Cfg.Stiffness / Gamma
	s.pairs = grow.Resize(s.pairs, int(s.off[len(s.x)]))
	solids := s.sol.on
	s.pool.For(len(s.x), 512, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var r float32
			var b [4]float32
			if standard || solids && s.slot[i] >= 0 {
				s.pairGradients(i)
				r, b = s.relDensity(i, s.x[i], s.x, standard, &s.hyd[i])
			} else {
				r, b = s.densityPairs(i, &s.hyd[i])
			}
			if solids {
				s.contact[i] = s.rigidContact(i)
			}
			s.r[i], s.bg[i] = r, b
			s.vol[i] = s.dv.V0 / max(r, 1e-3)
			if wc {
				p := float32(0)
				if r > 1 {
					r2 := r * r
					r7 := r2 * r2 * r2 * r
					p = k * s.rho0[s.mat[i]] * (r7 - 1)
				}
				s.pres[i] = p
			}
		}
	})
	if !wc && len(s.mats) > 1 {
		s.neighbourDensity()
	}
}

// neighbourDensity sets rbar_i, the rest density PCISPH's correction scales particle i's density error by
// (eq. 3.8: p̃_i = δ ρ*_err,i), for several fluids. δ (eq. 3.7) balances i's pressure against the displacement it
// gives i's neighbours, Δx_j = Δt² F_ji/m_j, and that displacement is m_i/m_j times larger for a light neighbour
// of a heavy particle: with ρ0_i in eq. 3.8 a heavy particle at an interface of 1:10 throws its light neighbours
// ten times too far and the correction diverges. Redoing eq. 3.7's sum with each neighbour's own mass,
// Σ_j |∇W_ij|²/m_j, gives p̃_i = δ ρ̄_i e_i with ρ̄_i = Σ_j |∇W_ij|² / Σ_j (|∇W_ij|²/ρ0_j): the |∇W|²-weighted
// harmonic mean of the neighbours' rest densities, ρ0 inside one fluid.
func (s *Solver) neighbourDensity() {
	s.pool.For(len(s.x), 512, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pi := s.x[i]
			var num, den float32
			for _, e := range s.pairs[s.off[i]:s.off[i+1]] { // |∇W_ij| = g r at x(t) (pairGradients)
				j := e.j
				rx, ry, rz := pi[0]-s.x[j][0], pi[1]-s.x[j][1], pi[2]-s.x[j][2]
				g := e.g
				w := g * g * (rx*rx + ry*ry + rz*rz)
				num += w
				den += w / s.rho0[s.mat[j]]
			}
			if den > 0 {
				s.rbar[i] = num / den
			} else {
				s.rbar[i] = s.rho0[s.mat[i]]
			}
		}
	})
}

// tensionOn says whether the interface tension has anything to do: a coefficient and more than one fluid.
func (s *Solver) tensionOn() bool { return s.Cfg.Tension > 0 && len(s.mats) > 1 }

// nonPressure sets anp_i to gravity plus the adapted viscosity (eq. 4.13) and the interface tension (eq. 4.14),
// divided by the mass.
func (s *Solver) nonPressure() {
	if s.tensionOn() {
		s.colourField()
	}
	dv := &s.dv
	h2 := dv.H * dv.H
	g := s.Cfg.Gravity
	theta := s.Cfg.Tension
	tension := s.tensionOn()
	solids := s.sol.on
	heat := solids && s.sol.diffuse
	// the slices the neighbour loop reads, in locals: through s the compiler reloads them at every neighbour
	x, v, vol, mu, mat, pairs, off := s.x, s.v, s.vol, s.mu, s.mat, s.pairs, s.off
	s.pool.For(len(s.x), 512, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pi, vi, Vi := x[i], v[i], vol[i]
			mi := mat[i]
			mui := mu[mi]
			rb := int32(-1)
			var ti, di, rate float32
			if solids { // each particle's own viscosity (solids.go), none inside a rigid cluster
				mui, rb = s.visc[i], s.rbody[i]
				ti, di = s.temp[i], s.sol.mats[mi].diff
			}
			ni := s.nrm[i]
			var fx, fy, fz, div, wsum float32
			for _, e := range pairs[off[i]:off[i+1]] {
				j := e.j
				xj := &x[j]
				rx, ry, rz := pi[0]-xj[0], pi[1]-xj[1], pi[2]-xj[2]
				r2 := rx*rx + ry*ry + rz*rz
				if r2 >= h2 {
					continue
				}
				d := sqrt32(r2)
				Vj := vol[j]
				muj := mu[mat[j]]
				if solids {
					if heat { // eq. 5.12: c_ij V_j (T_j − T_i) ∇²W_ij (solids.go, heat)
						rate += 0.5 * (di + s.sol.mats[s.mat[j]].diff) * Vj * (s.temp[j] - ti) * dv.Visc.Laplacian(d)
					}
					if rb >= 0 && s.rbody[j] == rb {
						continue
					}
					muj = s.visc[j]
				}
				// eq. 4.13: (1/δ_i) Σ_j (μ_i + μ_j)/2 (1/δ_j)(v_j − v_i) ∇²W_ij, with 1/δ = V
				c := 0.5 * (mui + muj) * Vi * Vj * dv.Visc.Laplacian(d)
				vj := &v[j]
				fx += c * (vj[0] - vi[0])
				fy += c * (vj[1] - vi[1])
				fz += c * (vj[2] - vi[2])
				if tension && ni[3] > 0 {
					// eq. 4.17: κ_i = −Σ_j V_j (n̂_j − n̂_i)·∇W_ij / Σ_j V_j W_ij
					gs := dv.Spiky.GradScale(d) * Vj
					nj := s.nrm[j]
					ux, uy, uz := unit(nj)
					vx, vy, vz := unit(ni)
					div += gs * ((ux-vx)*rx + (uy-vy)*ry + (uz-vz)*rz)
					wsum += Vj * dv.Poly6.W(r2)
				}
			}
			if solids {
				s.dtemp[i] = rate // dT_i/dt, applied at the step's end (solids.go, heat)
			}
			im := 1 / s.mass[mi]
			s.anp[i] = [4]float32{g[0] + fx*im, g[1] + fy*im, g[2] + fz*im, 0}
			if tension {
				s.tmp[i] = [4]float32{}
				if ni[3] > 0 {
					wsum += Vi * dv.W0
					kappa := -div / wsum
					// eq. 4.14: F = (1/δ_i) θ κ n, kept apart until balanceTension
					t := theta * kappa * Vi * im
					s.tmp[i] = [4]float32{t * ni[0], t * ni[1], t * ni[2], 0}
				}
			}
		}
	})
	if tension {
		s.balanceTension()
	}
}

// colourField computes the smoothed, normalised colour <c>_i (eq. 4.15; the colour of material k is k) and the
// interface normal n_i = Σ_j V_j (<c>_j − <c>_i) ∇W_ij (eq. 4.16). Normals shorter than 0.1/h are not on an
// interface: they are set to zero (w = 0), and those particles feel no tension.
func (s *Solver) colourField() {
	dv := &s.dv
	h2 := dv.H * dv.H
	s.pool.For(len(s.x), 512, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pi := s.x[i]
			num := s.vol[i] * dv.W0 * float32(s.mat[i])
			den := s.vol[i] * dv.W0
			for _, j := range s.neighbours(i) {
				rx, ry, rz := pi[0]-s.x[j][0], pi[1]-s.x[j][1], pi[2]-s.x[j][2]
				r2 := rx*rx + ry*ry + rz*rz
				if r2 >= h2 {
					continue
				}
				w := s.vol[j] * dv.Poly6.W(r2)
				num += w * float32(s.mat[j])
				den += w
			}
			s.col_[i] = num / den
		}
	})
	eps := 0.1 / dv.H
	s.pool.For(len(s.x), 512, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pi, ci := s.x[i], s.col_[i]
			var nx, ny, nz float32
			for _, j := range s.neighbours(i) {
				rx, ry, rz := pi[0]-s.x[j][0], pi[1]-s.x[j][1], pi[2]-s.x[j][2]
				r2 := rx*rx + ry*ry + rz*rz
				if r2 >= h2 {
					continue
				}
				g := s.vol[j] * (s.col_[j] - ci) * dv.Spiky.GradScale(sqrt32(r2))
				nx += g * rx
				ny += g * ry
				nz += g * rz
			}
			l := sqrt32(nx*nx + ny*ny + nz*nz)
			if l < eps {
				s.nrm[i] = [4]float32{}
				continue
			}
			s.nrm[i] = [4]float32{nx, ny, nz, l}
		}
	})
}

// balanceTension removes the net force of the interface tension. Eq. 4.14 is a force per particle, not a sum of
// pair forces, and its sum over a closed interface, θ ∮ κ n dA, is zero only in the continuum: discretely a blob
// would push itself along. The net force is taken back from the interface particles in proportion to their mass,
// so the tension conserves momentum to rounding (the sum runs in particle order, so it is deterministic).
func (s *Solver) balanceTension() {
	var fx, fy, fz, m float64
	for i := range s.x {
		if s.nrm[i][3] == 0 {
			continue
		}
		mi := float64(s.mass[s.mat[i]])
		a := s.tmp[i]
		fx += mi * float64(a[0])
		fy += mi * float64(a[1])
		fz += mi * float64(a[2])
		m += mi
	}
	if m == 0 {
		return
	}
	ax, ay, az := float32(fx/m), float32(fy/m), float32(fz/m)
	for i := range s.x {
		if s.nrm[i][3] != 0 {
			a := s.tmp[i]
			s.anp[i][0] += a[0] - ax
			s.anp[i][1] += a[1] - ay
			s.anp[i][2] += a[2] - az
		}
	}
}

func unit(n [4]float32) (float32, float32, float32) {
	if n[3] == 0 {
		return 0, 0, 0
	}
	inv := 1 / n[3]
	return n[0] * inv, n[1] * inv, n[2] * inv
}

// pressureTerms writes the pressure force's factors, −A_i A_j (q_i + q_j) ∇W_ij for every form:
// Monaghan's with the number density (eq. 4.12), −(p_i/δ_i² + p_j/δ_j²): A = 1, q = p V²; with the standard
// density (eq. 2.18), −m_i m_j (p_i/ρ_i² + p_j/ρ_j²) with ρ = m/V: A = m, q = p V²/m²; Müller's (eq. 4.7),
// −V_i V_j (p_i + p_j)/2: A = V, q = p/2. pq_i is q_i; prec_i packs x_i with A_i q_i, so that the pressure loop
// reads one 16-byte record per neighbour (and A_j from pa only for the forms where A is not 1).
func (s *Solver) pressureTerms(pres []float32) (unit bool) {
	n := len(s.x)
	form := 0
	switch {
	case s.Cfg.PressureForm == FormMuller:
		form = 2
	case s.Cfg.Density == DensityStandard:
		form = 1
	}
	s.pool.For(n, 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p, V := pres[i], s.vol[i]
			var a, q float32
			switch form {
			case 0:
				a, q = 1, p*V*V
			case 1:
				m := s.mass[s.mat[i]]
				a, q = m, p*V*V/(m*m)
			default:
				a, q = V, 0.5*p
			}
			x := s.x[i]
			s.pa[i], s.pq[i], s.prec[i] = a, q, [4]float32{x[0], x[1], x[2], a * q}
		}
	})
	return form == 0
}

// pair is an entry of a particle's packed neighbour list (Solver.pairs): the neighbour j and the spiky gradient's
// scale g at x(t), ∇W_ij = g (x_i − x_j), 0 beyond h and between bonded particles. The pressure force is evaluated
// at x(t) in every PCISPH iteration, and only the pressures change; and the iterations read each particle's
// neighbours as one contiguous run of 8-byte entries instead of two strided lists of the neighbour grid's capacity.
type pair struct {
	j int32
	g float32
}

// pairGradients writes particle i's pairs. computeDensity calls it (or densityPairs, which also sums the density)
// for each particle beside its density.
func (s *Solver) pairGradients(i int) {
	dv := &s.dv
	h2 := dv.H * dv.H
	pi := s.x[i]
	nb := s.neighbours(i)
	ps := s.pairs[s.off[i]:s.off[i+1]]
	ps = ps[:len(nb)]
	for k, j := range nb {
		rx, ry, rz := pi[0]-s.x[j][0], pi[1]-s.x[j][1], pi[2]-s.x[j][2]
		r2 := rx*rx + ry*ry + rz*rz
		g := float32(0)
		if r2 < h2 {
			g = dv.Spiky.GradScale(sqrt32(r2))
		}
		ps[k] = pair{j: j, g: g}
	}
	if s.sol.on && s.slot[i] >= 0 { // no pressure between bonded particles (solids.go, bondMask)
		for k, b := range s.bonded[i*dv.Stride:][:len(nb)] {
			if b {
				ps[k].g = 0
			}
		}
	}
}

// densityPairs is pairGradients and relDensity at x(t) in one pass over the neighbours, for a particle of the
// number density that is no solid's: the same sums in the same order, each neighbour's position read once.
func (s *Solver) densityPairs(i int, hyd *[4]float32) (r float32, b [4]float32) {
	dv := &s.dv
	h2 := dv.H * dv.H
	sp := dv.Spiky
	x := s.x
	p := x[i]
	px, py, pz := p[0], p[1], p[2]
	nb := s.neighbours(i)
	ps := s.pairs[s.off[i]:s.off[i+1]]
	ps = ps[:len(nb)]
	var acc float32
	for k, j := range nb {
		q := &x[j]
		rx, ry, rz := px-q[0], py-q[1], pz-q[2]
		r2 := rx*rx + ry*ry + rz*rz
		g := float32(0)
		if r2 < h2 {
			g = sp.GradScale(sqrt32(r2))
		}
		ps[k] = pair{j: j, g: g}
		if d := h2 - r2; d > 0 {
			acc += d * d * d
		}
	}
	return s.withSolids(p, acc, hyd)
}

// pressureAccelPredict computes each particle's pressure acceleration at x(t) from the pressures pres (eq. 4.12 or
// 4.7; with the standard density eq. 2.18 or 2.17), plus the solids' mirrored push, and predicts v*_i = v_i +
// Δt(anp_i + ap_i), x*_i = x_i + Δt v*_i, projected out of the solids (Algorithm 2, lines 12–13 and 20–22). A
// projected particle's velocity is what the projection leaves, (x*_i − x_i)/Δt.
func (s *Solver) pressureAccelPredict(pres []float32, dt float32, zero bool) {
	dv := &s.dv
	muller := s.Cfg.PressureForm == FormMuller
	var mu sync.Mutex
	acc := 0.0
	invV0 := 1 / dv.V0
	// 1/(c ρ0 |g| h) without ρ0: the pressure the hydrostatic gradient builds over a kernel radius, twice that for
	// Müller's form, whose pressures are twice Monaghan's for the same force
	g := s.Cfg.Gravity
	ph := sqrt32(g[0]*g[0]+g[1]*g[1]+g[2]*g[2]) * dv.H
	if muller {
		ph *= 2
	}
	invPh := float32(0)
	if ph > 0 {
		invPh = 1 / ph
	}
	aLim := 0.5 * dv.Spacing / (dt * dt)
	total := 0
	unit := false
	if !zero {
		unit = s.pressureTerms(pres)
	}
	prec, pa, pq, pairs, off := s.prec, s.pa, s.pq, s.pairs, s.off
	mirror := s.sol.on && len(s.sol.clus) > 0
	contact := s.contact
	s.pool.For(len(s.x), 512, func(lo, hi int) {
		amax := float32(0)
		limited := 0
		for i := lo; i < hi; i++ {
			pi, p, Vi := s.x[i], pres[i], s.vol[i]
			mi := s.mass[s.mat[i]]
			var fx, fy, fz float32
			if !zero {
				// −A_i A_j (q_i + q_j) ∇W_ij (pressureTerms), with ∇W_ij's scale from the step's start (pairGradients)
				ps := pairs[off[i]:off[i+1]]
				qi := pq[i]
				if mirror && contact[i] {
					fx, fy, fz = s.mirroredPressure(i, ps)
				} else if unit {
					for _, e := range ps {
						r := &prec[e.j]
						g := e.g * (qi + r[3])
						fx -= g * (pi[0] - r[0])
						fy -= g * (pi[1] - r[1])
						fz -= g * (pi[2] - r[2])
					}
				} else {
					ai := pa[i]
					for _, e := range ps {
						r := &prec[e.j]
						g := e.g * ai * (pa[e.j]*qi + r[3])
						fx -= g * (pi[0] - r[0])
						fy -= g * (pi[1] - r[1])
						fz -= g * (pi[2] - r[2])
					}
				}
				// the solids as the fluid's own lattice carrying p_i: Σ_b V0 ∇W_ib = ∇Φ_i
				b := s.bg[i]
				var cb float32
				if muller {
					cb = Vi * p
				} else {
					cb = 2 * p * Vi * Vi / dv.V0
				}
				fx -= cb * b[0]
				fy -= cb * b[1]
				fz -= cb * b[2]
				// their ghosts' hydrostatic part (sim/solid, moment.go): +m_i (V_i/V0)² M_i g, scaled by
				// min(1, p_i/p_h) so that no ghost's pressure leaves [0, 2 p_i] (p_h: the hydrostatic pressure
				// across a kernel radius); a particle the water does not load gets no support it does not need
				if p > 0 {
					sc := min(1, p*invPh/s.rho0[s.mat[i]]) * mi * (Vi * invV0) * (Vi * invV0)
					hb := s.hyd[i]
					fx += sc * hb[0]
					fy += sc * hb[1]
					fz += sc * hb[2]
				}
			}
			im := 1 / mi
			a := [4]float32{fx * im, fy * im, fz * im, 0}
			if m2 := a[0]*a[0] + a[1]*a[1] + a[2]*a[2]; m2 > aLim*aLim {
				// no pressure moves a particle more than half a spacing in a step (see limited)
				f := aLim / sqrt32(m2)
				a = [4]float32{a[0] * f, a[1] * f, a[2] * f, 0}
				limited++
			}
			s.ap[i] = a
			an := s.anp[i]
			tx, ty, tz := an[0]+a[0], an[1]+a[1], an[2]+a[2]
			amax = max(amax, tx*tx+ty*ty+tz*tz)
			v := [4]float32{s.v[i][0] + dt*tx, s.v[i][1] + dt*ty, s.v[i][2] + dt*tz, 0}
			q := [4]float32{pi[0] + dt*v[0], pi[1] + dt*v[1], pi[2] + dt*v[2], 0}
			c := q
			if !s.reach.free(q) { // out of the solids' reach nothing projects the particle
				s.bodyApply(&c) // rigid bodies (bodies.go)
				s.col.Apply(&c)
			}
			if c != q {
				inv := 1 / dt
				v = [4]float32{(c[0] - pi[0]) * inv, (c[1] - pi[1]) * inv, (c[2] - pi[2]) * inv, 0}
			}
			s.xs[i], s.vs[i] = c, v
		}
		mu.Lock()
		acc = math.Max(acc, math.Sqrt(float64(amax)))
		total += limited
		mu.Unlock()
	})
	s.accMax = acc
	s.limited = total
	if s.sol.on {
		s.moveClusters(dt) // rigid clusters of particles (solids.go)
	}
	s.followBodies(pres, dt, zero) // rigid bodies (bodies.go): the prediction follows these pressures
}

// mirroredPressure is the pressure force −Σ_j A_i A_j (q_i + q_j) ∇W_ij on particle i from its pairs ps, where of a
// pair of a rigid cluster's particle and one of no cluster the rigid side carries max(q_rigid, q_other): the
// liquid's pressure mirrored onto the body, as Akinci et al. 2012 do for boundary particles. A rigid particle does
// not count such neighbours in its density (solidDensity), so its own pressure does not say how hard they press.
// The pair's terms stay equal and opposite. The same holds for the body's elastic neighbours (soft particles of a
// melting body, a jelly it lies on), whose correction is halved for it (rigidContact).
func (s *Solver) mirroredPressure(i int, ps []pair) (fx, fy, fz float32) {
	pi := s.x[i]
	ai, qi, ri := s.pa[i], s.pq[i], s.rbody[i] >= 0
	for _, e := range ps {
		r := &s.prec[e.j]
		qj := s.pq[e.j]
		sum := qi + qj
		if rj := s.rbody[e.j] >= 0; ri != rj {
			if ri {
				sum = max(qi, qj) + qj
			} else {
				sum = qi + max(qi, qj)
			}
		}
		g := e.g * ai * s.pa[e.j] * sum
		fx -= g * (pi[0] - r[0])
		fy -= g * (pi[1] - r[1])
		fz -= g * (pi[2] - r[2])
	}
	return fx, fy, fz
}

// rigidContact says, from particle i's pairs this step, whether its pressure force takes the mirrored pressure
// (contact: a pair of a rigid cluster's particle and one of no cluster). An elastic particle in contact gets half
// the PCISPH correction δ ρ0 e_i (predictDensity). The pair carries the elastic particle's
// pressure on both sides and the body hardly moves, while the particle's bonded neighbours, counted at their
// reference, do not respond as eq. 3.7 assumes a fluid's neighbours do: with the full gain a jelly particle squeezed
// under a rigid block swung between no pressure and twice what it needed, 12.7 % over-dense at worst (jelly-blocks).
func (s *Solver) rigidContact(i int) bool {
	if len(s.sol.clus) == 0 {
		return false
	}
	ri := s.rbody[i] >= 0
	for _, e := range s.pairs[s.off[i]:s.off[i+1]] {
		if e.g != 0 && (s.rbody[e.j] >= 0) != ri {
			return true
		}
	}
	return false
}

// predictDensity evaluates ρ*_i at the predicted positions with the step's neighbour lists (Algorithm 2, lines
// 16–17) and the next pressures p_i + δ ρ0_i e_i (eq. 3.8–3.9) into pnxt, clamped at zero; it returns the mean and
// the largest predicted density error max(ρ*/ρ0 − 1, 0) (densityError). The error in the pressure update may be
// negative: it lowers a pressure that overshot.
func (s *Solver) predictDensity(k float64) (mean, mx float64) {
	standard := s.Cfg.Density == DensityStandard
	kf := float32(k)
	multi := len(s.mats) > 1
	solids := s.sol.on
	h2 := s.dv.H * s.dv.H
	n := len(s.x)
	xs, pairs, off := s.xs, s.pairs, s.off
	s.errSum = grow.Resize(s.errSum, (n+errBlock-1)/errBlock)
	s.pool.For(len(s.errSum), 1, func(blo, bhi int) {
		for b := blo; b < bhi; b++ {
			lo, hi := b*errBlock, min(n, (b+1)*errBlock)
			for i := lo; i < hi; i++ {
				var r float32
				if standard || solids && s.slot[i] >= 0 {
					r, _ = s.relDensity(i, xs[i], xs, standard, nil)
				} else { // relDensity's number density, reading the packed pairs
					p := xs[i]
					px, py, pz := p[0], p[1], p[2]
					var acc float32
					for _, e := range pairs[off[i]:off[i+1]] {
						q := &xs[e.j]
						rx, ry, rz := px-q[0], py-q[1], pz-q[2]
						if d := h2 - (rx*rx + ry*ry + rz*rz); d > 0 {
							acc += d * d * d
						}
					}
					r, _ = s.withSolids(p, acc, nil)
				}
				s.rs[i] = r
				rho := s.rho0[s.mat[i]]
				if multi {
					rho = s.rbar[i]
				}
				g := kf
				if solids && s.contact[i] && s.rbody[i] < 0 && s.slot[i] >= 0 {
					g *= 0.5 // an elastic particle touching a rigid body (rigidContact)
				}
				s.pnxt[i] = max(0, s.pres[i]+g*rho*(r-1))
			}
			s.errSum[b] = blockError(s.rs[lo:hi])
		}
	})
	return s.errorOfBlocks(s.rs)
}

// errBlock is how many particles each partial sum of the density errors covers. It is fixed, not the worker pool's
// chunk, so that the mean is the same sum in the same order on any number of cores, and a run stops its PCISPH
// iterations at the same step wherever it runs.
const errBlock = 512

// blockError is Σ max(r_i − 1, 0) over a block of relative densities.
func blockError(r []float32) [2]float64 {
	sum, mx := 0.0, float32(0)
	for _, ri := range r {
		if e := ri - 1; e > 0 {
			sum += float64(e)
			mx = max(mx, e)
		}
	}
	return [2]float64{sum, float64(mx)}
}

// errorOfBlocks combines the blocks' sums (errSum, blockError) of the relative densities r into their mean over the
// particles and their largest.
func (s *Solver) errorOfBlocks(r []float32) (mean, mx float64) {
	sum := 0.0
	for _, b := range s.errSum {
		sum += b[0]
		mx = math.Max(mx, b[1])
	}
	return sum / float64(max(1, len(r))), mx
}

// densityError is the mean over the particles and the largest of the density error max(r_i − 1, 0), r_i = ρ_i/ρ0_i:
// the figures FigDensityErrMean and FigDensityErrMax, and, at the predicted positions, what PCISPH's stopping rule
// (sph.stop) compares with η. predictDensity sums the same blocks as it goes.
func (s *Solver) densityError(r []float32) (mean, mx float64) {
	n := len(r)
	s.errSum = grow.Resize(s.errSum, (n+errBlock-1)/errBlock)
	s.pool.For(len(s.errSum), 1, func(blo, bhi int) {
		for b := blo; b < bhi; b++ {
			s.errSum[b] = blockError(r[b*errBlock : min(n, (b+1)*errBlock)])
		}
	})
	return s.errorOfBlocks(r)
}

// reach is where the solids act this step: with no rigid bodies (bodies.go, which the collider does not know of),
// a position the collider calls Clear is out of reach of all of them. There the solids' density, its gradient and
// its moment are zero and the collision projection leaves the position as it is, so the PCISPH passes skip the
// solids' evaluation for most particles.
type reach struct {
	on  bool // no bodies: clear points are free
	col *solid.Collider
	h   float32 // the wall kernel's radius
}

// solidReach is the reach of the solids now (obstacles move with the scene and the paddle: each step asks anew).
func (s *Solver) solidReach() reach {
	return reach{on: len(s.bodies.List) == 0, col: &s.col, h: s.dv.Wall.H}
}

// free says whether p is out of the solids' reach.
func (r *reach) free(p [4]float32) bool {
	return r.on && r.col.Clear(r.h, p[0], p[1], p[2])
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }
