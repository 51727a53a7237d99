// Package pbf is Position Based Fluids in OpenGL 4.3 compute shaders (Macklin & Müller 2013, papers/001): the
// sandbox's main mode. Particle state never leaves the GPU; the renderer draws straight from the solver's buffers.
//
// A step is Algorithm 1 as a sequence of compute passes (shaders/pbf_*.comp): predict → neighbour grid
// (gpu/nsearch: cell index, atomic counts, parallel prefix sum, scatter, per-cell sort by id; then a reorder of
// the particle arrays) → neighbour lists →
// iterations × (λ, Δp + collision[, shape matching]) → [rigid collision] → velocity → vorticity → confinement +
// XSPH → statistics, the bracketed passes only with rigid bodies (rigid.go). It mirrors the CPU
// solver in sim/pbf operation for operation: same parameters, same derived constants, same particle order, so the
// two agree to float rounding and the CPU solver is this one's test oracle. The grid order depends only on positions
// and ids, so a run is bit-for-bit deterministic on a given device.
package pbf

import (
	"fmt"
	"math"
	"unsafe"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/compute"
	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/nsearch"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/shaders"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/param"
	cpbf "github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/solid"
)

// Name is the mode name of the GPU solver.
const Name = "pbf"

// Binding points: uniform block, then shader storage. Mirrored into GLSL as #defines. The solver has storage 0–21
// and 32 on; gpu/surface uses 22 and 23, gpu/nsearch 24–29, the scan 30 and 31.
const (
	bindParams = 0

	bindPos = iota - 1
	bindVel
	bindPred
	bindIDs
	bindPos2
	bindVel2
	bindPred2
	bindIDs2
	bindRho
	bindLambda
	bindBGrad
	bindOmega
	bindNbr
	bindNCount
	bindObstacles
	bindCounters
	bindPartial
	bindStats
	bindBody  // int per particle: its rigid body, −1 for fluid
	bindBody2 // the other half of the ping-pong pair
	bindWInv  // float per particle: inverse mass relative to a fluid particle's
	bindWInv2
)

// Binding points after the other packages' (storage).
const (
	bindRest   = 32 + iota // vec4 per particle: a body particle's rest offset from its body's centre
	bindRest2              // the other half of the ping-pong pair
	bindSlotOf             // uint per particle id: its sorted slot
	bindBodies             // the body table (bodyRecord)
	bindMat                // byte per particle, four to a word: its material number (colour only)
	bindMat2               // the other half of the ping-pong pair
)

// needBindings is how many storage binding points the solver, the grid and the scan use.
const needBindings = bindMat2 + 1

// params mirrors the Params uniform block of pbf_common.glsl (std140).
type params struct {
	N, Stride, NumObstacles      uint32
	NumBodies                    uint32
	H, H2, W0, MOverR0           float32
	Poly6Coef, SpikyGCoef        float32
	InvWDq, ScorrK               float32
	Epsilon, Vorticity, XSPH, Dt float32
	Gravity                      [4]float32
	Lo, Hi                       [4]float32 // Lo.w = particle radius
	WallInvStep                  float32
	WallLast                     int32
	ScorrN, Unilateral           int32
	MaxSpeed                     float32    // real-time mode's speed limit, m/s; 0: off
	_                            [3]float32 // std140: Wall starts on a vec4
	Wall                         [solid.WallTableSize][4]float32
}

// statsRecord mirrors StatsRecord of pbf_stats.glsl (std430).
type statsRecord struct {
	SumErr, MaxErr, MaxV2 float32
	Bad, SumN, MaxN       uint32
	Clipped, BadTotal     uint32
	Step                  uint32
	MaxV2All, UpLo, UpHi  float32 // what frames are planned from (frame.go)
	Clamped               uint32  // speeds real-time mode clamped in the step
}

const statsRing = 16

