package panel

import (
	"math"
	"testing"
)

// What eq. 5.21 implies, checked on a square of side a held still far from the walls (images off), ρ = 2:
//   - in a uniform stream q is the same on every panel and the outline is closed, so the net force and torque
//     are zero;
//   - in a shear stream u = (U + s(y - y_c), 0) the top side (outward normal +y) sees q = ½ρ(U + sa/2)² and the
//     bottom ½ρ(U - sa/2)², the vertical sides the same profile with opposite normals, so the force is
//     (0, a(q_top - q_bottom)) = (0, ρ U s a²) (toward the faster side: pressure is lower where the relative flow
//     is faster) with no torque; both collocation points of a side see the same speed, so this is exact.
func TestDynamicPressureForce(t *testing.T) {
	const rho, a, U, sh = 2.0, 4 * h, 1.5, 10.0
	opt := DefaultOptions(1, 1)
	opt.Images = false
	c := Vec{0.5, 0.5}
	s := mustSystem(t, opt, Body{Shape: mustPolygon(t, square(a), h), Pos: c})
	solveIn(t, s, uniform(Vec{U, 0}))
	f, err := s.Forces(nil, rho, 0)
	if err != nil {
		t.Fatal(err)
	}
	scale := 0.5 * rho * U * U * 4 * a // q × perimeter
	if len(f) != 1 || f[0].Dynamic.norm() > 1e-12*scale || math.Abs(f[0].DynamicTorque) > 1e-12*scale*a {
		t.Errorf("uniform stream: %+v (q·perimeter %g)", f, scale)
	}
	solveIn(t, s, func(p Vec) Vec { return Vec{U + sh*(p.Y-c.Y), 0} })
	f, err = s.Forces(f, rho, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := rho * U * sh * a * a
	if d := f[0].Dynamic; math.Abs(d.Y-want) > 1e-9*want || math.Abs(d.X) > 1e-9*want || math.Abs(f[0].DynamicTorque) > 1e-9*want*a {
		t.Errorf("shear stream: force %v torque %g, want (0, %g) and 0", d, f[0].DynamicTorque, want)
	}
	if f[0].Buoyancy != (Vec{}) || f[0].BuoyancyTorque != 0 {
		t.Errorf("no gravity, buoyancy %v %g", f[0].Buoyancy, f[0].BuoyancyTorque)
	}
}

// A body at rest in still fluid: no dynamic force, and buoyancy ρ·area·g upward (exact for a polygon: the
// midpoint rule integrates the linear depth along a side exactly), wherever it is and however it is turned; its
// torque about the centroid is zero up to the midpoint rule's error on the quadratic moment (under 1 % of force
// times size).
func TestBuoyancy(t *testing.T) {
	const rho, g = 1000.0, 9.81
	tri := []Vec{{-2 * h, -h}, {3 * h, -h}, {0, 3 * h}}
	var cx, cy float64
	for _, v := range tri {
		cx, cy = cx+v.X/3, cy+v.Y/3
	}
	for i := range tri {
		tri[i] = tri[i].sub(Vec{cx, cy}) // centroid at the body origin
	}
	for name, sh := range map[string]*Shape{"triangle": mustPolygon(t, tri, h), "circle": mustCircle(t, 3*h, h)} {
		for _, pose := range []Body{{Pos: Vec{0.5, 0.5}}, {Pos: Vec{0.2, 0.1}, Angle: 1}, {Pos: Vec{0.9, 0.95}, Angle: -2}} {
			pose.Shape = sh
			s := mustSystem(t, DefaultOptions(1, 1), pose)
			solveIn(t, s, still)
			f, err := s.Forces(nil, rho, g)
			if err != nil {
				t.Fatal(err)
			}
			want := rho * sh.Area() * g
			b := f[0].Buoyancy
			if math.Abs(b.Y-want) > 1e-9*want || math.Abs(b.X) > 1e-9*want || math.Abs(f[0].BuoyancyTorque) > 0.01*want*sh.Radius() {
				t.Errorf("%s at %v: buoyancy %v torque %g, want (0, %g)", name, pose.Pos, b, f[0].BuoyancyTorque, want)
			}
			if f[0].Dynamic != (Vec{}) {
				t.Errorf("%s at rest in still fluid: dynamic force %v", name, f[0].Dynamic)
			}
			if tot, _ := f[0].Total(); tot != f[0].Buoyancy {
				t.Errorf("total %v", tot)
			}
		}
		if math.Abs(sh.Area()) <= 0 {
			t.Errorf("%s: area %g", name, sh.Area())
		}
	}
	if c := mustCircle(t, 3*h, h); math.Abs(c.Area()-math.Pi*9*h*h) > 0.03*math.Pi*9*h*h {
		t.Errorf("circle's polygon area %g, πr² %g", c.Area(), math.Pi*9*h*h)
	}
}

// The velocity that enters q is the one the body's panels cancelled, the neighbours' panels included: a circle at
// rest in still fluid, a cell from a square moving toward it, feels the square's push of fluid, faster on its
// near side, and (eq. 5.21 along the outward normal) is drawn toward the square (force along -x); alone it feels
// nothing.
func TestDynamicPressureFromNeighbour(t *testing.T) {
	s := mustSystem(t, DefaultOptions(1, 1), twoBodies(t)...)
	solveIn(t, s, still)
	f, err := s.Forces(nil, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(f) != 2 || !(f[1].Dynamic.X < 0) || math.Abs(f[1].Dynamic.Y) > math.Abs(f[1].Dynamic.X) {
		t.Errorf("circle next to the moving square: %+v", f)
	}
	alone := mustSystem(t, DefaultOptions(1, 1), twoBodies(t)[1])
	solveIn(t, alone, still)
	if f, _ = alone.Forces(f, 1, 0); f[0].Dynamic != (Vec{}) {
		t.Errorf("circle alone at rest in still fluid: %+v", f)
	}
}

// The impact reading of eq. 5.21: a uniform stream U pushes a square of side a held still downstream with
// ½ρU²·a (only the upstream side faces the flow, and both its collocation points see U head-on), and no torque;
// a square moving at U through still fluid feels the same force backwards. (The Bernoulli reading, Forces, gives
// the held square no force at all in that stream: TestDynamicPressureForce.)
func TestImpactForce(t *testing.T) {
	const rho, a, U = 2.0, 4 * h, 1.5
	opt := DefaultOptions(1, 1)
	opt.Images = false
	c := Vec{0.5, 0.5}
	s := mustSystem(t, opt, Body{Shape: mustPolygon(t, square(a), h), Pos: c})
	solveIn(t, s, uniform(Vec{U, 0}))
	f, err := s.ImpactForces(nil, rho, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.5 * rho * U * U * a
	if d := f[0].Dynamic; math.Abs(d.X-want) > 1e-9*want || math.Abs(d.Y) > 1e-9*want || math.Abs(f[0].DynamicTorque) > 1e-9*want*a {
		t.Errorf("uniform stream: force %v torque %g, want (%g, 0) and 0", d, f[0].DynamicTorque, want)
	}
	s = mustSystem(t, opt, Body{Shape: mustPolygon(t, square(a), h), Pos: c, Vel: Vec{0, U}})
	solveIn(t, s, uniform(Vec{}))
	if f, err = s.ImpactForces(f, rho, 0); err != nil {
		t.Fatal(err)
	}
	if d := f[0].Dynamic; math.Abs(d.Y+want) > 1e-9*want || math.Abs(d.X) > 1e-9*want {
		t.Errorf("moving up through still fluid: force %v, want (0, %g)", d, -want)
	}
}
