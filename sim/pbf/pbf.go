// Package pbf is Position Based Fluids on the CPU (Macklin & Müller 2013, papers/001): the reference the GPU
// solver (gpu/pbf) is tested against, and the fallback where compute shaders are missing.
//
// A step is Algorithm 1 of the paper: apply gravity and predict; find neighbours once on the predicted positions
// (uniform grid, particles reordered by (cell, id) for memory coherence); iterate the density constraint — λ with
// CFM relaxation (eq. 11), Δp with the artificial-pressure term s_corr (eq. 13–14), collision with the domain and
// the obstacles — then update velocities, add vorticity confinement (eq. 15–16) and XSPH viscosity (eq. 17).
//
// Positions and velocities are float32, as on the GPU, and every pass does its arithmetic in the order the GPU
// shaders do, so the two agree to float rounding.
package pbf

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/internal/machine"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
	"github.com/slosh/slosh/sim/solid"
)

// Name is the mode name of the CPU solver.
const Name = "pbf-cpu"

// Solver is the CPU PBF solver. It is not safe for concurrent use.
type Solver struct {
	held   int64 // bytes the arrays were last sized for (machine.MemoryBudget)
	Cfg    Config
	params *param.Set
	dv     Derived
	dvCfg  Config // the configuration dv was derived from
	col    solid.Collider
	grid   *grid.Grid
	sc     *scene.Scene
	pool   par.Pool

	// sh holds the particles (its store is bound to the per-particle arrays below and sizes, sorts, appends and
	// removes them all), the budget, the tools and the emitters (hands.go).
	sh shell.Shell

	// particle state, in sorted order after each step
	x, v, p []([4]float32) // positions, velocities, predicted positions x* (carried: it is sorted with them)
	id      []uint32
	mat     []uint8      // material number (scene.Particle.Material): its colour only, PBF simulates one fluid
	rho     []float32    // ρ/ρ0 at the end of the last step (scratch, 1 after a load or an edit)
	bgrad   [][4]float32 // ∇Φ_i of the solids at the iteration's positions (boundary.go)
	omega   [][4]float32 // vorticity ω (eq. 15)
	nbr     []int32      // neighbour lists, Stride per particle, laid out in blocks (grid.Slot)
	// pairG holds spiky's gradient scale of each pair in the neighbour lists, at the positions the last pass that
	// wrote it read: computeLambda's for applyDeltaP, computeVorticity's for confineAndSmooth, each of which reads the
	// same positions and so takes no square root or division a pair. Its layout is the lists' (grid.Slot).
	pairG  []float32
	ncount []int32
	tmp    [][4]float32 // scratch: positions packed with λ (computeLambda), then the new velocities
	vw     [][4]float32 // scratch: velocities packed with |ω| (computeVorticity)

	// rigid bodies (rigid.go); the per-particle arrays hold a fluid particle's values without bodies
	bodies []rigid.Body
	body   []int32      // −1 for fluid, else the particle's body
	rest   [][4]float32 // a body particle's offset from its body's centre in the rest frame
	wInv   []float32    // inverse mass relative to a fluid particle's
	slotOf []int32      // sorted slot of each particle id

	paddled bool // the obstacles include the paddle

	palette [][3]float32 // the scene's materials' colours for Frame (sim.ScenePalette); nil when it names none

	memo       SettleMemo
	settled    int     // the passes the last reset's settling took (settle.go)
	settleLast float64 // the largest displacement of its last pass, m

	time          float64
	steps         int
	frameSubsteps int // BeginFrame's choice for the current frame, for Stats
	timer         sim.Timer
	stats         sim.Stats
	clip          int
	clamped       int     // speeds real-time mode clamped at the end of the last step (clampSpeeds)
	scorrK        float32 // k of eq. 13 for this step: dv.ScorrKAbs · ScorrPerStep(Δt)

	good kept // last finite state, for recovery

	wide bool // the pair passes take 16 particles side by side (wide_simd.go); tests turn it off to compare
}

// New returns a solver with the default configuration and no particles.
func New() *Solver {
	s := &Solver{Cfg: DefaultConfig(), params: param.NewSet(), wide: wideCPU()}
	s.Cfg.Register(s.params)
	s.declare()
	return s
}

// declare binds the per-particle arrays to the shell's store: the state a file keeps (state.go), the predicted
// positions sorted with them, and the scratch each step recomputes.
func (s *Solver) declare() {
	declare(&s.sh, &s.x, &s.v, &s.id, &s.body, &s.rest, &s.wInv, &s.mat, s.materialCount)
	p := &s.sh.P
	particles.Add(p, &s.p, particles.Spec[[4]float32]{Name: "predicted position", Role: particles.Carried})
	particles.Add(p, &s.rho, particles.Spec[float32]{Name: "density", Role: particles.Scratch, Default: 1})
	particles.Add(p, &s.bgrad, particles.Spec[[4]float32]{Name: "boundary gradient", Role: particles.Scratch})
	particles.Add(p, &s.omega, particles.Spec[[4]float32]{Name: "vorticity", Role: particles.Scratch})
	particles.Add(p, &s.ncount, particles.Spec[int32]{Name: "neighbour count", Role: particles.Scratch})
	particles.Add(p, &s.tmp, particles.Spec[[4]float32]{Name: "double buffer", Role: particles.Scratch})
	particles.Add(p, &s.vw, particles.Spec[[4]float32]{Name: "velocity and vorticity", Role: particles.Scratch})
	particles.Add(p, &s.slotOf, particles.Spec[int32]{Name: "slot", Role: particles.Scratch})
}

