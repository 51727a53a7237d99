// Package voronoi is the mode voronoi: an incompressible liquid whose particles' velocities are made divergence
// free on the Voronoi diagram of the particles, clipped by the obstacles and by the free surface (Sin, Bargteil &
// Hodgins 2009, "A point-based method for animating incompressible flow").
//
// # A step
//
// Gravity is added to every particle's velocity (u*). Particles nearer than voronoi.min_gap to another are removed
// (§3.3). The Voronoi cells of all particles are built (sim/voronoi/cell, §3.1) and clipped against the free
// surface, the union of spheres of radius r around the particles, and then against the solids — the scene's
// obstacles at their place, the paddle and the rigid bodies (sim/voronoi/clip, §3.2; the paper clips the solids
// first: last, their facets stay whole, and the cell is still convex when it meets the spheres). A particle whose
// sphere meets no other particle's cell is ballistic (the paper: one whose cell lies entirely outside the liquid,
// which would drop the particles of a small blob). Liquid cells joined by Voronoi facets (not facets the clipping made) form the
// connected components, and every moving-least-squares neighbourhood is the k nearest particles of the particle's
// own component within a reach (§3.4).
//
// The projection (§3.3) solves the volume-weighted Poisson equation V∇²p = V∇·u* (eq. 4) on the clipped cells:
// the Laplacian from the normal gradient (p_j − p_i)/(|x_j − x_i| + ε) on each facet between two liquid cells
// (eq. 5) summed with the facets' areas (eq. 6), air facets holding p = 0 on the air side through
// (p_i − 0)/(2 (x_i − x_f)·n) (eq. 11), and obstacle facets and walls no gradient; the divergence from the
// velocity at each facet's centroid, a constant MLS fit (eq. 12) for liquid and air facets and the solid's own
// velocity for obstacle facets (eq. 7). The matrix is never assembled: each liquid cell keeps its neighbours'
// coefficients, made symmetric by averaging the two cells' measurements of their shared facet, and conjugate
// gradients with a Jacobi preconditioner run on them to voronoi.tolerance. p here is a velocity potential (the
// pressure times Δt/ρ), so u = u* − ∇p, the gradient a linear MLS fit of the pressures around the particle
// (eq. 8–10) with, by default (voronoi.gradient=ghosts), one more sample at p = 0 beyond the particle's air facets;
// a drop too small to fit takes its cell's divergence-theorem gradient. By default (voronoi.volume_correction) a
// second solve on the same cells then moves the particles (not their velocities) to give inner cells back their
// rest volume, which the collocated projection alone lets a splashing liquid lose.
//
// Advection (§3.4) moves each liquid particle through the constant MLS fit of its neighbourhood's velocities
// (eq. 12 with the quartic spline of eq. 13, distances normalised by the farthest neighbour) by the midpoint rule;
// a particle's stored velocity stays its own. Ballistic particles fly with their own velocity. A particle that
// ends in a solid is projected onto its surface and loses the velocity into it.
//
// Rigid bodies are clipped as obstacles moving with their velocities, and take back the pressure of the cells
// that touch them as force and torque (bodies.go), so they float or sink by their density.
package voronoi

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/machine"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
	"github.com/slosh/slosh/sim/voronoi/cell"
	"github.com/slosh/slosh/sim/voronoi/clip"
)

// The figures the solver reports in sim.Stats.Figures.
const (
	FigIterations = "solve iterations"
	FigResidual   = "solve residual"      // the largest |V∇·u| left after the solve, relative to the largest before
	FigDivergence = "divergence max"      // the largest |V∇·u|/V left after the solve (facet velocities), 1/s
	FigVolume     = "liquid volume"       // the clipped cells' total, L
	FigBallistic  = "ballistic"           // particles flying free
	FigComponents = "components"          // connected components of liquid
	FigRemoved    = "particles removed"   // by voronoi.min_gap this step
	FigTimeStep   = "time step"           // ms
	FigSolveMiss  = "solve not converged" // 1 when the solve stopped at voronoi.max_iterations
)

// advice is what a Voronoi user changes when a step fails.
const advice = "raise voronoi.substeps or voronoi.max_iterations, or lower voronoi.cfl or the gravity"

