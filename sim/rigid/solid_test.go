package rigid

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// NewSolid measures mass, centre and inertia against the exact values of a box and a sphere, and puts its contact
// points on the surface.
func TestNewSolidMassProperties(t *testing.T) {
	cases := []struct {
		name    string
		spec    scene.Body
		mass    float64
		inertia [3]float64 // principal moments in the rest frame
	}{
		{"box", scene.Body{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{0.3, 0.2, 0.1}, Size: scene.Vec3{0.2, 0.1, 0.06}}, Density: 500},
			500 * 0.2 * 0.1 * 0.06, [3]float64{
				500 * 0.2 * 0.1 * 0.06 / 12 * (0.1*0.1 + 0.06*0.06),
				500 * 0.2 * 0.1 * 0.06 / 12 * (0.2*0.2 + 0.06*0.06),
				500 * 0.2 * 0.1 * 0.06 / 12 * (0.2*0.2 + 0.1*0.1)}},
		{"sphere", scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.5, 0.5, 0.5}, Radius: 0.05}, Density: 2000},
			2000 * 4 * math.Pi / 3 * 0.05 * 0.05 * 0.05, [3]float64{}},
	}
	cases[1].inertia = [3]float64{0.4 * cases[1].mass * 0.0025, 0.4 * cases[1].mass * 0.0025, 0.4 * cases[1].mass * 0.0025}
	for _, c := range cases {
		b, err := NewSolid(c.spec, 0.02)
		if err != nil {
			t.Fatal(err)
		}
		if r := math.Abs(b.Mass/c.mass - 1); r > 0.01 {
			t.Errorf("%s: mass %.5g kg, exact %.5g (%.2f %% off)", c.name, b.Mass, c.mass, 100*r)
		}
		for a := 0; a < 3; a++ {
			if d := math.Abs(b.Origin[a] - c.spec.Center[a]); d > 1e-6 {
				t.Errorf("%s: centre of mass %v, exact %v", c.name, b.Origin, c.spec.Center)
			}
			if r := math.Abs(b.IBody[a][a]/c.inertia[a] - 1); r > 0.02 {
				t.Errorf("%s: inertia about axis %d %.4g, exact %.4g (%.2f %% off)", c.name, a, b.IBody[a][a], c.inertia[a], 100*r)
			}
		}
		if len(b.Hull) < maxHull/4 || len(b.Hull) >= 2*maxHull {
			t.Fatalf("%s: %d hull points", c.name, len(b.Hull))
		}
		for _, o := range b.Hull {
			p := scene.Vec3{b.Origin[0] + o[0], b.Origin[1] + o[1], b.Origin[2] + o[2]}
			if d := c.spec.Distance(p); math.Abs(d) > 1e-9 {
				t.Fatalf("%s: a hull point lies %.3g m off the surface", c.name, d)
			}
		}
	}
	if _, err := NewSolid(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Radius: 0.05}}, 0.02); err == nil {
		t.Error("a body of density 0 was measured")
	}
}

// A plate far wider than it is thick is measured on a lattice within the sample budget, one layer thick, with the
// mass and inertia of a thin plate (exact: ρ·a·b·t and m(a² + b²)/12 about its normal): before, the budget's
// coarser spacing was applied to the thin axis too, which measured a 1 m × 0.1 mm plate as nothing and a
// 10 m × 1 µm one over 7·10⁸ lattice points (minutes).
func TestNewSolidThinPlate(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: thin plates measured on lattices; make test runs it")
	}
	for _, c := range []struct {
		size scene.Vec3
		h    float64
	}{{scene.Vec3{1, 1e-4, 1}, 0.1}, {scene.Vec3{10, 1e-6, 10}, 0.05}, {scene.Vec3{999, 999, 1e-6}, 0.02}} {
		n, _ := lattice(c.size, math.Min(c.h/4, 1e-7))
		if pts := n[0] * n[1] * n[2]; pts > maxSolidSamples {
			t.Errorf("plate %v: a lattice of %v = %d points, over the %d budget", c.size, n, pts, maxSolidSamples)
			continue
		}
		spec := scene.Body{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{1, 1, 1}, Size: c.size}, Density: 500}
		b, err := NewSolid(spec, c.h)
		if err != nil {
			t.Errorf("plate %v: %v", c.size, err)
			continue
		}
		mass := 500 * c.size[0] * c.size[1] * c.size[2]
		if r := math.Abs(b.Mass/mass - 1); r > 0.01 {
			t.Errorf("plate %v: mass %.5g kg, exact %.5g", c.size, b.Mass, mass)
		}
		normal := 1
		if c.size[2] < c.size[1] {
			normal = 2
		}
		a, bb := c.size[(normal+1)%3], c.size[(normal+2)%3]
		if want := mass * (a*a + bb*bb) / 12; math.Abs(b.IBody[normal][normal]/want-1) > 0.02 {
			t.Errorf("plate %v: inertia about its normal %.5g, exact %.5g", c.size, b.IBody[normal][normal], want)
		}
	}
}