// materialCount is how many material numbers a particle may carry: the scene's, or any a byte holds before a reset.
func (s *Solver) materialCount() int {
	if s.sc == nil {
		return anyMaterial
	}
	return s.sc.MaterialCount()
}

// Name implements sim.Solver.
func (s *Solver) Name() string { return Name }

// Params implements sim.Solver.
func (s *Solver) Params() *param.Set { return s.params }

// Derived returns the constants of the current step.
func (s *Solver) Derived() Derived { return s.dv }

// Sampled is a scene's particles as the PBF solvers start from them: the fluid's, ids 0..n−1 in order, and the
// rigid bodies'.
type Sampled struct {
	Spacing  float64 // the particle spacing the scene resolved to, m
	Pos, Vel [][4]float32
	// Material is each fluid particle's material number (scene.Particle.Material), for its colour; nil when the
	// scene names no materials (every particle is material 0).
	Material []uint8
	Bodies   []rigid.BodySpec
}

// Sample resolves the particle spacing for a scene under c and samples the scene's fluid blocks into positions,
// velocities and materials as the PBF solvers store them; a scene that yields no particles is an error.
func Sample(c *Config, sc *scene.Scene) (Sampled, error) {
	d, err := sc.ResolveSpacing(float64(c.Spacing), int(c.Particles))
	if err != nil {
		return Sampled{}, err
	}
	ps, err := sc.Sample(d)
	if err != nil {
		return Sampled{}, err
	}
	if len(ps) == 0 {
		return Sampled{}, fmt.Errorf("scene %q has no fluid particles at spacing %g m: the fluid blocks lie inside obstacles or outside the domain", sc.Name, d)
	}
	out := Sampled{Spacing: d, Pos: make([][4]float32, len(ps)), Vel: make([][4]float32, len(ps))}
	if len(sc.Materials) > 0 {
		out.Material = make([]uint8, len(ps))
	}
	for i, q := range ps {
		out.Pos[i] = [4]float32{float32(q.Pos[0]), float32(q.Pos[1]), float32(q.Pos[2]), 0}
		out.Vel[i] = [4]float32{float32(q.Vel[0]), float32(q.Vel[1]), float32(q.Vel[2]), 0}
		if out.Material != nil {
			out.Material[i] = uint8(q.Material)
		}
	}
	return out, nil
}

// SampleScene is Sample with the scene's rigid bodies: their particles on the same lattice, with their densities
// and initial motions.
func SampleScene(c *Config, sc *scene.Scene) (Sampled, error) {
	out, err := Sample(c, sc)
	if err != nil {
		return Sampled{}, err
	}
	samples, err := sc.SampleBodies(out.Spacing)
	if err != nil {
		return Sampled{}, err
	}
	for i, ps := range samples {
		b := &sc.Bodies[i]
		spec := rigid.BodySpec{Density: float32(b.Density), Velocity: f32(b.Velocity), Spin: f32(b.Spin)}
		for _, p := range ps {
			spec.Particles = append(spec.Particles, [4]float32{float32(p[0]), float32(p[1]), float32(p[2]), 0})
		}
		out.Bodies = append(out.Bodies, spec)
	}
	return out, nil
}

// Reset implements sim.Solver: particles are sampled from the scene's fluid blocks, each of its block's material
// (coloured only: PBF simulates one fluid), and rigid bodies.
func (s *Solver) Reset(sc *scene.Scene) error {
	if err := s.expect(sc); err != nil {
		return err
	}
	smp, err := SampleScene(&s.Cfg, sc)
	if err != nil {
		return err
	}
	s.settled, s.settleLast = 0, 0
	if len(smp.Bodies) > 0 {
		err = s.ResetWithBodies(sc, smp.Spacing, smp.Pos, smp.Vel, smp.Bodies)
	} else if s.settled, s.settleLast, err = s.memo.Settle(&s.Cfg, sc, &smp); err == nil {
		err = s.ResetParticles(sc, smp.Spacing, smp.Pos, smp.Vel) // a resting layer settled (settle.go)
	}
	if err != nil {
		return err
	}
	copy(s.mat, smp.Material) // the fluid's, ids 0..F−1, in order before any step; the bodies' stay 0
	s.save()
	return nil
}

// Settled is what the last reset's settling took (settle.go): its passes (0 for a scene that is not settled) and
// the largest displacement of the last, m.
func (s *Solver) Settled() (passes int, last float64) { return s.settled, s.settleLast }

// SettleSample settles a scene's sampled particles as a reset of the CPU solver under c does (settle.go), in
// place and in their order, for the GPU solver to start where the CPU one does. A scene that does not settle is
// left as it is.
func SettleSample(c *Config, sc *scene.Scene, smp *Sampled) error {
	_, _, err := settleSample(c, sc, smp)
	return err
}

func settleSample(c *Config, sc *scene.Scene, smp *Sampled) (passes int, last float64, err error) {
	if len(smp.Bodies) > 0 || !Settles(sc, c.Gravity) {
		return 0, 0, nil
	}
	s := New()
	s.Cfg = *c
	if err := s.ResetParticles(sc, smp.Spacing, smp.Pos, smp.Vel); err != nil {
		return 0, 0, err
	}
	passes, last = s.settle()
	for k, id := range s.id {
		smp.Pos[id], smp.Vel[id] = s.x[k], s.v[k]
	}
	return passes, last, nil
}

