package voronoi

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/blast"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/scene"
)

// The sandbox's tools (sim.Hands) and what acts inside the steps as they do: the scene's emitters and the pouring
// tool (sim/emit) add layers of particles with the next ids before a step, the scene's blasts (sim/blast) push the
// fluid at the step's start, and the paddle is a solid sphere the cells are clipped against, moving with the
// velocity the window gives it. Ids stay 0..N−1: draining renumbers the rest in order. Rigid bodies are
// bodies.go's.

// hands is the solver's part that the tools and emitters keep between steps.
type hands struct {
	emitAcc []float32 // per scene emitter: how far its stream moved since its last layer, m
	tools   sim.Tools
	toolAcc float32 // the pouring tool's emitAcc

	// the paddle's velocity: its displacement since the window last moved it over the time since
	paddleVel  [3]float64
	paddleAt   [3]float32
	paddleTime float64
	paddleSeen bool
}

// resetHands puts the tools away and starts the scene's emitters, at a reset.
func (s *Solver) resetHands(sc *scene.Scene) {
	s.tools, s.toolAcc, s.notice = sim.Tools{}, 0, ""
	s.paddleVel, s.paddleSeen = [3]float64{}, false
	s.emitAcc = grow.Resize(s.emitAcc, len(sc.Emitters))
	clear(s.emitAcc)
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
	room := float64(s.budget - len(s.x))
	step := float64(s.budget) * stepPerParticle
	if rate == 0 || step < 1 || room/rate > 10 {
		return nil
	}
	return []string{fmt.Sprintf("voronoi: the scene's %d emitters pour about %.3g particles a second and fill the budget of %d within %.2g s of simulated time; a step of that many takes %.0f s or more on 2 cores: lower voronoi.budget, or run the scene in sph or flip",
		len(s.sc.Emitters), rate, s.budget, room/rate, step)}
}

// Budget implements sim.Hands.
func (s *Solver) Budget() int { return s.budget }

// AddFluid implements sim.Hands: particles with the next ids, up to the budget.
func (s *Solver) AddFluid(pos, vel [][3]float32) int {
	if s.sc == nil {
		return 0
	}
	k := min(len(pos), len(vel), max(0, s.budget-len(s.x)))
	if k == 0 {
		return 0
	}
	p, v := make([][4]float32, k), make([][4]float32, k)
	for i := range p {
		p[i] = [4]float32{pos[i][0], pos[i][1], pos[i][2], 0}
		v[i] = [4]float32{vel[i][0], vel[i][1], vel[i][2], 0}
	}
	s.appendFluid(p, v)
	s.save()
	return k
}

// appendFluid adds particles with the next ids, at zero pressure.
func (s *Solver) appendFluid(pos, vel [][4]float32) {
	n0 := len(s.x)
	s.x = append(s.x, pos...)
	s.v = append(s.v, vel...)
	for i := range pos {
		s.id = append(s.id, uint32(n0+i))
		s.p = append(s.p[:n0+i], 0)
	}
	s.stats.Particles = len(s.x)
}

// Drain implements sim.Hands.
func (s *Solver) Drain(center [3]float32, radius float32) ([]sim.Particle, error) {
	if s.sc == nil {
		return nil, fmt.Errorf("voronoi: no scene (reset first)")
	}
	r2 := radius * radius
	var out []sim.Particle
	s.remove(func(i int) bool {
		p := s.x[i]
		dx, dy, dz := p[0]-center[0], p[1]-center[1], p[2]-center[2]
		if !(dx*dx+dy*dy+dz*dz <= r2) {
			return false
		}
		out = append(out, sim.Particle{Pos: [3]float32{p[0], p[1], p[2]}, Vel: [3]float32{s.v[i][0], s.v[i][1], s.v[i][2]}})
		return true
	})
	s.save()
	return out, nil
}

// SetTools implements sim.Hands. The tools are copied: the caller may change its own.
func (s *Solver) SetTools(t sim.Tools) {
	if t.Emitter == nil {
		s.toolAcc = 0
	}
	if t.Paddle == nil {
		s.paddleSeen, s.paddleVel = false, [3]float64{}
	}
	s.tools = t.Copy()
}

// pour runs what acts at a step's start, over the step from the current time to t + dt: the scene's emitters and
// the pouring tool add their layers (up to the budget), the scene's blasts that fall in the step fire, and the
// paddle's velocity is measured.
func (s *Solver) pour(dt float64) {
	if len(s.sc.Emitters) > 0 || s.tools.Emitter != nil {
		emit.Run(s.sc.Emitters, s.emitAcc, s.tools.Emitter, &s.toolAcc, float32(s.spacing), s.time, dt, s.budget-len(s.x), s.addEmitted)
	}
	if n := blast.Apply(s.pool, s.sc.Blasts, s.time, s.time+dt, s.x, s.v); n > 0 {
		s.notice = fmt.Sprintf("a scene blast pushed %d particles", n)
	}
	s.trackPaddle()
}

// trackPaddle measures the paddle's velocity: its displacement since the window last moved it, over the time
// since; still when it has not moved for a frame.
func (s *Solver) trackPaddle() {
	p := s.tools.Paddle
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

func (s *Solver) addEmitted(pos, vel [][4]float32) {
	if len(pos) == 0 {
		return
	}
	if len(s.x)+len(pos) > s.budget {
		s.notice = emit.BudgetNotice(s.budget, "voronoi.budget")
		return
	}
	s.appendFluid(pos, vel)
}
