package scene

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/slosh/slosh/assets"
	"github.com/slosh/slosh/sim/mesh"
)

// baseScene is a valid scene missing its closing brace, for tests that add obstacles or emitters.
const baseScene = `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.05},
	"fluid":[{"shape":"box","center":[0.5,0.25,0.5],"size":[1,0.5,1]}]`

func TestMotionOffsetAndVelocity(t *testing.T) {
	m := &Motion{Axis: Vec3{0, 0, 1}, Amplitude: 0.2, Period: 2}
	for _, c := range []struct {
		t    float64
		want Vec3
	}{
		{0, Vec3{}}, {0.5, Vec3{0, 0, 0.2}}, {1, Vec3{}}, {1.5, Vec3{0, 0, -0.2}}, {2.5, Vec3{0, 0, 0.2}},
	} {
		if got := m.Offset(c.t); got.Sub(c.want).Len() > 1e-12 {
			t.Errorf("Offset(%g) = %v, want %v", c.t, got, c.want)
		}
	}
	shifted := &Motion{Axis: Vec3{1, 0, 0}, Amplitude: 0.1, Period: 1.5, Phase: math.Pi / 2}
	if got := shifted.Offset(0); got.Sub(Vec3{0.1, 0, 0}).Len() > 1e-12 {
		t.Errorf("phase π/2: Offset(0) = %v", got)
	}
	// Velocity is the derivative of Offset
	for _, mm := range []*Motion{m, shifted} {
		for _, tt := range []float64{0, 0.3, 0.77, 1.9} {
			const h = 1e-6
			fd := mm.Offset(tt + h).Sub(mm.Offset(tt - h)).Scale(1 / (2 * h))
			if d := fd.Sub(mm.Velocity(tt)).Len(); d > 1e-6 {
				t.Errorf("%+v: Velocity(%g) = %v, finite difference %v", *mm, tt, mm.Velocity(tt), fd)
			}
		}
	}
	var none *Motion
	if none.Offset(1) != (Vec3{}) || none.Velocity(1) != (Vec3{}) {
		t.Error("a nil Motion moves")
	}
}

