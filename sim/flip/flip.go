// Package flip is mass-full FLIP with unilateral incompressibility and blurred obstacles (Gerszewski's
// dissertation, papers/000 ch. 3), with classic incompressible FLIP as the baseline of §3.4 behind one parameter.
//
// A step (§3.2): particles are sorted by cell and rasterise their mass and momentum to the faces of a MAC grid and
// their mass to its cells with the trilinear stencil (raster.go); the solids — walls, obstacles, moving obstacles,
// the paddle and rigid bodies — are rasterised with the same stencil into ρ_max per cell and volume fractions per
// face (solids.go, §3.3); the density-correction LCP moves particles out of over-full cells and corrects the
// densities; gravity; the unilateral velocity LCP by MPRGP with MIC(0) (project.go, §3.1; sim/pressure) with the
// bodies coupled into it (bodies.go); velocity extrapolation by sweeps (§3.2.2); the PIC/FLIP blend back to the
// particles (§3.2.3); trapezoidal advection with the particles kept out of the solids (advect.go, §3.2.4).
//
// The classic mode (flip.pressure = classic) runs the same step with cells labelled liquid when they hold a
// particle, sharp (half-covered) solids, no density term and no bounds: a Poisson equation by MIC(0)-preconditioned
// conjugate gradients.
package flip

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/internal/machine"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/blast"
	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/pressure"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
)

// The figures the mode reports.
const (
	FigIterations     = "pressure iterations"
	FigResidual       = "pressure residual"
	FigCorrIterations = "correction iterations"
	FigCorrResidual   = "correction residual"
	FigOverfull       = "over ρ_max"          // %, the fullest cell over its ρ_max after the correction
	FigLiquidCells    = "cells in solve"      // cells in the pressure system
	FigUnconverged    = "solve stopped early" // the solve hit flip.max_iterations (only when it did)
	FigSandCells      = "sand cells"          // cells at least half sand (scenes with sand)
	FigRigidCells     = "rigid sand cells"    // sand cells that held (§3.2)
	FigRigidGroups    = "rigid groups"        // connected groups of them, each moved rigidly
)

const advice = "lower flip.cfl or raise flip.substeps, or raise flip.max_iterations"

// Solver is the FLIP solver. It is not safe for concurrent use.
type Solver struct {
	held   int64 // bytes the arrays were last sized for (machine.MemoryBudget)
	Cfg    Config
	params *param.Set
	sc     *scene.Scene
	pool   par.Pool

	g       macGrid
	spacing float64 // particle spacing h/2
	mass    float64 // every particle's mass
	margin  float64 // how far off a solid's surface advection leaves a particle
	domLo   [3]float64
	domHi   [3]float64
	static  []scene.Shape // the obstacles without a motion

	// sh is the particles (x, v and id, sorted by cell after each step, their materials and sepOff) and the
	// hands: the budget, the tools, the emitters and the notice.
	sh       shell.Shell
	x, v     [][4]float32
	id       []uint32
	material []uint8      // each particle's material number (scene.Particle.Material): only coloured, one fluid
	sepOff   [][4]float32 // the separation's offsets (separate.go), scratch

	palette [][3]float32  // the scene's materials' colours for Frame (sim.ScenePalette); nil when it names none
	phases  []scene.Phase // each material number's phase (the scene's); nil when the scene has no sand
	grains  []bool        // each material number: granular (sand.go)
	sand    sandFields

	// scratch for the sort
	cellIdx, start, tmpI, perm []int32

	// grid fields
	cellMass, rhoC, rhoMax, drho []float64
	sys                          []bool
	faceMass, u, uOld, du, rhoF  [3][]float64
	wf, delta                    [3][]float64
	mark, mark2                  [3][]uint8
	sol                          solids

	// the solves
	mat     pressure.Matrix
	ps      pressure.Solver
	p, y    []float64 // the pressure and the correction's pseudo-pressure
	b, w    []float64
	rowOf   []int32
	bodies  []body
	last    lastSolve
	figures []sim.Figure

	// the paddle
	paddleAt  [3]float32 // where the paddle was at the last step
	hadPaddle bool
	paddleVel [3]float64
	haveRho   bool // rhoC holds a step's densities (not yet after a reset or a load)

	time          float64
	steps         int
	frameSubsteps int
	clamped       int // speeds real-time mode clamped in the last step (clampSpeeds, clampBodies)
	timer         sim.Timer
	stats         sim.Stats

	good State // the last good state (shell.Due), restored after a non-finite step
}

