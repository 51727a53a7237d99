package flip

import (
	"fmt"
	"io"
	"sort"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
)

// The sandbox's tools (sim.Hands) and save files (sim.Stateful). Particle ids stay 0..N−1: removing particles
// renumbers the rest in order. Bodies are shapes on the grid, not particles, so adding one displaces the liquid
// where it lands and removing one leaves a hole the liquid fills.

// StateKind implements sim.Stateful.
func (s *Solver) StateKind() string { return Name }

// Budget implements sim.Hands.
func (s *Solver) Budget() int { return s.budget }

// SaveState copies the whole state into dst, reusing its slices.
func (s *Solver) SaveState(dst *State) {
	dst.Cell, dst.Mass, dst.Time, dst.Steps = s.g.h, s.mass, s.time, s.steps
	dst.Pos = append(dst.Pos[:0], s.x...)
	dst.Vel = append(dst.Vel[:0], s.v...)
	dst.ID = append(dst.ID[:0], s.id...)
	dst.Emitted = append(dst.Emitted[:0], s.emitAcc...)
	dst.ToolAcc = s.toolAcc
	dst.Bodies = dst.Bodies[:0]
	for i := range s.bodies {
		b := &s.bodies[i]
		dst.Bodies = append(dst.Bodies, BodyState{Spec: b.Spec, Origin: b.Origin, C: b.C, Q: b.Q, V: b.V, W: b.W, Driving: b.Driving, Drive: b.Drive})
	}
	dst.Eig = dst.Eig[:0]
	if len(s.ps.Eigen) == len(s.p) {
		dst.Eig = append(dst.Eig, s.ps.Eigen...)
	}
}

// save keeps the state as the last good one.
func (s *Solver) save() { s.SaveState(&s.good) }

// load sets the state from a consistent st (the last good one, or a checked state).
func (s *Solver) load(st *State) error {
	bodies := make([]body, 0, len(st.Bodies))
	for i := range st.Bodies {
		bs := &st.Bodies[i]
		b, err := s.measured(bs.Spec)
		if err != nil {
			return fmt.Errorf("body %d: %w", i, err)
		}
		b.Origin, b.C, b.Q, b.V, b.W, b.Driving, b.Drive = bs.Origin, bs.C, bs.Q, bs.V, bs.W, bs.Driving, bs.Drive
		bodies = append(bodies, b)
	}
	s.bodies = bodies
	s.x = append(s.x[:0], st.Pos...)
	s.v = append(s.v[:0], st.Vel...)
	s.id = append(s.id[:0], st.ID...)
	s.emitAcc = append(s.emitAcc[:0], st.Emitted...)
	s.toolAcc = st.ToolAcc
	s.time, s.steps = st.Time, st.Steps
	s.ps.Eigen = s.ps.Eigen[:0]
	if len(st.Eig) == len(s.p) {
		s.ps.Eigen = append(s.ps.Eigen, st.Eig...)
	}
	s.stats.Particles = len(s.x)
	s.haveRho = false
	return nil
}

// measured is a body of spec with its mass properties, at the solver's cell size.
func (s *Solver) measured(spec scene.Body) (body, error) {
	return newBody(spec, s.g.h)
}

// WriteState implements sim.Stateful.
func (s *Solver) WriteState(w io.Writer) error {
	var st State
	s.SaveState(&st)
	return st.Encode(w, s.sc)
}

// ReadState implements sim.Stateful: the state must come from a run of the scene the solver was reset with, at the
// same cell size. On error the solver keeps its state.
func (s *Solver) ReadState(r io.Reader) error {
	if s.sc == nil {
		return fmt.Errorf("flip: load a state after a reset with its scene")
	}
	st, err := DecodeState(r, s.sc)
	if err != nil {
		return err
	}
	if st.Cell != s.g.h {
		return fmt.Errorf("flip: the state's cell size is %g m, this run's %g m: set flip.cell=%g and reset before loading", st.Cell, s.g.h, st.Cell)
	}
	if err := st.checkFor(s.sc, s.g.cells(), s.budget); err != nil {
		return fmt.Errorf("flip: %w", err)
	}
	keep := s.good
	if err := s.load(st); err != nil {
		_ = s.load(&keep)
		return fmt.Errorf("flip: %w", err)
	}
	s.save()
	return nil
}

// AddFluid implements sim.Hands.
func (s *Solver) AddFluid(pos, vel [][3]float32) int {
	n := min(len(pos), len(vel), s.budget-len(s.x))
	if n <= 0 {
		return 0
	}
	for i := 0; i < n; i++ {
		s.appendParticle(to4(pos[i]), to4(vel[i]))
	}
	s.save()
	return n
}

