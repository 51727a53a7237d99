package sph

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/simtest"
)

// Pressure, viscosity and interface tension exchange momentum between particles and never create it: on a blob of
// two fluids (1:3) with random velocities, far from every wall and without gravity, Σ_i m_i a_i of each force is
// zero to rounding, relative to Σ_i m_i |a_i|.
func TestForcesConserveMomentum(t *testing.T) {
	const d = 0.02
	for _, mode := range []string{"wcsph", "pcisph"} {
		for _, form := range []string{"monaghan", "muller"} {
			for _, nu := range []float32{0.05, 0} { // without viscosity, anp is the tension alone
				s := New()
				for _, a := range []string{"sph.pressure=" + mode, "sph.pressure_form=" + form, "sph.gravity=0,0,0", "sph.tension=5", "sph.viscosity=0.05"} {
					if err := s.Params().Assign(a); err != nil {
						t.Fatal(err)
					}
				}
				sc := simtest.Parse(t, box(t, 1, 1, 1))
				pos, vel, m := lattice([3]float64{0.4, 0.4, 0.4}, [3]float64{0.6, 0.6, 0.6}, d, func(x, y, _ float64) uint8 {
					if x+y > 1 {
						return 1
					}
					return 0
				})
				seed := uint32(1)
				for i := range vel {
					for c := 0; c < 3; c++ {
						seed = seed*1664525 + 1013904223
						vel[i][c] = float32(seed>>8)/float32(1<<24) - 0.5
						pos[i][c] += 0.002 * (float32(seed>>16&0xff)/255 - 0.5) // a compressed, disordered lattice
					}
					pos[i][0] = 0.5 + 0.9*(pos[i][0]-0.5)
				}
				mats := []Material{{RestDensity: 1000, Viscosity: nu}, {RestDensity: 300, Viscosity: nu / 2}}
				if err := s.ResetMaterials(sc, d, pos, vel, m, mats); err != nil {
					t.Fatal(err)
				}
				if err := s.Step(1e-4); err != nil {
					t.Fatal(err)
				}
				check := func(name string, a [][4]float32) {
					var sum, abs [3]float64
					for i := range a {
						mi := float64(s.mass[s.mat[i]])
						for c := 0; c < 3; c++ {
							sum[c] += mi * float64(a[i][c])
							abs[c] += mi * math.Abs(float64(a[i][c]))
						}
					}
					for c := 0; c < 3; c++ {
						if abs[c] == 0 {
							t.Errorf("%s %s %s: no force along axis %d: the test exercises nothing", mode, form, name, c)
							continue
						}
						if r := math.Abs(sum[c]) / abs[c]; r > 1e-4 {
							t.Errorf("%s %s %s: net force %.3g along axis %d, %.2g of Σ m|a|", mode, form, name, sum[c], c, r)
						}
					}
				}
				check("pressure", s.ap)
				if nu > 0 {
					check("viscosity+tension", s.anp)
				} else {
					check("tension", s.anp)
				}
			}
		}
	}
}
