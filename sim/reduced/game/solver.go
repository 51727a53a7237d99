package game

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/reduced"
	"github.com/slosh/slosh/sim/reduced/panel"
	"github.com/slosh/slosh/sim/scene"
)

// Solver is the reduced mode: a sim.Solver, sim.Flat and sim.FlatHands.
//
// A step, with the time splitting of §5.3: the reduced fluid advects and diffuses (§5.1); its velocity u_r on the
// background grid gives each body's vortex panels the flow to cancel, solved body by body and then by Schwarz
// iterations between them (§5.3.1–5.3.2, images at the walls §5.3.3); the panels' velocity u_p is fed back into
// the basis (§5.3.4) after the tracers and the dye have moved in u_r + u_p; the panels' dynamic pressure and
// buoyancy push the bodies (§5.3.5), and Box2D steps them.
type Solver struct {
	cfg    Config
	params *param.Set
	pool   par.Pool

	sc    *scene.Scene
	model *reduced.Model
	grid  reduced.Grid
	world *world
	lvl   level

	ur, up reduced.Field // the reduced velocity and the panels' velocity on the grid faces
	uc     reduced.Field // their sum, the combined field the tracers and the dye move in

	sys        *panel.System   // the bodies' vortex panels
	fb         *panel.Feedback // their velocity onto the grid
	pbodies    []panel.Body
	outlineTmp [][2]float32
	cp, amb    []panel.Vec // collocation points and the reduced fluid's velocity there
	forces     []panel.Force
	streams    []panel.Vec // the stream each body stands in (push)
	solve      panel.Result
	evals      panel.QuadStats

	// drawn currents: the model's current number and the field's norm at the speed it was drawn (Excite
	// restores that speed), by digit key
	keys    [10]drawn
	nextKey int
	strokes []stroke // every current that joined the model, in order: a saved state draws them again
	work    float64  // the estimated work of drawing them again (budget.go)

	tracers [][2]float32
	lost    []bool    // the tracers a step carried out of the water
	src     *rand.PCG // the tracers' random source, saved with the state
	rng     *rand.Rand
	dye     dyeField

	time  float64
	steps int
	stats sim.Stats
	speed float64 // the fastest flow on the grid after the last step, m/s

	// a recent state, restored when a step fails (fail)
	snap []byte
}

// stroke is a current as drawn, for the saved state.
type stroke struct {
	points       [][2]float32
	speed, width float64
	key          int32
}

// drawn is a current on a digit key.
type drawn struct {
	on      bool
	current int
	norm    float64
}

// New returns a solver with the default parameters; Reset gives it a scene.
func New() *Solver {
	s := &Solver{cfg: DefaultConfig(), params: param.NewSet()}
	s.cfg.Register(s.params)
	return s
}

// Name implements sim.Solver.
func (s *Solver) Name() string { return Name }

// Params implements sim.Solver.
func (s *Solver) Params() *param.Set { return s.params }

// Reset implements sim.Solver: a 2D scene's rectangle, bodies, currents and goal. On error the solver keeps its
// state.
func (s *Solver) Reset(sc *scene.Scene) error {
	var bodies []scene.FlatBody
	if sc != nil && sc.Flat != nil {
		bodies = sc.Flat.Bodies
		if err := s.checkSceneWork(sc); err != nil {
			return err
		}
	}
	n, err := s.build(sc, bodies)
	if err != nil {
		return err
	}
	f := sc.Flat
	for i := range f.Currents {
		cu := &f.Currents[i]
		pts := make([][2]float32, len(cu.Points))
		for k, q := range cu.Points {
			pts[k] = [2]float32{float32(q[0]), float32(q[1])}
		}
		if _, err := n.draw(pts, cu.Speed, cu.Width, cu.Key); err != nil {
			return fmt.Errorf("scene %q: flat.currents[%d]: %w", sc.Name, i, err)
		}
	}
	n.seedTracers(int(n.cfg.Tracers))
	if err := n.model.Velocity(n.ur); err != nil {
		return err
	}
	n.combine()
	n.speed = n.maxSpeed()
	n.stats = sim.Stats{Particles: len(n.tracers)}
	*s = *n
	return nil
}