// Solver is the Voronoi solver. It is not safe for concurrent use.
type Solver struct {
	held   int64 // bytes the arrays were last sized for (machine.MemoryBudget)
	Cfg    Config
	params *param.Set
	sc     *scene.Scene
	pool   par.Pool

	spacing float64
	box     cell.Box

	// particle state, held by the shell's store (hands)
	x, v [][4]float32
	id   []uint32
	p    []float64 // the last solve's pressures (velocity potential, m²/s): where the next solve starts
	// material is each particle's material number (scene.Particle.Material): only coloured, one fluid; palette
	// the scene's materials' colours for Frame (sim.ScenePalette), nil when it names none
	material []uint8
	palette  [][3]float32
	time     float64
	step     int

	// per step
	diag         *cell.Diagram
	clp          *clip.Clipper
	madeD, madeR float64    // the spacing and surface radius the diagram and clipper were made for, m
	grid         *grid.Grid // the particles sorted by cell: by removeClose at a step's start, for the whole step
	gridH        float32
	near         []bool // removeClose's scratch
	proj         projection

	solids []solidAt // what the cells are clipped against this step (solids.go)
	sdfs   []clip.SDF

	frameSubsteps int
	dtLast        float64
	clamped       int // speeds real-time mode clamped at the end of the last step (clampSpeeds)
	removed       int
	timer         sim.Timer
	stats         sim.Stats

	// hands holds the particles, the budget and its notice, the tools and the emitters' streams (sim/shell);
	// paddleTrack the paddle's velocity (hands.go)
	hands shell.Shell
	paddleTrack
	bodies rigid.Bodies // rigid bodies (bodies.go)

	good shell.Saved // the state a failed step goes back to

	// tests' hooks inside a step: after gravity and the removal (u*), and after the projection before the advection
	afterGravity, beforeAdvect func()
}

// New returns a solver with the default configuration and no particles.
func New() *Solver {
	s := &Solver{Cfg: DefaultConfig(), params: param.NewSet()}
	s.Cfg.Register(s.params)
	s.hands.Mode = Name
	declare(&s.hands, &s.x, &s.v, &s.id, &s.p, &s.material, s.materialCount)
	return s
}

// declare binds a Voronoi run's particle slices to a shell: positions, velocities, ids, the pressures that
// warm-start the next solve and the materials, of which a run has count() (state). DecodeState and State.Encode
// declare slices of their own.
func declare(h *shell.Shell, x, v *[][4]float32, id *[]uint32, p *[]float64, mat *[]uint8, count func() int) {
	h.Bind(x, v, id)
	particles.Add(&h.P, p, particles.Spec[float64]{Name: "pressure", Role: particles.State, Check: checkPressure})
	h.Materials(mat, count)
}

// anyMaterial is the material count of a state read without a run: every byte (a run checks the state's
// materials against its scene's when it loads it).
func anyMaterial() int { return 1 << 8 }

// materialCount is how many material numbers a particle may carry: the scene's, or any before a reset.
func (s *Solver) materialCount() int {
	if s.sc == nil {
		return anyMaterial()
	}
	return s.sc.MaterialCount()
}

// maxStatePressure bounds a stored pressure (a velocity potential, m²/s): a speed of sim.MaxStateSpeed over the
// largest domain.
const maxStatePressure = 1e12

// checkPressure refuses a stored pressure no run reaches.
func checkPressure(p float64) error {
	if !(math.Abs(p) <= maxStatePressure) {
		return fmt.Errorf("%g m²/s; pressures are finite and within ±%g", p, float64(maxStatePressure))
	}
	return nil
}

// Name implements sim.Solver.
func (s *Solver) Name() string { return Name }

// Params implements sim.Solver.
func (s *Solver) Params() *param.Set { return s.params }

// Reset implements sim.Solver: the scene's fluid blocks at their spacing, each particle of its block's material
// (coloured only: voronoi simulates one fluid), its obstacles, bodies and emitters.
func (s *Solver) Reset(sc *scene.Scene) error {
	if err := sim.CheckExpected(sc, float64(s.Cfg.Spacing), int(s.Cfg.Particles), s.Cfg.Budget,
		func(_ float64, budget int) error { return s.checkMemory(budget) }); err != nil {
		return err // before the seconds that sampling a count the machine cannot hold would take
	}
	d, err := sc.ResolveSpacing(float64(s.Cfg.Spacing), int(s.Cfg.Particles))
	if err != nil {
		return err
	}
	ps, err := sc.Sample(d)
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		return fmt.Errorf("scene %q has no fluid particles at spacing %g m: the fluid blocks lie inside obstacles or outside the domain", sc.Name, d)
	}
	pos := make([][4]float32, len(ps))
	vel := make([][4]float32, len(ps))
	mat := make([]uint8, len(ps))
	for i, q := range ps {
		pos[i] = [4]float32{float32(q.Pos[0]), float32(q.Pos[1]), float32(q.Pos[2]), 0}
		vel[i] = [4]float32{float32(q.Vel[0]), float32(q.Vel[1]), float32(q.Vel[2]), 0}
		mat[i] = uint8(q.Material)
	}
	if err := s.resetParticles(sc, d, pos, vel, mat); err != nil {
		return err
	}
	return s.resetBodies(sc) // bodies.go
}