// ContactStatic keeps a body in the domain and out of a solid and takes the velocity into them; ContactSolids
// separates two overlapping bodies and makes their approach inelastic, keeping momentum.
func TestContacts(t *testing.T) {
	dom := scene.Box{Min: scene.Vec3{0, 0, 0}, Max: scene.Vec3{1, 1, 1}}
	b, err := NewSolid(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.5, 0.03, 0.5}, Radius: 0.05}, Density: 1000}, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	b.V = [3]float64{0.3, -2, 0}
	b.ContactStatic(dom, nil)
	if low := b.C[1] - 0.05; math.Abs(low-ContactMargin) > 1e-9 {
		t.Errorf("the sphere's bottom is at %g after the floor's contact, want the margin %g", low, ContactMargin)
	}
	if b.V != [3]float64{0.3, 0, 0} {
		t.Errorf("after the floor's contact the sphere moves at %v, want (0.3, 0, 0)", b.V)
	}
	// a solid: the half-space x > 0.6
	wall := func(p scene.Vec3) (float64, scene.Vec3) { return 0.6 - p[0], scene.Vec3{-1, 0, 0} }
	b.C = [3]float64{0.57, 0.5, 0.5}
	b.V = [3]float64{1, 0, 0}
	b.ContactStatic(dom, wall)
	if right := b.C[0] + 0.05; right > 0.6+1e-3 {
		t.Errorf("the sphere reaches x = %g inside the solid from 0.6", right)
	}
	if b.V[0] > 0 {
		t.Errorf("the sphere still moves into the solid at %g m/s", b.V[0])
	}

	a, _ := NewSolid(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.4, 0.5, 0.5}, Radius: 0.05}, Density: 1000}, 0.02)
	c, _ := NewSolid(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.48, 0.5, 0.5}, Radius: 0.05}, Density: 3000}, 0.02)
	a.V, c.V = [3]float64{2, 0, 0}, [3]float64{-1, 0, 0}
	p0 := a.Mass*a.V[0] + c.Mass*c.V[0]
	ContactSolids(&a, &c)
	if gap := c.C[0] - a.C[0]; gap < 0.1-0.005 {
		t.Errorf("the spheres' centres are %g apart after the contact, want about 0.1", gap)
	}
	if p1 := a.Mass*a.V[0] + c.Mass*c.V[0]; math.Abs(p1-p0) > 1e-9*math.Abs(p0) {
		t.Errorf("the contact changed the momentum from %g to %g", p0, p1)
	}
	// inelastic along the contact normal, which the surface points give to within their spacing
	if a.V[0]-c.V[0] > 0.05*3 {
		t.Errorf("after the contact the spheres still approach at %g m/s of the 3 they met at", a.V[0]-c.V[0])
	}
}

// ClampSpeed scales a body's velocity and spin by one factor until its fastest surface point, |v| + |ω| reach,
// is the limit (checked against SurfaceSpeed and the directions before), leaves a slower body, a dragged one and
// one with an infinite limit bit for bit as they were, and reports which it scaled.
func TestSolidClampSpeed(t *testing.T) {
	b, err := NewSolid(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.5, 0.5, 0.5}, Radius: 0.05}, Density: 500}, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	b.V, b.W = [3]float64{3, -4, 0}, [3]float64{0, 0, 20} // 5 m/s + 20 rad/s × 0.05 m = 6 m/s
	before := b
	if b.ClampSpeed(6.5, b.Reach()) || b.V != before.V || b.W != before.W {
		t.Errorf("a body at 6 m/s under a 6.5 m/s limit: %v %v", b.V, b.W)
	}
	if b.ClampSpeed(math.Inf(1), b.Reach()) || b.V != before.V {
		t.Errorf("an infinite limit scaled the body: %v", b.V)
	}
	d := b
	d.Driving = true
	if d.ClampSpeed(1, d.Reach()) || d.V != before.V {
		t.Errorf("a dragged body was scaled: %v", d.V)
	}
	if !b.ClampSpeed(3, b.Reach()) {
		t.Fatal("a body at 6 m/s under a 3 m/s limit was not scaled")
	}
	if s := b.SurfaceSpeed(b.Reach()); math.Abs(s-3) > 1e-12 {
		t.Errorf("clamped to %.15g m/s at its fastest point, want 3", s)
	}
	r := before.SurfaceSpeed(before.Reach()) / 3
	for a := 0; a < 3; a++ {
		if math.Abs(b.V[a]*r-before.V[a]) > 1e-12 || math.Abs(b.W[a]*r-before.W[a]) > 1e-12 {
			t.Errorf("v %v ω %v from %v %v: not one factor", b.V, b.W, before.V, before.W)
		}
	}
}
