package pbf

import (
	"fmt"
	"io"
	"slices"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/blast"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
	"github.com/slosh/slosh/sim/solid"
)

// The sandbox's tools (sim.Hands) and save files (sim.Stateful) on the CPU solver, through its shell (sim/shell):
// adding fluid appends particles with the next ids; draining, dropping and removing a body edit the particles in
// place (hands, below, which the GPU solver's hands use on the State it reads back), removing particles by the
// store's one renumbering rule, which keeps ids dense and each body's ids contiguous. Emitters and kinematic
// obstacles act inside Step, through the same functions the GPU solver calls (emit.Run, solid.Moved), so both add
// the same particles and move the same obstacles.

// StateKind implements sim.Stateful: CPU and GPU PBF states load into each other.
func (s *Solver) StateKind() string { return "pbf" }

// Budget implements sim.Hands.
func (s *Solver) Budget() int { return s.sh.Budget }

// SaveState copies the whole state into dst, reusing its slices.
func (s *Solver) SaveState(dst *State) {
	dst.Spacing, dst.Rounded, dst.Time, dst.Steps = s.dv.From, false, s.time, s.steps
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
	if s.palette != nil { // the scene names materials
		dst.Material = append(dst.Material[:0], s.mat...)
	} else {
		dst.Material = nil
	}
	dst.Emitted = append(dst.Emitted[:0], s.sh.Emitted...)
	dst.ToolAcc = s.sh.ToolAcc
	dst.Reach = nil
}

// LoadState replaces the state with st after checking it against the scene the solver was reset with. On error
// the solver keeps its state.
func (s *Solver) LoadState(st *State) error {
	if s.sc == nil {
		return fmt.Errorf("pbf: load a state after a reset with its scene")
	}
	if err := st.CheckFor(s.sc, s.sh.Budget); err != nil {
		return fmt.Errorf("pbf: %w", err)
	}
	if !s.dv.SameSpacing(st) {
		if err := s.derive(st.Spacing, s.sh.Budget); err != nil {
			return err
		}
	}
	if err := s.apply(st.saved(), st.Bodies); err != nil {
		return err
	}
	s.save()
	return nil
}

// kept is a state the solver restores: the shell's, and the bodies.
type kept struct {
	shell.Saved
	bodies []rigid.Body
}

// save keeps the state as the last good one, which a non-finite step restores.
func (s *Solver) save() {
	s.sh.Keep(&s.good.Saved, shell.Header{Spacing: s.dv.From, Time: s.time, Steps: s.steps})
	s.good.bodies = append(s.good.bodies[:0], s.bodies...)
}

// restore puts the last good state back.
func (s *Solver) restore() {
	if err := s.apply(&s.good.Saved, s.good.bodies); err != nil {
		panic("pbf: the last good state does not fit the solver: " + err.Error())
	}
}

// apply sets the state from a consistent one (kept, or checked): the particles, whose densities start at 1 and
// scratch at its defaults, the emitters, the bodies and the time.
func (s *Solver) apply(sv *shell.Saved, bodies []rigid.Body) error {
	if err := s.sh.Restore(sv); err != nil {
		return fmt.Errorf("pbf: %w", err)
	}
	s.bodies = append(s.bodies[:0], bodies...)
	s.time, s.steps = sv.Time, sv.Steps
	s.mapSlots()
	s.stats.Particles = len(s.x)
	return nil
}

// mapSlots rebuilds the id → slot map of the bodies.
func (s *Solver) mapSlots() {
	for k, id := range s.id {
		s.slotOf[id] = int32(k)
	}
}

// edited follows a hand's edit of the particles: the densities start at 1 again and the state is kept as the last
// good one, which a restore must not undo.
func (s *Solver) edited() {
	for i := range s.rho {
		s.rho[i] = 1
	}
	s.mapSlots()
	s.stats.Particles = len(s.x)
	s.save()
}

// added follows particles appended from first on, with the next ids: their slots are their ids.
func (s *Solver) added(first int) {
	for i := first; i < len(s.id); i++ {
		s.slotOf[i] = int32(i)
	}
}

// hands is the solver's particles and bodies as the hands edit them.
func (s *Solver) hands() hands {
	return hands{h: &s.sh, body: &s.body, rest: &s.rest, wInv: &s.wInv, bodies: &s.bodies}
}

// WriteState implements sim.Stateful.
func (s *Solver) WriteState(w io.Writer) error {
	hd := shell.Header{Spacing: s.dv.From, Time: s.time, Steps: s.steps}
	return s.sh.Encode(w, Format, hd, encodeOwn(s.bodies, nil))
}

// ReadState implements sim.Stateful.
func (s *Solver) ReadState(r io.Reader) error {
	st, err := DecodeState(r)
	if err != nil {
		return err
	}
	return s.LoadState(st)
}

// AddFluid implements sim.Hands: the fluid is of material 0, the scene's default.
func (s *Solver) AddFluid(pos, vel [][3]float32) int { return s.Refill(shell.Fluid(pos, vel)) }

// Refill implements sim.Refiller: drained particles come back with their materials (an undo), as AddFluid adds
// them; a material the scene does not have comes back as material 0.
func (s *Solver) Refill(ps []sim.Particle) int {
	first, k := s.sh.Add(ps)
	s.added(first)
	if k > 0 {
		s.save()
	}
	return k
}

