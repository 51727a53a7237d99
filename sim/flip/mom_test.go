package flip

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/simtest"
)

// momentum is the liquid's and the bodies' momentum, kg·m/s.
func momentum(s *Solver) (liquid, bodies [3]float64) {
	for _, v := range s.v {
		for a := 0; a < 3; a++ {
			liquid[a] += s.mass * float64(v[a])
		}
	}
	for i := range s.bodies {
		b := &s.bodies[i]
		for a := 0; a < 3; a++ {
			bodies[a] += b.Mass * b.V[a]
		}
	}
	return liquid, bodies
}

// A body thrown into a ball of water in zero gravity, far from the walls, pushes it aside: the water takes the
// momentum the body loses. The pressure's exchange is exact on the grid, so without the density correction the total
// is kept to within 1 %; the correction (the paper's) moves particles and corrects the face densities by averages
// while the particles carry their old masses into the FLIP update, which costs a few per cent.
func TestThrownBodyConservesMomentum(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a physics validation; make test runs it")
	}
	for _, c := range []struct {
		set string
		tol float64
	}{{"flip.density_correction=false", 0.01}, {"flip.density_correction=true", 0.05}} {
		s := newSolver(t, simtest.Parse(t, `{
  "name": "throw", "domain": {"min": [0, 0, 0], "max": [1.6, 1.2, 1.2]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "sphere", "center": [0.8, 0.6, 0.6], "radius": 0.25}],
  "bodies": [{"shape": "sphere", "center": [0.4, 0.6, 0.6], "radius": 0.08, "density": 1000, "velocity": [2, 0, 0]}]
}`), "flip.cell=0.04", "flip.gravity=0,0,0", c.set)
		l0, b0 := momentum(s)
		p0 := l0[0] + b0[0]
		frames(t, s, 24)
		l1, b1 := momentum(s)
		p1 := l1[0] + b1[0]
		lo, hi := bounds(s)
		t.Logf("%s: x momentum: body %.4f → %.4f, water %.4f → %.4f, total %.4f → %.4f kg·m/s", c.set, b0[0], b1[0], l0[0], l1[0], p0, p1)
		if !(b1[0] < 0.8*b0[0]) {
			t.Fatalf("%s: the body kept %.0f%% of its momentum: it did not push the water", c.set, 100*b1[0]/b0[0])
		}
		if lo[0] < 0.05 || hi[0] > 1.55 {
			t.Fatalf("%s: the water reached a wall (x %.2f–%.2f): the test is not free of walls", c.set, lo[0], hi[0])
		}
		if math.Abs(p1-p0) > c.tol*p0 {
			t.Errorf("%s: the total momentum went from %.4f to %.4f kg·m/s (%.1f%%, tolerance %.0f%%)", c.set, p0, p1, 100*(p1-p0)/p0, 100*c.tol)
		}
	}
}
