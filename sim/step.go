package sim

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/param"
)

// FrameDt is the simulated time of one display frame, s: the window, the headless commands and replays all advance
// the simulation in frames of this length, and a solver splits each into the substeps BeginFrame chose.
const FrameDt = 1.0 / 60

// CFL chooses a frame's substeps from the Courant–Friedrichs–Lewy condition: the fastest particle (or cell
// velocity) moves at most Number particle spacings in one step, with at least Min and at most Max steps a frame.
// Every mode registers one under its own prefix, so the rule and its parameters read the same in every mode.
//
// Real-time mode (RealTime, after NVIDIA FleX's maxSpeed) keeps the CFL condition the other way round: a frame
// takes at most RealTimeSteps steps, and the mode clamps every particle's speed at the end of each step to what
// the CFL number allows at that step, SpeedLimit = Number·spacing/Δt. The simulation then keeps real time by
// slowing fast fluid rather than adding steps, and says so in its Stats (AppendFigures).
type CFL struct {
	Number float32 // C: spacings the fastest particle may cross in one step
	Min    int32   // fewest steps a frame
	Max    int32   // most steps a frame; the time step does not shrink below FrameDt/Max

	RealTime      bool  // real-time mode: at most RealTimeSteps steps a frame, speeds clamped to SpeedLimit
	RealTimeSteps int32 // most steps a frame in real-time mode; it wins over Min
}

// MaxSubsteps bounds CFL.Max: a frame of more steps than this is a parameter typo, not a simulation.
const MaxSubsteps = 256

// DefaultRealTimeSteps is every mode's <mode>.realtime_substeps: the two substeps of FleX's dam break.
const DefaultRealTimeSteps = 2

// The figures a mode in real-time mode reports (AppendFigures).
const (
	FigRealTimeCap   = "real-time cap"  // steps: the most a frame takes, shown while real-time mode is on
	FigSpeedsClamped = "speeds clamped" // particles (and bodies) the last step slowed to SpeedLimit: a warning when any
)

// Register adds the CFL parameters to a set under prefix ("pbf" gives pbf.cfl, pbf.substeps, pbf.substeps_max,
// pbf.realtime and pbf.realtime_substeps) in the panel group group, the CFL number in particle spacings.
func (c *CFL) Register(s *param.Set, prefix, group string) {
	c.RegisterIn(s, prefix, group, "spacings", "particle spacings")
}

// RegisterIn is Register with the CFL number's unit named: its short form for the panel ("cells") and its long
// form for the description ("grid cells"), for modes whose CFL condition is on a grid.
func (c *CFL) RegisterIn(s *param.Set, prefix, group, unit, long string) {
	c.RegisterWithoutRealTime(s, prefix, group, unit, long)
	s.Bool(&c.RealTime, param.Spec{Name: prefix + ".realtime", Label: "Real-time mode", Group: group,
		Desc: "Keep real time, as NVIDIA FleX does: each frame takes at most " + prefix + ".realtime_substeps steps (this wins over " + prefix + ".substeps), and at the end of each step every particle's speed, and each rigid body's fastest point, is clamped to what the CFL number allows at that step, " + prefix + ".cfl × spacing / Δt: fast fluid is slowed instead of given more steps, so the CFL condition still holds; Stats show the cap and how many speeds the last step clamped. Off, the CFL condition adds steps as the fluid speeds up"})
	s.Int(&c.RealTimeSteps, param.Spec{Name: prefix + ".realtime_substeps", Label: "Real-time substeps", Group: group, Min: 1, Max: MaxSubsteps, SoftMin: 1, SoftMax: 16,
		Desc: "In real-time mode, the most steps per 1/60 s frame (FleX's dam break takes 2); the speed limit is " + prefix + ".cfl × spacing / Δt at the step taken, so fewer steps mean slower fast fluid"})
}