func to4(a [3]float32) [4]float32 { return [4]float32{a[0], a[1], a[2], 0} }

// appendParticle adds a particle with the next id, kept inside the domain.
func (s *Solver) appendParticle(p, v [4]float32) {
	q := s.clampDomain([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
	s.x = append(s.x, [4]float32{float32(q[0]), float32(q[1]), float32(q[2]), 0})
	s.v = append(s.v, v)
	s.id = append(s.id, uint32(len(s.id)))
}

// Drain implements sim.Hands.
func (s *Solver) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	if s.sc == nil {
		return nil, fmt.Errorf("flip: no scene (reset first)")
	}
	r2 := radius * radius
	var out []sim.Particle
	s.remove(func(i int) bool {
		p := s.x[i]
		dx, dy, dz := p[0]-center[0], p[1]-center[1], p[2]-center[2]
		if dx*dx+dy*dy+dz*dz <= r2 {
			out = append(out, sim.Particle{Pos: [3]float32{p[0], p[1], p[2]}, Vel: [3]float32{s.v[i][0], s.v[i][1], s.v[i][2]}})
			return true
		}
		return false
	})
	s.save()
	return out, nil
}

// remove drops the particles drop selects and renumbers the rest 0..N−1 in the order of their ids.
func (s *Solver) remove(drop func(i int) bool) {
	k := 0
	for i := range s.x {
		if drop(i) {
			continue
		}
		s.x[k], s.v[k], s.id[k] = s.x[i], s.v[i], s.id[i]
		k++
	}
	s.x, s.v, s.id = s.x[:k], s.v[:k], s.id[:k]
	// rank the remaining ids
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return s.id[order[a]] < s.id[order[b]] })
	for r, i := range order {
		s.id[i] = uint32(r)
	}
	s.stats.Particles = k
}

// AddBody implements sim.Hands: the body's liquid is displaced (returned for undo).
func (s *Solver) AddBody(b scene.Body) (int, []sim.Particle, error) {
	if s.sc == nil {
		return 0, nil, fmt.Errorf("flip: no scene (reset first)")
	}
	if err := rigid.CheckCount(len(s.bodies) + 1); err != nil {
		return 0, nil, err
	}
	bd, err := s.measured(b)
	if err != nil {
		return 0, nil, err
	}
	var out []sim.Particle
	s.remove(func(i int) bool {
		p := s.x[i]
		if b.Shape.Distance(scene.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}) < 0.5*s.spacing {
			out = append(out, sim.Particle{Pos: [3]float32{p[0], p[1], p[2]}, Vel: [3]float32{s.v[i][0], s.v[i][1], s.v[i][2]}})
			return true
		}
		return false
	})
	s.bodies = append(s.bodies, bd)
	s.save()
	return len(s.bodies) - 1, out, nil
}

// RemoveBody implements sim.Hands.
func (s *Solver) RemoveBody(i int) error {
	if i < 0 || i >= len(s.bodies) {
		return fmt.Errorf("flip: no body %d (there are %d)", i, len(s.bodies))
	}
	s.bodies = append(s.bodies[:i], s.bodies[i+1:]...)
	s.save()
	return nil
}

// DriveBody implements sim.Hands.
func (s *Solver) DriveBody(i int, v [3]float32, on bool) {
	if i < 0 || i >= len(s.bodies) {
		return
	}
	b := &s.bodies[i]
	b.Driving = on
	b.Drive = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
	if on {
		b.V, b.W = b.Drive, [3]float64{}
	}
	s.save()
}

// SetTools implements sim.Hands.
func (s *Solver) SetTools(t sim.Tools) { s.tools = t }

// emit runs the scene's emitters and the pouring tool over a step, on the particles' lattice.
func (s *Solver) emit(dt float64) {
	room := s.budget - len(s.x)
	if len(s.sc.Emitters) == 0 && s.tools.Emitter == nil {
		return
	}
	full := false
	emit.Run(s.sc.Emitters, s.emitAcc, s.tools.Emitter, &s.toolAcc, float32(s.spacing), s.time, dt, room, func(pos, vel [][4]float32) {
		for i := range pos {
			if len(s.x) >= s.budget {
				full = true
				return
			}
			s.appendParticle(pos[i], vel[i])
		}
	})
	if full {
		s.notice = emit.BudgetNotice(s.budget, "flip.budget")
	}
}
