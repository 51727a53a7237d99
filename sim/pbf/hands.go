package pbf

import (
	"fmt"
	"io"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/blast"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/solid"
)

// The sandbox's tools (sim.Hands) and save files (sim.Stateful) on the CPU solver. Adding fluid appends particles
// with the next ids; everything that removes particles or adds a body edits a State (state.go) and loads it back,
// which keeps ids dense and each body's ids contiguous. Emitters and kinematic obstacles act inside Step, through
// the same functions the GPU solver calls (EmitterStep, MovedObstacles), so both add the same particles and move
// the same obstacles.

// StateKind implements sim.Stateful: CPU and GPU PBF states load into each other.
func (s *Solver) StateKind() string { return "pbf" }

// Budget implements sim.Hands.
func (s *Solver) Budget() int { return s.budget }

// SaveState copies the whole state into dst, reusing its slices.
func (s *Solver) SaveState(dst *State) {
	dst.Spacing, dst.Time, dst.Steps = float64(s.dv.Spacing), s.time, s.steps
	dst.Pos = append(dst.Pos[:0], s.x...)
	dst.Vel = append(dst.Vel[:0], s.v...)
	dst.ID = append(dst.ID[:0], s.id...)
	dst.Bodies = append(dst.Bodies[:0], s.bodies...)
	if s.hasBodies() {
		dst.Body = append(dst.Body[:0], s.body...)
		dst.Rest = append(dst.Rest[:0], s.rest...)
		dst.WInv = append(dst.WInv[:0], s.wInv...)
	} else {
		dst.Body, dst.Rest, dst.WInv = nil, nil, nil
	}
	dst.Emitted = append(dst.Emitted[:0], s.emitAcc...)
}

// LoadState replaces the state with st after checking it against the scene the solver was reset with. On error
// the solver keeps its state.
func (s *Solver) LoadState(st *State) error {
	if s.sc == nil {
		return fmt.Errorf("pbf: load a state after a reset with its scene")
	}
	if err := st.CheckFor(s.sc, s.budget); err != nil {
		return fmt.Errorf("pbf: %w", err)
	}
	if float32(st.Spacing) != s.dv.Spacing {
		if err := s.derive(st.Spacing, s.budget); err != nil {
			return err
		}
	}
	s.loadState(st)
	s.save()
	return nil
}

// loadState sets the state from a consistent st (a snapshot or a validated state).
func (s *Solver) loadState(st *State) {
	n := st.N()
	s.x = append(s.x[:0], st.Pos...)
	s.v = append(s.v[:0], st.Vel...)
	s.id = append(s.id[:0], st.ID...)
	s.bodies = append(s.bodies[:0], st.Bodies...)
	s.body, s.rest, s.wInv = s.body[:0], s.rest[:0], s.wInv[:0]
	if len(st.Bodies) > 0 {
		s.body = append(s.body, st.Body...)
		s.rest = append(s.rest, st.Rest...)
		s.wInv = append(s.wInv, st.WInv...)
	}
	s.emitAcc = append(s.emitAcc[:0], st.Emitted...)
	s.time, s.steps = st.Time, st.Steps
	s.sizeScratch(n)
	for i := range s.rho {
		s.rho[i] = 1
	}
	s.mapSlots()
	s.stats.Particles = n
}

// sizeScratch sizes the per-particle arrays that are recomputed every step.
func (s *Solver) sizeScratch(n int) {
	s.p = grow.Resize(s.p, n)
	s.tmp = grow.Resize(s.tmp, n)
	s.omega = grow.Resize(s.omega, n)
	s.lambda = grow.Resize(s.lambda, n)
	s.bgrad = grow.Resize(s.bgrad, n)
	s.ncount = grow.Resize(s.ncount, n)
	s.tmpID = grow.Resize(s.tmpID, n)
	for len(s.rho) < n {
		s.rho = append(s.rho, 1)
	}
	s.rho = s.rho[:n]
}

// mapSlots rebuilds the id → slot map of the bodies.
func (s *Solver) mapSlots() {
	if !s.hasBodies() {
		s.slotOf = s.slotOf[:0]
		return
	}
	s.slotOf = grow.Resize(s.slotOf, len(s.id))
	for k, id := range s.id {
		s.slotOf[id] = int32(k)
	}
}

// edit applies a change to a copy of the state and loads the result.
func (s *Solver) edit(change func(st *State) error) error {
	if s.sc == nil {
		return fmt.Errorf("pbf: no scene (reset first)")
	}
	var st State
	s.SaveState(&st)
	if err := change(&st); err != nil {
		return err
	}
	s.loadState(&st)
	s.save()
	return nil
}

// WriteState implements sim.Stateful.
func (s *Solver) WriteState(w io.Writer) error {
	var st State
	s.SaveState(&st)
	return st.Encode(w)
}

// ReadState implements sim.Stateful.
func (s *Solver) ReadState(r io.Reader) error {
	st, err := DecodeState(r)
	if err != nil {
		return err
	}
	return s.LoadState(st)
}

// AddFluid implements sim.Hands.
func (s *Solver) AddFluid(pos, vel [][3]float32) int {
	p, v := to4(pos), to4(vel)
	k := min(len(p), max(0, s.budget-len(s.x)))
	s.appendFluid(p[:k], v[:k])
	return k
}

func to4(a [][3]float32) [][4]float32 {
	out := make([][4]float32, len(a))
	for i, q := range a {
		out[i] = [4]float32{q[0], q[1], q[2], 0}
	}
	return out
}

// appendFluid adds fluid particles with the next ids.
func (s *Solver) appendFluid(pos, vel [][4]float32) {
	if len(pos) == 0 {
		return
	}
	n0 := len(s.x)
	s.x = append(s.x, pos...)
	s.v = append(s.v, vel...)
	for i := range pos {
		s.id = append(s.id, uint32(n0+i))
		if s.hasBodies() {
			s.body = append(s.body, -1)
			s.rest = append(s.rest, [4]float32{})
			s.wInv = append(s.wInv, 1)
			s.slotOf = append(s.slotOf, int32(n0+i))
		}
	}
	s.sizeScratch(len(s.x))
}

// Drain implements sim.Hands.
func (s *Solver) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	var out []sim.Particle
	err := s.edit(func(st *State) error {
		out = st.Drain(center, radius)
		return nil
	})
	return out, err
}

// AddBody implements sim.Hands.
func (s *Solver) AddBody(b scene.Body) (int, []sim.Particle, error) {
	if s.sc == nil {
		return 0, nil, fmt.Errorf("pbf: no scene (reset first)")
	}
	if err := rigid.CheckCount(len(s.bodies) + 1); err != nil {
		return 0, nil, err
	}
	spec, inside, err := rigid.SampleBody(s.sc, b, float64(s.dv.Spacing))
	if err != nil {
		return 0, nil, err
	}
	var displaced []sim.Particle
	err = s.edit(func(st *State) error {
		var err error
		displaced, err = st.AddBody(spec, s.Cfg.RestDensity, inside, s.budget)
		return err
	})
	return len(s.bodies) - 1, displaced, err
}

// RemoveBody implements sim.Hands.
func (s *Solver) RemoveBody(i int) error {
	return s.edit(func(st *State) error { return st.RemoveBody(i) })
}

// DriveBody implements sim.Hands.
func (s *Solver) DriveBody(i int, v [3]float32, on bool) {
	if i < 0 || i >= len(s.bodies) {
		return
	}
	d := &s.bodies[i].Drive
	if on {
		*d = [4]float32{v[0], v[1], v[2], 1}
	} else {
		d[3] = 0
	}
}

// SetTools implements sim.Hands.
func (s *Solver) SetTools(t sim.Tools) {
	if t.Emitter == nil {
		s.toolAcc = 0
	}
	s.tools = t
}

// emit runs the scene's emitters and the tool's for a step from the current time to t + dt, adding particles up
// to the budget.
func (s *Solver) emit(dt float64) {
	emit.Run(s.sc.Emitters, s.emitAcc, s.tools.Emitter, &s.toolAcc, s.dv.Spacing, s.time, dt, s.budget-len(s.x), s.addEmitted)
}

func (s *Solver) addEmitted(pos, vel [][4]float32) {
	if len(pos) == 0 {
		return
	}
	if len(s.x)+len(pos) > s.budget {
		s.notice = emit.BudgetNotice(s.budget, "pbf.budget")
		return
	}
	s.appendFluid(pos, vel)
}

// blast fires the scene's blasts whose time falls in the step from the current time to t + dt, on the fluid's
// particles (sim/blast).
func (s *Solver) blast(dt float64) {
	var body []int32
	if s.hasBodies() {
		body = s.body
	}
	blast.ApplyFluid(s.pool, s.sc.Blasts, s.time, s.time+dt, s.x, s.v, body)
}

// moveObstacles places the kinematic obstacles where they are at time t.
func (s *Solver) moveObstacles(t float64) {
	if s.sc.HasMotion() || s.tools.Paddle != nil || s.paddled {
		s.col.Obstacles = solid.Moved(s.sc, t, s.tools.Paddle)
		s.paddled = s.tools.Paddle != nil
	}
}