// ResetParticles starts from given fluid particles (ids 0..n−1 in order, of material 0) instead of sampling the
// scene.
func (s *Solver) ResetParticles(sc *scene.Scene, spacing float64, pos, vel [][4]float32) error {
	if err := s.reset(sc, spacing, pos, vel); err != nil {
		return err
	}
	s.save()
	return nil
}

// reset sets up n fluid particles (ids 0..n−1, material 0) and everything sized by n; the caller says which are
// bodies.
func (s *Solver) reset(sc *scene.Scene, spacing float64, pos, vel [][4]float32) error {
	if len(pos) != len(vel) {
		return fmt.Errorf("pbf: %d positions but %d velocities", len(pos), len(vel))
	}
	s.sh.Tools = sim.Tools{} // a reset puts the tools away, as on the GPU (a replay starts from a reset without them)
	s.sc = sc
	n := len(pos)
	budget := s.Cfg.ResolveBudget(n)
	if err := s.derive(spacing, budget); err != nil {
		return err
	}
	s.sh.P.Reset(n)
	copy(s.x, pos)
	copy(s.v, vel)
	s.bodies = s.bodies[:0]
	s.mapSlots()
	s.time, s.steps = 0, 0
	s.stats = sim.Stats{Particles: n}
	s.sh.Reset(sc, budget)
	s.palette = nil
	if len(sc.Materials) > 0 {
		s.palette = sim.ScenePalette(sc)
	}
	return nil
}

// BytesPerParticle is what the CPU solver holds per particle of its budget (272 bytes measured at 97,556 particles,
// besides the neighbour lists, less the 60 the sort's copies took before the store permuted in place): the store's
// columns — positions, velocities, predictions, rest offsets, vorticity, boundary gradients, the packed positions
// with λ and velocities with |ω| (8 × 16 bytes), ids, densities, counts, slots, bodies and inverse masses (6 × 4),
// materials (1) — the last good state (61), the grid's order and cells, and the neighbour list and its pairs'
// gradients, stride entries each (4 + 4 bytes).
func BytesPerParticle(stride int) int64 { return 226 + 8*int64(stride) }

// CheckMemory refuses a run whose arrays for budget particles at these constants would not fit in limit bytes,
// before anything is allocated for them: a large particle count with a large kernel radius (long neighbour lists)
// can ask for more memory than the machine has.
func CheckMemory(budget int, dv Derived, limit int64) error {
	need := int64(budget) * BytesPerParticle(dv.Stride)
	if need > limit {
		return fmt.Errorf("pbf: %d particles (the budget) with neighbour lists of %d at a kernel radius of %.3g spacings need about %s of memory; "+
			"slosh lets a simulation take %s on this machine: lower pbf.particles, pbf.budget or pbf.kernel_radius",
			budget, dv.Stride, float64(dv.H/dv.Spacing), machine.Bytes(need), machine.Bytes(limit))
	}
	return nil
}

// expect refuses, before anything is sampled, a reset whose particles would not fit in memory (scene.Expect): a
// count the machine cannot hold is refused at once, not after the seconds sampling it takes.
func (s *Solver) expect(sc *scene.Scene) error {
	return sim.CheckExpected(sc, float64(s.Cfg.Spacing), int(s.Cfg.Particles), s.Cfg.Budget, func(d float64, budget int) error {
		dv, err := Derive(&s.Cfg, d)
		if err != nil {
			return nil // the reset says what is wrong
		}
		return CheckMemory(budget, dv, machine.MemoryBudget(8<<30, s.held))
	})
}

// derive recomputes constants, the collider and the grid for a spacing, after checking that budget particles fit in
// memory at them; on error nothing changes.
func (s *Solver) derive(spacing float64, budget int) error {
	dv, err := Derive(&s.Cfg, spacing)
	if err != nil {
		return err
	}
	if err := CheckMemory(budget, dv, machine.MemoryBudget(8<<30, s.held)); err != nil {
		return err
	}
	g, err := grid.New(f32(s.sc.Domain.Min), f32(s.sc.Domain.Max), dv.H)
	if err != nil {
		return fmt.Errorf("pbf: %w", err)
	}
	s.held = int64(budget) * BytesPerParticle(dv.Stride)
	s.dv, s.dvCfg, s.grid = dv, s.Cfg, g
	s.scorrK = dv.ScorrKAbs // at ScorrRefDt until a step sets its own
	s.col = solid.NewCollider(s.sc, dv.Radius)
	s.col.Obstacles = solid.Moved(s.sc, s.time, s.sh.Tools.Paddle)
	return nil
}

func f32(v scene.Vec3) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }

// Step implements sim.Solver: one pass of Algorithm 1.
func (s *Solver) Step(dt float64) error {
	if s.sc == nil {
		return fmt.Errorf("pbf: Step before Reset")
	}
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("pbf: time step %g must be positive", dt)
	}
	if s.Cfg != s.dvCfg { // a parameter changed: kernel radius, density, s_corr, ε all feed the constants
		if err := s.derive(float64(s.dv.Spacing), s.sh.Budget); err != nil {
			return err // a larger kernel radius may need longer neighbour lists than memory holds
		}
	}
	h := float32(dt)
	s.timer.Begin()
	s.updateBodyMasses()
	s.emit(dt)
	s.blast(dt)
	s.moveObstacles(s.time + dt)
	s.scorrK = s.dv.ScorrKAbs * ScorrPerStep(dt)
	s.predict(h)
	s.timer.Mark("predict")
	s.sortByCell()
	s.timer.Mark("grid")
	s.findNeighbors()
	s.timer.Mark("neighbours + lambda")
	for it := 0; it < int(s.Cfg.Iterations); it++ {
		if it > 0 { // the first iteration's λ came with the neighbours
			s.computeLambda()
			s.timer.Mark("lambda")
		}
		s.applyDeltaP()
		s.timer.Mark("delta p")
		if s.hasBodies() {
			s.matchShapes()
			s.timer.Mark("rigid")
		}
	}
	if s.hasBodies() {
		s.collideBodies()
		s.timer.Mark("rigid")
	}
	s.updateVelocity(h)
	s.computeVorticity()
	s.timer.Mark("vorticity")
	s.confineAndSmooth(h, XSPHPerStep(s.Cfg.XSPH, dt))
	s.clampSpeeds(dt)
	s.timer.Mark("velocity")
	s.time += dt
	s.steps++
	return s.finish()
}

// predict applies gravity and predicts positions (Algorithm 1, lines 1–4). Predictions are kept inside the
// boundaries so the neighbour grid sees them where the solver will.
func (s *Solver) predict(dt float32) {
	g := s.Cfg.Gravity
	bodies := s.hasBodies()
	s.pool.For(len(s.x), 2048, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			v := &s.v[i]
			if d := s.drive(bodies, i); d[3] != 0 {
				*v = [4]float32{d[0], d[1], d[2], 0}
			} else {
				v[0] += dt * g[0]
				v[1] += dt * g[1]
				v[2] += dt * g[2]
			}
			p := [4]float32{s.x[i][0] + dt*v[0], s.x[i][1] + dt*v[1], s.x[i][2] + dt*v[2], 0}
			s.col.Apply(&p)
			s.p[i] = p
		}
	})
}

// drive is the Drive of particle i's body, zero for fluid.
func (s *Solver) drive(bodies bool, i int) [4]float32 {
	if bodies && s.body[i] >= 0 {
		return s.bodies[s.body[i]].Drive
	}
	return [4]float32{}
}

// sortByCell bins the predicted positions and reorders every per-particle array by (cell, id): the store's
// permutation of the particles and their state and carried columns.
func (s *Solver) sortByCell() {
	s.grid.Build(s.p, s.id)
	s.sh.P.Permute(s.grid.Order)
	if s.hasBodies() {
		for k, id := range s.id {
			s.slotOf[id] = int32(k)
			// the inverse mass follows the body's, which follows the rest density (updateBodyMasses)
			s.wInv[k] = 1
			if b := s.body[k]; b >= 0 {
				s.wInv[k] = s.bodies[b].InvMass
			}
		}
	}
}

// findNeighbors builds the neighbour lists once per step on the predicted positions (Algorithm 1, lines 5–7).
//
// The first iteration's λ (computeLambda) is computed in the same sweep, each particle's as soon as its list is
// found, while its neighbours' positions are still in cache (on issue 30's 97k dam break, 40.4 ms a step for both
// against 30.7 + 15.3 apart).
func (s *Solver) findNeighbors() {
	n := len(s.p)
	s.nbr = grow.Resize(s.nbr, grid.BlockedLen(n, s.dv.Stride))
	s.pairG = grow.Resize(s.pairG, grid.BlockedLen(n, s.dv.Stride))
	s.clip = s.grid.NeighborsThen(s.p, s.dv.H, s.dv.Stride, s.nbr, s.ncount, s.lambdaPass().block())
}

// pairKernel is the kernels' constants the pair loops read, copied out of Derived into a value the loops keep in
// registers (Go reloads a field through a pointer on every use inside a loop). Its w and grad are Poly6.W and
// Spiky.GradScale for a pair already known to lie within h, the same arithmetic without the range tests.
type pairKernel struct {
	h2, h        float32 // h², h
	wCoef, gCoef float32 // poly6's 315/(64πh⁹), spiky's −45/(πh⁶)
}

func newPairKernel(dv *Derived) pairKernel {
	return pairKernel{h2: dv.H * dv.H, h: dv.Spiky.H, wCoef: dv.Poly6.Coef(), gCoef: dv.Spiky.GradCoef()}
}

// w is poly6 at r² < h².
func (k pairKernel) w(r2 float32) float32 {
	d := k.h2 - r2
	return k.wCoef * d * d * d
}

// grad is spiky's gradient scale at r² < h² (zero for coincident particles, as Spiky.GradScale).
func (k pairKernel) grad(r2 float32) float32 {
	dist := sqrt32(r2)
	if dist <= 0 {
		return 0
	}
	d := k.h - dist
	return k.gCoef * d * d / dist
}

// offset is r = p_i − q and |r|², the start of every pair loop's body.
func offset(pi, q *[4]float32) (rx, ry, rz, r2 float32) {
	rx, ry, rz = pi[0]-q[0], pi[1]-q[1], pi[2]-q[2]
	return rx, ry, rz, rx*rx + ry*ry + rz*rz
}

// powN is x^n as the GPU's loop multiplies it out, ((x·x)·x)·x…, with the paper's n = 4 unrolled: the loop's
// branch cost a tenth of the Δp pass.
func powN(x float32, n int) float32 {
	if n == 4 {
		return x * x * x * x
	}
	p := x
	for e := 1; e < n; e++ {
		p *= x
	}
	return p
}