type lastSolve struct {
	pressure, correction pressure.Result
	overfull             float64
	cells                int
}

// New returns a solver with the default configuration and no particles.
func New() *Solver {
	s := &Solver{Cfg: DefaultConfig(), params: param.NewSet()}
	s.Cfg.Register(s.params)
	s.sh.Mode = Name
	s.sh.Bind(&s.x, &s.v, &s.id)
	s.sh.Materials(&s.material, s.materialCount)
	particles.Add(&s.sh.P, &s.sepOff, particles.Spec[[4]float32]{Name: "separation offset", Role: particles.Scratch})
	return s
}

// materialCount is how many material numbers a particle may carry: the scene's, or any before a reset (a state
// decoded without a run).
func (s *Solver) materialCount() int {
	if s.sc == nil {
		return 1 << 8
	}
	return s.sc.MaterialCount()
}

// Kinds implements sim.Kinds: flip simulates liquids and sand.
func (s *Solver) Kinds() []scene.Kind { return []scene.Kind{scene.KindLiquid, scene.KindGranular} }

// setMaterials fills the material tables of a scene: each material number's phase and whether it is sand.
func (s *Solver) setMaterials(sc *scene.Scene) {
	n := sc.MaterialCount()
	s.grains = grow.Resize(s.grains, n)
	s.phases = nil
	for k := range n {
		s.grains[k] = sc.PhaseOf(k) == scene.PhaseGranular
		if s.grains[k] {
			s.phases = make([]scene.Phase, n)
		}
	}
	if s.phases != nil {
		for k := range n {
			s.phases[k] = sc.PhaseOf(k)
		}
	}
}

// Name implements sim.Solver.
func (s *Solver) Name() string { return Name }

// Params implements sim.Solver.
func (s *Solver) Params() *param.Set { return s.params }

// bytesPerParticle: positions, velocities, ids, materials, their sort copies and the cell index.
const bytesPerParticle = 2*(16+16+4+1) + 4

// bytesPerCell: about 30 float64 fields over cells and faces, the occupancy lattice (8 samples a cell, two
// copies) and the solver's vectors.
const bytesPerCell = 30*8 + 8*2*4 + 12*8

// LeastBytesPerParticle is the least the solver holds per particle: the particle's arrays and its share of the
// cells it fills (eight particles a full cell; the domain has at least as many).
const LeastBytesPerParticle = bytesPerParticle + bytesPerCell/8

// bytesPerSandCell: the sand's fields (sand.go) when the scene has sand: four float64 face fields, the group marks
// and contacts, three float64 cell fields, two symmetric tensors, flags, and the groups' face list.
const bytesPerSandCell = 4*3*8 + 3*4 + 3 + 3*8 + 2*6*8 + 1 + 4 + 3*40

// memoryNeed is what the solver's arrays take for budget particles on a grid of n cells, with the sand's fields
// when sand is true.
func memoryNeed(budget int, n [3]int, sand bool) int64 {
	cells := int64(n[0]+1) * int64(n[1]+1) * int64(n[2]+1)
	per := int64(bytesPerCell)
	if sand {
		per += bytesPerSandCell
	}
	return int64(budget)*bytesPerParticle + cells*per
}

// checkMemory refuses a run that would not fit in the memory slosh lets a simulation take.
func checkMemory(budget int, n [3]int, sand bool, limit int64) error {
	if need := memoryNeed(budget, n, sand); need > limit {
		return fmt.Errorf("flip: %d particles (the budget) on a %d×%d×%d grid need about %s of memory; slosh lets a simulation take %s on this machine: raise flip.cell or lower flip.particles or flip.budget",
			budget, n[0], n[1], n[2], machine.Bytes(need), machine.Bytes(limit))
	}
	return nil
}

