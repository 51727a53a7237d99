package panel

import (
	"math"
	"testing"
)

// Force.Damping is −∂Dynamic/∂Vel, the change of the dynamic force as the body's velocity changes with the flow
// held: checked against central differences for both readings, on a triangle at an angle in a shear stream,
// and, for the impact reading, positive semi-definite (it only ever resists the body's motion through the
// stream).
func TestDynamicForceDamping(t *testing.T) {
	const rho, d = 1000.0, 1e-6
	opt := DefaultOptions(1, 1)
	opt.Images = false
	sh := mustPolygon(t, []Vec{{-2 * h, -h}, {3 * h, -h}, {0, 3 * h}}, h)
	flow := func(p Vec) Vec { return Vec{0.4 + 3*(p.Y-0.5), 0.1} }
	force := func(v Vec, omega float64, impact bool) Force {
		s := mustSystem(t, opt, Body{Shape: sh, Pos: Vec{0.5, 0.5}, Angle: 0.3, Vel: v, Omega: omega})
		solveIn(t, s, flow)
		var f []Force
		var err error
		if impact {
			f, err = s.ImpactForces(nil, rho, 0)
		} else {
			f, err = s.Forces(nil, rho, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
		return f[0]
	}
	v0, w0 := Vec{0.05, -0.2}, 0.2
	for _, impact := range []bool{true, false} {
		D := force(v0, w0, impact).Damping
		scale := 0.0
		for _, row := range D {
			for _, x := range row {
				scale = max(scale, math.Abs(x))
			}
		}
		if !(scale > 0) {
			t.Fatalf("impact %v: no damping %v", impact, D)
		}
		for b, e := range [][3]float64{{d, 0, 0}, {0, d, 0}, {0, 0, d}} {
			hi := force(v0.add(Vec{e[0], e[1]}), w0+e[2], impact)
			lo := force(v0.sub(Vec{e[0], e[1]}), w0-e[2], impact)
			col := [3]float64{-(hi.Dynamic.X - lo.Dynamic.X) / (2 * d), -(hi.Dynamic.Y - lo.Dynamic.Y) / (2 * d), -(hi.DynamicTorque - lo.DynamicTorque) / (2 * d)}
			for a := 0; a < 3; a++ {
				if math.Abs(col[a]-D[a][b]) > 1e-5*scale {
					t.Errorf("impact %v: Damping[%d][%d] = %g, differences give %g", impact, a, b, D[a][b], col[a])
				}
			}
		}
		if impact {
			tr, det := D[0][0]+D[1][1], D[0][0]*D[1][1]-D[0][1]*D[1][0]
			if math.Abs(D[0][1]-D[1][0]) > 1e-12*scale || tr < 0 || det < -1e-12*tr*tr {
				t.Errorf("impact damping %v: its translational block is not symmetric positive semi-definite", D)
			}
		}
	}
}

// Schwarz sweeps that diverge stop at the best strengths they had: a fixed plank that crosses a wall, cut into
// panels thirty times longer than it is thick, overlaps its own mirror image, and twenty sweeps multiplied its
// strengths a hundred thousand times (found by fuzzing the reduced game). The result says so.
func TestSchwarzDivergenceStops(t *testing.T) {
	plank := mustPolygon(t, []Vec{{-9.06, -0.06}, {9.06, -0.06}, {9.06, 0.06}, {-9.06, 0.06}}, 3.7)
	disc := mustCircle(t, 4.46, 3.7)
	solve := func(iterations int) (float64, Result) {
		opt := DefaultOptions(18, 89.2)
		opt.MaxIterations, opt.Tolerance = iterations, 1e-3
		s := mustSystem(t, opt, Body{Shape: plank, Pos: Vec{13, 0.6}, Angle: 10 * math.Pi / 180}, Body{Shape: disc, Pos: Vec{6, 44.6}})
		res := solveIn(t, s, uniform(Vec{0.5, 0}))
		top := 0.0
		for _, g := range s.gamma {
			top = max(top, math.Abs(g))
		}
		return top, res
	}
	alone, _ := solve(0)
	swept, res := solve(20)
	t.Logf("strengths alone %.3g, after the sweeps %.3g (%+v)", alone, swept, res)
	if !(swept < 10*alone) || res.Converged || !res.Diverged {
		t.Errorf("the sweeps reached strengths %.3g (alone %.3g): %+v", swept, alone, res)
	}
}
