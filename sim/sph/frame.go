package sph

import (
	"math"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
)

// The figures the solver reports in sim.Stats.Figures.
const (
	// The density errors, both of each particle's e_i = max(ρ_i/ρ0_i − 1, 0) (rarefied particles count as 0), with
	// ρ_i PCISPH's prediction ρ*_i at its last iteration (the positions the step leaves, what sph.stop compared with
	// η), or WCSPH's density at x(t); of the last part of a step the stiffness or viscosity split (densityError).
	FigDensityErrMax  = "density error max"  // %, the largest e_i: sph.stop=max's statistic
	FigDensityErrMean = "density error mean" // %, the mean (1/N) Σ_i e_i over all N particles: sph.stop=mean's
	FigIterations     = "iterations"         // PCISPH correction iterations of the step (the most, over its parts)
	FigTimeStep       = "time step"          // ms, the step taken (a step the stiffness or viscosity split: its part)
	FigNeighborsMean  = "neighbours mean"
	FigClipped        = "neighbour lists cut"
	FigLimited        = "pressure limited" // particles whose pressure would have moved them over half a spacing a step
	// the solids' (solids.go), when the scene has any
	FigRigidBodies = "rigid bodies"    // rigid clusters of particles in the last step
	FigSolid       = "solid"           // %, the particles in a solid phase
	FigMelted      = "melted"          // particles that melted in the last step
	FigSolidified  = "solidified"      // particles that solidified in the last step
	FigBroken      = "bonds broken"    // bonds broken by fracture since the reset
	FigTempMax     = "temperature max" // °C
	// the elastoplastic material (elastoplastic.go), in the last step
	FigFlowing = "flowing"            // particles that flowed plastically
	FigAlpha   = "plastic strain max" // the largest accumulated plastic strain α
	FigFKept   = "F kept"             // particles whose deficient neighbourhood kept their F
	// real-time mode (sim.CFL): a frame the force, viscous or sound conditions gave more steps than its cap
	FigStabilitySteps = "steps for stability"
)

// advice is what an SPH user changes when a step blows up.
const advice = "raise sph.substeps or sph.max_iterations, lower sph.cfl, the gravity, sph.tension or sph.stiffness, or choose sph.pressure=pcisph"

// BeginFrame implements sim.Solver: the frame's substeps from the state alone: the velocity condition (sph.cfl on
// the fastest particle and the speed gravity can give, sim.FrameSpeed), the force condition Δt ≤ 0.25 √(h/|a|max)
// (eq. 2.28, with the last step's largest acceleration and at least gravity), the viscous one Δt ≤ 0.125 h²/ν and,
// for WCSPH only, the speed of sound, Δt ≤ 0.4 h/√k (eq. 2.27). PCISPH has no stiffness term (§3.3.1).
//
// Real-time mode caps the velocity condition alone (CFL.Substeps, with the speeds clamped at the end of each
// step): the others are stability limits, and a step longer than they allow blows up rather than slows, so they
// still add steps up to sph.substeps_max, and Stats say so (FigStabilitySteps).
func (s *Solver) BeginFrame(frameDt float64) int {
	v2, height := sim.MeasureReach(s.pool, s.x, s.v, s.Cfg.Gravity)
	v2 = s.bodies.Speed2(v2) // rigid bodies (bodies.go)
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
	return math.Min(dt, s.stableDt())
}