// build makes a solver for sc at time zero with the given bodies (the scene's, or a saved state's), with s's
// parameters: the model with no drawn currents, Box2D, the panels, the stripes of dye, no tracers.
func (s *Solver) build(sc *scene.Scene, bodies []scene.FlatBody) (*Solver, error) {
	if sc == nil || sc.Flat == nil {
		name := "the scene"
		if sc != nil {
			name = fmt.Sprintf("the scene %q", sc.Name)
		}
		return nil, fmt.Errorf("%s is a 3D scene; the reduced mode plays 2D scenes (a \"flat\" section: the reduced-* levels)", name)
	}
	f := sc.Flat
	c := &s.cfg
	nx, ny := gridCells(f.Size, int(c.Grid))
	p := reduced.DefaultParams()
	p.Width, p.Height, p.NX, p.NY = f.Size[0], f.Size[1], nx, ny
	p.Modes, p.Viscosity, p.MaxDrawn = int(c.Modes), float64(c.Viscosity), maxDrawn
	model, err := reduced.New(p)
	if err != nil {
		return nil, err // the model says "reduced: …"
	}
	g := model.Grid()
	spacing := float64(c.PanelLength) * min(g.DX, g.DY)
	w, err := newWorld(f.Size, bodies, [2]float64{0, -float64(c.Gravity)}, spacing)
	if err != nil {
		return nil, fmt.Errorf("scene %q: %w", sc.Name, err)
	}
	opt := panel.DefaultOptions(f.Size[0], f.Size[1])
	opt.Pool = s.pool
	sys, err := panel.NewSystem(opt)
	if err != nil {
		return nil, err
	}
	fb, err := panel.NewFeedback(panel.Grid{NX: g.NX, NY: g.NY, Width: f.Size[0], Height: f.Size[1]}, spacing, s.pool)
	if err != nil {
		return nil, err
	}
	src := rand.NewPCG(1, 2)
	n := &Solver{cfg: s.cfg, params: s.params, pool: s.pool, sc: sc, model: model, grid: g, world: w, sys: sys, fb: fb,
		lvl: level{goal: f.Goal, about: sc.Description}, nextKey: 1, src: src, rng: rand.New(src)}
	n.ur, n.up, n.uc = g.NewField(), g.NewField(), g.NewField()
	n.dye.reset(g)
	return n, nil
}

// maxDrawn is how many drawn modes the basis may gain in a sitting: the currents a scene ships and the ones the
// player draws. Each costs a few dozen milliseconds to add and makes every advection step a little dearer.
const maxDrawn = 24

// gridCells returns the background grid's cells along each side: cells along the longer side, and as many as
// keep the cells about square along the other.
func gridCells(size scene.Vec2, cells int) (nx, ny int) {
	if size[0] >= size[1] {
		return cells, max(4, int(math.Round(float64(cells)*size[1]/size[0])))
	}
	return max(4, int(math.Round(float64(cells)*size[0]/size[1]))), cells
}

// BeginFrame implements sim.Solver: the CFL condition on the fastest flow on the grid, in grid cells.
func (s *Solver) BeginFrame(frameDt float64) int {
	n := s.cfg.Step.Substeps(s.speed, min(s.grid.DX, s.grid.DY), frameDt)
	s.stats.Substeps = n
	return n
}