// testShapes has one shape of each kind; the mesh is the shipped bunny.
func testShapes(t *testing.T) []Shape {
	t.Helper()
	md, err := LoadMesh(assets.Meshes(), "bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	m := Shape{Kind: ShapeMesh, Center: Vec3{0.1, 0.3, -0.2}, Extent: 0.6, Rotation: Vec3{15, -40, 70}}
	m.SetMesh(md)
	return []Shape{
		{Kind: ShapeSphere, Center: Vec3{0.1, 0.2, 0.3}, Radius: 0.4},
		{Kind: ShapeCapsule, A: Vec3{-0.3, 0, 0}, B: Vec3{0.4, 0.3, 0.1}, Radius: 0.2},
		{Kind: ShapeBox, Center: Vec3{0.05, 0, 0.1}, Size: Vec3{0.8, 0.5, 0.6}, Rotation: Vec3{10, 35, -20}},
		{Kind: ShapeCylinder, Center: Vec3{0, 0.1, 0}, Radius: 0.3, Height: 0.8, Rotation: Vec3{30, 0, 60}},
		m,
	}
}

// samplePoints are n points in the shape's bounds widened by 0.1, at least a fifth of them inside the shape.
func samplePoints(t *testing.T, rng *rand.Rand, s *Shape, n int) []Vec3 {
	t.Helper()
	b := s.Bounds()
	lo, sz := b.Min.Sub(Vec3{0.1, 0.1, 0.1}), b.Size().Add(Vec3{0.2, 0.2, 0.2})
	var out []Vec3
	inside := 0
	for len(out) < n {
		p := lo.Add(Vec3{rng.Float64() * sz[0], rng.Float64() * sz[1], rng.Float64() * sz[2]})
		d := s.Distance(p)
		if d >= 0 && inside < len(out)/4 {
			continue // keep a share of the points inside
		}
		if d < 0 {
			inside++
		}
		out = append(out, p)
	}
	return out
}

func TestShapeAt(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	m := &Motion{Axis: Vec3{0.6, 0, 0.8}, Amplitude: 0.15, Period: 1.2, Phase: 0.3}
	for _, s := range testShapes(t) {
		static := Obstacle{Shape: s}
		if got := static.ShapeAt(0.7); got != s {
			t.Errorf("%s: a static obstacle's ShapeAt changed it to %s", s.String(), got.String())
		}
		o := Obstacle{Shape: s, Motion: m}
		for _, tt := range []float64{0, 0.4, 1.1} {
			at := o.ShapeAt(tt)
			off := m.Offset(tt)
			switch s.Kind {
			case ShapeCapsule:
				if at.A != s.A.Add(off) || at.B != s.B.Add(off) || at.Center != s.Center {
					t.Errorf("%s at %g: %s", s.String(), tt, at.String())
				}
			default:
				if at.Center != s.Center.Add(off) || at.Rotation != s.Rotation {
					t.Errorf("%s at %g: %s", s.String(), tt, at.String())
				}
			}
			if s.Kind == ShapeMesh && at.MeshData() != s.MeshData() {
				t.Errorf("the moved mesh lost its geometry")
			}
			for _, p := range samplePoints(t, rng, &s, 200) {
				if d0, d1 := s.Distance(p), at.Distance(p.Add(off)); math.Abs(d0-d1) > 1e-9 {
					t.Fatalf("%s at %g: distance %g at %v, moved %g", s.String(), tt, d0, p, d1)
				}
			}
		}
	}
}

// A posed shape is the original moved rigidly: at the moved point its signed distance is the original's at the
// point, for every kind of shape, rotations through gimbal lock included.
func TestPosedMatchesTransformedPoints(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	rots := []Mat3{mesh.Rotation(Vec3{}), mesh.Rotation(Vec3{0, 90, 0}), mesh.Rotation(Vec3{30, -90, 10})}
	for n := 0; n < 6; n++ {
		rots = append(rots, mesh.Rotation(Vec3{rng.Float64()*360 - 180, rng.Float64()*180 - 90, rng.Float64()*360 - 180}))
	}
	for _, s := range testShapes(t) {
		pts := samplePoints(t, rng, &s, 300)
		for ri, rot := range rots {
			origin := Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
			center := Vec3{rng.Float64()*4 - 2, rng.Float64()*4 - 2, rng.Float64()*4 - 2}
			move := func(x Vec3) Vec3 { return center.Add(rot.MulVec(x.Sub(origin))) }
			posed := s.Posed(origin, center, rot)
			if posed.Kind != s.Kind || posed.Mesh != s.Mesh || math.Abs(posed.Volume()-s.Volume()) > 1e-12 {
				t.Fatalf("%s: posed as %s", s.String(), posed.String())
			}
			if (s.Kind == ShapeSphere || s.Kind == ShapeCapsule) && posed.Rotation != (Vec3{}) {
				t.Errorf("%s: posed with a rotation %v", s.String(), posed.Rotation)
			}
			inside := 0
			for _, x := range pts {
				d0, n0 := s.SDF(x)
				d1, n1 := posed.SDF(move(x))
				if math.Abs(d0-d1) > 1e-9 {
					t.Fatalf("%s, rotation %d: distance %g at %v, posed %g", s.String(), ri, d0, x, d1)
				}
				// the normal turns with the shape (where it is well defined: away from medial axes)
				if n1.Sub(rot.MulVec(n0)).Len() > 1e-6 && s.Kind != ShapeMesh && math.Abs(d0) > 1e-3 {
					if g := sdfGradient(&s, x); math.Abs(g.Len()-1) < 1e-3 {
						t.Fatalf("%s, rotation %d: normal %v at %v, posed %v", s.String(), ri, n0, x, n1)
					}
				}
				if d0 < 0 {
					inside++
				}
			}
			if inside < len(pts)/5 {
				t.Fatalf("%s: only %d of %d sample points inside", s.String(), inside, len(pts))
			}
		}
	}
}

// sdfGradient is the central-difference gradient of the shape's distance.
func sdfGradient(s *Shape, p Vec3) Vec3 {
	const e = 1e-6
	var g Vec3
	for c := 0; c < 3; c++ {
		q1, q2 := p, p
		q1[c] += e
		q2[c] -= e
		g[c] = (s.Distance(q1) - s.Distance(q2)) / (2 * e)
	}
	return g
}

func TestHasMotionAndSweptBounds(t *testing.T) {
	moving, err := Parse([]byte(baseScene+`,"obstacles":[{"shape":"sphere","center":[0.5,0.8,0.5],"radius":0.1},
		{"shape":"box","center":[0.2,0.5,0.5],"size":[0.05,0.6,1],"motion":{"axis":[-2,0,0],"amplitude":0.1,"period":2}}]}`), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	if !moving.HasMotion() {
		t.Error("HasMotion is false with a moving obstacle")
	}
	if a := moving.Obstacles[1].Motion.Axis; a != (Vec3{-1, 0, 0}) {
		t.Errorf("axis %v was not normalised", a)
	}
	// the paddle sweeps x from 0.2−0.1−0.025 to 0.2+0.1+0.025: still inside the domain, so Bounds is the domain
	if b := moving.Bounds(); b != moving.Domain {
		t.Errorf("Bounds %v", b)
	}
	moving.Obstacles[1].Motion.Amplitude = 0.3
	if b := moving.Bounds(); math.Abs(b.Min[0]-(0.2-0.3-0.025)) > 1e-12 || b.Max != moving.Domain.Max {
		t.Errorf("Bounds %v does not hold the swept paddle", b)
	}
	static, _ := Builtin("obstacles")
	if static.HasMotion() {
		t.Error("HasMotion is true with static obstacles")
	}
}

// Sample leaves out the lattice points where a moving obstacle is at time 0, not where it is placed.
func TestSampleAvoidsMovingObstacleAtTimeZero(t *testing.T) {
	sc, err := Parse([]byte(baseScene+`,"obstacles":[{"shape":"sphere","center":[0.5,0.25,0.5],"radius":0.15,
		"motion":{"axis":[1,0,0],"amplitude":0.3,"period":2,"phase":1.5707963267948966}}]}`), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	at0 := sc.Obstacles[0].ShapeAt(0)
	if at0.Center.Sub(Vec3{0.8, 0.25, 0.5}).Len() > 1e-12 {
		t.Fatalf("at time 0 the sphere is at %v", at0.Center)
	}
	ps, err := sc.Sample(0.05)
	if err != nil {
		t.Fatal(err)
	}
	placed := 0
	for _, p := range ps {
		if at0.Distance(p.Pos) < 0.025 {
			t.Fatalf("particle %v inside the obstacle at time 0", p.Pos)
		}
		if sc.Obstacles[0].Distance(p.Pos) < 0 {
			placed++
		}
	}
	if placed == 0 {
		t.Error("no particles where the obstacle was placed: Sample used the placed shape")
	}
}

func TestMotionValidation(t *testing.T) {
	obstacle := func(motion string) string {
		return baseScene + `,"obstacles":[{"shape":"box","center":[0.2,0.5,0.5],"size":[0.05,0.6,1],"motion":` + motion + `}]}`
	}
	for _, c := range []struct{ motion, want string }{
		{`{"axis":[0,0,0],"amplitude":0.1,"period":1}`, "obstacles[0].motion.axis: must be a non-zero vector"},
		{`{"amplitude":0.1,"period":1}`, "obstacles[0].motion.axis: must be a non-zero vector"},
		{`{"axis":[1,0,0],"amplitude":-0.1,"period":1}`, "obstacles[0].motion.amplitude"},
		{`{"axis":[1,0,0],"amplitude":5,"period":1}`, "obstacles[0].motion.amplitude"},
		{`{"axis":[1,0,0],"amplitude":0.1}`, "obstacles[0].motion.period: must be > 0"},
		{`{"axis":[1,0,0],"amplitude":0.1,"period":-2}`, "obstacles[0].motion.period: must be > 0"},
		{`{"axis":[1,0,0],"amplitude":0.5,"period":0.01}`, "obstacles[0].motion.period: 0.01 s moves the obstacle at up to 314 m/s"},
		{`{"axis":[1,0,0],"amplitude":0.1,"period":1,"frequency":2}`, "obstacles[0].motion.frequency: unknown field"},
		{`{"axis":[1,0],"amplitude":0.1,"period":1}`, "obstacles[0].motion.axis: want an array of 3"},
		{`[1,0,0]`, "obstacles[0].motion: want an object"},
	} {
		if _, err := Parse([]byte(obstacle(c.motion)), "m.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.motion, err, c.want)
		}
	}
	// numbers a file cannot hold, in a scene made in code
	sc, err := Parse([]byte(obstacle(`{"axis":[0,1,0],"amplitude":0.1,"period":1}`)), "m.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		set  func(m *Motion)
		want string
	}{
		{func(m *Motion) { m.Phase = math.NaN() }, "obstacles[0].motion.phase"},
		{func(m *Motion) { m.Period = math.Inf(1) }, "obstacles[0].motion.period"},
		{func(m *Motion) { m.Amplitude = math.NaN() }, "obstacles[0].motion.amplitude"},
		{func(m *Motion) { m.Axis[2] = math.Inf(-1) }, "obstacles[0].motion.axis: [0, 1, -Inf] is not a finite vector"},
	} {
		bad := sc.Clone()
		c.set(bad.Obstacles[0].Motion)
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
