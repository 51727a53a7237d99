package simtest

import (
	"fmt"
	"math"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// ThrownBlock is a block of water thrown at 6 m/s against a wall of a small tank, beside a column about to
// collapse: fast from the first step, more than real-time mode's speed limit at its default 2 steps a frame in
// every mode at this spacing (pbf-cpu's 1.5 spacings a step is 2.7 m/s, flip's cell of two spacings 3.6 m/s).
const ThrownBlock = `{
  "name": "thrown", "domain": {"min": [0, 0, 0], "max": [0.45, 0.3, 0.09]},
  "particles": {"spacing": 0.015},
  "fluid": [{"shape": "box", "center": [0.3, 0.06, 0.045], "size": [0.09, 0.09, 0.09], "velocity": [6, 2, 0]},
    {"shape": "box", "center": [0.045, 0.1, 0.045], "size": [0.09, 0.2, 0.09]}]
}`

// ThrownBlockWithBody is ThrownBlock with a ball of wood (500 kg/m³) thrown down at 6 m/s and spinning at
// 30 rad/s: for the modes whose bodies real-time mode clamps by their fastest surface point.
const ThrownBlockWithBody = `{
  "name": "thrown", "domain": {"min": [0, 0, 0], "max": [0.45, 0.3, 0.09]},
  "particles": {"spacing": 0.015},
  "bodies": [{"shape": "sphere", "center": [0.2, 0.2, 0.045], "radius": 0.03, "density": 500, "velocity": [0, -6, 0], "spin": [0, 0, 30]}],
  "fluid": [{"shape": "box", "center": [0.3, 0.06, 0.045], "size": [0.09, 0.09, 0.09], "velocity": [6, 2, 0]},
    {"shape": "box", "center": [0.045, 0.1, 0.045], "size": [0.09, 0.2, 0.09]}]
}`

// RealTime is what a mode's real-time test gives RealTimeRun.
type RealTime struct {
	Solver sim.Solver
	Scene  *scene.Scene
	Frames int
	// Spacing is the length the mode's CFL number counts in, m: the particle spacing, or flip's grid cell.
	Spacing float64
	// CFL is the solver's time-step rule, read at every frame (the test sets RealTime in the solver's parameters).
	CFL func() sim.CFL
	// MaxSteps is the most steps a frame may take in real-time mode; nil: the cap, CFL().Cap(). sph's stability
	// conditions may take more.
	MaxSteps func() int
	// Check, when set, is called after every step with the step's speed limit: a mode's own checks (its bodies).
	Check func(limit float64) error
}

// RealTimeRun resets r.Solver with r.Scene and runs r.Frames frames, checking real-time mode's promise after every
// step: no particle (in Frame) faster than CFL().SpeedLimit(Spacing, Δt) beyond float32 rounding (a relative
// 2·10⁻⁶), no frame of more steps than MaxSteps, and Stats naming the cap (sim.FigRealTimeCap) and how many speeds
// the step clamped (sim.FigSpeedsClamped, a warning when any). It returns the speeds clamped over the run and the fastest
// particle seen at the end of the first step, so the test can check its scene was fast enough to need the clamp.
func RealTimeRun(t *testing.T, r RealTime) (clamped int, first float64) {
	t.Helper()
	if err := sim.Reset(r.Solver, r.Scene); err != nil {
		t.Fatal(err)
	}
	var f sim.Frame
	for frame := 0; frame < r.Frames; frame++ {
		n := r.Solver.BeginFrame(sim.FrameDt)
		most := r.CFL().Cap()
		if r.MaxSteps != nil {
			most = r.MaxSteps()
		}
		if n < 1 || n > most {
			t.Fatalf("frame %d takes %d steps, over real-time mode's %d", frame, n, most)
		}
		dt := sim.FrameDt / float64(n)
		limit := r.CFL().SpeedLimit(r.Spacing, dt)
		for k := 0; k < n; k++ {
			if err := r.Solver.Step(dt); err != nil {
				t.Fatalf("frame %d step %d: %v", frame, k, err)
			}
			r.Solver.Frame(&f)
			fastest, at := 0.0, -1
			for i := 0; i < f.N; i++ {
				v := f.Vel[i]
				if s := math.Sqrt(float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2])); !(s <= fastest) {
					fastest, at = s, i
				}
			}
			if frame == 0 && k == 0 {
				first = fastest
			}
			if !(fastest <= limit*(1+2e-6)) {
				t.Fatalf("frame %d step %d (Δt %.4g s): particle %d at %.6g m/s, over real-time mode's limit %.6g m/s",
					frame, k, dt, f.ID[at], fastest, limit)
			}
			if r.Check != nil {
				if err := r.Check(limit); err != nil {
					t.Fatalf("frame %d step %d (Δt %.4g s, limit %.6g m/s): %v", frame, k, dt, limit, err)
				}
			}
			st := r.Solver.Stats()
			if c, ok := st.Figure(sim.FigRealTimeCap); !ok || int(c.Value) != r.CFL().Cap() {
				t.Fatalf("frame %d step %d: Stats say %v for %q, want the cap %d", frame, k, c, sim.FigRealTimeCap, r.CFL().Cap())
			}
			c, ok := st.Figure(sim.FigSpeedsClamped)
			if !ok || c.Warn != (c.Value > 0) {
				t.Fatalf("frame %d step %d: %q is %+v", frame, k, sim.FigSpeedsClamped, c)
			}
			clamped += int(c.Value)
		}
	}
	return clamped, first
}

// RealTimeOn turns real-time mode on in s's parameters (<mode>.realtime, whatever the mode's prefix) with a cap of
// steps a frame.
func RealTimeOn(t *testing.T, s sim.Solver, steps int) {
	t.Helper()
	for _, a := range [][2]string{{"realtime", "true"}, {"realtime_substeps", fmt.Sprint(steps)}} {
		p, ok := sim.ParamNamed(s.Params(), a[0])
		if !ok {
			t.Fatalf("%s has no parameter *.%s", s.Name(), a[0])
		}
		if err := s.Params().SetString(p.Name, a[1]); err != nil {
			t.Fatal(err)
		}
	}
}
