package flip

import (
	"fmt"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
)

// The sandbox's tools (sim.Hands), through the shell: it adds, drains and removes particles in the store, which
// keeps the ids 0..N−1 (a removal renumbers the rest in order), and holds the budget, the tools and the emitters.
// What is flip's own: particles it is given are kept inside the domain, as advection keeps every particle; and
// bodies are shapes on the grid, not particles, so adding one displaces the liquid where it lands and removing one
// leaves a hole the liquid fills. Every edit is kept as the last good state, which a restore must not undo.

// Budget implements sim.Hands.
func (s *Solver) Budget() int { return s.sh.Budget }

// AddFluid implements sim.Hands: the particles that fit under the budget, kept inside the domain.
func (s *Solver) AddFluid(pos, vel [][3]float32) int { return s.add(shell.Fluid(pos, vel)) }

// Refill implements sim.Refiller: drained particles come back with their materials (an undo), as AddFluid adds.
func (s *Solver) Refill(ps []sim.Particle) int { return s.add(ps) }

// add appends the particles that fit under the budget, each of its material, kept inside the domain.
func (s *Solver) add(ps []sim.Particle) int {
	if s.sc == nil {
		return 0
	}
	first, k := s.sh.Add(ps)
	if k == 0 {
		return 0
	}
	s.keepInside(first)
	s.edited()
	return k
}

// keepInside moves the particles from first on, just added, inside the domain.
func (s *Solver) keepInside(first int) {
	for i := first; i < len(s.x); i++ {
		p := s.x[i]
		q := s.clampDomain([3]float64{float64(p[0]), float64(p[1]), float64(p[2])})
		s.x[i] = [4]float32{float32(q[0]), float32(q[1]), float32(q[2]), 0}
	}
}

// edited follows an edit of the hands: the stats' count, and the state kept as the last good one.
func (s *Solver) edited() {
	s.stats.Particles = len(s.x)
	s.save()
}

// Drain implements sim.Hands.
func (s *Solver) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	if s.sc == nil {
		return nil, fmt.Errorf("flip: no scene (reset first)")
	}
	out := s.sh.Drain(center, radius, nil)
	s.edited()
	return out, nil
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
	out := s.sh.RemoveWhere(func(i int) bool {
		p := s.x[i]
		return b.Shape.Distance(scene.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}) < 0.5*s.spacing
	})
	s.bodies = append(s.bodies, bd)
	s.edited()
	return len(s.bodies) - 1, out, nil
}

// measured is a body of spec with its mass properties, at the solver's cell size.
func (s *Solver) measured(spec scene.Body) (body, error) {
	return newBody(spec, s.g.h)
}

// RemoveBody implements sim.Hands.
func (s *Solver) RemoveBody(i int) error {
	if i < 0 || i >= len(s.bodies) {
		return fmt.Errorf("flip: no body %d (there are %d)", i, len(s.bodies))
	}
	s.bodies = append(s.bodies[:i], s.bodies[i+1:]...)
	s.edited()
	return nil
}

// DriveBody implements sim.Hands.
func (s *Solver) DriveBody(i int, v [3]float32, on bool) {
	if i < 0 || i >= len(s.bodies) {
		return
	}
	s.bodies[i].SetDrive(v, on)
	s.edited()
}

// SetTools implements sim.Hands.
func (s *Solver) SetTools(t sim.Tools) { s.sh.SetTools(t) }

// emit runs the scene's emitters and the pouring tool over a step, on the particles' lattice: a layer is added
// whole, of the emitter's material (sand pours as sand), kept inside the domain, or not at all when it does not fit
// under the budget (the shell's notice says so).
func (s *Solver) emit(dt float64) {
	s.sh.Emit(s.sc, float32(s.spacing), s.time, dt, func(pos, vel [][4]float32, mat uint8) {
		if first, ok := s.sh.AddLayer(pos, vel, mat); ok {
			s.keepInside(first)
		}
	})
}