// ResetParticles starts from given particles (ids 0..n−1 in order, of material 0) in a scene's domain, with its
// obstacles and emitters but none of its bodies.
func (s *Solver) ResetParticles(sc *scene.Scene, spacing float64, pos, vel [][4]float32) error {
	return s.resetParticles(sc, spacing, pos, vel, nil)
}

// resetParticles is ResetParticles with each particle's material (nil: all 0).
func (s *Solver) resetParticles(sc *scene.Scene, spacing float64, pos, vel [][4]float32, mat []uint8) error {
	n := len(pos)
	if len(vel) != n || (mat != nil && len(mat) != n) {
		return fmt.Errorf("voronoi: %d positions, %d velocities and %d materials must be as many", n, len(vel), len(mat))
	}
	if n == 0 {
		return fmt.Errorf("voronoi: no particles")
	}
	if !(spacing > 0) || math.IsInf(spacing, 0) {
		return fmt.Errorf("voronoi: particle spacing %g must be positive", spacing)
	}
	budget := s.Cfg.ResolveBudget(n)
	if budget > scene.MaxParticles*2 {
		return fmt.Errorf("voronoi: a budget of %d particles is over the most a run may hold (%d)", budget, 2*scene.MaxParticles)
	}
	if err := s.checkMemory(budget); err != nil {
		return err
	}
	s.held = int64(budget) * BytesPerParticle
	s.sc, s.spacing = sc, spacing
	s.box = cell.Box{Min: [3]float64(sc.Domain.Min), Max: [3]float64(sc.Domain.Max)}
	if err := s.prepare(); err != nil {
		return err
	}
	s.hands.P.Reset(n) // ids 0..n−1, pressures 0, material 0
	copy(s.x, pos)
	copy(s.v, vel)
	copy(s.material, mat)
	s.palette = nil
	if len(sc.Materials) > 0 {
		s.palette = sim.ScenePalette(sc)
	}
	s.time, s.step = 0, 0
	s.resetHands(sc, budget)
	s.bodies.Clear()
	s.placeSolids(0) // solids.go
	s.stats = sim.Stats{Particles: n}
	s.frameSubsteps = 1
	s.save()
	return nil
}

// BytesPerParticle is what the solver holds per particle it may hold: each cell's facets before and after clipping
// (about 15 of each, with normals, areas, centroids and twins), the clipper's blocks, the MLS neighbourhoods, the
// projection's vectors and the particles' own arrays. Measured: 11.2 kB a particle between 50,000 and 200,000
// particles of the dam break (peak resident memory), rounded up.
const BytesPerParticle = 12 << 10

// checkMemory refuses a budget of particles whose arrays would not fit in the memory a simulation may take.
func (s *Solver) checkMemory(budget int) error {
	limit := machine.MemoryBudget(8<<30, s.held)
	if need := int64(budget) * BytesPerParticle; need > limit {
		return fmt.Errorf("voronoi: %d particles (the budget) need about %s of memory (%s each for their cells), more than the %s a simulation may take here: lower voronoi.particles or voronoi.budget",
			budget, machine.Bytes(need), machine.Bytes(BytesPerParticle), machine.Bytes(limit))
	}
	return nil
}

// prepare makes the diagram, the clipper and the neighbour grid for the spacing and the current radius.
func (s *Solver) prepare() error {
	d := s.spacing
	r := float64(s.Cfg.Radius) * d
	if s.diag == nil || s.madeR != r || s.madeD != d {
		diag, err := cell.New(cell.Options{Spacing: d, Reach: r, MaxParticles: min(2*scene.MaxParticles, cell.DefaultMaxParticles)})
		if err != nil {
			return fmt.Errorf("voronoi: %w", err)
		}
		c, err := clip.New(clip.Options{Spacing: d, Radius: r, RefineRel: refineRel})
		if err != nil {
			return fmt.Errorf("voronoi: %w", err)
		}
		s.diag, s.clp, s.madeD, s.madeR = diag, c, d, r
	}
	h := float32(float64(s.Cfg.Reach) * d)
	if s.grid == nil || s.gridH != h {
		lo := [3]float32{float32(s.box.Min[0]), float32(s.box.Min[1]), float32(s.box.Min[2])}
		hi := [3]float32{float32(s.box.Max[0]), float32(s.box.Max[1]), float32(s.box.Max[2])}
		g, err := grid.New(lo, hi, h)
		if err != nil {
			return fmt.Errorf("voronoi: the neighbour grid: %w", err)
		}
		s.grid, s.gridH = g, h
	}
	return nil
}

// Step implements sim.Solver.
func (s *Solver) Step(dt float64) error {
	if s.sc == nil {
		return fmt.Errorf("voronoi: Step before Reset")
	}
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("voronoi: time step %g must be positive", dt)
	}
	if err := s.prepare(); err != nil {
		return err
	}
	s.pour(dt) // hands.go: the emitters and the scene's blasts, before the step
	s.timer.Begin()
	s.dtLast = dt
	g := s.Cfg.Gravity
	for i := range s.v {
		s.v[i][0] += g[0] * float32(dt)
		s.v[i][1] += g[1] * float32(dt)
		s.v[i][2] += g[2] * float32(dt)
	}
	s.removed = s.removeClose()
	s.timer.Mark("remove")
	if s.afterGravity != nil {
		s.afterGravity()
	}
	s.placeSolids(s.time) // solids.go: the obstacles, the paddle and the bodies where they are at the step's start
	if err := s.diag.Build(s.x, s.box); err != nil {
		return s.fail(fmt.Errorf("voronoi: the diagram: %w", err))
	}
	s.timer.Mark("diagram")
	if err := s.clp.Clip(s.diag, s.x, s.sdfs); err != nil {
		return s.fail(fmt.Errorf("voronoi: clipping: %w", err))
	}
	s.timer.Mark("clipping")
	s.project()
	if s.beforeAdvect != nil {
		s.beforeAdvect()
	}
	s.advect(dt)
	s.stepBodies(dt) // bodies.go: the pressure on each body, then its step and contacts
	s.time += dt
	s.step++
	s.placeSolids(s.time) // the solids at the step's end
	s.collide()           // solids.go: particles that ended in a solid
	s.clampSpeeds(dt)

	s.timer.Mark("advection")
	return s.finish()
}

// clampSpeeds is real-time mode's clamp (sim.CFL) at the end of a step of dt: every particle, and every body's
// fastest surface point, no faster than voronoi.cfl spacings a step, so the diagram changes by no more than the
// CFL number allows in the next step either. Off, it reads nothing.
func (s *Solver) clampSpeeds(dt float64) {
	limit := s.Cfg.Step.SpeedLimit(s.spacing, dt)
	s.clamped = sim.ClampSpeeds(s.pool, s.v, limit) + s.bodies.ClampSpeeds(limit)
}

// fail restores the last good state after an error a step cannot go on from.
func (s *Solver) fail(err error) error {
	s.restore()
	return fmt.Errorf("%w; restored the state at t=%.3fs", err, s.time)
}

// BeginFrame implements sim.Solver: the frame's substeps from the velocity condition on the fastest particle and
// the speed gravity can give (sim.FrameSpeed).
func (s *Solver) BeginFrame(frameDt float64) int {
	v2, height := sim.MeasureReach(s.pool, s.x, s.v, s.Cfg.Gravity)
	v2 = s.bodies.Speed2(v2)
	n := s.Cfg.Step.Substeps(sim.FrameSpeed(v2, height, s.Cfg.Gravity, frameDt), s.spacing, frameDt)
	s.frameSubsteps = n
	return n
}

