package flip

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// benchScene loads one of the benchmark scenes in docs/bench.
func benchScene(b *testing.B, name string) *scene.Scene {
	b.Helper()
	sc, err := scene.LoadFile(filepath.Join("..", "..", "docs", "bench", name+".json"))
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

// benchStep times steps of a dam break after it has started moving, with the stages as metrics.
func benchStep(b *testing.B, name string, sets ...string) {
	sc := benchScene(b, name)
	s := New()
	for _, a := range sets {
		if err := s.Params().Assign(a); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Reset(sc); err != nil {
		b.Fatal(err)
	}
	warm := 10
	if w := os.Getenv("FLIP_BENCH_WARM"); w != "" {
		warm = 0
	}
	measureSteps(b, s, warm)
	b.ReportMetric(float64(len(s.x)), "particles")
	b.ReportMetric(float64(s.last.pressure.Iterations), "iterations")
}

// measureSteps runs warm steps of half a frame, then times b.N more, with each pass's mean as a metric.
func measureSteps(b *testing.B, s *Solver, warm int) {
	for i := 0; i < warm; i++ {
		if err := s.Step(sim.FrameDt / 2); err != nil {
			b.Fatal(err)
		}
	}
	stages := map[string]float64{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Step(sim.FrameDt / 2); err != nil {
			b.Fatal(err)
		}
		for _, p := range s.Stats().Passes {
			stages[p.Name] += p.Ms
		}
	}
	for k, v := range stages { // "sand: pressure" → "sand_pressure-ms": units may not hold spaces
		b.ReportMetric(v/float64(b.N), strings.NewReplacer(" ", "_", ":", "").Replace(k)+"-ms")
	}
}

func BenchmarkStepUIC64(b *testing.B)      { benchStep(b, "flip-dambreak-64") }
func BenchmarkStepClassic64(b *testing.B)  { benchStep(b, "flip-dambreak-64", "flip.pressure=1") }
func BenchmarkStepUIC128(b *testing.B)     { benchStep(b, "flip-dambreak-128") }
func BenchmarkStepClassic128(b *testing.B) { benchStep(b, "flip-dambreak-128", "flip.pressure=1") }
