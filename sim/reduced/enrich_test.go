package reduced

import (
	"math"
	"testing"
)

// jet paints a narrow stroke: a localized current the eigenfunctions cannot hold.
func jet(t *testing.T, g Grid, y float64) Field {
	t.Helper()
	f := g.NewField()
	var pts []StrokePoint
	for s := 0; s <= 10; s++ {
		pts = append(pts, StrokePoint{X: 0.2 + 0.06*float64(s), Y: y, VX: 1})
	}
	if err := g.PaintStroke(f, pts, 0.04); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestEnrichment(t *testing.T) {
	m := newModel(t, func(p *Params) { p.KeepEnergy = false })
	g := m.Grid()
	n0 := m.Modes()

	// a field in the span of the basis adds no mode
	in := g.NewField()
	for k, w := range map[int]float64{3: 0.8, 7: -0.3, 50: 0.2} {
		for f := range in.U {
			in.U[f] += w * m.Basis(k).U[f]
		}
		for f := range in.V {
			in.V[f] += w * m.Basis(k).V[f]
		}
	}
	res, err := m.Enrich(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 0 || m.Modes() != n0 {
		t.Fatalf("a field in the span added %d modes (residual %.3g)", len(res.Added), res.Residuals[0])
	}

	// a jet outside it adds exactly one
	res, err = m.Enrich(jet(t, g, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Added) != 1 || m.Modes() != n0+1 {
		t.Fatalf("a jet added %d modes (residual %.3g)", len(res.Added), res.Residuals[0])
	}
	t.Logf("jet residual %.3g", res.Residuals[0])
	if res.Residuals[0] < 0.1 {
		t.Errorf("the jet's residual is only %.3g", res.Residuals[0])
	}
	d := res.Added[0]
	if md := m.Mode(d); !md.Drawn || md.Current != res.Currents[0] || md.Eigenvalue >= 0 {
		t.Errorf("new mode %+v", md)
	}
	checkBasis(t, m)

	// exciting the drawn mode brings back the divergence-free jet, unit norm
	want := jet(t, g, 0.5)
	p, err := NewProjector(g, m.pool)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Project(want); err != nil {
		t.Fatal(err)
	}
	scale(want, 1/g.Norm(want))
	if err := m.SetCoefficients(make([]float64, m.Modes())); err != nil {
		t.Fatal(err)
	}
	if err := m.Excite(d, 2); err != nil {
		t.Fatal(err)
	}
	got := g.NewField()
	if err := m.Velocity(got); err != nil {
		t.Fatal(err)
	}
	scale(want, 2)
	var diff float64
	for f := range got.U {
		diff = max(diff, math.Abs(got.U[f]-want.U[f]))
	}
	for f := range got.V {
		diff = max(diff, math.Abs(got.V[f]-want.V[f]))
	}
	if diff > 1e-9*maxAbs(want.U) {
		t.Errorf("the excited jet differs from the drawn one by %.3g", diff)
	}

	// a second jet elsewhere adds one more, the basis stays orthonormal, and energy is conserved with the
	// grid-computed coefficients of the drawn modes
	if res, err = m.Enrich(jet(t, g, 0.25)); err != nil || len(res.Added) != 1 {
		t.Fatalf("second jet: %v, %d added", err, len(res.Added))
	}
	checkBasis(t, m)
	r := randomState(m, 9, 0.5)
	r[n0], r[n0+1] = 0.3, -0.4
	if err := m.SetCoefficients(r); err != nil {
		t.Fatal(err)
	}
	e0 := m.Energy()
	for s := 0; s < 600; s++ {
		if err := m.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("with drawn modes: energy drift %.3g over 600 steps", math.Abs(m.Energy()/e0-1))
	if d := math.Abs(m.Energy()/e0 - 1); d > 1e-9 {
		t.Errorf("with drawn modes the energy drifted by %.3g", d)
	}
	// the same jet again is in the span now
	if res, err = m.Enrich(jet(t, g, 0.5)); err != nil || len(res.Added) != 0 {
		t.Errorf("the first jet again: %v, %d added", err, len(res.Added))
	}
}

// Drawn modes diffuse through their block of Bᵀ L B: a drawn mode alone loses energy at about its eigenvalue's rate.
func TestDrawnModeDiffuses(t *testing.T) {
	m := newModel(t, func(p *Params) { p.Viscosity = 0.001 })
	res, err := m.Enrich(jet(t, m.Grid(), 0.5))
	if err != nil || len(res.Added) != 1 {
		t.Fatalf("%v, %d added", err, len(res.Added))
	}
	d := res.Added[0]
	r := make([]float64, m.Modes())
	r[d] = 1
	if err := m.SetCoefficients(r); err != nil {
		t.Fatal(err)
	}
	if err := m.Diffuse(0.1); err != nil {
		t.Fatal(err)
	}
	want := math.Exp(0.001 * 0.1 * m.Mode(d).Eigenvalue)
	if got := m.Coefficients()[d]; math.Abs(got-want) > 1e-12 {
		t.Errorf("drawn mode after diffusion %g, want %g", got, want)
	}
}

// The same strokes and steps give the same state bit for bit on any number of workers (replays depend on it).
func TestDeterministicAcrossWorkers(t *testing.T) {
	var states [][]float64
	for _, w := range []int{1, 2, 5} {
		m := newModel(t, func(p *Params) { p.Workers, p.Viscosity = w, 1e-3 })
		if err := m.SetCoefficients(randomState(m, 4, 0.1)); err != nil {
			t.Fatal(err)
		}
		if _, err := m.Enrich(jet(t, m.Grid(), 0.5), jet(t, m.Grid(), 0.3)); err != nil {
			t.Fatal(err)
		}
		if err := m.Excite(m.Modes()-1, 0.5); err != nil {
			t.Fatal(err)
		}
		for s := 0; s < 50; s++ {
			if err := m.Step(1.0 / 60); err != nil {
				t.Fatal(err)
			}
		}
		states = append(states, m.Coefficients())
	}
	for w := 1; w < len(states); w++ {
		for k := range states[0] {
			if states[w][k] != states[0][k] {
				t.Fatalf("worker count %d: coefficient %d is %v, with one worker %v", w, k, states[w][k], states[0][k])
			}
		}
	}
}