// RegisterWithoutRealTime is RegisterIn without real-time mode's parameters, for a mode whose step has no particle
// speeds to clamp.
func (c *CFL) RegisterWithoutRealTime(s *param.Set, prefix, group, unit, long string) {
	s.Float(&c.Number, param.Spec{Name: prefix + ".cfl", Label: "CFL number", Group: group, Unit: unit, Min: 0.05, Max: 10, SoftMin: 0.2, SoftMax: 4,
		Desc: "Time step: the fastest particle crosses at most this many " + long + " per step; each frame takes as many steps as that needs, between the two substep counts (Stats show how many)"})
	s.Int(&c.Min, param.Spec{Name: prefix + ".substeps", Label: "Substeps (fewest)", Group: group, Min: 1, Max: MaxSubsteps, SoftMin: 1, SoftMax: 16,
		Desc: "Fewest steps per 1/60 s frame, however slow the fluid; set this and the most to the same value for a fixed Δt = 1/(60·substeps)"})
	s.Int(&c.Max, param.Spec{Name: prefix + ".substeps_max", Label: "Substeps (most)", Group: group, Min: 1, Max: MaxSubsteps, SoftMin: 1, SoftMax: 64,
		Desc: "Most steps per 1/60 s frame: past this the time step stops shrinking with speed (and the CFL number is exceeded, unless real-time mode clamps the speeds)"})
}

// Substeps is the number of steps for a frame of frameDt seconds when the fastest particle moves at speed (m/s)
// and particles are spacing apart (m): the fewest that keep speed·Δt ≤ Number·spacing, within [Min, Max]
// (Min wins over Max when they cross). A non-finite speed asks for Max. In real-time mode it is at most
// RealTimeSteps, which wins over Min: the mode clamps the speeds (SpeedLimit) instead of taking the steps.
func (c CFL) Substeps(speed, spacing, frameDt float64) int {
	n := c.substeps(speed, spacing, frameDt)
	if c.RealTime {
		n = min(n, c.Cap())
	}
	return n
}

// Cap is the most steps a frame takes in real-time mode: RealTimeSteps within [1, MaxSubsteps].
func (c CFL) Cap() int {
	return min(max(1, int(c.RealTimeSteps)), MaxSubsteps)
}

func (c CFL) substeps(speed, spacing, frameDt float64) int {
	lo := max(1, int(c.Min))
	hi := max(lo, int(c.Max))
	if math.IsNaN(speed) || math.IsInf(speed, 0) {
		return hi
	}
	reach := float64(c.Number) * spacing // how far one step may carry the fastest particle
	if !(reach > 0) || !(frameDt > 0) {
		return hi
	}
	n := math.Ceil(speed * frameDt / reach * (1 - 1e-9)) // a speed exactly on a step boundary needs no extra step
	if !(n < float64(hi)) {
		return hi
	}
	return max(lo, int(n))
}

// SpeedLimit is the speed real-time mode clamps particles to at the end of a step of dt seconds with particles
// spacing apart (m): Number·spacing/dt, the speed that crosses Number spacings in the step. It is +Inf when
// real-time mode is off, or when the limit is not a positive finite number (a step of no length).
func (c CFL) SpeedLimit(spacing, dt float64) float64 {
	if !c.RealTime {
		return math.Inf(1)
	}
	l := float64(c.Number) * spacing / dt
	if !(l > 0) || math.IsInf(l, 0) || math.IsNaN(l) {
		return math.Inf(1)
	}
	return l
}

// AppendFigures appends real-time mode's figures to dst when it is on: the cap (FigRealTimeCap) and how many speeds
// the last step clamped (FigSpeedsClamped), a warning when it clamped any. The count is reported at zero too, unlike
// a figure that only warns: it is what real-time mode costs, and `slosh run` takes its columns from the first
// frame's figures. Off, it appends nothing.
func (c CFL) AppendFigures(dst []Figure, clamped int) []Figure {
	if !c.RealTime {
		return dst
	}
	return append(dst,
		Figure{Name: FigRealTimeCap, Value: float64(c.Cap()), Unit: "steps"},
		Figure{Name: FigSpeedsClamped, Value: float64(clamped), Warn: clamped > 0})
}

// ClampSpeeds scales every velocity in vel faster than limit (m/s) down to limit, keeping its direction and its
// fourth component, and returns how many it scaled: real-time mode's clamp at the end of a step, shared by every
// particle mode and mirrored by the GPU solver's confinement pass. The arithmetic is float32, per particle:
// |v|² = x² + y² + z², and when |v|² > limit², v ← v·(limit/√|v|²), so a clamped speed is the limit to float32
// rounding and a velocity at or below it is left as it is, bit for bit. A velocity that is not finite is left for
// the mode's own check. With an infinite limit (real-time mode off) nothing is read. The count does not depend on
// the order the chunks run in.
func ClampSpeeds(pool par.Pool, vel [][4]float32, limit float64) int {
	if !(limit < math.Inf(1)) {
		return 0
	}
	l := float32(limit)
	l2 := l * l
	var n atomic.Int64
	pool.For(len(vel), 8192, func(lo, hi int) {
		k := 0
		for i := lo; i < hi; i++ {
			if clampSpeed(&vel[i], l, l2) {
				k++
			}
		}
		n.Add(int64(k))
	})
	return int(n.Load())
}

// clampSpeed is ClampSpeeds for one velocity v, with the limit l and its square l2 in float32; it reports whether
// it scaled v.
func clampSpeed(v *[4]float32, l, l2 float32) bool {
	s2 := v[0]*v[0] + v[1]*v[1] + v[2]*v[2]
	if !(s2 > l2) || math.IsInf(float64(s2), 1) {
		return false
	}
	k := l / float32(math.Sqrt(float64(s2)))
	v[0], v[1], v[2] = v[0]*k, v[1]*k, v[2]*k
	return true
}

// Figure is one number a mode reports about its last step, for the panel, `slosh run` and `slosh bench`:
// PBF's density error, a FLIP solve's iterations and residual. The contract names no method's quantities; a mode
// reports what describes it.
type Figure struct {
	Name  string  // "density error max"
	Value float64 // in Unit
	Unit  string  // "%", "m/s", "" for counts
	// Plot asks the panel to plot the figure's history; figures plotted share one chart and scale, so a mode
	// plots figures of one unit.
	Plot bool
	// Warn marks a value the user should look at (neighbour lists cut short): the panel shows it in the warning
	// colour. A figure that is a warning only when non-zero is left out when it is zero.
	Warn bool
}

// Clone returns a copy that shares no slices with s: what a solver's Stats returns, so the caller may keep it while
// the solver reuses its own.
func (s Stats) Clone() Stats {
	s.Passes = append([]Pass(nil), s.Passes...)
	s.Figures = append([]Figure(nil), s.Figures...)
	return s
}

// Figure returns the figure named name and whether there is one.
func (s *Stats) Figure(name string) (Figure, bool) {
	for _, f := range s.Figures {
		if f.Name == name {
			return f, true
		}
	}
	return Figure{}, false
}

// FormatValue writes a figure's value with its unit in a few significant digits.
func FormatValue(v float64, unit string) string {
	var s string
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e9:
		s = fmt.Sprintf("%d", int64(v))
	case math.Abs(v) >= 100:
		s = fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		s = fmt.Sprintf("%.2f", v)
	default:
		s = fmt.Sprintf("%.3g", v)
	}
	switch unit {
	case "":
		return s
	case "%":
		return s + "%"
	}
	return s + " " + unit
}

// ParamNamed finds a mode's parameter by the last part of its name: every mode names its particle count
// "<mode>.particles", so ParamNamed(set, "particles") finds it in any mode's set. It is the one place that
// convention is decoded.
func ParamNamed(set *param.Set, last string) (*param.Param, bool) {
	for _, p := range set.All() {
		if p.Name == last || strings.HasSuffix(p.Name, "."+last) {
			return p, true
		}
	}
	return nil, false
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
