package sph

import (
	"math"
	"testing"
	"time"

	"github.com/slosh/slosh/sim"
)

// Table 3.1's comparison (papers/004 §3.3): WCSPH against PCISPH on the same dam break for the same simulated
// time, at a stiffness that holds WCSPH to the density error PCISPH is given as η. Each solver takes the steps its
// own conditions allow (BeginFrame: CFL, forces, and for WCSPH the speed of sound). Logged per line: the mean time
// step, PCISPH's mean iterations a step, the largest density error seen, and the wall time; the speed-up is WCSPH's
// wall time over PCISPH's. Run with -v:
//
//	go test ./sim/sph -run XXX -bench Table31 -benchtime 1x -v
func BenchmarkTable31(b *testing.B) {
	for _, tc := range []struct {
		name      string
		particles string
		end       float64
	}{{"10k", "sph.particles=10000", 0.2}, {"100k", "sph.particles=100000", 0.02}} {
		b.Run(tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				for _, eta := range []struct{ eta, stiffness string }{{"1", "2e5"}, {"0.1", "2e6"}} {
					w := table31Run(b, tc.end, tc.particles, "sph.pressure=wcsph", "sph.stiffness="+eta.stiffness)
					p := table31Run(b, tc.end, tc.particles, "sph.pressure=pcisph", "sph.eta="+eta.eta)
					b.Logf("%s, η %s%%, %.2f s simulated: WCSPH k=%s Δt %.3g ms, error %.2f%%, %.1f s | PCISPH Δt %.3g ms, %.1f iterations, error %.2f%%, %.1f s | step ratio %.0f, speed-up %.1f",
						tc.name, eta.eta, tc.end, eta.stiffness, 1000*w.dt, w.err, w.wall, 1000*p.dt, p.iters, p.err, p.wall, p.dt/w.dt, w.wall/p.wall)
				}
			}
		})
	}
}

type table31Result struct {
	dt, iters, err, wall float64
}

// table31Run simulates the dam break for end seconds in frames of sim.FrameDt.
func table31Run(b *testing.B, end float64, sets ...string) table31Result {
	sc, err := sceneDambreak()
	if err != nil {
		b.Fatal(err)
	}
	s := New()
	for _, a := range sets {
		if err := s.Params().Assign(a); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Reset(sc); err != nil {
		b.Fatal(err)
	}
	var r table31Result
	steps, its := 0, 0
	start := time.Now()
	for s.time < end-1e-9 {
		frame := math.Min(sim.FrameDt, end-s.time)
		n := s.BeginFrame(frame)
		for k := 0; k < n; k++ {
			dt := frame / float64(n)
			if err := s.Step(dt); err != nil {
				b.Fatal(err)
			}
			inner := int(math.Round(dt / s.dtInner)) // Step splits a step longer than the sound speed allows
			steps += inner
			its += s.iters * inner
			r.err = math.Max(r.err, 100*s.errMax)
		}
	}
	r.wall = time.Since(start).Seconds()
	r.dt = s.time / float64(steps)
	r.iters = float64(its) / float64(steps)
	return r
}