// Drain implements sim.Hands.
func (s *Solver) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	if s.sc == nil {
		return nil, fmt.Errorf("pbf: no scene (reset first)")
	}
	out := s.hands().drain(center, radius)
	s.edited()
	return out, nil
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
	displaced, err := s.hands().addBody(spec, s.Cfg.RestDensity, inside, s.sh.Budget)
	if err != nil {
		return len(s.bodies) - 1, nil, err
	}
	s.edited()
	return len(s.bodies) - 1, displaced, nil
}

// RemoveBody implements sim.Hands.
func (s *Solver) RemoveBody(i int) error {
	if s.sc == nil {
		return fmt.Errorf("pbf: no scene (reset first)")
	}
	if err := s.hands().removeBody(i); err != nil {
		return err
	}
	s.edited()
	return nil
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
func (s *Solver) SetTools(t sim.Tools) { s.sh.SetTools(t) }

// emit runs the scene's emitters and the tool's for a step from the current time to t + dt, adding whole layers
// up to the budget.
func (s *Solver) emit(dt float64) {
	s.sh.Emit(s.sc, s.dv.Spacing, s.time, dt, s.addLayer)
}

// addLayer appends an emitter's layer of fluid of material mat, when all of it fits under the budget.
func (s *Solver) addLayer(pos, vel [][4]float32, mat uint8) {
	if first, ok := s.sh.AddLayer(pos, vel, mat); ok {
		s.added(first)
	}
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
	if s.sc.HasMotion() || s.sh.Tools.Paddle != nil || s.paddled {
		s.col.Obstacles = solid.Moved(s.sc, t, s.sh.Tools.Paddle)
		s.paddled = s.sh.Tools.Paddle != nil
	}
}

// hands is what a hand edits: the shell over a PBF run's particles, the bodies' columns and the bodies. The CPU
// solver's hands edit its own (Solver.hands); the GPU's edit the State they read back (State.edit). A removal goes
// through the store, whose one renumbering rule keeps ids dense in their old order; bodies lose none of their
// particles but all of them, so each keeps its ids contiguous, and rebase moves the bodies' First with them.
type hands struct {
	h      *shell.Shell
	body   *[]int32
	rest   *[][4]float32
	wInv   *[]float32
	bodies *[]rigid.Body
}

// fluid says whether particle i is fluid, for removals (it reads the columns as they are before one).
func (e hands) fluid() func(i int) bool {
	body := *e.body
	return func(i int) bool { return body[i] < 0 }
}

// drain removes the fluid particles within radius r of c and returns them.
func (e hands) drain(c [3]float32, r float32) []sim.Particle {
	out := e.h.Drain(c, r, e.fluid())
	e.rebase()
	return out
}

// addBody appends a rigid body with the next ids, first removing the fluid particles for which inside is true
// (where the body lands); it returns them. rho0 is the fluid's rest density; the result may hold at most budget
// particles. On error nothing changed.
func (e hands) addBody(spec rigid.BodySpec, rho0 float32, inside func(p [4]float32) bool, budget int) ([]sim.Particle, error) {
	lay, err := rigid.LayoutBodies(rho0, nil, nil, []rigid.BodySpec{spec})
	if err != nil {
		return nil, err
	}
	pos, fluid := e.h.P.Pos(), e.fluid()
	under := func(i int) bool { return fluid(i) && inside(pos[i]) }
	in := 0
	for i := range pos {
		if under(i) {
			in++
		}
	}
	if n := e.h.P.Len() - in; n+len(spec.Particles) > budget {
		return nil, fmt.Errorf("the body needs %d particles; %d of the budget of %d are in use (raise pbf.budget and reset)",
			len(spec.Particles), n, budget)
	}
	displaced := e.h.RemoveWhere(under)
	e.rebase()
	first := e.h.P.Grow(len(lay.Pos))
	bd := lay.Bodies[0]
	bd.First = first
	b := int32(len(*e.bodies))
	*e.bodies = append(*e.bodies, bd)
	copy(e.h.P.Pos()[first:], lay.Pos)
	copy(e.h.P.Vel()[first:], lay.Vel)
	copy((*e.rest)[first:], lay.Rest)
	copy((*e.wInv)[first:], lay.WInv)
	for i := first; i < e.h.P.Len(); i++ {
		(*e.body)[i] = b
	}
	return displaced, nil
}

// removeBody removes body b and its particles; later bodies move down one index.
func (e hands) removeBody(b int) error {
	if b < 0 || b >= len(*e.bodies) {
		return fmt.Errorf("no body %d (there are %d)", b, len(*e.bodies))
	}
	body := *e.body
	e.h.P.Remove(func(i int) bool { return body[i] == int32(b) })
	*e.bodies = slices.Delete(*e.bodies, b, b+1)
	for i, bi := range *e.body {
		if bi > int32(b) {
			(*e.body)[i]--
		}
	}
	e.rebase()
	return nil
}

// rebase sets each body's First after a removal renumbered the ids: its particles' smallest id.
func (e hands) rebase() {
	bodies := *e.bodies
	if len(bodies) == 0 {
		return
	}
	first := make([]int, len(bodies))
	for b := range first {
		first[b] = e.h.P.Len()
	}
	for i, id := range e.h.P.ID() {
		if b := (*e.body)[i]; b >= 0 {
			first[b] = min(first[b], int(id))
		}
	}
	for b := range bodies {
		bodies[b].First = first[b]
	}
}
