package pbf

import (
	"github.com/slosh/slosh/sim"
)

// The figures both PBF solvers report in sim.Stats.Figures.
const (
	FigDensityErrMean = "density error mean" // %, mean over the fluid of max(ρ/ρ0 − 1, 0) after the last iteration
	FigDensityErrMax  = "density error max"  // %, the largest
	FigNeighborsMean  = "neighbours mean"
	FigNeighborsMax   = "neighbours max"
	FigClipped        = "neighbour lists cut" // particles whose list was cut at its capacity (only when some were)
)

// advice is what a PBF user changes when a step blows up.
const advice = "lower pbf.cfl, the gravity or pbf.vorticity, or raise pbf.iterations or pbf.substeps"

// AppendFigures appends to dst the PBF numbers about a step: the density error (eq. 1's constraint after the last
// iteration, errMean and errMax as fractions) in per cent, plotted by the panel, and the neighbour counts over the
// fluid. Solvers pass their last step's slice, emptied, so a step allocates nothing for them.
func AppendFigures(dst []sim.Figure, errMean, errMax, nMean float64, nMax, clipped int) []sim.Figure {
	figs := append(dst,
		sim.Figure{Name: FigDensityErrMean, Value: 100 * errMean, Unit: "%", Plot: true},
		sim.Figure{Name: FigDensityErrMax, Value: 100 * errMax, Unit: "%", Plot: true},
		sim.Figure{Name: FigNeighborsMean, Value: nMean},
		sim.Figure{Name: FigNeighborsMax, Value: float64(nMax)},
	)
	if clipped > 0 {
		figs = append(figs, sim.Figure{Name: FigClipped, Value: float64(clipped), Warn: true})
	}
	return figs
}

// DensityError reads the density error back from a PBF solver's Stats, as fractions (0.01 is 1 %).
func DensityError(st sim.Stats) (mean, max float64) {
	m, _ := st.Figure(FigDensityErrMean)
	x, _ := st.Figure(FigDensityErrMax)
	return m.Value / 100, x.Value / 100
}

// NonFinite is the error of a step that produced non-finite state in count particles.
func NonFinite(mode string, step, count int, restored float64) *sim.NonFiniteError {
	return &sim.NonFiniteError{Mode: mode, Step: step, Count: count, Restored: restored, Advice: advice}
}

// BeginFrame implements sim.Solver: the frame's substeps from the CFL condition on the fastest particle now (fluid
// and bodies) and the fluid's height, a function of the state alone.
func (s *Solver) BeginFrame(frameDt float64) int {
	v2, height := s.reach()
	s.frameSubsteps = s.Cfg.Step.Substeps(sim.FrameSpeed(v2, height, s.Cfg.Gravity, frameDt), float64(s.dv.Spacing), frameDt)
	return s.frameSubsteps
}

// reach measures the solver's particles for BeginFrame.
func (s *Solver) reach() (maxV2, height float64) {
	return sim.MeasureReach(s.pool, s.x, s.v, s.Cfg.Gravity)
}
