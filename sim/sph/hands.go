package sph

import (
	"fmt"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/blast"
	"github.com/slosh/slosh/sim/shell"
	"github.com/slosh/slosh/sim/solid"
)

// The sandbox's tools (sim.Hands) and what acts inside the steps as they do, through the shell (sim/shell), which
// keeps the budget, the tools and the emitters' travel: the scene's emitters and the pouring tool (sim/emit) add
// layers of particles of their material with the next ids before a step, the scene's blasts (sim/blast) push the fluid
// at the step's start, and moving obstacles and the paddle (a kinematic sphere, sim/solid.Moved) are placed where
// they are at each substep's end, where both the solids' density map and the collision projection meet them, so
// the paddle pushes the fluid out of its way as the walls do. Ids stay 0..N−1: draining renumbers the rest in
// order. Rigid bodies are bodies.go's.

// Budget implements sim.Hands.
func (s *Solver) Budget() int { return s.sh.Budget }

// AddFluid implements sim.Hands: particles of material 0 (water, or the scene's fluid) with the next ids.
func (s *Solver) AddFluid(pos, vel [][3]float32) int { return s.Refill(shell.Fluid(pos, vel)) }

// Refill implements sim.Refiller: drained particles come back as the fluid they were (a material the run does
// not have, from another run's undo, comes back as material 0), with the next ids, at zero pressure and their
// material's starting temperature; a solid's particles bond into a body at the next step (solids.go).
func (s *Solver) Refill(ps []sim.Particle) int {
	if s.sc == nil {
		return 0
	}
	first, k := s.sh.Add(ps)
	if k == 0 {
		return 0
	}
	s.startTemperatures(first, first+k)
	s.stats.Particles = len(s.x)
	s.save()
	return k
}

// Drain implements sim.Hands.
func (s *Solver) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	if s.sc == nil {
		return nil, fmt.Errorf("sph: no scene (reset first)")
	}
	out := s.sh.Drain(center, radius, nil)
	s.stats.Particles = len(s.x)
	s.save()
	return out, nil
}

// SetTools implements sim.Hands. The tools are copied: the caller may change its own. The heat tool acts on the
// temperatures each step (solids.go).
func (s *Solver) SetTools(t sim.Tools) {
	s.sh.SetTools(t)
	s.heatTool = nil
	if t.Heat != nil {
		s.heatTool = t.Heat.Heater()
	}
}

// pour runs what acts at a step's start, over the step from the current time to t + dt: the scene's emitters and
// the pouring tool add their layers (up to the budget), and the scene's blasts that fall in the step fire.
func (s *Solver) pour(dt float64) {
	s.sh.Emit(s.sc, s.dv.Spacing, s.time, dt, s.addEmitted)
	if n := blast.Apply(s.pool, s.sc.Blasts, s.time, s.time+dt, s.x, s.v); n > 0 {
		s.sh.Note(fmt.Sprintf("a scene blast pushed %d particles", n))
	}
}

// addEmitted adds an emitter's layer of particles of material mat at zero pressure, whole or, past the budget, not
// at all (with the budget notice).
func (s *Solver) addEmitted(pos, vel [][4]float32, mat uint8) {
	if first, ok := s.sh.AddLayer(pos, vel, mat); ok {
		s.startTemperatures(first, len(s.x))
		s.stats.Particles = len(s.x)
	}
}

// moveObstacles places the moving obstacles and the paddle where they are at time t; static ones stay where the
// reset put them.
func (s *Solver) moveObstacles(t float64) {
	if paddle := s.sh.Tools.Paddle; s.sc.HasMotion() || paddle != nil || s.paddled {
		s.col.Obstacles = solid.Moved(s.sc, t, paddle)
		s.paddled = paddle != nil
	}
}