// Reset implements sim.Solver: the scene's fluid blocks seeded 2×2×2 per cell with jitter, each particle of its
// block's material (coloured only: flip simulates one fluid), and its rigid bodies.
func (s *Solver) Reset(sc *scene.Scene) error {
	if err := s.expect(sc); err != nil {
		return err
	}
	h, err := ResolveCell(&s.Cfg, sc)
	if err != nil {
		return err
	}
	if _, err := gridSize(sc.Domain, h); err != nil {
		return err
	}
	d := h / 2
	ps, err := sc.Sample(d)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		return fmt.Errorf("scene %q has no fluid particles at a cell size of %g m: the fluid blocks lie inside obstacles or outside the domain", sc.Name, h)
	}
	// the jitter: a fixed sequence, so every reset of a scene seeds the same particles
	rng := rand.New(rand.NewPCG(0x5eed, uint64(len(ps))))
	j := float64(s.Cfg.Jitter) * d
	pos := make([][4]float32, len(ps))
	vel := make([][4]float32, len(ps))
	mat := make([]uint8, len(ps))
	for i, q := range ps {
		mat[i] = uint8(q.Material)
		var p [3]float64
		for a := 0; a < 3; a++ {
			p[a] = q.Pos[a] + j*(rng.Float64()-0.5)
		}
		pos[i] = [4]float32{float32(p[0]), float32(p[1]), float32(p[2]), 0}
		vel[i] = [4]float32{float32(q.Vel[0]), float32(q.Vel[1]), float32(q.Vel[2]), 0}
	}
	var bodies []body
	for i := range sc.Bodies {
		b, err := newBody(sc.Bodies[i], h)
		if err != nil {
			return fmt.Errorf("scene %q body %d: %w", sc.Name, i, err)
		}
		bodies = append(bodies, b)
	}
	if err := s.setup(sc, h, len(pos)); err != nil {
		return err
	}
	// fluid where a body lands is displaced, as the other modes do
	keep := pos[:0]
	kv := vel[:0]
	km := mat[:0]
	for i := range pos {
		in := false
		for k := range bodies {
			if bodies[k].Spec.Shape.Distance(scene.Vec3{float64(pos[i][0]), float64(pos[i][1]), float64(pos[i][2])}) < 0.5*d {
				in = true
				break
			}
		}
		if !in {
			keep = append(keep, pos[i])
			kv = append(kv, vel[i])
			km = append(km, mat[i])
		}
	}
	s.sh.P.Reset(len(keep))
	copy(s.x, keep)
	copy(s.v, kv)
	copy(s.material, km)
	s.palette = nil
	if len(sc.Materials) > 0 {
		s.palette = sim.ScenePalette(sc)
	}
	s.setMaterials(sc)
	s.sizeSand(sc)
	s.bodies = bodies
	s.save()
	return nil
}

// expect refuses, before anything is sampled, a reset whose grid or particles would not fit in memory, estimated
// from the scene (scene.Expect) at the cell size ResolveCell will choose.
func (s *Solver) expect(sc *scene.Scene) error {
	spacing := 0.0 // a cell size given without a count: two particle spacings a cell
	if s.Cfg.Particles <= 0 && s.Cfg.Spacing > 0 {
		spacing = float64(s.Cfg.Spacing) / 2
	}
	return sim.CheckExpected(sc, spacing, int(s.Cfg.Particles), s.Cfg.Budget, func(d float64, budget int) error {
		dims, err := gridSize(sc.Domain, 2*d)
		if err != nil {
			return err
		}
		return checkMemory(budget, dims, sc.FirstGranular() > 0, machine.MemoryBudget(8<<30, s.held))
	})
}

// setup sizes the grid and everything on it for a scene at cell size h with n particles, and clears the state
// that is not the particles'.
func (s *Solver) setup(sc *scene.Scene, h float64, n int) error {
	lo := [3]float64(sc.Domain.Min)
	dims, err := gridSize(sc.Domain, h)
	if err != nil {
		return err
	}
	budget := s.Cfg.ResolveBudget(n)
	sand := sc.FirstGranular() > 0
	if err := checkMemory(budget, dims, sand, machine.MemoryBudget(8<<30, s.held)); err != nil {
		return err
	}
	s.held = memoryNeed(budget, dims, sand)
	s.sh.Reset(sc, budget)
	s.hadPaddle = false
	s.sc = sc
	s.g = newMACGrid(lo, dims, h)
	s.spacing = h / 2
	s.mass = float64(s.Cfg.Density) * s.spacing * s.spacing * s.spacing
	s.margin = h / 4
	for a := 0; a < 3; a++ {
		s.domLo[a] = sc.Domain.Min[a] + s.margin
		s.domHi[a] = sc.Domain.Max[a] - s.margin
	}
	s.static = s.static[:0]
	for i := range sc.Obstacles {
		if sc.Obstacles[i].Motion == nil {
			s.static = append(s.static, sc.Obstacles[i].Shape)
		}
	}
	nc := s.g.cells()
	s.cellMass, s.rhoC, s.rhoMax = grow.Resize(s.cellMass, nc), grow.Resize(s.rhoC, nc), grow.Resize(s.rhoMax, nc)
	s.sys = grow.Resize(s.sys, nc)
	s.p, s.y, s.b, s.w = grow.Resize(s.p, nc), grow.Resize(s.y, nc), grow.Resize(s.b, nc), grow.Resize(s.w, nc)
	clear(s.p)
	clear(s.y)
	for a := 0; a < 3; a++ {
		d := s.g.dims(a)
		m := d[0] * d[1] * d[2]
		s.faceMass[a], s.u[a], s.uOld[a], s.du[a], s.rhoF[a] = grow.Resize(s.faceMass[a], m), grow.Resize(s.u[a], m), grow.Resize(s.uOld[a], m), grow.Resize(s.du[a], m), grow.Resize(s.rhoF[a], m)
		s.wf[a], s.delta[a] = grow.Resize(s.wf[a], m), grow.Resize(s.delta[a], m)
		s.mark[a], s.mark2[a] = grow.Resize(s.mark[a], m), grow.Resize(s.mark2[a], m)
		clear(s.delta[a])
	}
	s.rowOf = nil
	s.initSolids()
	s.ps = pressure.Solver{Pool: s.pool}
	s.time, s.steps = 0, 0
	s.stats = sim.Stats{Particles: n}
	s.last = lastSolve{}
	s.haveRho = false
	return nil
}

