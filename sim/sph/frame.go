package sph

import (
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/solid"
)

// The figures the solver reports in sim.Stats.Figures.
const (
	FigDensityErrMax  = "density error max"  // %, the largest max(ρ/ρ0 − 1, 0) at the step's end (PCISPH: predicted)
	FigDensityErrMean = "density error mean" // %, its mean over the particles
	FigIterations     = "iterations"         // PCISPH correction iterations of the step (the most, over its parts)
	FigTimeStep       = "time step"          // ms, the step taken (a step the stiffness or viscosity split: its part)
	FigNeighborsMean  = "neighbours mean"
	FigClipped        = "neighbour lists cut"
)

// advice is what an SPH user changes when a step blows up.
const advice = "raise sph.substeps or sph.max_iterations, lower sph.cfl, the gravity, sph.tension or sph.stiffness, or choose sph.pressure=pcisph"

// BeginFrame implements sim.Solver: the frame's substeps from the state alone: the velocity condition (sph.cfl on
// the fastest particle and the speed gravity can give, sim.FrameSpeed), the force condition Δt ≤ 0.25 √(h/|a|max)
// (eq. 2.28, with the last step's largest acceleration and at least gravity), the viscous one Δt ≤ 0.125 h²/ν and,
// for WCSPH only, the speed of sound, Δt ≤ 0.4 h/√k (eq. 2.27). PCISPH has no stiffness term (§3.3.1).
func (s *Solver) BeginFrame(frameDt float64) int {
	v2, height := sim.MeasureReach(s.pool, s.x, s.v, s.Cfg.Gravity)
	v2 = s.bodyReach(v2) // rigid bodies (bodies.go)
	n := s.Cfg.Step.Substeps(sim.FrameSpeed(v2, height, s.Cfg.Gravity, frameDt), float64(s.dv.Spacing), frameDt)
	lo := max(1, int(s.Cfg.Step.Min))
	hi := max(lo, int(s.Cfg.Step.Max))
	if n < hi {
		dt := s.StepLimit()
		if k := math.Ceil(frameDt / dt * (1 - 1e-9)); !(k < float64(hi)) {
			n = hi
		} else {
			n = max(n, int(k))
		}
	}
	s.frameSubsteps = n
	return n
}

// StepLimit is the longest step the force, viscous and (WCSPH) sound conditions allow now, s.
func (s *Solver) StepLimit() float64 {
	g := s.Cfg.Gravity
	a := math.Max(s.amax, math.Sqrt(float64(g[0]*g[0]+g[1]*g[1]+g[2]*g[2])))
	dt := math.Inf(1)
	if a > 0 {
		dt = LambdaForce * math.Sqrt(float64(s.dv.H)/a)
	}
	return math.Min(dt, StableDt(&s.Cfg, &s.dv, s.nuMax()))
}

// finish gathers the statistics and checks for non-finite state; on failure it restores the last good state.
func (s *Solver) finish() error {
	st := &s.stats
	st.Particles, st.Steps, st.Time = len(s.x), s.steps, s.time
	st.Passes, st.StepMs = s.timer.Passes()
	bad := 0
	vmax2 := 0.0
	nsum := 0
	for i := range s.x {
		x, v := s.x[i], s.v[i]
		if !finite(x[0]) || !finite(x[1]) || !finite(x[2]) || !finite(v[0]) || !finite(v[1]) || !finite(v[2]) || !finite(s.rs[i]) {
			bad++
			continue
		}
		vmax2 = math.Max(vmax2, float64(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]))
		nsum += int(s.ncount[i])
	}
	bad += s.badBodies() // rigid bodies (bodies.go)
	st.MaxSpeed = math.Sqrt(vmax2)
	st.Substeps = s.frameSubsteps
	figs := append(st.Figures[:0],
		sim.Figure{Name: FigDensityErrMean, Value: 100 * s.errMean, Unit: "%", Plot: true},
		sim.Figure{Name: FigDensityErrMax, Value: 100 * s.errMax, Unit: "%", Plot: true, Warn: s.etaMissed},
	)
	if s.Cfg.Pressure == PCISPH {
		figs = append(figs, sim.Figure{Name: FigIterations, Value: float64(s.itersMax), Warn: s.etaMissed})
	}
	figs = append(figs,
		sim.Figure{Name: FigTimeStep, Value: 1000 * s.dtInner, Unit: "ms"},
		sim.Figure{Name: FigNeighborsMean, Value: float64(nsum) / float64(max(1, len(s.x)))},
	)
	if s.clip > 0 {
		figs = append(figs, sim.Figure{Name: FigClipped, Value: float64(s.clip), Warn: true})
	}
	st.Figures = figs
	st.Notice = ""
	if s.etaMissed {
		st.Notice = "PCISPH stopped at sph.max_iterations before the density error reached η"
	}
	if bad > 0 {
		failed := s.steps
		s.restore()
		return &sim.NonFiniteError{Mode: Name, Step: failed, Count: bad, Restored: s.time, Advice: advice}
	}
	if s.steps%30 == 0 {
		s.save()
	}
	return nil
}

func finite(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

func (s *Solver) save() {
	g := &s.good
	g.x = append(g.x[:0], s.x...)
	g.v = append(g.v[:0], s.v...)
	g.id = append(g.id[:0], s.id...)
	g.mat = append(g.mat[:0], s.mat...)
	g.amax, g.time, g.steps = s.amax, s.time, s.steps
	s.saveBodies() // rigid bodies (bodies.go)
}

func (s *Solver) restore() {
	g := &s.good
	s.x = append(s.x[:0], g.x...)
	s.v = append(s.v[:0], g.v...)
	s.id = append(s.id[:0], g.id...)
	s.mat = append(s.mat[:0], g.mat...)
	s.amax, s.time, s.steps = g.amax, g.time, g.steps
	s.sizeScratch(len(s.x))
	for i := range s.rs {
		s.r[i], s.rs[i] = 1, 1
	}
	s.col.Obstacles = solid.Moved(s.sc, s.time, nil)
	s.restoreBodies() // rigid bodies (bodies.go)
}

// Frame implements sim.Solver. Rho is ρ_i/ρ0_i of each particle's own fluid.
func (s *Solver) Frame(dst *sim.Frame) {
	dst.Resize(len(s.x))
	copy(dst.Pos, s.x)
	copy(dst.Vel, s.v)
	copy(dst.Rho, s.rs)
	copy(dst.ID, s.id)
	dst.Body = nil
	dst.Bodies = s.frameBodies(dst.Bodies) // rigid bodies (bodies.go)
	dst.Radius = s.dv.Radius
	dst.Time, dst.Steps = s.time, s.steps
}

// Stats implements sim.Solver.
func (s *Solver) Stats() sim.Stats {
	st := s.stats
	st.Passes = append([]sim.Pass(nil), st.Passes...)
	st.Figures = append([]sim.Figure(nil), st.Figures...)
	return st
}