// finish gathers the statistics and checks for non-finite state; on failure it restores the last good state.
func (s *Solver) finish() error {
	st := &s.stats
	st.Particles, st.Steps, st.Time = len(s.x), s.steps, s.time
	st.Passes, st.StepMs = s.timer.Passes()
	bad, fast := 0, 0
	vmax2 := 0.0
	nsum := 0
	limit := s.runawaySpeed()
	for i := range s.x {
		x, v := s.x[i], s.v[i]
		if !finite(x[0]) || !finite(x[1]) || !finite(x[2]) || !finite(v[0]) || !finite(v[1]) || !finite(v[2]) || !finite(s.rs[i]) {
			bad++
			continue
		}
		v2 := float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		if v2 > limit*limit {
			fast++
		}
		vmax2 = math.Max(vmax2, v2)
		nsum += int(s.ncount[i])
	}
	bad += s.bodies.Bad() // rigid bodies (bodies.go)
	st.MaxSpeed = math.Sqrt(vmax2)
	st.Substeps = s.frameSubsteps
	figs := append(st.Figures[:0],
		sim.Figure{Name: FigDensityErrMean, Value: 100 * s.errMean, Unit: "%", Plot: true},
		sim.Figure{Name: FigDensityErrMax, Value: 100 * s.errMax, Unit: "%", Plot: true, Warn: s.etaMissed},
	)
	if s.Cfg.Pressure == PCISPH {
		figs = append(figs, sim.Figure{Name: FigIterations, Value: float64(s.itersMax), Plot: true, Warn: s.etaMissed})
	}
	figs = append(figs,
		sim.Figure{Name: FigTimeStep, Value: 1000 * s.dtInner, Unit: "ms", Plot: true},
		sim.Figure{Name: FigNeighborsMean, Value: float64(nsum) / float64(max(1, len(s.x)))},
	)
	if so := &s.sol; so.on {
		solid, tmax := 0, math.Inf(-1)
		for i := range s.x {
			if s.phase(i) != phaseLiquid {
				solid++
			}
			tmax = math.Max(tmax, float64(s.temp[i]))
		}
		figs = append(figs,
			sim.Figure{Name: FigRigidBodies, Value: float64(len(so.clus))},
			sim.Figure{Name: FigSolid, Value: 100 * float64(solid) / float64(max(1, len(s.x))), Unit: "%", Plot: true},
			sim.Figure{Name: FigMelted, Value: float64(so.melted)},
			sim.Figure{Name: FigSolidified, Value: float64(so.solidi)},
			sim.Figure{Name: FigBroken, Value: float64(so.broken)},
			sim.Figure{Name: FigTempMax, Value: tmax, Unit: "°C"},
		)
	}
	if ep := &s.ep; ep.on {
		figs = append(figs,
			sim.Figure{Name: FigFlowing, Value: float64(ep.flowed), Plot: true},
			sim.Figure{Name: FigAlpha, Value: s.maxPlasticStrain()},
			sim.Figure{Name: FigFKept, Value: float64(ep.kept)},
		)
	}
	if s.clip > 0 {
		figs = append(figs, sim.Figure{Name: FigClipped, Value: float64(s.clip), Warn: true})
	}
	if s.limited > 0 {
		figs = append(figs, sim.Figure{Name: FigLimited, Value: float64(s.limited), Warn: true})
	}
	figs = s.Cfg.Step.AppendFigures(figs, s.clamped)
	if c := s.Cfg.Step; c.RealTime && s.frameSubsteps > c.Cap() {
		figs = append(figs, sim.Figure{Name: FigStabilitySteps, Value: float64(s.frameSubsteps), Unit: "steps", Warn: true})
	}
	st.Figures = figs
	if s.etaMissed {
		s.sh.Note("PCISPH stopped at sph.max_iterations before the density error reached η")
	}
	st.Notice = s.sh.TakeNotice() // with the emitters' and blasts' (hands.go)
	if bad > 0 || fast > 0 {
		failed := s.steps
		s.restore()
		e := &sim.NonFiniteError{Mode: Name, Step: failed, Count: bad, Restored: s.time, Advice: advice}
		if bad == 0 {
			e.Count, e.Speed = fast, limit
		}
		return e
	}
	if shell.Due(s.steps) {
		s.save()
	}
	return nil
}

// runawaySpeed is the speed no frame can follow: the CFL number's crossing at the most substeps a frame takes.
// Water this fast is not a splash but a diverging solve (sph.density=standard at a strong density ratio, say),
// and the step reports it as one instead of letting it fill the domain.
func (s *Solver) runawaySpeed() float64 {
	return math.Max(1, float64(s.Cfg.Step.Number)) * float64(s.dv.Spacing) * sim.MaxSubsteps / sim.FrameDt
}

func finite(x float32) bool { return !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) }

// save keeps the state as the last good one; restore goes back to it.
func (s *Solver) save() {
	s.SaveState(&s.good)
	s.bodies.Keep() // rigid bodies (bodies.go)
}

func (s *Solver) restore() {
	s.loadState(&s.good)
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
	dst.Bodies = s.bodies.Frame(dst.Bodies) // rigid bodies (bodies.go)
	if s.palette != nil {                   // the scene names materials: each particle's, and their colours
		dst.Material = append(dst.Material[:0], s.mat...)
		dst.Palette = append(dst.Palette[:0], s.palette...)
	} else {
		dst.Material, dst.Palette = nil, nil
	}
	dst.Phase, dst.Temperature = nil, nil
	if s.sol.on || s.ep.on { // each particle's phase (solids.go, elastoplastic.go)
		dst.Phase = grow.Resize(dst.Phase[:0], len(s.x))
		for i := range s.x {
			dst.Phase[i] = [...]scene.Phase{phaseLiquid: scene.PhaseLiquid, phaseElastic: scene.PhaseSolid, phaseRigid: scene.PhaseRigid}[s.phase(i)]
			if s.isEP(i) {
				dst.Phase[i] = scene.PhaseSolid
			}
		}
	}
	if s.sol.on { // and temperature (solids.go)
		dst.Temperature = append(dst.Temperature[:0], s.temp...)
	}
	dst.Radius = s.dv.Radius
	dst.Time, dst.Steps = s.time, s.steps
}

// Stats implements sim.Solver.
func (s *Solver) Stats() sim.Stats {
	return s.stats.Clone()
}
