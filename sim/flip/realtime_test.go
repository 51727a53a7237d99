package flip

import (
	"fmt"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/simtest"
)

// Real-time mode on the thrown block (6 m/s, over its 3.6 m/s limit of one cell a step at 2 steps a frame) with a
// body thrown down at 6 m/s and spinning: every frame takes at most realtime_substeps steps, no particle ends a
// step faster than flip.cfl cells a step (simtest.RealTimeRun, against CFL.SpeedLimit over the grid cell), and no
// body's fastest surface point either (rigid.Solid.SurfaceSpeed).
func TestRealTimeModeClampsSpeeds(t *testing.T) {
	sc := simtest.Parse(t, simtest.ThrownBlockWithBody)
	s := New()
	simtest.RealTimeOn(t, s, 2)
	bodies := 0
	clamped, first := simtest.RealTimeRun(t, simtest.RealTime{Solver: s, Scene: sc, Frames: 6,
		Spacing: 2 * sc.Particles.Spacing, CFL: func() sim.CFL { return s.Cfg.Step },
		Check: func(limit float64) error {
			if s.g.h != 2*sc.Particles.Spacing {
				return fmt.Errorf("the cell is %g m, the test's limit assumes %g", s.g.h, 2*sc.Particles.Spacing)
			}
			for i := range s.bodies {
				b := &s.bodies[i]
				if v := b.SurfaceSpeed(b.Reach()); v > limit*(1+1e-12) {
					return fmt.Errorf("body %d's fastest point at %.6g m/s", i, v)
				}
				bodies++
			}
			return nil
		}})
	t.Logf("%d particles; the first step's fastest %.4f m/s; %d speeds clamped in 6 frames", len(s.x), first, clamped)
	if clamped == 0 || bodies == 0 {
		t.Errorf("%d speeds clamped, %d body checks: the scene did not test the clamp", clamped, bodies)
	}
}