// computeLambda evaluates ρ_i (eq. 2, plus the solids' Φ_i), C_i (eq. 1) and λ_i (eq. 11) at the current
// predicted positions, and packs each particle's position with its λ into tmp for applyDeltaP, whose pair loop
// then reads one 16-byte value a neighbour. The first iteration's is fused into the neighbour search
// (findNeighbors).
func (s *Solver) computeLambda() {
	s.eachBlock(s.lambdaPass().block())
}

// simd reports whether the pair passes take 16 particles side by side this step (wide_simd.go): where the CPU and
// the build can, without bodies.
func (s *Solver) simd() bool { return s.wide && !s.hasBodies() }

// blockOf is a pass over the block of particles [lo, hi): side by side by wide when simd, else one particle at a
// time by at.
func blockOf(simd bool, wide func(lo, hi int), at func(i int)) func(lo, hi int) {
	if simd {
		return wide
	}
	return func(lo, hi int) {
		for i := lo; i < hi; i++ {
			at(i)
		}
	}
}

// eachBlock runs block over all the particles, a block of grid.Block at a time (the last may be shorter), on the
// pool.
func (s *Solver) eachBlock(block func(lo, hi int)) {
	n := len(s.p)
	s.pool.For((n+grid.Block-1)/grid.Block, 64, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			block(b*grid.Block, min(b*grid.Block+grid.Block, n))
		}
	})
}

// pairLists is the search's blocked neighbour lists (grid.NeighborsThen) with the pairs' gradient scales in the
// same layout, which every pair pass reads.
type pairLists struct {
	nbr, count []int32
	pairG      []float32
	stride     int
}

func (s *Solver) pairLists() pairLists {
	return pairLists{nbr: s.nbr, count: s.ncount, pairG: s.pairG, stride: s.dv.Stride}
}

// of is particle i's neighbours and their pairs' gradient scales: the k-th lies at k·grid.Block (grid.Slot), k·Block
// < end.
func (pl *pairLists) of(i int) (nbr []int32, grads []float32, end int) {
	o := grid.Slot(i, 0, pl.stride)
	return pl.nbr[o:], pl.pairG[o:], grid.Block * int(pl.count[i])
}

// lambdaPass is what computeLambda reads and writes, for its per-particle step at.
type lambdaPass struct {
	kn                 pairKernel
	bodies, unilateral bool
	w0, mr, eps        float32
	p, packed, bgrad   [][4]float32
	rho, wInv          []float32
	body               []int32
	pairLists
	col  *solid.Collider
	wall *solid.WallKernel
	wide bool // 16 particles side by side (lambdaBlock) where the CPU can
}

func (s *Solver) lambdaPass() *lambdaPass {
	dv := &s.dv
	return &lambdaPass{
		kn: newPairKernel(dv), bodies: s.hasBodies(), unilateral: s.Cfg.Unilateral,
		w0: dv.W0, mr: dv.MOverR0, eps: dv.EpsilonAbs,
		p: s.p, packed: s.tmp, bgrad: s.bgrad, rho: s.rho, wInv: s.wInv, body: s.body, pairLists: s.pairLists(),
		col: &s.col, wall: &dv.Wall, wide: s.simd(),
	}
}

// block is computeLambda for a block of particles.
func (l *lambdaPass) block() func(lo, hi int) {
	return blockOf(l.wide, func(lo, hi int) { lambdaBlock(l, lo, hi) }, l.at)
}

// at is computeLambda for particle i.
func (l *lambdaPass) at(i int) {
	p, kn, mr, bodies, wInv := l.p, l.kn, l.mr, l.bodies, l.wInv
	pi := p[i]
	nbr, grads, end := l.of(i)
	if bodies && l.body[i] >= 0 { // body particles carry no density constraint of their own
		l.rho[i], l.bgrad[i] = 1, [4]float32{}
		l.packed[i] = [4]float32{pi[0], pi[1], pi[2], 0}
		for k := 0; k < end; k += grid.Block { // but gather their fluid neighbours' corrections in applyDeltaP
			j := nbr[k]
			if _, _, _, r2 := offset(&pi, &p[j]); r2 < kn.h2 {
				grads[k] = kn.grad(r2)
			}
		}
		return
	}
	rho := l.w0
	var gx, gy, gz, sum2 float32
	for k := 0; k < end; k += grid.Block {
		j := nbr[k]
		q := &p[j]
		rx, ry, rz, r2 := offset(&pi, q)
		if r2 >= kn.h2 {
			continue
		}
		rho += kn.w(r2)
		gs := kn.grad(r2)
		grads[k] = gs
		// ∇_{p_j} C_i = −(m/ρ0) ∇W_ij (eq. 8, k = j), weighted in the denominator by j's inverse mass
		g := mr * gs
		gjx, gjy, gjz := g*rx, g*ry, g*rz
		g2 := gjx*gjx + gjy*gjy + gjz*gjz
		if bodies {
			g2 *= wInv[j]
		}
		sum2 += g2
		gx += gjx
		gy += gjy
		gz += gjz
	}
	l.finish(i, rho, gx, gy, gz, sum2)
}

