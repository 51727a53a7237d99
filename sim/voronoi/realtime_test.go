package voronoi

import (
	"fmt"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/simtest"
)

// Real-time mode on the thrown block (6 m/s, over its 1.8 m/s limit of a spacing a step at 2 steps a frame) with a
// body thrown down: every frame takes at most realtime_substeps steps and no particle, nor any body's fastest
// point, ends a step faster than voronoi.cfl spacings a step (simtest.RealTimeRun, against CFL.SpeedLimit).
func TestRealTimeModeClampsSpeeds(t *testing.T) {
	sc := simtest.Parse(t, simtest.ThrownBlockWithBody)
	s := New()
	simtest.RealTimeOn(t, s, 2)
	bodies := 0
	clamped, first := simtest.RealTimeRun(t, simtest.RealTime{Solver: s, Scene: sc, Frames: 3,
		Spacing: sc.Particles.Spacing, CFL: func() sim.CFL { return s.Cfg.Step },
		Check: func(limit float64) error {
			for i := range s.bodies.List {
				b := &s.bodies.List[i]
				if v := b.SurfaceSpeed(b.Reach); v > limit*(1+1e-12) {
					return fmt.Errorf("body %d's fastest point at %.6g m/s", i, v)
				}
				bodies++
			}
			return nil
		}})
	t.Logf("%d particles; the first step's fastest %.4f m/s; %d speeds clamped in 3 frames", len(s.x), first, clamped)
	if clamped == 0 || bodies == 0 {
		t.Errorf("%d speeds clamped, %d body checks: the scene did not test the clamp", clamped, bodies)
	}
}
