package sph

import (
	"fmt"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/blast"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/solid"
)

// The sandbox's tools (sim.Hands) and what acts inside the steps as they do: the scene's emitters and the pouring
// tool (sim/emit) add layers of material-0 particles with the next ids before a step, the scene's blasts
// (sim/blast) push the fluid at the step's start, and moving obstacles and the paddle (a kinematic sphere,
// sim/solid.Moved) are placed where they are at each substep's end, where both the solids' density map and the
// collision projection meet them, so the paddle pushes the fluid out of its way as the walls do. Ids stay 0..N−1:
// draining renumbers the rest in order. Rigid bodies are bodies.go's.

// hands is the solver's part that the tools and emitters keep between steps.
type hands struct {
	emitAcc []float32 // per scene emitter: how far its stream moved since its last layer, m
	tools   sim.Tools
	toolAcc float32 // the pouring tool's emitAcc
	paddled bool    // the obstacles include the paddle
	notice  string  // for the step's Stats
}

// resetHands puts the tools away and starts the scene's emitters, at a reset (a replay starts from a reset without
// tools).
func (s *Solver) resetHands(sc *scene.Scene) {
	s.tools, s.paddled, s.toolAcc, s.notice = sim.Tools{}, false, 0, ""
	s.emitAcc = grow.Resize(s.emitAcc, len(sc.Emitters))
	clear(s.emitAcc)
}

// Budget implements sim.Hands.
func (s *Solver) Budget() int { return s.budget }

// AddFluid implements sim.Hands: particles of material 0 (water, or the scene's fluid) with the next ids.
func (s *Solver) AddFluid(pos, vel [][3]float32) int {
	ps := make([]sim.Particle, min(len(pos), len(vel)))
	for i := range ps {
		ps[i] = sim.Particle{Pos: pos[i], Vel: vel[i]}
	}
	return s.Refill(ps)
}

// Refill implements sim.Refiller: drained particles come back as the fluid they were (a material the run does
// not have, from another run's undo, comes back as material 0).
func (s *Solver) Refill(ps []sim.Particle) int {
	if s.sc == nil {
		return 0
	}
	k := min(len(ps), max(0, s.budget-len(s.x)))
	if k == 0 {
		return 0
	}
	p, v, m := make([][4]float32, k), make([][4]float32, k), make([]uint8, k)
	for i, q := range ps[:k] {
		p[i] = [4]float32{q.Pos[0], q.Pos[1], q.Pos[2], 0}
		v[i] = [4]float32{q.Vel[0], q.Vel[1], q.Vel[2], 0}
		if int(q.Material) < len(s.mats) {
			m[i] = q.Material
		}
	}
	s.appendFluid(p, v, m)
	s.save()
	return k
}

// appendFluid adds particles with the next ids, at zero pressure, of the given materials (nil: material 0).
func (s *Solver) appendFluid(pos, vel [][4]float32, mat []uint8) {
	if len(pos) == 0 {
		return
	}
	n0 := len(s.x)
	s.x = append(s.x, pos...)
	s.v = append(s.v, vel...)
	for i := range pos {
		s.id = append(s.id, uint32(n0+i))
		m := uint8(0)
		if mat != nil {
			m = mat[i]
		}
		s.mat = append(s.mat, m)
		// pressures are state (sph.warm_start starts from them) and sizeScratch does not keep what it grows
		s.pres = append(s.pres[:n0+i], 0)
		s.rs = append(s.rs[:n0+i], 1)
	}
	s.sizeScratch(len(s.x))
	s.stats.Particles = len(s.x)
}

// Drain implements sim.Hands.
func (s *Solver) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	if s.sc == nil {
		return nil, fmt.Errorf("sph: no scene (reset first)")
	}
	r2 := radius * radius
	var out []sim.Particle
	s.remove(func(i int) bool {
		p := s.x[i]
		dx, dy, dz := p[0]-center[0], p[1]-center[1], p[2]-center[2]
		if !(dx*dx+dy*dy+dz*dz <= r2) {
			return false
		}
		out = append(out, sim.Particle{Pos: [3]float32{p[0], p[1], p[2]}, Vel: [3]float32{s.v[i][0], s.v[i][1], s.v[i][2]}, Material: s.mat[i]})
		return true
	})
	s.save()
	return out, nil
}

// remove deletes the particles drop selects (called once per particle, in order) and renumbers the ids that
// remain to 0..N'−1 in their old order.
func (s *Solver) remove(drop func(i int) bool) {
	n := len(s.x)
	gone := make([]bool, n) // by id
	k := 0
	for i := 0; i < n; i++ {
		if drop(i) {
			gone[s.id[i]] = true
			continue
		}
		s.x[k], s.v[k], s.id[k], s.mat[k], s.pres[k], s.rs[k] = s.x[i], s.v[i], s.id[i], s.mat[i], s.pres[i], s.rs[i]
		k++
	}
	if k == n {
		return
	}
	s.x, s.v, s.id, s.mat = s.x[:k], s.v[:k], s.id[:k], s.mat[:k]
	sim.Renumber(s.id, gone)
	s.sizeScratch(k)
	s.stats.Particles = k
}

// SetTools implements sim.Hands. The tools are copied: the caller may change its own.
func (s *Solver) SetTools(t sim.Tools) {
	if t.Emitter == nil {
		s.toolAcc = 0
	}
	s.tools = t.Copy()
}

// pour runs what acts at a step's start, over the step from the current time to t + dt: the scene's emitters and
// the pouring tool add their layers (up to the budget), and the scene's blasts that fall in the step fire.
func (s *Solver) pour(dt float64) {
	if len(s.sc.Emitters) > 0 || s.tools.Emitter != nil {
		emit.Run(s.sc.Emitters, s.emitAcc, s.tools.Emitter, &s.toolAcc, s.dv.Spacing, s.time, dt, s.budget-len(s.x), s.addEmitted)
	}
	if n := blast.Apply(s.pool, s.sc.Blasts, s.time, s.time+dt, s.x, s.v); n > 0 {
		s.notice = fmt.Sprintf("a scene blast pushed %d particles", n)
	}
}

func (s *Solver) addEmitted(pos, vel [][4]float32) {
	if len(pos) == 0 {
		return
	}
	if len(s.x)+len(pos) > s.budget {
		s.notice = emit.BudgetNotice(s.budget, "sph.budget")
		return
	}
	s.appendFluid(pos, vel, nil)
}

// moveObstacles places the moving obstacles and the paddle where they are at time t; static ones stay where the
// reset put them.
func (s *Solver) moveObstacles(t float64) {
	if s.sc.HasMotion() || s.tools.Paddle != nil || s.paddled {
		s.col.Obstacles = solid.Moved(s.sc, t, s.tools.Paddle)
		s.paddled = s.tools.Paddle != nil
	}
}
