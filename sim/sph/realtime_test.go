package sph

import (
	"fmt"
	"math"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/simtest"
)

// Real-time mode on the thrown block (6 m/s, far over sph's 0.9 m/s limit of half a spacing a step at 2 steps a
// frame) with a body thrown down: no particle and no body's fastest point ends a step faster than sph.cfl spacings
// a step (simtest.RealTimeRun, against CFL.SpeedLimit), and a frame takes at most realtime_substeps steps unless the
// stability conditions ask for more, which still hold (StepLimit, as BeginFrame reads it) and which Stats name
// (FigStabilitySteps) exactly when they do. A soft WCSPH run (k = 50), whose sound condition asks for 10 steps a
// frame at this spacing, checks that side: its frames take the stability conditions' steps, over the cap, and
// its speeds are clamped at their limit (4.5 m/s).
func TestRealTimeModeClampsSpeeds(t *testing.T) {
	sc := simtest.Parse(t, simtest.ThrownBlockWithBody)
	for _, tc := range []struct {
		name string
		sets []string
		over bool // every frame takes more steps than the cap, for stability
	}{{"pcisph", nil, false}, {"wcsph", []string{"sph.pressure=wcsph", "sph.stiffness=50"}, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := New()
			for _, a := range tc.sets {
				if err := s.Params().Assign(a); err != nil {
					t.Fatal(err)
				}
			}
			simtest.RealTimeOn(t, s, 2)
			stability := func() int { return int(math.Ceil(sim.FrameDt / s.StepLimit() * (1 - 1e-9))) }
			over, bodies := 0, 0
			clamped, first := simtest.RealTimeRun(t, simtest.RealTime{Solver: s, Scene: sc, Frames: 4,
				Spacing: sc.Particles.Spacing, CFL: func() sim.CFL { return s.Cfg.Step },
				MaxSteps: func() int {
					if k := min(stability(), int(s.Cfg.Step.Max)); s.frameSubsteps < k {
						t.Fatalf("the frame takes %d steps, fewer than the stability conditions' %d", s.frameSubsteps, k)
					}
					return max(s.Cfg.Step.Cap(), stability())
				},
				Check: func(limit float64) error {
					for i := range s.bodies.List {
						b := &s.bodies.List[i]
						if v := b.SurfaceSpeed(b.Reach); v > limit*(1+1e-12) {
							return fmt.Errorf("body %d's fastest point at %.6g m/s", i, v)
						}
						bodies++
					}
					st := s.Stats()
					f, ok := st.Figure(FigStabilitySteps)
					if want := s.frameSubsteps > s.Cfg.Step.Cap(); ok != want || ok && int(f.Value) != s.frameSubsteps {
						return fmt.Errorf("the frame takes %d steps at a cap of %d; Stats say %+v", s.frameSubsteps, s.Cfg.Step.Cap(), f)
					}
					if ok {
						over++
					}
					return nil
				}})
			t.Logf("%d particles; the first step's fastest %.4f m/s; %d speeds clamped, %d steps in frames over the cap", len(s.x), first, clamped, over)
			if clamped == 0 || bodies == 0 {
				t.Errorf("%d speeds clamped, %d body checks: the scene did not test the clamp", clamped, bodies)
			}
			if tc.over && over == 0 {
				t.Errorf("no frame took the stability conditions' steps over the cap")
			}
		})
	}
}