// finish is the end of at for particle i of fluid, from its sums over its neighbours: Σ W_ij, Σ_j ∇_{p_j} C_i
// and Σ_j |∇_{p_j} C_i|².
func (l *lambdaPass) finish(i int, rho, gx, gy, gz, sum2 float32) {
	pi, mr := l.p[i], l.mr
	phi, bx, by, bz := l.col.Boundary(l.wall, pi[0], pi[1], pi[2])
	l.bgrad[i] = [4]float32{bx, by, bz, phi}
	gx, gy, gz = gx+bx, gy+by, gz+bz
	rho = rho*mr + phi // ρ_i/ρ0 = (m/ρ0) Σ_j W_ij + Φ_i
	c := rho - 1
	if l.unilateral && c < 0 {
		c = 0
	}
	l.rho[i] = rho
	// eq. 11: the k = i term of the denominator is |∇_{p_i} C_i|² = |(m/ρ0) Σ_j ∇W_ij + ∇Φ_i|²
	lambda := -c / (sum2 + gx*gx + gy*gy + gz*gz + l.eps)
	l.packed[i] = [4]float32{pi[0], pi[1], pi[2], lambda}
}

// applyDeltaP computes Δp_i (eq. 14, plus λ_i ∇Φ_i of the solids), moves the predicted positions and resolves
// collisions (Algorithm 1, lines 12–18). The update is Jacobi: every Δp_i reads the positions of the iteration's
// start, packed with the λs by computeLambda, and writes the new ones over the predicted positions. A body particle
// gathers the corrections of its fluid neighbours' constraints, scaled by its inverse mass, and keeps two radii away
// from particles of other bodies.
func (s *Solver) applyDeltaP() {
	dv := &s.dv
	d := &deltaPass{
		kn: newPairKernel(dv), n: int(s.Cfg.ScorrN), bodies: s.hasBodies(), contact: 2 * dv.Radius,
		mr: dv.MOverR0, invWDq: dv.InvWDq, scorrK: s.scorrK,
		packed: s.tmp, out: s.p, bgrad: s.bgrad, body: s.body, wInv: s.wInv, pairLists: s.pairLists(), col: &s.col,
	}
	s.eachBlock(blockOf(s.simd(), func(lo, hi int) { deltaBlock(d, lo, hi) }, d.at))
}

// deltaPass is what applyDeltaP reads and writes, for its per-particle step at.
type deltaPass struct {
	kn                          pairKernel
	n                           int
	bodies                      bool
	contact, mr, invWDq, scorrK float32
	packed, out, bgrad          [][4]float32
	body                        []int32
	wInv                        []float32
	pairLists
	col *solid.Collider
}

// at is applyDeltaP for particle i.
func (d *deltaPass) at(i int) {
	kn, n, bodies, contact, body, wInv, packed := d.kn, d.n, d.bodies, d.contact, d.body, d.wInv, d.packed
	pi := packed[i]
	li := pi[3]
	isBody := bodies && body[i] >= 0
	var dx, dy, dz, cx, cy, cz float32
	nbr, grads, end := d.of(i)
	for k := 0; k < end; k += grid.Block {
		j := nbr[k]
		q := &packed[j]
		rx, ry, rz, r2 := offset(&pi, q)
		if r2 >= kn.h2 {
			continue
		}
		if isBody && body[j] >= 0 {
			// two bodies' particles closer than two radii: push apart, the lighter one further
			if bj := body[j]; bj != body[i] && r2 < contact*contact && r2 > 0 {
				d := sqrt32(r2)
				k := (contact - d) / d * wInv[i] / (wInv[i] + wInv[j])
				cx += k * rx
				cy += k * ry
				cz += k * rz
			}
			continue
		}
		// s_corr = −k (W(r)/W(Δq))^n (eq. 13), k for this step's Δt (ScorrPerStep)
		scorr := -d.scorrK * powN(kn.w(r2)*d.invWDq, n)
		g := (li + q[3] + scorr) * grads[k] // computeLambda's, at these positions
		dx += g * rx
		dy += g * ry
		dz += g * rz
	}
	if isBody {
		w := wInv[i] * d.mr
		np := [4]float32{pi[0] + w*dx + cx, pi[1] + w*dy + cy, pi[2] + w*dz + cz, 0}
		d.col.Apply(&np)
		d.out[i] = np
		return
	}
	d.finish(i, dx, dy, dz)
}

// finish is the end of at for particle i of fluid, from Σ_j (λ_i + λ_j + s_corr) ∇W_ij.
func (d *deltaPass) finish(i int, dx, dy, dz float32) {
	// The solids' part of ∇_{p_i} C_i moves particle i too, λ_i ∇Φ_i — but only away from the solid: an
	// under-dense particle (λ_i > 0) would otherwise reach for the wall's volume and stick to it.
	pi, b, mr := d.packed[i], d.bgrad[i], d.mr
	lb := min(pi[3], 0)
	np := [4]float32{pi[0] + mr*dx + lb*b[0], pi[1] + mr*dy + lb*b[1], pi[2] + mr*dz + lb*b[2], 0}
	d.col.Apply(&np)
	d.out[i] = np
}

// updateVelocity sets v_i = (x*_i − x_i)/Δt (Algorithm 1, line 21).
func (s *Solver) updateVelocity(dt float32) {
	inv := 1 / dt
	s.pool.For(len(s.p), 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s.v[i] = [4]float32{(s.p[i][0] - s.x[i][0]) * inv, (s.p[i][1] - s.x[i][1]) * inv, (s.p[i][2] - s.x[i][2]) * inv, 0}
		}
	})
}

