package game

import (
	"fmt"
	"github.com/slosh/slosh/internal/sym3"
	"math"
	"testing"

	"github.com/slosh/slosh/sim"
)

// Bodies far lighter than the water they displace, and bodies far thinner than a grid cell (the thinnest a scene
// allows, 60 times thinner than a cell), stay bounded (issue 24: a crate of 1 kg/m² and a 1 m × 20 µm sliver
// reached 375 m/s and 2.8e5 J/m in 20 frames; before the fix these reached Box2D's limit of 96 m/s, the flow 1000
// m/s and 3e6 J/m). The current runs at 0.5 m/s and holds 22 J/m. With the impact reading's drag a light crate
// rises at its terminal speed, about 1.6 m/s; without drag (the Bernoulli reading, or none) it rises at about
// 12 m/s² (buoyancy over the water it pushes aside) and meets the lid at under 4 m/s. Each scene runs 40 frames
// in each reading.
func TestLightAndThinBodiesStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("about 7 s on 2 cores: a physics validation; make test runs it")
	}
	const current = `"currents":[{"points":[[0.1,0.6],[1.9,0.6]],"speed":0.5,"width":0.3}]`
	for _, c := range []struct{ name, bodies string }{
		{"a crate of 1 kg/m²", `{"shape":"box","center":[0.5,0.6],"size":[0.12,0.12],"density":1,"crate":true}`},
		{"a crate of 30 kg/m²", `{"shape":"box","center":[0.5,0.6],"size":[0.12,0.12],"density":30,"crate":true}`},
		{"a disc of 1 kg/m²", `{"shape":"circle","center":[0.5,0.6],"radius":0.05,"density":1}`},
		{"a 1 m × 0.5 mm sliver", `{"shape":"box","center":[1,0.6],"size":[1,0.0005],"density":600}`},
		{"a heavy 1 m × 0.5 mm sliver", `{"shape":"box","center":[1,0.6],"size":[1,0.0005],"density":2000,"angle":5}`},
		{"a 1 m × 0.5 mm triangle", `{"shape":"polygon","center":[1,0.6],"points":[[-0.5,0],[0.5,0],[0,0.0005]],"density":600}`},
		{"a light sliver", `{"shape":"box","center":[1,0.6],"size":[1,0.0005],"density":1}`},
	} {
		for _, p := range []string{"impact", "bernoulli", "off"} {
			js := fmt.Sprintf(`{"name":"b","flat":{"size":[2,1.2],"bodies":[%s],%s}}`, c.bodies, current)
			s := newGame(t, js, "reduced.dynamic_pressure="+p)
			body, flow, energy := 0.0, 0.0, 0.0
			var err error
			for f := 0; f < 40 && err == nil; f++ {
				n := s.BeginFrame(sim.FrameDt)
				for k := 0; k < n && err == nil; k++ {
					err = s.Step(sim.FrameDt / float64(n))
					_, _, v, _ := s.world.pose(0)
					body = max(body, math.Hypot(v[0], v[1]))
				}
				flow, energy = max(flow, s.speed), max(energy, s.model.Energy()*float64(s.cfg.Density))
			}
			t.Logf("%s, %s: body %.3g m/s, flow %.3g m/s, %.3g J/m", c.name, p, body, flow, energy)
			if err != nil || body > 5 || flow > 15 || energy > 200 {
				t.Errorf("%s, dynamic pressure %s: the body reached %.3g m/s, the flow %.3g m/s and %.3g J/m (%v)", c.name, p, body, flow, energy, err)
			}
		}
	}
}

