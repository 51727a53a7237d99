package reduced

import (
	"testing"
)

// benchModel is Table 5.1's setting: 73 eigenfunctions on a 65×65 grid, a state with an rms speed of about a
// third of the box per second, a little viscosity.
func benchModel(b *testing.B) *Model {
	m := newModel(b, func(p *Params) { p.Viscosity = 1e-3 })
	if err := m.SetCoefficients(randomState(m, 1, 0.05)); err != nil {
		b.Fatal(err)
	}
	return m
}

func BenchmarkAdvect(b *testing.B) {
	m := benchModel(b)
	r0 := m.Coefficients()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if i%600 == 0 { // keep the state near where it started
			_ = m.SetCoefficients(r0)
		}
		if err := m.Advect(1.0 / 60); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.NonZeros()), "nonzeros")
}

func BenchmarkDiffuse(b *testing.B) {
	m := benchModel(b)
	for b.Loop() {
		if err := m.Diffuse(1.0 / 60); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStep(b *testing.B) {
	m := benchModel(b)
	r0 := m.Coefficients()
	for i := 0; b.Loop(); i++ {
		if i%600 == 0 {
			_ = m.SetCoefficients(r0)
		}
		if err := m.Step(1.0 / 60); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProject is r_k = ⟨f, b_k⟩ for a face field on the 65×65 grid, 73 modes.
func BenchmarkProject(b *testing.B) {
	m := benchModel(b)
	f := m.Grid().NewField()
	if err := m.Velocity(f); err != nil {
		b.Fatal(err)
	}
	r := make([]float64, m.Modes())
	for b.Loop() {
		if err := m.Project(r, f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVelocity is B r on the faces, what tracers sample each frame.
func BenchmarkVelocity(b *testing.B) {
	m := benchModel(b)
	f := m.Grid().NewField()
	for b.Loop() {
		if err := m.Velocity(f); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnrich adds one drawn mode to the 73: projection, deflation, SVDs, its coefficients with every mode
// on the grid and the viscosity block. The model is rebuilt outside the timer.
func BenchmarkEnrich(b *testing.B) {
	g := benchModel(b).Grid()
	f := g.NewField()
	var pts []StrokePoint
	for s := 0; s <= 10; s++ {
		pts = append(pts, StrokePoint{X: 0.2 + 0.06*float64(s), Y: 0.5, VX: 1})
	}
	if err := g.PaintStroke(f, pts, 0.04); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		m := benchModel(b)
		b.StartTimer()
		res, err := m.Enrich(f)
		if err != nil || len(res.Added) != 1 {
			b.Fatalf("%v, %d added", err, len(res.Added))
		}
	}
}

// BenchmarkNew builds the 73-mode basis and its closed-form coefficients.
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		benchModel(b)
	}
}