// BeginFrame implements sim.Solver: the frame's substeps from the CFL condition on the fastest particle or body
// (or the dam-break front speed of the liquid's height), in grid cells.
func (s *Solver) BeginFrame(frameDt float64) int {
	v2, height := sim.MeasureReach(s.pool, s.x, s.v, s.Cfg.Gravity)
	for i := range s.bodies {
		b := &s.bodies[i]
		v2 = math.Max(v2, b.V[0]*b.V[0]+b.V[1]*b.V[1]+b.V[2]*b.V[2])
	}
	s.frameSubsteps = s.Cfg.Step.Substeps(sim.FrameSpeed(v2, height, s.Cfg.Gravity, frameDt), s.g.h, frameDt)
	return s.frameSubsteps
}

// Step implements sim.Solver.
func (s *Solver) Step(dt float64) error {
	if s.sc == nil {
		return fmt.Errorf("flip: Step before Reset")
	}
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("flip: time step %g must be positive", dt)
	}
	uic := s.Cfg.Pressure == PressureUIC
	// the particles' mass follows ρ_f, as PBF's follows ρ0: the liquid moves the same at any density, and bodies
	// float by their density against it
	s.mass = float64(s.Cfg.Density) * s.spacing * s.spacing * s.spacing
	s.timer.Begin()
	s.emit(dt)
	if n := blast.Apply(s.pool, s.sc.Blasts, s.time, s.time+dt, s.x, s.v); n > 0 {
		s.sh.Note(fmt.Sprintf("a scene blast pushed %d particles", n))
	}
	s.sortParticles()
	s.rasterise()
	s.normalise()
	s.haveRho = true
	s.timer.Mark("rasterise")
	s.movePaddle(dt)
	s.predictBodies(dt)
	s.updateSolids(s.time)
	s.last.cells = s.classify()
	s.timer.Mark("solids")
	s.separate()
	s.timer.Mark("separate")
	for a := 0; a < 3; a++ {
		clear(s.delta[a])
	}
	s.last.correction, s.last.overfull = pressure.Result{}, 0
	if uic && s.Cfg.Correction {
		if err := s.correctDensity(); err != nil {
			return s.fail(err)
		}
		s.timer.Mark("correction")
	}
	s.gravity(dt)
	s.keepPreSolve()
	if err := s.project(dt); err != nil {
		return s.fail(err)
	}
	s.timer.Mark("solve")
	if err := s.sandStep(dt); err != nil {
		return s.fail(err)
	}
	s.extrapolate(s.sweeps())
	s.timer.Mark("extrapolate")
	s.transfer()
	s.clampSpeeds(dt)
	s.timer.Mark("transfer")
	s.moveBodies(dt) // first, so the particles are kept out of the bodies where they end the step
	s.clampBodies(dt)
	s.timer.Mark("bodies")
	s.advect(dt)
	s.timer.Mark("advect")
	s.time += dt
	s.steps++
	return s.finish()
}