// A disc released in still water, the dynamic pressure off, accelerates at g(ρb − ρw)/(ρb + ρw): buoyancy less
// weight, over its own mass and the water it must set moving, which for a circle is the water it displaces
// (added-mass coefficient 1). Heavy and light discs alike, and a thin plate falling broadside barely moves (its
// added mass is that of the disc of its width).
func TestAddedMass(t *testing.T) {
	for _, c := range []struct {
		body    string
		density float64
		want    float64 // m/s² upward
	}{
		{`{"shape":"circle","center":[0.5,0.5],"radius":0.05,"density":%g}`, 3000, -9.81 * 2000 / 4000},
		{`{"shape":"circle","center":[0.5,0.5],"radius":0.05,"density":%g}`, 1, 9.81 * 999 / 1001},
		{`{"shape":"box","center":[0.5,0.5],"size":[0.5,0.002],"density":%g}`, 2000, -9.81 * 1000 * 0.001 / (2 + 1000*math.Pi*0.0625)},
	} {
		js := fmt.Sprintf(`{"name":"a","flat":{"size":[1,1],"bodies":[`+c.body+`]}}`, c.density)
		s := newGame(t, js, "reduced.dynamic_pressure=off", "reduced.feedback=off", "reduced.substeps=4", "reduced.substeps_max=4")
		frames(t, s, 3)
		_, _, v, _ := s.world.pose(0)
		a := v[1] / s.time
		t.Logf("%s: %.4g m/s² after %.3g s (want %.4g)", fmt.Sprintf(c.body, c.density), a, s.time, c.want)
		if math.Abs(a-c.want) > 0.03*math.Abs(c.want) {
			t.Errorf("%s: %.4g m/s², want %.4g", fmt.Sprintf(c.body, c.density), a, c.want)
		}
	}
}

// implicitPart keeps a damping's skew part and the non-negative part of its symmetric part: what it drops is
// negative semi-definite, and what it keeps has a positive semi-definite symmetric part. eigenSym3 and solve3
// are checked on the way.
func TestImplicitPart(t *testing.T) {
	for _, d := range [][3][3]float64{
		{{1, 2, 3}, {4, 5, 6}, {7, 8, 10}},
		{{-3, 0.5, 0}, {-0.5, 2, 1e3}, {0, -1e3, 1e-4}},
		{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
		{{2, 1, 0}, {1, 2, 0}, {0, 0, -1}},
	} {
		var sym [3][3]float64
		for r := 0; r < 3; r++ {
			for q := 0; q < 3; q++ {
				sym[r][q] = 0.5 * (d[r][q] + d[q][r])
			}
		}
		lam, v := sym3.Eigen(sym)
		scale := 1e-12 * (1 + math.Abs(lam[0]) + math.Abs(lam[1]) + math.Abs(lam[2]))
		for r := 0; r < 3; r++ {
			for q := 0; q < 3; q++ {
				x := 0.0
				for k := 0; k < 3; k++ {
					x += lam[k] * v[r][k] * v[q][k]
				}
				if math.Abs(x-sym[r][q]) > scale {
					t.Fatalf("%v: eigen decomposition gives %g at [%d][%d], want %g", d, x, r, q, sym[r][q])
				}
			}
		}
		k := implicitPart(d)
		var dropped, kept [3][3]float64
		for r := 0; r < 3; r++ {
			for q := 0; q < 3; q++ {
				dropped[r][q] = d[r][q] - k[r][q]
				kept[r][q] = 0.5 * (k[r][q] + k[q][r])
			}
		}
		dl, _ := sym3.Eigen(dropped)
		kl, _ := sym3.Eigen(kept)
		for j := 0; j < 3; j++ {
			if dl[j] > scale || kl[j] < -scale {
				t.Errorf("%v: dropped eigenvalues %v, kept %v", d, dl, kl)
			}
		}
		// M/Δt plus the kept part solves
		var a [3][3]float64
		for r := 0; r < 3; r++ {
			a[r] = k[r]
			a[r][r] += 1
		}
		x, ok := solve3(a, [3]float64{1, 2, 3})
		for r := 0; ok && r < 3; r++ {
			y := a[r][0]*x[0] + a[r][1]*x[1] + a[r][2]*x[2]
			if math.Abs(y-float64(r+1)) > 1e-9*(1+math.Abs(y)) {
				ok = false
			}
		}
		if !ok {
			t.Errorf("%v: solve3 failed on %v", d, a)
		}
	}
}