// Solver is the GPU PBF solver. All methods must be called on the GL thread with the context current.
type Solver struct {
	Cfg    cpbf.Config
	params *param.Set

	settleMemo cpbf.SettleMemo // the last resting layer settled, for the next reset of the same scene

	progs *Programs
	grid  *nsearch.Grid
	ubo   *glh.Buffer

	sc    *scene.Scene
	dv    cpbf.Derived
	dvCfg cpbf.Config
	col   solid.Collider
	n     int // particles
	cap   int // particles the buffers hold: the budget
	block params

	// tools (hands.go)
	emitAcc []float32 // per scene emitter: how far its stream moved since its last layer
	tools   sim.Tools
	toolAcc float32
	paddled bool // the obstacle buffer holds the paddle
	notice  string

	// particle buffers: the current and the other half of each ping-pong pair
	pos, vel, pred, ids     *glh.Buffer
	pos2, vel2, pred2, ids2 *glh.Buffer
	rho, lambda, bgrad      *glh.Buffer
	omega, nbr, ncount      *glh.Buffer
	obstacles, counters     *glh.Buffer
	partial, statsBuf, ring *glh.Buffer

	nbrStride int // the stride nbr was allocated for

	// mat holds each particle's material number (sim/pbf State.Material), a byte each packed four to a word, sorted
	// with the particles by the reorder pass: the colour the renderer draws it in (one fluid is simulated).
	mat, mat2 *glh.Buffer
	palette   [][3]float32 // the scene's materials' colours (sim.ScenePalette); nil when it names none

	rigid rigidState // rigid bodies (rigid.go)

	ringFence [statsRing]uintptr
	ringTime  [statsRing]float64 // simulated time of the step each record describes
	ringNext  int

	snaps      [3]snapshot // 0: the reset state; 1, 2: taken in turn every snapInterval steps
	snapNext   int
	lastFinite int // newest step whose statistics showed no non-finite values
	pendingErr error

	time   float64
	steps  int
	stats  sim.Stats
	timers glh.Timers

	plan frameReach // the measurements frames are planned from (frame.go)
}

type snapshot struct {
	pos, vel, ids, mat *glh.Buffer
	rigid              rigidSnapshot // the body arrays and table, with bodies
	n                  int           // particles then (emitters add more)
	emitAcc            []float32
	step               int
	time               float64
	valid              bool
}

const snapInterval = 60

// programs are the compute passes by file name.
var programs = []string{
	"pbf_predict.comp", "pbf_reorder.comp", "pbf_neighbors.comp", "pbf_lambda.comp", "pbf_deltap.comp", "pbf_velocity.comp", "pbf_vorticity.comp",
	"pbf_confine.comp", "pbf_stats.comp", "pbf_stats_final.comp",
	"pbf_rigid_reorder.comp", "pbf_rigid_match.comp", "pbf_rigid_collide.comp",
}

// Programs are the solver's compiled compute passes. Compiling takes a while (seconds on a software
// rasteriser), so one set serves every solver made on a context: scene and mode switches do not recompile.
type Programs struct {
	byName map[string]*glh.Program
	grid   *nsearch.Programs
}

// CompilePrograms compiles the compute passes. ctx must be current and have compute shaders.
func CompilePrograms(ctx *glh.Context) (*Programs, error) {
	if ctx == nil || !ctx.Compute {
		return nil, fmt.Errorf("gpu pbf: OpenGL 4.3 compute shaders are not available (%v)", ctx)
	}
	if have := compute.MaxStorageBindings(); have < needBindings {
		return nil, fmt.Errorf("gpu pbf: needs %d shader-storage binding points, this GPU has %d", needBindings, have)
	}
	p := &Programs{byName: map[string]*glh.Program{}}
	defs := append(nsearch.Defines(), shaders.Int("BIND_PARAMS", bindParams), shaders.Int("ROTATION_ITERS", rigid.RotationIters),
		shaders.Int("BODY_GROUP", bodyGroup), shaders.Int("WALL_TABLE", solid.WallTableSize))
	for name, b := range map[string]int{
		"BIND_POS": bindPos, "BIND_VEL": bindVel, "BIND_PRED": bindPred, "BIND_IDS": bindIDs,
		"BIND_POS2": bindPos2, "BIND_VEL2": bindVel2, "BIND_PRED2": bindPred2, "BIND_IDS2": bindIDs2,
		"BIND_RHO": bindRho, "BIND_LAMBDA": bindLambda, "BIND_BGRAD": bindBGrad, "BIND_OMEGA": bindOmega,
		"BIND_NBR": bindNbr, "BIND_NCOUNT": bindNCount, "BIND_OBSTACLES": bindObstacles,
		"BIND_COUNTERS": bindCounters, "BIND_PARTIAL": bindPartial, "BIND_STATS": bindStats,
		"BIND_BODY": bindBody, "BIND_BODY2": bindBody2, "BIND_WINV": bindWInv, "BIND_WINV2": bindWInv2,
		"BIND_REST": bindRest, "BIND_REST2": bindRest2, "BIND_SLOT_OF": bindSlotOf, "BIND_BODIES": bindBodies,
		"BIND_MAT": bindMat, "BIND_MAT2": bindMat2,
	} {
		defs = append(defs, shaders.Int(name, b))
	}
	for _, f := range programs {
		prog, err := glh.NewProgram(shaders.FS(), defs, f)
		if err != nil {
			p.Delete()
			return nil, fmt.Errorf("gpu pbf: %w", err)
		}
		p.byName[f] = prog
	}
	var err error
	if p.grid, err = nsearch.CompilePrograms(); err != nil {
		p.Delete()
		return nil, fmt.Errorf("gpu pbf: %w", err)
	}
	return p, nil
}