// Step implements sim.Solver.
func (s *Solver) Step(dt float64) error {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return fmt.Errorf("reduced: step of %g s", dt)
	}
	if s.snap == nil || s.steps%snapshotEvery == 0 {
		// the state a failed step goes back to, written over the last one's bytes
		b := bytes.NewBuffer(s.snap[:0])
		if err := s.WriteState(b); err != nil {
			return err
		}
		s.snap = b.Bytes()
	}
	// the parameters the panel may change between steps that the model and Box2D keep
	if err := s.model.SetViscosity(float64(s.cfg.Viscosity)); err != nil {
		return err
	}
	s.world.setGravity(float64(s.cfg.Gravity))
	var passes [10]sim.Pass
	np := 0
	stage := func(name string, start time.Time) time.Time {
		now := time.Now()
		passes[np] = sim.Pass{Name: name, Ms: float64(now.Sub(start).Microseconds()) / 1000}
		np++
		return now
	}
	t := time.Now()
	start := t
	if err := s.model.Advect(dt); err != nil {
		return s.fail(err)
	}
	t = stage("advect", t)
	if err := s.model.Diffuse(dt); err != nil {
		return s.fail(err)
	}
	t = stage("diffuse", t)
	if err := s.model.Velocity(s.ur); err != nil {
		return s.fail(err)
	}
	clear(s.up.U)
	clear(s.up.V)
	t = stage("velocity", t)
	if len(s.world.bodies) > 0 {
		if err := s.panels(); err != nil {
			return s.fail(err)
		}
		t = stage("panel solves", t)
		if err := s.feedback(); err != nil {
			return s.fail(err)
		}
		t = stage("feedback", t)
		if err := s.push(dt); err != nil {
			return s.fail(err)
		}
	}
	s.combine()
	s.advectTracers(dt)
	s.dye.advect(s.grid, s.uc, dt, s.pool)
	t = stage("tracers and dye", t)
	if len(s.world.bodies) > 0 && s.cfg.Feedback != FeedbackOff {
		// the panels have no memory (§5.3.4): their flow joins the reduced fluid, which keeps it
		if err := s.model.AddField(s.up, float64(s.cfg.Strength)); err != nil {
			return s.fail(err)
		}
	}
	if err := s.world.step(dt); err != nil {
		return s.abort(err)
	}
	s.world.limit()
	s.time += dt
	s.steps++
	s.lvl.update(s.world, s.time, dt)
	t = stage("rigid", t) // Box2D and the goal: the passes a benchmark counts as the bodies' own
	s.speed = s.maxSpeed()
	if !finite(s.speed) || !s.world.finite() {
		return s.fail(errors.New("the flow or a body became non-finite"))
	}
	if s.speed > sim.MaxStateSpeed { // as fast as no state may hold: the coupling ran away
		return s.fail(fmt.Errorf("the flow reached %.3g m/s, beyond the %g m/s any state holds", s.speed, float64(sim.MaxStateSpeed)))
	}
	s.stats = sim.Stats{Particles: len(s.tracers), Steps: s.steps, Time: s.time, StepMs: float64(time.Since(start).Microseconds()) / 1000,
		Passes: append(s.stats.Passes[:0], passes[:np]...), Substeps: s.stats.Substeps, MaxSpeed: s.speed, Figures: s.figures()}
	return nil
}

// panels places the bodies' panels at their poses and solves for the strengths that cancel the reduced flow
// through them, body by body and then by Schwarz iterations (§5.3.1–5.3.3).
func (s *Solver) panels() error {
	o := s.sys.Options()
	o.Tolerance, o.MaxIterations = float64(s.cfg.Tolerance), int(s.cfg.Iterations)
	if o != s.sys.Options() {
		sys, err := panel.NewSystem(o)
		if err != nil {
			return err
		}
		s.sys = sys
	}
	s.pbodies = s.pbodies[:0]
	for i, b := range s.world.bodies {
		p, a, v, w := s.world.pose(i)
		// the panels take the velocity of the body's origin; Box2D keeps its centre of mass's
		c := s.world.center(i)
		vo := panel.Vec{X: v[0] - w*(p[1]-c[1]), Y: v[1] + w*(p[0]-c[0])}
		s.pbodies = append(s.pbodies, panel.Body{Shape: b.shape, Pos: panel.Vec{X: p[0], Y: p[1]}, Angle: a, Vel: vo, Omega: w})
	}
	if err := s.sys.SetBodies(s.pbodies); err != nil {
		return err
	}
	s.cp = s.sys.Collocation(s.cp[:0])
	s.amb = grow(s.amb, len(s.cp))
	for k, q := range s.cp {
		u, v := s.grid.Sample(s.ur, q.X, q.Y)
		s.amb[k] = panel.Vec{X: u, Y: v}
	}
	res, err := s.sys.Solve(s.amb)
	s.solve = res
	return err
}

