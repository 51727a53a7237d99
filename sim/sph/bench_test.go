package sph

import (
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// benchmarkStep times frames of the dam break (0.018 m spacing, about 10k particles at 0.024 m) in a pressure solver,
// reporting particles × steps per second and the steps a frame takes.
func benchmarkStep(b *testing.B, pressure string) {
	s := New()
	for _, a := range []string{"sph.pressure=" + pressure, "sph.particles=10000"} {
		if err := s.Params().Assign(a); err != nil {
			b.Fatal(err)
		}
	}
	sc, err := sceneDambreak()
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

func BenchmarkStep(b *testing.B) {
	b.Run("wcsph", func(b *testing.B) { benchmarkStep(b, "wcsph") })
	b.Run("pcisph", func(b *testing.B) { benchmarkStep(b, "pcisph") })
}

// BenchmarkElastoplastic times steps of bunny-on-a-sphere (Gerszewski's Figure 4.3 and Table 4.1) at 10k
// particles, reporting particles × steps per second and the steps a frame takes.
func BenchmarkElastoplastic(b *testing.B) {
	s := New()
	if err := s.Params().Assign("sph.particles=10000"); err != nil {
		b.Fatal(err)
	}
	sc, err := scene.Builtin("bunny-on-a-sphere")
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