// sweeps is the extrapolation's sweep count: flip.extrapolate, and at least a cell beyond the farthest the
// advection may carry a particle in a step (the CFL number's cells, up to flip.advect_substeps), so that no
// substep of a particle leaving the liquid reads a face the extrapolation did not reach.
func (s *Solver) sweeps() int {
	reach := min(math.Ceil(float64(s.Cfg.Step.Number)), float64(s.Cfg.Advect))
	return max(int(s.Cfg.Extrapolate), int(reach)+1)
}

// clampSpeeds is real-time mode's clamp (sim.CFL) on the particles' velocities after the transfer, the state the
// next step rasterises: none faster than flip.cfl cells a step. The grid is left as the solve made it: the
// advection needs its divergence-free velocity, a clamp on the faces would make the liquid gain or lose volume,
// and the next step's grid, rasterised from clamped particles (each face a weighted mean of their velocities),
// starts within the limit; the next projection removes the divergence the clamp leaves. Off, it reads nothing.
func (s *Solver) clampSpeeds(dt float64) {
	s.clamped = sim.ClampSpeeds(s.pool, s.v, s.Cfg.Step.SpeedLimit(s.g.h, dt))
}

// clampBodies clamps the bodies' speeds as clampSpeeds does the particles' (rigid.Solid.ClampSpeed: the fastest
// surface point), after their step; a dragged body moves at the hand's velocity.
func (s *Solver) clampBodies(dt float64) {
	limit := s.Cfg.Step.SpeedLimit(s.g.h, dt)
	if math.IsInf(limit, 1) {
		return
	}
	for i := range s.bodies {
		if b := &s.bodies[i]; b.ClampSpeed(limit, b.Reach()) {
			s.clamped++
		}
	}
}

// fail restores the last good state after a solve that met non-finite numbers.
func (s *Solver) fail(err error) error {
	step := s.steps + 1
	bad, _ := s.scan() // before the restore: the particles the step found (0 when only the grid was not finite)
	_ = s.load(&s.good)
	return &sim.NonFiniteError{Mode: Name, Step: step, Count: bad, Restored: s.time,
		Advice: advice + " (the pressure solve failed: " + err.Error() + ")"}
}

// gravity accelerates every face that is not a wall.
func (s *Solver) gravity(dt float64) {
	for a := 0; a < 3; a++ {
		g := dt * float64(s.Cfg.Gravity[a])
		u := s.u[a]
		s.pool.For(len(u), 8192, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				u[i] += g
			}
		})
		// no flow through the domain's walls
		d := s.g.dims(a)
		s.clearWalls(u, a, d)
	}
}

// clearWalls zeroes the faces of axis a on the domain's walls: the two planes of the face grid at the ends of a,
// visited alone rather than found among all the faces.
func (s *Solver) clearWalls(u []float64, a int, d [3]int) {
	b, c := (a+1)%3, (a+2)%3 // the plane's axes
	stride := [3]int{1, d[0], d[0] * d[1]}
	for _, end := range [2]int{0, d[a] - 1} {
		for y := 0; y < d[c]; y++ {
			for x := 0; x < d[b]; x++ {
				u[end*stride[a]+x*stride[b]+y*stride[c]] = 0
			}
		}
	}
}

// movePaddle finds the paddle's velocity from where it was at the last step.
func (s *Solver) movePaddle(dt float64) {
	p := s.sh.Tools.Paddle
	if p == nil {
		s.hadPaddle = false
		s.paddleVel = [3]float64{}
		return
	}
	if s.hadPaddle {
		for a := 0; a < 3; a++ {
			s.paddleVel[a] = float64(p.Center[a]-s.paddleAt[a]) / dt
		}
	} else {
		s.paddleVel = [3]float64{}
	}
	s.paddleAt, s.hadPaddle = p.Center, true
}

// finish checks the step's state, restores the last good one when it is not finite, and fills the Stats.
func (s *Solver) finish() error {
	bad, v2 := s.scan()
	if bad > 0 {
		step := s.steps
		_ = s.load(&s.good)
		return &sim.NonFiniteError{Mode: Name, Step: step, Count: bad, Restored: s.time, Advice: advice}
	}
	if shell.Due(s.steps) {
		s.save()
	}
	passes, total := s.timer.Passes()
	s.stats = sim.Stats{Particles: len(s.x), Steps: s.steps, Time: s.time, StepMs: total, Passes: passes,
		Substeps: s.frameSubsteps, MaxSpeed: math.Sqrt(v2), Notice: s.sh.TakeNotice()}
	s.figures = s.appendFigures(s.figures[:0])
	s.figures = s.Cfg.Step.AppendFigures(s.figures, s.clamped)
	s.stats.Figures = s.figures
	return nil
}

