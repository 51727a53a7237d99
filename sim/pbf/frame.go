package pbf

import (
	"math"
	"sync"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/par"
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

// FrameSpeed is the speed the CFL condition plans a frame for: the fastest particle (maxV2 is its squared speed,
// fluid or body) or the speed gravity can give the fluid, whichever is larger, plus what gravity adds in the time
// ahead from the measurement to the frame's end (a frame, or more when the measurement is older). The speed gravity can give is the dam-break front speed 2√(|g|H) of fluid
// standing height H along gravity (Ritter's solution): a column about to collapse needs the steps of the speed it
// will have, since by the time its particles move that fast, too few steps have already compressed and launched
// them.
func FrameSpeed(maxV2, height float64, g [3]float32, ahead float64) float64 {
	gn := math.Sqrt(float64(g[0])*float64(g[0]) + float64(g[1])*float64(g[1]) + float64(g[2])*float64(g[2]))
	return math.Max(math.Sqrt(maxV2), 2*math.Sqrt(gn*math.Max(height, 0))) + gn*ahead
}

// BeginFrame implements sim.Solver: the frame's substeps from the CFL condition on the fastest particle now (fluid
// and bodies) and the fluid's height, a function of the state alone.
func (s *Solver) BeginFrame(frameDt float64) int {
	v2, height := s.reach()
	s.frameSubsteps = s.Cfg.Step.Substeps(FrameSpeed(v2, height, s.Cfg.Gravity, frameDt), float64(s.dv.Spacing), frameDt)
	return s.frameSubsteps
}

// reach measures the solver's particles for BeginFrame.
func (s *Solver) reach() (maxV2, height float64) {
	return MeasureReach(s.pool, s.x, s.v, s.Cfg.Gravity)
}

// MeasureReach is what a frame is planned from: the largest squared speed of any particle (+Inf when a velocity
// is not finite) and the height of the particles along gravity (highest minus lowest). Maxima and minima do not
// depend on the order the chunks finish in, so both are exact and deterministic.
func MeasureReach(pool par.Pool, pos, vel [][4]float32, g [3]float32) (maxV2, height float64) {
	gn := math.Sqrt(float64(g[0])*float64(g[0]) + float64(g[1])*float64(g[1]) + float64(g[2])*float64(g[2]))
	var up [3]float64 // the unit vector against gravity
	if gn > 0 {
		up = [3]float64{-float64(g[0]) / gn, -float64(g[1]) / gn, -float64(g[2]) / gn}
	}
	var mu sync.Mutex
	lo, hi := math.Inf(1), math.Inf(-1)
	pool.For(len(vel), 8192, func(a, b int) {
		m, l, h := 0.0, math.Inf(1), math.Inf(-1)
		for i := a; i < b; i++ {
			v, x := vel[i], pos[i]
			q := float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2])
			if math.IsNaN(q) {
				q = math.Inf(1)
			}
			m = math.Max(m, q)
			z := float64(x[0])*up[0] + float64(x[1])*up[1] + float64(x[2])*up[2]
			l, h = math.Min(l, z), math.Max(h, z)
		}
		mu.Lock()
		maxV2, lo, hi = math.Max(maxV2, m), math.Min(lo, l), math.Max(hi, h)
		mu.Unlock()
	})
	if hi > lo {
		height = hi - lo
	}
	return maxV2, height
}