// computeVorticity estimates ω_i = ∇×v (eq. 15) as Σ_j (m/ρ0) ∇_i W_ij × v_ij, with v_ij = v_j − v_i, and the
// density ρ_i at the final positions for the statistics. Body particles get their ω too, from every neighbour —
// 2Ω inside a body spinning at Ω — so the fluid's η = ∇|ω| beside a body sees the flow's rotation rather than a
// false zero; their density stays 1 (the statistics describe the fluid). Each particle's velocity is packed with
// |ω_i| into vw for confineAndSmooth, whose pair loop then reads one 16-byte value a neighbour besides its position
// and takes no square root.
func (s *Solver) computeVorticity() {
	dv := &s.dv
	vp := &vortPass{
		kn: newPairKernel(dv), bodies: s.hasBodies(), w0: dv.W0, mr: dv.MOverR0,
		p: s.p, v: s.v, omega: s.omega, vw: s.vw, body: s.body,
		rho: s.rho, pairLists: s.pairLists(), col: &s.col, wall: &dv.Wall,
	}
	s.eachBlock(blockOf(s.simd(), func(lo, hi int) { vortBlock(vp, lo, hi) }, vp.at))
}

// vortPass is what computeVorticity reads and writes, for its per-particle step at.
type vortPass struct {
	kn              pairKernel
	bodies          bool
	w0, mr          float32
	p, v, omega, vw [][4]float32
	body            []int32
	rho             []float32
	pairLists
	col  *solid.Collider
	wall *solid.WallKernel
}

// at is computeVorticity for particle i.
func (vp *vortPass) at(i int) {
	kn, p, v := vp.kn, vp.p, vp.v
	pi, vi := p[i], v[i]
	rho := vp.w0
	var wx, wy, wz float32
	nbr, grads, end := vp.of(i)
	for k := 0; k < end; k += grid.Block {
		j := nbr[k]
		q := &p[j]
		rx, ry, rz, r2 := offset(&pi, q)
		if r2 >= kn.h2 {
			continue
		}
		rho += kn.w(r2)
		g := kn.grad(r2)
		grads[k] = g
		gx, gy, gz := g*rx, g*ry, g*rz
		vj := &v[j]
		ux, uy, uz := vj[0]-vi[0], vj[1]-vi[1], vj[2]-vi[2]
		wx += gy*uz - gz*uy
		wy += gz*ux - gx*uz
		wz += gx*uy - gy*ux
	}
	vp.finish(i, rho, wx, wy, wz)
}

// finish is the end of at for particle i, from Σ W_ij and Σ ∇_i W_ij × v_ij.
func (vp *vortPass) finish(i int, rho, wx, wy, wz float32) {
	pi, vi, mr := vp.p[i], vp.v[i], vp.mr
	w := [4]float32{mr * wx, mr * wy, mr * wz, 0}
	vp.omega[i] = w
	vp.vw[i] = [4]float32{vi[0], vi[1], vi[2], sqrt32(w[0]*w[0] + w[1]*w[1] + w[2]*w[2])}
	if vp.bodies && vp.body[i] >= 0 {
		vp.rho[i] = 1
		return
	}
	phi, _, _, _ := vp.col.Boundary(vp.wall, pi[0], pi[1], pi[2])
	vp.rho[i] = rho*mr + phi
}

// confineAndSmooth adds the vorticity confinement force f = ε (N × ω) (eq. 16), with N = η/|η| and
// η = ∇|ω| estimated as Σ_j (m/ρ0)(|ω_j| − |ω_i|) ∇_i W_ij, and XSPH viscosity (eq. 17) in Monaghan's form
// v_i ← v_i + c Σ_j (m/ρ0) v_ij W_ij with c the step's share (XSPHPerStep); then x_i ← x*_i (Algorithm 1, lines
// 22–23).
//
// XSPH is an exchange of momentum between pairs, and with rigid bodies it stays one: particle i's share of the
// pair (i, j) is weighted by 2 w_i/(w_i + w_j) (w the inverse masses; 1 between two fluid particles), so m_i Δv_i
// = −m_j Δv_j and a body moving through the fluid is slowed by exactly the momentum the fluid it drags gains. A body
// particle's velocity change goes into its body's motion at the next step's shape matching, as the density
// corrections do. Particles of bodies exchange nothing among themselves: a rigid body has no internal viscosity,
// and contact between bodies is the Δp pass's. Confinement is not an exchange but a force that puts back rotation
// the fluid's damping removed; it acts on fluid particles only (a body's rotation is kept exactly by shape
// matching, and confining it would spin up a spinning body).
func (s *Solver) confineAndSmooth(dt, c float32) {
	dv := &s.dv
	cp := &confinePass{
		kn: newPairKernel(dv), eps: s.Cfg.Vorticity, dt: dt, c: c, bodies: s.hasBodies(),
		mr: dv.MOverR0, p: s.p, vw: s.vw, omega: s.omega, out: s.tmp,
		body: s.body, wInv: s.wInv, pairLists: s.pairLists(),
	}
	s.eachBlock(blockOf(s.simd(), func(lo, hi int) { confineBlock(cp, lo, hi) }, cp.at))
	s.v, s.tmp = s.tmp, s.v
	s.x, s.p = s.p, s.x
}

// confinePass is what confineAndSmooth reads and writes, for its per-particle step at.
type confinePass struct {
	kn                pairKernel
	eps, dt, c, mr    float32
	bodies            bool
	p, vw, omega, out [][4]float32
	body              []int32
	wInv              []float32
	pairLists
}