// Delete frees the programs; safe to call twice.
func (p *Programs) Delete() {
	if p == nil {
		return
	}
	for _, prog := range p.byName {
		prog.Delete()
	}
	p.grid.Delete()
}

// New returns a solver using the compute passes compiled for ctx, compiling them on the context's first use
// (they stay with the context: scene and mode switches do not recompile). ctx must be current and have compute
// shaders.
func New(ctx *glh.Context) (*Solver, error) {
	if ctx == nil || !ctx.Compute {
		return nil, fmt.Errorf("gpu pbf: OpenGL 4.3 compute shaders are not available (%v)", ctx)
	}
	progs, err := ctx.Shared("gpu/pbf programs", func() (any, error) { return CompilePrograms(ctx) })
	if err != nil {
		return nil, err
	}
	return NewWithPrograms(progs.(*Programs))
}

// NewWithPrograms returns a solver that uses (and does not own) compiled programs.
func NewWithPrograms(progs *Programs) (*Solver, error) {
	s := &Solver{Cfg: cpbf.DefaultConfig(), params: param.NewSet(), progs: progs}
	s.Cfg.Register(s.params)
	var err error
	if s.ubo, err = glh.NewBuffer(int(unsafe.Sizeof(params{})), gl.DYNAMIC_DRAW); err != nil {
		return nil, fmt.Errorf("gpu pbf: %w", err)
	}
	if s.grid, err = nsearch.NewGrid(progs.grid); err != nil {
		s.ubo.Delete()
		return nil, fmt.Errorf("gpu pbf: %w", err)
	}
	return s, nil
}

// Name implements sim.Solver.
func (s *Solver) Name() string { return Name }

// Params implements sim.Solver.
func (s *Solver) Params() *param.Set { return s.params }

// Derived returns the constants of the current step (shared with the CPU solver).
func (s *Solver) Derived() cpbf.Derived { return s.dv }

// Reset implements sim.Solver: particles are sampled from the scene's fluid blocks, each of its block's material
// (coloured only), and rigid bodies, as the CPU solver samples them.
func (s *Solver) Reset(sc *scene.Scene) error {
	smp, err := cpbf.SampleScene(&s.Cfg, sc)
	if err != nil {
		return err
	}
	if len(smp.Bodies) > 0 {
		lay, err := rigid.LayoutBodies(s.Cfg.RestDensity, smp.Pos, smp.Vel, smp.Bodies)
		if err != nil {
			return err
		}
		return s.reset(sc, smp.Spacing, lay.Pos, lay.Vel, smp.Material, &lay)
	}
	// a resting layer starts where the CPU solver's reset settles it (sim/pbf settle.go), so both start alike
	if _, _, err := s.settleMemo.Settle(&s.Cfg, sc, &smp); err != nil {
		return err
	}
	return s.reset(sc, smp.Spacing, smp.Pos, smp.Vel, smp.Material, nil)
}

// ResetParticles starts from given fluid particles (ids 0..n−1 in order, of material 0) instead of sampling the
// scene.
func (s *Solver) ResetParticles(sc *scene.Scene, spacing float64, pos, vel [][4]float32) error {
	return s.reset(sc, spacing, pos, vel, nil, nil)
}

// reset sets up the particles (ids 0..n−1 in order), the first of them of the materials mat (nil: material 0) and,
// when lay is not nil, the rigid bodies they include.
func (s *Solver) reset(sc *scene.Scene, spacing float64, pos, vel [][4]float32, mat []uint8, lay *rigid.BodyParticles) error {
	if len(pos) != len(vel) || len(mat) > len(pos) {
		return fmt.Errorf("gpu pbf: %d positions, %d velocities and %d materials", len(pos), len(vel), len(mat))
	}
	st := &cpbf.State{Spacing: spacing, Pos: pos, Vel: vel, ID: make([]uint32, len(pos)), Emitted: make([]float32, len(sc.Emitters))}
	for i := range st.ID {
		st.ID[i] = uint32(i)
	}
	if mat != nil { // the fluid's; the bodies' particles after it are of material 0
		st.Material = make([]uint8, len(pos))
		copy(st.Material, mat)
	}
	s.palette = nil
	if len(sc.Materials) > 0 {
		s.palette = sim.ScenePalette(sc)
	}
	if lay != nil && len(lay.Bodies) > 0 {
		st.Body, st.Rest, st.WInv, st.Bodies = lay.Body, lay.Rest, lay.WInv, lay.Bodies
	}
	s.sc, s.time = sc, 0
	s.tools, s.toolAcc, s.notice = sim.Tools{}, 0, ""
	if err := s.derive(spacing); err != nil {
		return err
	}
	if err := s.load(st, s.Cfg.ResolveBudget(len(pos))); err != nil {
		s.n = 0
		return err
	}
	return nil
}

// load sets the state from a consistent st in buffers for capacity particles (allocated when the capacity, the
// neighbour-list stride or the obstacle count changed). The snapshots start again from it.
func (s *Solver) load(st *cpbf.State, capacity int) error {
	n := st.N()
	if n > capacity {
		return fmt.Errorf("gpu pbf: %d particles over the budget of %d (raise pbf.budget)", n, capacity)
	}
	if err := s.allocate(capacity); err != nil {
		return err
	}
	s.n = n
	if err := s.setBodies(st); err != nil {
		return err
	}
	rho := make([]float32, n)
	for i := range rho {
		rho[i] = 1
	}
	glh.Upload(s.pos, 0, st.Pos)
	glh.Upload(s.vel, 0, st.Vel)
	glh.Upload(s.ids, 0, st.ID)
	glh.Upload(s.rho, 0, rho)
	mat := st.Material
	if mat == nil {
		mat = make([]uint8, n)
	}
	glh.Upload(s.mat, 0, mat)
	compute.ClearUint(s.counters, 0)
	s.emitAcc, s.toolAcc = append(s.emitAcc[:0], st.Emitted...), st.ToolAcc
	s.time, s.steps = st.Time, st.Steps
	s.lastFinite, s.pendingErr = st.Steps, nil
	for k := range s.ringFence {
		s.dropFence(k)
	}
	s.stats = sim.Stats{Particles: s.n, Steps: s.steps, Time: s.time}
	for k := range s.snaps {
		s.snaps[k].valid = false
	}
	s.snapshot(0)
	s.snapNext = 1
	s.plan.load(st.Reach, reachOf(st, s.Cfg.Gravity))
	s.measure()
	return glh.CheckError("gpu pbf load")
}

// derive recomputes the constants and the collider for a particle spacing.
func (s *Solver) derive(spacing float64) error {
	dv, err := cpbf.Derive(&s.Cfg, spacing)
	if err != nil {
		return err
	}
	if _, err := grid.Dims(f32(s.sc.Domain.Min), f32(s.sc.Domain.Max), dv.H); err != nil {
		return fmt.Errorf("gpu pbf: %w", err)
	}
	s.dv, s.dvCfg = dv, s.Cfg
	s.col = solid.NewCollider(s.sc, dv.Radius)
	s.col.Obstacles = solid.Moved(s.sc, s.time, s.tools.Paddle)
	return nil
}

func f32(v scene.Vec3) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }

// allocate (re)creates the buffers for n particles (the capacity) and the current grid and stride.
func (s *Solver) allocate(n int) error {
	stride := s.dv.Stride
	for _, c := range []struct {
		what  string
		bytes int64
	}{{"the neighbour lists", int64(n) * int64(stride) * 4}, {"the particle arrays", int64(n) * 16}} {
		if err := compute.CheckStorageSize(c.what, c.bytes); err != nil {
			return fmt.Errorf("gpu pbf: %w", err)
		}
	}
	if n != s.cap {
		s.deleteParticleBuffers()
		s.cap = n
		groups := (n + compute.GroupSize - 1) / compute.GroupSize
		specs := []struct {
			dst  **glh.Buffer
			size int
		}{
			{&s.pos, 16 * n}, {&s.vel, 16 * n}, {&s.pred, 16 * n}, {&s.ids, 4 * n},
			{&s.pos2, 16 * n}, {&s.vel2, 16 * n}, {&s.pred2, 16 * n}, {&s.ids2, 4 * n},
			{&s.rho, 4 * n}, {&s.lambda, 4 * n}, {&s.bgrad, 16 * n}, {&s.omega, 16 * n}, {&s.ncount, 4 * n},
			{&s.mat, matBytes(n)}, {&s.mat2, matBytes(n)},
			{&s.counters, 16}, {&s.partial, int(unsafe.Sizeof(statsRecord{})) * groups},
			{&s.statsBuf, int(unsafe.Sizeof(statsRecord{}))}, {&s.ring, int(unsafe.Sizeof(statsRecord{})) * statsRing},
		}
		for _, sp := range specs {
			b, err := glh.NewBuffer(sp.size, gl.DYNAMIC_COPY)
			if err != nil {
				return fmt.Errorf("gpu pbf: %d particles: %w", n, err)
			}
			*sp.dst = b
		}
		for k := range s.snaps {
			sn := &s.snaps[k]
			var err error
			if sn.pos, err = glh.NewBuffer(16*n, gl.DYNAMIC_COPY); err == nil {
				if sn.vel, err = glh.NewBuffer(16*n, gl.DYNAMIC_COPY); err == nil {
					if sn.ids, err = glh.NewBuffer(4*n, gl.DYNAMIC_COPY); err == nil {
						sn.mat, err = glh.NewBuffer(matBytes(n), gl.DYNAMIC_COPY)
					}
				}
			}
			if err != nil {
				return fmt.Errorf("gpu pbf: %d particles: %w", n, err)
			}
		}
		s.nbrStride = 0
		if err := s.grid.Reserve(n); err != nil {
			return fmt.Errorf("gpu pbf: %w", err)
		}
	}
	if stride != s.nbrStride {
		s.nbr.Delete()
		b, err := glh.NewBuffer(4*n*stride, gl.DYNAMIC_COPY)
		if err != nil {
			return fmt.Errorf("gpu pbf: neighbour lists for %d particles: %w", n, err)
		}
		s.nbr, s.nbrStride = b, stride
	}
	obs := s.col.Obstacles
	s.obstacles.Delete()
	var err error
	// room for the scene's obstacles and the paddle
	if s.obstacles, err = glh.NewBuffer((len(s.sc.Obstacles)+1)*int(unsafe.Sizeof(solid.Obstacle{})), gl.DYNAMIC_DRAW); err != nil {
		return fmt.Errorf("gpu pbf: %w", err)
	}
	glh.Upload(s.obstacles, 0, obs)
	return nil
}

// upload fills the parameter block for a step of dt.
func (s *Solver) upload(dt float64) {
	dv := &s.dv
	c := &s.Cfg
	unilateral := int32(0)
	if c.Unilateral {
		unilateral = 1
	}
	s.block = params{
		N: uint32(s.n), Stride: uint32(dv.Stride), NumObstacles: uint32(len(s.col.Obstacles)), NumBodies: uint32(len(s.rigid.bodies)),
		H: dv.H, H2: dv.H * dv.H, W0: dv.W0, MOverR0: dv.MOverR0,
		Poly6Coef: dv.Poly6.Coef(), SpikyGCoef: dv.Spiky.GradCoef(), InvWDq: dv.InvWDq, ScorrK: dv.ScorrKAbs * cpbf.ScorrPerStep(dt),
		Epsilon: dv.EpsilonAbs, Vorticity: c.Vorticity, XSPH: cpbf.XSPHPerStep(c.XSPH, dt), Dt: float32(dt),
		Gravity:     [4]float32{c.Gravity[0], c.Gravity[1], c.Gravity[2], 0},
		Lo:          [4]float32{s.col.Lo[0], s.col.Lo[1], s.col.Lo[2], s.col.Radius},
		Hi:          [4]float32{s.col.Hi[0], s.col.Hi[1], s.col.Hi[2], 0},
		WallInvStep: dv.Wall.InvStep, WallLast: dv.Wall.Last, Wall: dv.Wall.Table,
		ScorrN: c.ScorrN, Unilateral: unilateral, MaxSpeed: maxSpeed(c.Step, dv.Spacing, dt),
	}
	glh.Upload(s.ubo, 0, []params{s.block})
}

// maxSpeed is the parameter block's speed limit for a step of dt: real-time mode's (sim.CFL.SpeedLimit, the
// CPU solver's), 0 when it is off.
func maxSpeed(c sim.CFL, spacing float32, dt float64) float32 {
	l := c.SpeedLimit(float64(spacing), dt)
	if math.IsInf(l, 1) {
		return 0
	}
	return float32(l)
}

// bind attaches every buffer to its binding point; called again after each ping-pong swap.
func (s *Solver) bind() {
	gl.BindBufferBase(gl.UNIFORM_BUFFER, bindParams, s.ubo.ID())
	s.grid.Bind()
	for _, b := range []struct {
		at  uint32
		buf *glh.Buffer
	}{
		{bindPos, s.pos}, {bindVel, s.vel}, {bindPred, s.pred}, {bindIDs, s.ids},
		{bindPos2, s.pos2}, {bindVel2, s.vel2}, {bindPred2, s.pred2}, {bindIDs2, s.ids2},
		{bindRho, s.rho}, {bindLambda, s.lambda}, {bindBGrad, s.bgrad}, {bindOmega, s.omega},
		{bindNbr, s.nbr}, {bindNCount, s.ncount}, {bindObstacles, s.obstacles},
		{bindCounters, s.counters}, {bindPartial, s.partial}, {bindStats, s.statsBuf},
		{bindMat, s.mat}, {bindMat2, s.mat2},
	} {
		compute.BindStorage(b.at, b.buf)
	}
	s.rigid.bind()
}

// run dispatches one pass over `items` and makes its writes visible to the next.
func (s *Solver) run(prog string, items int) {
	s.progs.byName[prog].Use()
	compute.Dispatch(items, compute.GroupSize)
	compute.Barrier()
}

// Step implements sim.Solver: one pass of Algorithm 1 on the GPU.
func (s *Solver) Step(dt float64) error {
	if s.sc == nil || s.n == 0 {
		return fmt.Errorf("gpu pbf: Step before Reset")
	}
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("gpu pbf: time step %g must be positive", dt)
	}
	if err := s.pendingErr; err != nil {
		s.pendingErr = nil
		return err
	}
	if s.Cfg != s.dvCfg { // a parameter changed: the kernel radius can change the grid and the list stride
		if err := s.derive(float64(s.dv.Spacing)); err != nil {
			return err
		}
		if err := s.allocate(s.cap); err != nil {
			return err
		}
	}
	s.rigid.updateMasses(s.Cfg.RestDensity)
	s.emit(dt)
	if err := s.blast(dt); err != nil {
		return fmt.Errorf("gpu pbf: a blast: %w", err)
	}
	s.moveObstacles(s.time + dt)
	s.upload(dt)
	s.bind()
	t := &s.timers
	t.Begin()
	s.run("pbf_predict.comp", s.n)
	t.Mark("predict")
	if err := s.buildGrid(); err != nil {
		t.End()
		return err
	}
	t.Mark("grid")
	s.run("pbf_neighbors.comp", s.n)
	t.Mark("neighbours")
	for it := 0; it < int(s.Cfg.Iterations); it++ {
		s.run("pbf_lambda.comp", s.n)
		t.Mark("lambda")
		s.run("pbf_deltap.comp", s.n)
		s.pred, s.pred2 = s.pred2, s.pred
		s.bind()
		t.Mark("delta p")
		if s.hasBodies() {
			s.runBodies("pbf_rigid_match.comp")
			t.Mark("rigid")
		}
	}
	if s.hasBodies() {
		s.runBodies("pbf_rigid_collide.comp")
		t.Mark("rigid")
	}
	s.run("pbf_velocity.comp", s.n)
	s.run("pbf_vorticity.comp", s.n)
	t.Mark("vorticity")
	s.run("pbf_confine.comp", s.n)
	s.vel, s.vel2 = s.vel2, s.vel
	s.bind()
	t.Mark("velocity")
	s.steps++
	s.time += dt
	s.reduceStats()
	t.Mark("stats")
	t.End()
	// the renderer reads the particle buffers as vertex attributes
	gl.MemoryBarrier(gl.VERTEX_ATTRIB_ARRAY_BARRIER_BIT | gl.BUFFER_UPDATE_BARRIER_BIT)
	if s.steps%snapInterval == 0 {
		s.snapshot(s.snapNext)
		s.snapNext = 3 - s.snapNext
	}
	return s.poll(false)
}

// buildGrid sorts the particles by (cell, id) on the GPU (gpu/nsearch) and reorders every per-particle array.
func (s *Solver) buildGrid() error {
	lo, hi := f32(s.sc.Domain.Min), f32(s.sc.Domain.Max)
	if err := s.grid.Build(s.pred, s.ids, s.n, lo, hi, s.dv.H); err != nil {
		return err
	}
	s.bind() // the build used binding points of its own
	s.run("pbf_reorder.comp", s.n)
	if s.hasBodies() {
		s.run("pbf_rigid_reorder.comp", s.n)
		s.rigid.swap()
	}
	s.pos, s.pos2 = s.pos2, s.pos
	s.vel, s.vel2 = s.vel2, s.vel
	s.pred, s.pred2 = s.pred2, s.pred
	s.ids, s.ids2 = s.ids2, s.ids
	s.mat, s.mat2 = s.mat2, s.mat
	s.bind()
	return nil
}

// matBytes is the size of a material buffer of n particles: whole words, as the shaders address it.
func matBytes(n int) int { return 4 * ((n + 3) / 4) }

// reduceStats runs the statistics passes and queues the record for reading back without waiting.
func (s *Solver) reduceStats() {
	groups := (s.n + compute.GroupSize - 1) / compute.GroupSize
	s.run("pbf_stats.comp", s.n)
	p := s.progs.byName["pbf_stats_final.comp"]
	p.Use()
	p.SetUint("uGroups", uint32(groups))
	p.SetUint("uStep", uint32(s.steps))
	compute.Dispatch(compute.GroupSize, compute.GroupSize)
	gl.MemoryBarrier(gl.BUFFER_UPDATE_BARRIER_BIT | gl.SHADER_STORAGE_BARRIER_BIT)
	// the clipped and clamped counts are per step; the bad-value count accumulates until a reset or restore, so a
	// record skipped below cannot hide a step that went wrong
	compute.ClearUintRange(s.counters, 1, 2, 0)
	k := s.ringNext
	if s.ringFence[k] != 0 {
		return // the GPU is far behind; skip this step's record rather than wait
	}
	size := int(unsafe.Sizeof(statsRecord{}))
	glh.Copy(s.ring, k*size, s.statsBuf, 0, size)
	s.rigid.queuePoses(k)
	s.ringFence[k] = gl.FenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)
	s.ringTime[k] = s.time
	s.ringNext = (k + 1) % statsRing
}

func (s *Solver) dropFence(k int) {
	if s.ringFence[k] != 0 {
		gl.DeleteSync(s.ringFence[k])
		s.ringFence[k] = 0
	}
}

// poll reads the statistics records the GPU has finished, oldest first; with wait it waits for all of them.
// A record with non-finite values restores the newest snapshot known to be finite.
func (s *Solver) poll(wait bool) error {
	size := int(unsafe.Sizeof(statsRecord{}))
	for i := 0; i < statsRing; i++ {
		k := (s.ringNext + i) % statsRing
		if s.ringFence[k] == 0 {
			continue
		}
		var timeout uint64
		flags := uint32(0)
		if wait {
			timeout, flags = 10e9, gl.SYNC_FLUSH_COMMANDS_BIT
		}
		if r := gl.ClientWaitSync(s.ringFence[k], flags, timeout); r != gl.ALREADY_SIGNALED && r != gl.CONDITION_SATISFIED {
			if wait {
				return fmt.Errorf("gpu pbf: the GPU did not finish a step within 10 s")
			}
			break
		}
		s.dropFence(k)
		rec := make([]statsRecord, 1)
		glh.Read(s.ring, k*size, rec)
		if err := s.take(rec[0], s.ringTime[k]); err != nil {
			return err
		}
		s.rigid.takePoses(k)
	}
	return nil
}

// take turns the statistics record of the step that ended at simulated time t into Stats, and detects
// non-finite state.
func (s *Solver) take(r statsRecord, t float64) error {
	if r.Bad > 0 || r.BadTotal > 0 {
		failed := int(r.Step)
		for k := range s.ringFence { // records after the failure describe the broken state
			s.dropFence(k)
		}
		s.restore()
		return cpbf.NonFinite(Name, failed, int(max(r.Bad, 1)), s.time)
	}
	s.lastFinite = max(s.lastFinite, int(r.Step))
	st := &s.stats
	st.Particles, st.Steps, st.Time = s.n, int(r.Step), t // the numbers describe that step, not the newest
	n := float64(max(1, s.fluidCount()))                  // the means are over the fluid
	st.MaxSpeed = math.Sqrt(float64(r.MaxV2))
	st.Figures = cpbf.AppendFigures(st.Figures[:0], float64(r.SumErr)/n, float64(r.MaxErr), float64(r.SumN)/n, int(r.MaxN), int(r.Clipped))
	st.Figures = s.Cfg.Step.AppendFigures(st.Figures, int(r.Clamped))
	if passes, total, ok := s.timers.Poll(); ok {
		st.Passes, st.StepMs = passes, total
	}
	return nil
}

// snapshot copies the state into snapshot slot k.
func (s *Solver) snapshot(k int) {
	sn := &s.snaps[k]
	glh.Copy(sn.pos, 0, s.pos, 0, 16*s.n)
	glh.Copy(sn.vel, 0, s.vel, 0, 16*s.n)
	glh.Copy(sn.ids, 0, s.ids, 0, 4*s.n)
	glh.Copy(sn.mat, 0, s.mat, 0, matBytes(s.n))
	s.rigid.snapshot(&sn.rigid, s.n)
	sn.n, sn.emitAcc = s.n, append(sn.emitAcc[:0], s.emitAcc...)
	sn.step, sn.time, sn.valid = s.steps, s.time, true
}

// restore goes back to the newest snapshot whose state the statistics have shown to be finite.
func (s *Solver) restore() {
	best := 0
	for k := 1; k < len(s.snaps); k++ {
		if sn := s.snaps[k]; sn.valid && sn.step <= s.lastFinite && sn.step > s.snaps[best].step {
			best = k
		}
	}
	sn := &s.snaps[best]
	s.n = sn.n
	s.emitAcc = append(s.emitAcc[:0], sn.emitAcc...)
	glh.Copy(s.pos, 0, sn.pos, 0, 16*s.n)
	glh.Copy(s.vel, 0, sn.vel, 0, 16*s.n)
	glh.Copy(s.ids, 0, sn.ids, 0, 4*s.n)
	glh.Copy(s.mat, 0, sn.mat, 0, matBytes(s.n))
	s.rigid.restore(&sn.rigid, s.n)
	ones := make([]float32, s.n)
	for i := range ones {
		ones[i] = 1
	}
	glh.Upload(s.rho, 0, ones)
	compute.ClearUint(s.counters, 0)
	s.steps, s.time = sn.step, sn.time
	// plan the next frames for the worst until measurements of the restored state come in
	s.plan.load(nil, [2]float32{math.MaxFloat32, 0})
	s.measure()
	for k := range s.snaps { // snapshots newer than the restored one hold states that no longer happened
		if s.snaps[k].step > sn.step {
			s.snaps[k].valid = false
		}
	}
}

// Frame implements sim.Solver by reading the particle state back from the GPU. It first waits for the statistics
// of every step taken, so a non-finite state is restored before it could be copied out; the error is returned by
// the next Step.
func (s *Solver) Frame(dst *sim.Frame) {
	if s.n == 0 {
		dst.Resize(0)
		return
	}
	if err := s.poll(true); err != nil && s.pendingErr == nil {
		s.pendingErr = err
	}
	dst.Resize(s.n)
	glh.Read(s.pos, 0, dst.Pos)
	glh.Read(s.vel, 0, dst.Vel)
	glh.Read(s.rho, 0, dst.Rho)
	glh.Read(s.ids, 0, dst.ID)
	if s.palette != nil { // the scene names materials: each particle's, and their colours
		dst.Material = grow(dst.Material, s.n)
		glh.Read(s.mat, 0, dst.Material)
		dst.Palette = append(dst.Palette[:0], s.palette...)
	} else {
		dst.Material, dst.Palette = nil, nil
	}
	s.rigid.frame(dst, s.n)
	dst.Radius = s.dv.Radius
	dst.Time, dst.Steps = s.time, s.steps
}

// Stats implements sim.Solver. GPU statistics arrive a few steps late; Stats reports the newest finished ones,
// with the step count and time of the step they describe.
func (s *Solver) Stats() sim.Stats {
	if err := s.poll(false); err != nil && s.pendingErr == nil {
		s.pendingErr = err
	}
	st := s.stats.Clone()
	// the measurements describe the newest step whose record has come back; the counts are the newest step's
	st.Particles, st.Steps, st.Time = s.n, s.steps, s.time
	st.Notice, s.notice = s.notice, ""
	st.Substeps = s.plan.substeps
	return st
}

// Sync waits until the GPU has finished every step taken and their statistics are in.
func (s *Solver) Sync() error {
	if err := s.poll(true); err != nil {
		return err
	}
	gl.Finish()
	if passes, total, ok := s.timers.Poll(); ok {
		s.stats.Passes, s.stats.StepMs = passes, total
	}
	return nil
}

// Particles is what the renderer draws: the solver's own buffers. With rigid bodies, Body is the per-particle body
// buffer and Bodies the poses of the newest step whose statistics have come back (a step or two behind the
// particles, as Stats is; Frame and Bodies read the current ones).
func (s *Solver) Particles() render.Particles {
	p := render.Particles{Pos: s.pos, Vel: s.vel, Rho: s.rho, N: s.n, Radius: s.dv.Radius}
	if s.hasBodies() {
		p.Body, p.Bodies = s.rigid.body, s.rigid.poses
	}
	if s.palette != nil {
		p.Material, p.Palette = s.mat, s.palette
	}
	return p
}

func (s *Solver) deleteParticleBuffers() {
	for _, b := range []*glh.Buffer{s.pos, s.vel, s.pred, s.ids, s.pos2, s.vel2, s.pred2, s.ids2, s.rho, s.lambda,
		s.bgrad, s.omega, s.ncount, s.counters, s.partial, s.statsBuf, s.ring, s.nbr, s.mat, s.mat2} {
		b.Delete()
	}
	for k := range s.snaps {
		s.snaps[k].pos.Delete()
		s.snaps[k].vel.Delete()
		s.snaps[k].ids.Delete()
		s.snaps[k].mat.Delete()
	}
	s.rigid.delete(&s.snaps)
	for k := range s.ringFence {
		s.dropFence(k)
	}
	s.n, s.cap = 0, 0
}

// Delete frees every GL object; safe to call twice.
func (s *Solver) Delete() {
	if s == nil {
		return
	}
	s.deleteParticleBuffers()
	for _, b := range []*glh.Buffer{s.obstacles, s.ubo} {
		b.Delete()
	}
	s.plan.delete()
	s.grid.Delete()
	s.timers.Delete()
}