// feedback puts the panels' velocity on the grid (§5.3.4).
func (s *Solver) feedback() error {
	if s.cfg.Feedback == FeedbackNaive {
		s.evals = panel.QuadStats{FaceEvals: s.grid.NU() + s.grid.NV()}
		if err := s.fb.Naive(s.up.U, s.up.V, s.sys); err != nil {
			return err
		}
		s.maskBodies()
		return nil
	}
	st, err := s.fb.Quadtree(s.up.U, s.up.V, s.sys, float64(s.cfg.Threshold))
	s.evals = st
	if err != nil {
		return err
	}
	s.maskBodies()
	return nil
}

// maskBodies clears the panels' velocity on the faces inside the bodies. Inside a closed vortex sheet the
// panels' field is the ambient flow reversed (the sheet stops the flow there); that is no fluid's velocity, and
// fed back it would be a current against the stream as wide as the body, which the reduced fluid's smooth modes
// spread over the whole stream.
func (s *Solver) maskBodies() {
	g := s.grid
	for i := range s.world.bodies {
		ol := s.world.worldOutline(i, s.outlineTmp[:0])
		s.outlineTmp = ol
		lo, hi := [2]float32{ol[0][0], ol[0][1]}, [2]float32{ol[0][0], ol[0][1]}
		for _, p := range ol {
			lo = [2]float32{min(lo[0], p[0]), min(lo[1], p[1])}
			hi = [2]float32{max(hi[0], p[0]), max(hi[1], p[1])}
		}
		i0, i1 := max(int(float64(lo[0])/g.DX)-1, 0), min(int(float64(hi[0])/g.DX)+2, g.NX)
		j0, j1 := max(int(float64(lo[1])/g.DY)-1, 0), min(int(float64(hi[1])/g.DY)+2, g.NY)
		for j := j0; j <= j1; j++ {
			for i := i0; i <= i1; i++ {
				if j < g.NY && i <= g.NX {
					if x, y := g.UPos(i, j); sim.InConvex(ol, [2]float32{float32(x), float32(y)}) {
						s.up.U[g.UIndex(i, j)] = 0
					}
				}
				if i < g.NX && j <= g.NY {
					if x, y := g.VPos(i, j); sim.InConvex(ol, [2]float32{float32(x), float32(y)}) {
						s.up.V[g.VIndex(i, j)] = 0
					}
				}
			}
		}
	}
}

// push applies the fluid's forces to the bodies for a step of dt (§5.3.5): the dynamic pressure in the chosen
// reading and the buoyancy, with the water each body must move and the drag's response within the step
// (drive.go).
func (s *Solver) push(dt float64) error {
	g := 0.0
	if s.cfg.Buoyancy {
		g = float64(s.cfg.Gravity)
	}
	rho := float64(s.cfg.Density)
	var err error
	if s.cfg.Pressure == PressureBernoulli {
		s.forces, err = s.sys.Forces(s.forces, rho, g)
	} else {
		// the stream each body stands in: the reduced fluid at its centre of mass, as the Maxey–Riley equation
		// takes the undisturbed flow at a body's centre; the panels' feedback stops at its outline
		// (maskBodies), round which the fluid has learnt to go, and a current narrower than the body runs its
		// edges and return flow there (issue 26)
		s.streams = s.streams[:0]
		for i := range s.world.bodies {
			c := s.world.center(i)
			u, v := s.grid.Sample(s.ur, c[0], c[1])
			s.streams = append(s.streams, panel.Vec{X: u, Y: v})
		}
		s.forces, err = s.sys.StreamForces(s.forces, rho, g, s.streams)
	}
	if err != nil {
		return err
	}
	for i, f := range s.forces {
		if s.cfg.Pressure == PressureOff {
			f.Dynamic, f.DynamicTorque, f.Damping = panel.Vec{}, 0, [3][3]float64{}
		}
		s.world.drive(i, f, dt, rho, float64(s.cfg.Gravity))
	}
	return nil
}