// at is confineAndSmooth for particle i.
func (cp *confinePass) at(i int) {
	kn, bodies, body, wInv, p, vw := cp.kn, cp.bodies, cp.body, cp.wInv, cp.p, cp.vw
	isBody := bodies && body[i] >= 0
	pi, vi := p[i], vw[i]
	wiLen := vi[3]
	var ex, ey, ez, sx, sy, sz float32
	nbr, grads, end := cp.of(i)
	for k := 0; k < end; k += grid.Block {
		j := nbr[k]
		q := &p[j]
		rx, ry, rz, r2 := offset(&pi, q)
		if r2 >= kn.h2 {
			continue
		}
		w := kn.w(r2)
		if bodies {
			if isBody && body[j] >= 0 {
				continue
			}
			w *= 2 * wInv[i] / (wInv[i] + wInv[j])
		}
		vj := &vw[j]
		if !isBody {
			g := (vj[3] - wiLen) * grads[k] // computeVorticity's, at these positions
			ex += g * rx
			ey += g * ry
			ez += g * rz
		}
		sx += (vj[0] - vi[0]) * w
		sy += (vj[1] - vi[1]) * w
		sz += (vj[2] - vi[2]) * w
	}
	cp.finish(i, ex, ey, ez, sx, sy, sz)
}

// finish is the end of at for particle i, from η (unscaled) and XSPH's sum.
func (cp *confinePass) finish(i int, ex, ey, ez, sx, sy, sz float32) {
	vi, wi, eps, dt := cp.vw[i], cp.omega[i], cp.eps, cp.dt
	var fx, fy, fz float32
	if l := sqrt32(ex*ex + ey*ey + ez*ez); l > 1e-20 && eps > 0 {
		nx, ny, nz := ex/l, ey/l, ez/l
		fx, fy, fz = eps*(ny*wi[2]-nz*wi[1]), eps*(nz*wi[0]-nx*wi[2]), eps*(nx*wi[1]-ny*wi[0])
	}
	k := cp.c * cp.mr
	cp.out[i] = [4]float32{vi[0] + dt*fx + k*sx, vi[1] + dt*fy + k*sy, vi[2] + dt*fz + k*sz, 0}
}

// clampSpeeds is real-time mode's clamp at the end of a step of dt (sim.CFL): every particle, fluid or a body's, as
// NVIDIA FleX clamps its particles, no faster than pbf.cfl spacings a step. A body's particles clamped one by one
// are made rigid again by the next step's shape matching. Off, it reads nothing.
func (s *Solver) clampSpeeds(dt float64) {
	s.clamped = sim.ClampSpeeds(s.pool, s.v, s.Cfg.Step.SpeedLimit(float64(s.dv.Spacing), dt))
}

// finish gathers statistics and checks for non-finite state; on failure it restores the last good state.
func (s *Solver) finish() error {
	st := &s.stats
	st.Particles, st.Steps, st.Time = len(s.x), s.steps, s.time
	st.Passes, st.StepMs = s.timer.Passes()
	st.Notice = s.sh.TakeNotice()
	var errSum, errMax, vmax2 float64
	nsum, nmax, bad := 0, 0, 0
	bodies := s.hasBodies()
	for i := range s.x {
		x, v := s.x[i], s.v[i]
		if !finite(x[0]) || !finite(x[1]) || !finite(x[2]) || !finite(v[0]) || !finite(v[1]) || !finite(v[2]) {
			bad++
			continue
		}
		if bodies && s.body[i] >= 0 {
			continue // the statistics describe the fluid
		}
		if e := float64(s.rho[i]) - 1; e > 0 {
			errSum += e
			errMax = math.Max(errMax, e)
		}
		vmax2 = math.Max(vmax2, float64(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]))
		c := int(s.ncount[i])
		nsum += c
		nmax = max(nmax, c)
	}
	n := max(1, FluidCount(len(s.x), s.bodies))
	st.MaxSpeed = math.Sqrt(vmax2)
	st.Substeps = s.frameSubsteps
	st.Figures = AppendFigures(st.Figures[:0], errSum/float64(n), errMax, float64(nsum)/float64(n), nmax, s.clip)
	st.Figures = s.Cfg.Step.AppendFigures(st.Figures, s.clamped)
	if bad > 0 {
		failed := s.steps
		s.restore()
		return NonFinite(Name, failed, bad, s.time)
	}
	if shell.Due(s.steps) {
		s.save()
	}
	return nil
}

func finite(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

// Frame implements sim.Solver.
func (s *Solver) Frame(dst *sim.Frame) {
	dst.Resize(len(s.x))
	copy(dst.Pos, s.x)
	copy(dst.Vel, s.v)
	copy(dst.Rho, s.rho)
	copy(dst.ID, s.id)
	dst.Body = dst.Body[:0]
	if s.hasBodies() {
		dst.Body = append(dst.Body, s.body...)
	}
	if s.palette != nil { // the scene names materials: each particle's, and their colours
		dst.Material = append(dst.Material[:0], s.mat...)
		dst.Palette = append(dst.Palette[:0], s.palette...)
	} else {
		dst.Material, dst.Palette = nil, nil
	}
	dst.Bodies = dst.Bodies[:0]
	for _, b := range s.bodies {
		dst.Bodies = append(dst.Bodies, sim.BodyState{Center: b.Center, Rot: b.Rot, Origin: b.Origin})
	}
	dst.Radius = s.dv.Radius
	dst.Time, dst.Steps = s.time, s.steps
}

// Stats implements sim.Solver.
func (s *Solver) Stats() sim.Stats {
	return s.stats.Clone()
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }
