package voronoi

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/blast"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
)

// The sandbox's tools (sim.Hands) and what acts inside the steps as they do, through the shell every particle
// mode shares (sim/shell): the scene's emitters and the pouring tool add layers of particles with the next ids
// before a step, the scene's blasts (sim/blast) push the fluid at the step's start, and the paddle is a solid
// sphere the cells are clipped against, moving with the velocity measured here (trackPaddle). Ids stay 0..N−1:
// draining renumbers the rest in order. Rigid bodies are bodies.go's.

// paddleTrack is the paddle's velocity: its displacement since the window last moved it over the time since.
type paddleTrack struct {
	paddleVel  [3]float64
	paddleAt   [3]float32
	paddleTime float64
	paddleSeen bool
}

// resetHands puts the tools away and starts the scene's emitters, at a reset, with a budget of budget particles.
func (s *Solver) resetHands(sc *scene.Scene, budget int) {
	s.hands.Reset(sc, budget)
	s.paddleVel, s.paddleSeen = [3]float64{}, false
}

// stepPerParticle is the least a step takes per particle on the 2-core machine of docs/BENCHMARKS.md (22 µs at
// the dam break, 72 µs at a splash), for telling how long the emitters will make the frames.
const stepPerParticle = 22e-6

// Warnings implements sim.Warner: emitters that fill the particle budget soon, when a step at the budget takes more
// than a second, within ten seconds of simulated time (64 emitters did not finish ten frames in two minutes).
func (s *Solver) Warnings() []string {
	rate := 0.0 // particles a second, every emitter on
	d := s.spacing
	for _, e := range s.sc.Emitters {
		rate += math.Pi * e.Radius * e.Radius / (d * d) * e.Speed / d
	}
	room := float64(s.hands.Budget - len(s.x))
	step := float64(s.hands.Budget) * stepPerParticle
	if rate == 0 || step < 1 || room/rate > 10 {
		return nil
	}
	return []string{fmt.Sprintf("voronoi: the scene's %d emitters pour about %.3g particles a second and fill the budget of %d within %.2g s of simulated time; a step of that many takes %.0f s or more on 2 cores: lower voronoi.budget, or run the scene in sph or flip",
		len(s.sc.Emitters), rate, s.hands.Budget, room/rate, step)}
}

// Budget implements sim.Hands.
func (s *Solver) Budget() int { return s.hands.Budget }

// AddFluid implements sim.Hands: particles with the next ids, up to the budget, at zero pressure.
func (s *Solver) AddFluid(pos, vel [][3]float32) int { return s.add(shell.Fluid(pos, vel)) }

// Refill implements sim.Refiller: drained particles come back with their materials (an undo), as AddFluid adds.
func (s *Solver) Refill(ps []sim.Particle) int { return s.add(ps) }

// add appends the particles that fit under the budget, each of its material, at zero pressure.
func (s *Solver) add(ps []sim.Particle) int {
	if s.sc == nil {
		return 0
	}
	_, k := s.hands.Add(ps)
	if k == 0 {
		return 0
	}
	s.stats.Particles = len(s.x)
	s.save()
	return k
}

// Drain implements sim.Hands.
func (s *Solver) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	if s.sc == nil {
		return nil, fmt.Errorf("voronoi: no scene (reset first)")
	}
	out := s.hands.Drain(center, radius, nil)
	s.stats.Particles = len(s.x)
	s.save()
	return out, nil
}

// SetTools implements sim.Hands. The tools are copied: the caller may change its own.
func (s *Solver) SetTools(t sim.Tools) {
	if t.Paddle == nil {
		s.paddleSeen, s.paddleVel = false, [3]float64{}
	}
	s.hands.SetTools(t)
}

// pour runs what acts at a step's start, over the step from the current time to t + dt: the scene's emitters and
// the pouring tool add their layers (up to the budget), the scene's blasts that fall in the step fire, and the
// paddle's velocity is measured.
func (s *Solver) pour(dt float64) {
	s.hands.Emit(s.sc, float32(s.spacing), s.time, dt, s.addEmitted)
	if n := blast.Apply(s.pool, s.sc.Blasts, s.time, s.time+dt, s.x, s.v); n > 0 {
		s.hands.Note(fmt.Sprintf("a scene blast pushed %d particles", n))
	}
	s.trackPaddle()
}

// trackPaddle measures the paddle's velocity: its displacement since the window last moved it, over the time
// since; still when it has not moved for a frame.
func (s *Solver) trackPaddle() {
	p := s.hands.Tools.Paddle
	if p == nil {
		return
	}
	switch {
	case !s.paddleSeen:
		s.paddleVel = [3]float64{}
	case p.Center != s.paddleAt && s.time > s.paddleTime:
		dt := s.time - s.paddleTime
		for a := 0; a < 3; a++ {
			s.paddleVel[a] = float64(p.Center[a]-s.paddleAt[a]) / dt
		}
	case p.Center == s.paddleAt && s.time-s.paddleTime > 1.5*sim.FrameDt:
		s.paddleVel = [3]float64{}
	}
	if !s.paddleSeen || p.Center != s.paddleAt {
		s.paddleAt, s.paddleTime, s.paddleSeen = p.Center, s.time, true
	}
}

// addEmitted adds an emitter's layer of material mat when all of it fits under the budget (shell.AddLayer), at zero
// pressure.
func (s *Solver) addEmitted(pos, vel [][4]float32, mat uint8) {
	if _, ok := s.hands.AddLayer(pos, vel, mat); ok {
		s.stats.Particles = len(s.x)
	}
}
