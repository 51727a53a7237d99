package flip

import (
	"path/filepath"
	"testing"

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
	measureSteps(b, s, 4)
	b.ReportMetric(float64(s.last.pressure.Iterations), "pressure-its")
	b.ReportMetric(float64(s.last.correction.Iterations), "correction-its")
	b.ReportMetric(float64(s.sand.last.rigid), "rigid")
}
