package flip

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/simtest"
)

// Figure 3.1's claim: a fountain under UIC spreads wider than the same fountain under classic FLIP, where the
// artificial surface tension of forced incompressibility keeps it together.
func TestFountainSpreadsWiderUnderUIC(t *testing.T) {
	spread := func(sets ...string) float64 {
		s := newSolver(t, simtest.Parse(t, fountainScene), append([]string{"flip.cell=0.04"}, sets...)...)
		frames(t, s, 30)
		// the horizontal spread of the jet and its spray above the pool, over a second: the root-mean-square
		// distance from the jet's axis of the particles higher than 0.25 m
		var sum float64
		n := 0
		for f := 0; f < 60; f++ {
			frames(t, s, 1)
			for _, x := range s.x {
				if x[1] > 0.25 {
					dx, dz := float64(x[0])-0.3, float64(x[2])-0.3
					sum += dx*dx + dz*dz
					n++
				}
			}
		}
		if n < 1000 {
			t.Fatalf("%v: only %d particle-frames above the pool", sets, n)
		}
		return math.Sqrt(sum / float64(n))
	}
	uic, classic := spread(), spread("flip.pressure=1")
	t.Logf("spread of the jet: UIC %.4f m, classic %.4f m", uic, classic)
	if !(uic > 1.15*classic) {
		t.Errorf("the UIC fountain spreads %.4f m, the classic one %.4f m: want UIC wider by 15%% or more", uic, classic)
	}
}

const fountainScene = `{
  "name": "jet", "domain": {"min": [0, 0, 0], "max": [0.6, 1.2, 0.6]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.3, 0.04, 0.3], "size": [0.6, 0.08, 0.6]}],
  "emitters": [{"center": [0.3, 0.12, 0.3], "direction": [0, 1, 0], "radius": 0.05, "speed": 3}]
}`