// appendFigures reports the solves.
func (s *Solver) appendFigures(dst []sim.Figure) []sim.Figure {
	l := &s.last
	dst = append(dst,
		sim.Figure{Name: FigIterations, Value: float64(l.pressure.Iterations), Plot: true},
		sim.Figure{Name: FigResidual, Value: l.pressure.Residual},
	)
	if s.Cfg.Pressure == PressureUIC && s.Cfg.Correction {
		dst = append(dst,
			sim.Figure{Name: FigCorrIterations, Value: float64(l.correction.Iterations), Plot: true},
			sim.Figure{Name: FigCorrResidual, Value: l.correction.Residual},
			sim.Figure{Name: FigOverfull, Value: 100 * l.overfull, Unit: "%"},
		)
	}
	dst = append(dst, sim.Figure{Name: FigLiquidCells, Value: float64(l.cells)})
	if sd := &s.sand; sd.on {
		dst = append(dst,
			sim.Figure{Name: FigSandCells, Value: float64(sd.last.cells)},
			sim.Figure{Name: FigRigidCells, Value: float64(sd.last.rigid), Plot: true},
			sim.Figure{Name: FigRigidGroups, Value: float64(sd.last.groups)},
		)
	}
	if l.cells > 0 && !l.pressure.Converged || s.Cfg.Correction && s.Cfg.Pressure == PressureUIC && l.cells > 0 && !l.correction.Converged {
		dst = append(dst, sim.Figure{Name: FigUnconverged, Value: 1, Warn: true})
	}
	return dst
}

// scan counts the particles and bodies whose state is not finite and finds the fastest finite particle's squared
// speed, in one pass (max is exact in any order).
func (s *Solver) scan() (int, float64) {
	var bad atomic.Int64
	var mu sync.Mutex
	var vmax2 float64
	s.pool.For(len(s.x), 8192, func(lo, hi int) {
		n, m := 0, 0.0
		for i := lo; i < hi; i++ {
			x, v := s.x[i], s.v[i]
			if !finite32(x[0]+x[1]+x[2]) || !finite32(v[0]+v[1]+v[2]) {
				n++
				continue
			}
			m = math.Max(m, float64(v[0])*float64(v[0])+float64(v[1])*float64(v[1])+float64(v[2])*float64(v[2]))
		}
		bad.Add(int64(n))
		mu.Lock()
		vmax2 = math.Max(vmax2, m)
		mu.Unlock()
	})
	n := int(bad.Load())
	for i := range s.bodies {
		b := &s.bodies[i]
		if !finite64(b.C[0] + b.C[1] + b.C[2] + b.V[0] + b.V[1] + b.V[2] + b.W[0] + b.W[1] + b.W[2] + b.Q[0] + b.Q[1] + b.Q[2] + b.Q[3]) {
			n++
		}
	}
	return n, vmax2
}

func finite32(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }
func finite64(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Frame implements sim.Solver.
func (s *Solver) Frame(dst *sim.Frame) {
	n := len(s.x)
	dst.Resize(n)
	copy(dst.Pos, s.x)
	copy(dst.Vel, s.v)
	copy(dst.ID, s.id)
	rf := float64(s.Cfg.Density)
	for i := range s.x {
		c := s.g.cellOf(s.g.gridCoords(s.x[i]))
		dst.Rho[i] = 1
		if s.haveRho && rf > 0 { // the cells' densities are the last step's
			dst.Rho[i] = float32(s.rhoC[c] / rf)
		}
	}
	dst.Body = nil
	if s.palette != nil { // the scene names materials: each particle's, and their colours
		dst.Material = append(dst.Material[:0], s.material...)
		dst.Palette = append(dst.Palette[:0], s.palette...)
	} else {
		dst.Material, dst.Palette = nil, nil
	}
	dst.Phase = dst.Phase[:0]
	if s.phases != nil { // sand is drawn, meshed and exported as grains
		for _, m := range s.material {
			dst.Phase = append(dst.Phase, s.phases[m])
		}
	} else {
		dst.Phase = nil
	}
	dst.Bodies = s.bodyStates(dst.Bodies)
	dst.Radius = float32(s.spacing / 2)
	dst.Time = s.time
	dst.Steps = s.steps
}

// Stats implements sim.Solver.
func (s *Solver) Stats() sim.Stats { return s.stats.Clone() }