// snapshotEvery is how many steps apart the solver keeps a state to go back to when a step fails: about a second
// of the game; writing one costs a few hundred microseconds.
const snapshotEvery = 60

// fail goes back to the last kept state and reports the step as non-finite.
func (s *Solver) fail(err error) error {
	step := s.steps + 1
	if rerr := s.restore(err); rerr != nil {
		return rerr
	}
	return &sim.NonFiniteError{Mode: Name, Step: step, Count: 1, Restored: s.time,
		Advice: fmt.Sprintf("%v; lower the current speed or raise reduced.substeps", err)}
}

// abort goes back to the last kept state and reports a step that failed for another reason than the numbers:
// Box2D failing inside its step.
func (s *Solver) abort(err error) error {
	step := s.steps + 1
	if rerr := s.restore(err); rerr != nil {
		return rerr
	}
	return fmt.Errorf("reduced: step %d: %w; restored the state at t=%.3fs", step, err, s.time)
}

// restore loads the last kept state after step s.steps+1 failed with err.
func (s *Solver) restore(err error) error {
	if s.snap == nil {
		return nil
	}
	snap := s.snap
	if rerr := s.ReadState(bytes.NewReader(snap)); rerr != nil {
		return fmt.Errorf("reduced: step %d failed (%v) and the state it kept does not load: %w", s.steps+1, err, rerr)
	}
	s.snap = snap
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// combine sets the combined field u_r + u_p on the faces.
func (s *Solver) combine() {
	for k, u := range s.ur.U {
		s.uc.U[k] = u + s.up.U[k]
	}
	for k, v := range s.ur.V {
		s.uc.V[k] = v + s.up.V[k]
	}
}

// maxSpeed is the fastest flow of the combined field on the grid's faces.
func (s *Solver) maxSpeed() float64 {
	m := 0.0
	for _, u := range s.uc.U {
		m = max(m, math.Abs(u))
	}
	for _, v := range s.uc.V {
		m = max(m, math.Abs(v))
	}
	return m
}

// velocity is the combined field u_r + u_p at (x, y).
func (s *Solver) velocity(x, y float64) (float64, float64) { return s.grid.Sample(s.uc, x, y) }

func (s *Solver) figures() []sim.Figure {
	f := append(s.stats.Figures[:0],
		sim.Figure{Name: "modes", Value: float64(s.model.Modes())},
		sim.Figure{Name: "kinetic energy", Value: s.model.Energy() * float64(s.cfg.Density), Unit: "J/m", Plot: true},
	)
	if n := len(s.world.bodies); n > 0 {
		f = append(f,
			sim.Figure{Name: "panels", Value: float64(s.sys.Panels())},
			sim.Figure{Name: "mirrored panels", Value: float64(s.solve.Images)},
			sim.Figure{Name: "Schwarz iterations", Value: float64(s.solve.Iterations), Plot: false},
			sim.Figure{Name: "Schwarz change", Value: s.solve.Change},
			sim.Figure{Name: "feedback evaluations", Value: float64(s.evals.NodeEvals + s.evals.FaceEvals)},
		)
		switch {
		case s.solve.Diverged:
			f = append(f, sim.Figure{Name: "Schwarz iterations diverged: bodies solved alone", Value: 1, Warn: true})
		case !s.solve.Converged:
			f = append(f, sim.Figure{Name: "Schwarz iterations ran out", Value: 1, Warn: true})
		}
	}
	if g := s.lvl.goal; g != nil {
		f = append(f, sim.Figure{Name: "crates home", Value: float64(s.lvl.delivered)})
	}
	return f
}

// Stats implements sim.Solver.
func (s *Solver) Stats() sim.Stats { return s.stats }
