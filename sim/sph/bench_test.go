package sph

import (
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// benchmarkScene times steps of a shipped scene at 10k particles with some parameters assigned, reporting
// particles × steps per second and the steps a frame takes.
func benchmarkScene(b *testing.B, name string, sets ...string) {
	s := New()
	for _, a := range append(sets, "sph.particles=10000") {
		if err := s.Params().Assign(a); err != nil {
			b.Fatal(err)
		}
	}
	sc, err := scene.Builtin(name)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Reset(sc); err != nil {
		b.Fatal(err)
	}
	n := s.BeginFrame(sim.FrameDt)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Step(sim.FrameDt / float64(n)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(s.x))*float64(b.N)/b.Elapsed().Seconds(), "particle-steps/s")
	b.ReportMetric(float64(n), "steps/frame")
}

// BenchmarkStep times frames of the dam break (0.018 m spacing, about 10k particles at 0.024 m) in each pressure
// solver.
func BenchmarkStep(b *testing.B) {
	b.Run("wcsph", func(b *testing.B) { benchmarkScene(b, "dambreak", "sph.pressure=wcsph") })
	b.Run("pcisph", func(b *testing.B) { benchmarkScene(b, "dambreak", "sph.pressure=pcisph") })
}

// BenchmarkElastoplastic times steps of bunny-on-a-sphere (Gerszewski's Figure 4.3 and Table 4.1) at 10k particles.
func BenchmarkElastoplastic(b *testing.B) { benchmarkScene(b, "bunny-on-a-sphere") }