// finish gathers the statistics and checks for non-finite state; on failure it restores the last good state.
func (s *Solver) finish() error {
	st := &s.stats
	st.Particles, st.Steps, st.Time = len(s.x), s.step, s.time
	st.Passes, st.StepMs = s.timer.Passes()
	bad, fast := 0, 0
	vmax2 := 0.0
	limit := float64(max(1, s.Cfg.Step.Number)) * s.spacing * sim.MaxSubsteps / sim.FrameDt
	for i := range s.x {
		x, v := s.x[i], s.v[i]
		if !finite(x[0]) || !finite(x[1]) || !finite(x[2]) || !finite(v[0]) || !finite(v[1]) || !finite(v[2]) {
			bad++
			continue
		}
		v2 := float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		if v2 > limit*limit {
			fast++
		}
		vmax2 = math.Max(vmax2, v2)
	}
	bad += s.bodies.Bad()
	st.MaxSpeed = math.Sqrt(vmax2)
	st.Substeps = s.frameSubsteps
	pr := &s.proj
	figs := append(st.Figures[:0],
		sim.Figure{Name: FigIterations, Value: float64(pr.iters), Plot: true, Warn: pr.missed},
		sim.Figure{Name: FigResidual, Value: pr.residual, Warn: pr.missed},
		sim.Figure{Name: FigDivergence, Value: pr.divMax, Unit: "1/s"},
		sim.Figure{Name: FigVolume, Value: 1000 * pr.volume, Unit: "L"},
		sim.Figure{Name: FigComponents, Value: float64(pr.components)},
		sim.Figure{Name: FigBallistic, Value: float64(pr.ballistic)},
		sim.Figure{Name: FigTimeStep, Value: 1000 * s.dtLast, Unit: "ms"},
	)
	// a few removals are the method's (§3.3); many in one step are water pressed together by a solid or the walls
	squeezed := s.removed > max(8, len(s.x)/100)
	if s.removed > 0 {
		figs = append(figs, sim.Figure{Name: FigRemoved, Value: float64(s.removed), Warn: squeezed})
	}
	if pr.missed {
		figs = append(figs, sim.Figure{Name: FigSolveMiss, Value: 1, Warn: true})
	}
	figs = s.Cfg.Step.AppendFigures(figs, s.clamped)
	st.Figures = figs
	if squeezed {
		s.hands.Note(fmt.Sprintf("%d particles were removed, pressed closer than voronoi.min_gap by a solid (the paddle, a body) or the walls", s.removed))
	}
	if pr.missed {
		s.hands.Note(fmt.Sprintf("the solve stopped at voronoi.max_iterations with a residual of %.2g", pr.residual))
	}
	st.Notice = s.hands.TakeNotice()
	if bad > 0 || fast > 0 {
		failed := s.step
		s.restore()
		e := &sim.NonFiniteError{Mode: Name, Step: failed, Count: bad, Restored: s.time, Advice: advice}
		if bad == 0 {
			e.Count, e.Speed = fast, limit
		}
		return e
	}
	if shell.Due(s.step) {
		s.save()
	}
	return nil
}

func finite(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

// save keeps the state as the last good one; restore goes back to it.
func (s *Solver) save() {
	s.hands.Keep(&s.good, s.header())
	s.bodies.Keep()
}

func (s *Solver) restore() {
	s.setState(&s.good)
	s.bodies.Restore()
}

// header is the state's besides its particles and bodies.
func (s *Solver) header() shell.Header {
	return shell.Header{Spacing: s.spacing, Time: s.time, Steps: s.step}
}

// setState sets the particles, the emitters' streams, the time and the steps from a consistent state (the last
// good one, or a checked one); the cells are gone until the next step.
func (s *Solver) setState(st *shell.Saved) {
	if err := s.hands.Restore(st); err != nil {
		panic("voronoi: " + err.Error()) // a state this solver's columns did not make
	}
	s.time, s.step = st.Time, st.Steps
	s.proj.state = s.proj.state[:0]
	s.stats.Particles, s.stats.Steps, s.stats.Time = len(s.x), s.step, s.time
}

// Frame implements sim.Solver. Rho is 1 for liquid particles and 0 for ballistic ones (the spray).
func (s *Solver) Frame(dst *sim.Frame) {
	dst.Resize(len(s.x))
	copy(dst.Pos, s.x)
	copy(dst.Vel, s.v)
	copy(dst.ID, s.id)
	st := s.proj.state
	for i := range dst.Rho {
		dst.Rho[i] = 1
		if i < len(st) && st[i] == clip.Ballistic {
			dst.Rho[i] = 0
		}
	}
	dst.Body = nil
	dst.Bodies = s.bodies.Frame(dst.Bodies)
	if s.palette != nil { // the scene names materials: each particle's, and their colours
		dst.Material = append(dst.Material[:0], s.material...)
		dst.Palette = append(dst.Palette[:0], s.palette...)
	} else {
		dst.Material, dst.Palette = nil, nil
	}
	dst.Radius = float32(0.5 * s.spacing)
	dst.Time, dst.Steps = s.time, s.step
}

// Stats implements sim.Solver.
func (s *Solver) Stats() sim.Stats { return s.stats.Clone() }

// refineRel is the free-surface clip's mesh size in surface radii (clip.Options.RefineRel): the clipped volume's
// error goes as its square (about 1 % of a small blob at 0.5 against 0.5 % at the package's 0.3), and the clipping's
// time with its inverse square; at 0.3 the clipping was the step's largest stage.
const refineRel = 0.5
