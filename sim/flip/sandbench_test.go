package flip

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// BenchmarkSandColumn is the paper's column setting (issue 27): sand-column with its sand's parameters at 1 cm
// cells (100×60×60, 430,928 particles) and the paper's time stepping (flip.cfl=5, 2 steps a frame), from its third
// step on, with the stages as metrics. A profile of it shows where the step goes (`go test ./sim/flip -run XXX
// -bench SandColumn -benchtime 12x -cpuprofile cpu.prof`); its state differs from `slosh bench`'s only in the steps
// not being planned by the CFL rule.
func BenchmarkSandColumn(b *testing.B) {
	sc, err := scene.LoadFile(filepath.Join("..", "..", "assets", "scenes", "sand-column.json"))
	if err != nil {
		b.Fatal(err)
	}
	s := New()
	for name, v := range SceneParams(sc) { // the sand's parameters, as the app applies them when the scene opens
		if err := s.Params().Assign(name + "=" + string(v)); err != nil {
			b.Fatal(err)
		}
	}
	for _, a := range []string{"flip.cell=0.01", "flip.cfl=5"} {
		if err := s.Params().Assign(a); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Reset(sc); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 4; i++ {
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
	b.ReportMetric(float64(s.last.pressure.Iterations), "pressure-its")
	b.ReportMetric(float64(s.last.correction.Iterations), "correction-its")
	b.ReportMetric(float64(s.sand.last.rigid), "rigid")
	for k, v := range stages {
		b.ReportMetric(v/float64(b.N), strings.NewReplacer(" ", "_", ":", "").Replace(k)+"-ms")
	}
}
