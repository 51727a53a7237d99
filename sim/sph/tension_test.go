package sph

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/simtest"
)

// Interface tension (eq. 4.14–4.17): a square blob of one fluid inside another, without gravity, rounds off —
// its corners, the particles farthest from its centre, come in — while with no tension it stays square longer.
func TestTensionRoundsABlob(t *testing.T) {
	corner := func(theta string) (before, after float64) {
		const d = 0.02
		s := New()
		for _, a := range []string{"sph.gravity=0,0,0", "sph.tension=" + theta} {
			if err := s.Params().Assign(a); err != nil {
				t.Fatal(err)
			}
		}
		sc := simtest.Parse(t, box(t, 0.32, 0.32, 0.1))
		pos, vel, m := lattice([3]float64{0, 0, 0}, [3]float64{0.32, 0.32, 0.1}, d, func(x, y, _ float64) uint8 {
			if math.Abs(x-0.16) < 0.07 && math.Abs(y-0.16) < 0.07 {
				return 1
			}
			return 0
		})
		mats := []Material{{RestDensity: 1000, Viscosity: 0.005}, {RestDensity: 800, Viscosity: 0.005}}
		if err := s.ResetMaterials(sc, d, pos, vel, m, mats); err != nil {
			t.Fatal(err)
		}
		far := func() float64 { // the blob's farthest particle from its centre, in the xy plane
			var cx, cy, n float64
			for i, x := range s.x {
				if s.mat[i] == 1 {
					cx, cy, n = cx+float64(x[0]), cy+float64(x[1]), n+1
				}
			}
			cx, cy = cx/n, cy/n
			r := 0.0
			for i, x := range s.x {
				if s.mat[i] == 1 {
					r = math.Max(r, math.Hypot(float64(x[0])-cx, float64(x[1])-cy))
				}
			}
			return r
		}
		before = far()
		runFrames(t, s, 30, nil)
		return before, far()
	}
	b0, a0 := corner("0")
	b1, a1 := corner("5")
	t.Logf("farthest blob particle from its centre: %.4f m → %.4f m without tension, → %.4f m with θ = 5", b0, a0, a1)
	if b0 != b1 {
		t.Fatalf("the two runs start from different blobs (%.4f, %.4f)", b0, b1)
	}
	if !(a1 < a0-0.005) {
		t.Errorf("after 0.5 s the blob's corners are %.4f m from its centre with tension and %.4f m without: tension should round them off", a1, a0)
	}
}
