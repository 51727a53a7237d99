package flip

import (
	"math"
	"testing"
)

func TestDiag2(t *testing.T) {
	s := newSolver(t, builtin(t, "pool"), "flip.cell=0.05", "flip.tolerance=1e-9")
	frames(t, s, 5)
	dt := 1.0 / 120
	s.sortParticles()
	s.rasterise()
	s.normalise()
	s.predictBodies(dt)
	s.updateSolids(s.time)
	s.classify()
	if err := s.correctDensity(); err != nil {
		t.Fatal(err)
	}
	s.gravity(dt)
	bcopy := make([]float64, len(s.b))
	if err := s.project(dt); err != nil {
		t.Fatal(err)
	}
	copy(bcopy, s.b)
	w := make([]float64, len(s.b))
	s.mat.Mul(s.pool, s.p, w)
	minw, maxpw, nb := 0.0, 0.0, 0.0
	for c := range w {
		if !s.sys[c] {
			continue
		}
		w[c] += bcopy[c]
		minw = math.Min(minw, w[c])
		maxpw = math.Max(maxpw, math.Abs(s.p[c]*w[c]))
		nb += bcopy[c] * bcopy[c]
	}
	t.Logf("result %+v; min w %.3g max|pw| %.3g ‖b‖ %.3g", s.last.pressure, minw, maxpw, math.Sqrt(nb))
	// divergence after
	div := make([]float64, len(s.b))
	s.divergence(div)
	mx := 0.0
	for c := range div {
		if s.sys[c] && s.p[c] > 0 {
			mx = math.Max(mx, math.Abs(div[c]*dt+1-s.rhoC[c]/s.rhoMax[c]))
		}
	}
	t.Logf("max |free fraction after| in pressured cells %.3g", mx)
}
