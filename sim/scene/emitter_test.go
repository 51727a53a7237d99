package scene

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

func TestEmitterBasis(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	dirs := []Vec3{{0, 1, 0}, {0, -1, 0}, {1, 0, 0}, {0, 0, 1}, {1, 1, 1}, {0, 3, 4}, {}}
	for n := 0; n < 50; n++ {
		dirs = append(dirs, Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
	}
	for _, dir := range dirs {
		e := Emitter{Direction: dir}
		u, v, d := e.Basis()
		for _, c := range []struct {
			name string
			got  float64
		}{
			{"|u|", u.Len()}, {"|v|", v.Len()}, {"|d|", d.Len()},
			{"u·v+1", u.Dot(v) + 1}, {"u·d+1", u.Dot(d) + 1}, {"v·d+1", v.Dot(d) + 1},
			{"(u×v)·d", u.Cross(v).Dot(d)},
		} {
			if math.Abs(c.got-1) > 1e-12 {
				t.Errorf("direction %v: %s = %g", dir, c.name, c.got)
			}
		}
		if l := dir.Len(); l > 0 && d.Sub(dir.Scale(1/l)).Len() > 1e-12 {
			t.Errorf("direction %v: d = %v", dir, d)
		}
	}
	up := Emitter{Direction: Vec3{0, 1, 0}}
	if u, v, _ := up.Basis(); u != (Vec3{1, 0, 0}) || v != (Vec3{0, 0, -1}) {
		t.Errorf("an upward stream's basis is %v, %v; the documented one is x, −z", u, v)
	}
}

// A disc is a square lattice of the spacing, in the plane across the stream, within the radius of the centre.
func TestEmitterDisc(t *testing.T) {
	for _, e := range []Emitter{
		{Center: Vec3{0.4, 0.2, 0.4}, Direction: Vec3{0, 1, 0}, Radius: 0.04},
		{Center: Vec3{0.1, 0.2, 0.1}, Direction: Vec3{1, 2, 1}, Radius: 0.1},
		{Center: Vec3{1, 1, 1}, Direction: Vec3{-0.3, 0.1, 0.9}, Radius: 0.05},
		{Center: Vec3{1, 1, 1}, Direction: Vec3{0, 0, -1}, Radius: 0.02}, // exactly on a lattice ring
		{Center: Vec3{1, 1, 1}, Direction: Vec3{1, 0, 0}, Radius: 0.005}, // smaller than the spacing
	} {
		const spacing = 0.01
		pts := e.Disc(spacing)
		u, v, d := e.Basis()
		// the lattice points (i, j) with i² + j² ≤ (r/spacing)²
		want, n := 0, int(e.Radius/spacing)
		for j := -n; j <= n; j++ {
			for i := -n; i <= n; i++ {
				if float64(i*i+j*j) <= (e.Radius/spacing)*(e.Radius/spacing)+1e-9 {
					want++
				}
			}
		}
		if len(pts) != want || len(pts) == 0 {
			t.Errorf("%+v: %d points, want %d", e, len(pts), want)
		}
		centre := false
		for k, p := range pts {
			r := p.Sub(e.Center)
			centre = centre || r.Len() < 1e-15
			if math.Abs(r.Dot(d)) > 1e-12 {
				t.Fatalf("%+v: point %v is off the plane across the stream", e, p)
			}
			if r.Len() > e.Radius*(1+1e-9) {
				t.Fatalf("%+v: point %v is %g from the centre", e, p, r.Len())
			}
			// on the lattice: whole multiples of the spacing along u and v, one spacing from the nearest point
			for _, a := range []float64{r.Dot(u) / spacing, r.Dot(v) / spacing} {
				if math.Abs(a-math.Round(a)) > 1e-9 {
					t.Fatalf("%+v: point %v is off the lattice (%g)", e, p, a)
				}
			}
			if len(pts) > 1 {
				nearest := math.Inf(1)
				for l, q := range pts {
					if l != k {
						nearest = math.Min(nearest, q.Sub(p).Len())
					}
				}
				if math.Abs(nearest-spacing) > 1e-12 {
					t.Fatalf("%+v: point %v is %g from its nearest neighbour", e, p, nearest)
				}
			}
		}
		if !centre {
			t.Errorf("%+v: the centre is not in the disc", e)
		}
	}
	// a disc of radius r holds about πr²/spacing² points
	e := Emitter{Center: Vec3{0, 0, 0}, Direction: Vec3{0.2, 0.5, 0.7}, Radius: 0.3}
	if n, area := len(e.Disc(0.01)), math.Pi*30*30; math.Abs(float64(n)-area) > 0.02*area {
		t.Errorf("%d points in a disc of area %g spacings²", n, area)
	}
}

func TestEmitterActive(t *testing.T) {
	for _, c := range []struct {
		start, stop, t float64
		want           bool
	}{
		{0, 0, 0, true}, {0, 0, 1e6, true}, {1, 0, 0.5, false}, {1, 0, 1, true},
		{1, 4, 3.9, true}, {1, 4, 4, false}, {1, 4, 10, false},
	} {
		e := Emitter{Start: c.start, Stop: c.stop}
		if got := e.Active(c.t); got != c.want {
			t.Errorf("start %g stop %g: Active(%g) = %v", c.start, c.stop, c.t, got)
		}
	}
}

func TestEmitterValidation(t *testing.T) {
	emitter := func(e string) string { return baseScene + `,"emitters":[` + e + `]}` }
	sc, err := Parse([]byte(emitter(`{"center":[0.5,0.8,0.5],"direction":[0,-2,0],"radius":0.05,"speed":2,"start":1,"stop":3}`)), "e.json")
	if err != nil {
		t.Fatal(err)
	}
	if e := sc.Emitters[0]; e.Direction != (Vec3{0, -1, 0}) || e.Velocity() != (Vec3{0, -2, 0}) {
		t.Errorf("direction %v, velocity %v", e.Direction, e.Velocity())
	}
	for _, c := range []struct{ e, want string }{
		{`{"center":[0.5,0.8,0.5],"direction":[0,0,0],"radius":0.05,"speed":2}`, "emitters[0].direction: must be a non-zero vector"},
		{`{"center":[0.5,0.8,0.5],"radius":0.05,"speed":2}`, "emitters[0].direction: must be a non-zero vector"},
		{`{"center":[0.5,1.8,0.5],"direction":[0,1,0],"radius":0.05,"speed":2}`, "emitters[0].center: [0.5, 1.8, 0.5] lies outside the domain"},
		{`{"center":[0.5,0.8,0.5],"direction":[0,1,0],"radius":0,"speed":2}`, "emitters[0].radius"},
		{`{"center":[0.5,0.8,0.5],"direction":[0,1,0],"radius":2,"speed":2}`, "emitters[0].radius: 2 m is outside (0, 1]"},
		{`{"center":[0.5,0.8,0.5],"direction":[0,1,0],"radius":0.05}`, "emitters[0].speed: 0 m/s is outside (0, 100]"},
		{`{"center":[0.5,0.8,0.5],"direction":[0,1,0],"radius":0.05,"speed":300}`, "emitters[0].speed: 300 m/s"},
		{`{"center":[0.5,0.8,0.5],"direction":[0,1,0],"radius":0.05,"speed":2,"start":-1}`, "emitters[0].start"},
		{`{"center":[0.5,0.8,0.5],"direction":[0,1,0],"radius":0.05,"speed":2,"start":2,"stop":1}`, "emitters[0].stop: must be after start (2 s)"},
		{`{"center":[0.5,0.8,0.5],"direction":[0,1,0],"radius":0.05,"speed":2,"rate":3}`, "emitters[0].rate: unknown field"},
		{`{"center":[0.5,0.8,0.5],"direction":[0,1,0],"radius":0.05,"speed":"fast"}`, `emitters[0].speed: want a number, got "fast"`},
	} {
		if _, err := Parse([]byte(emitter(`{"center":[0.5,0.5,0.5],"direction":[1,0,0],"radius":0.05,"speed":1},`+c.e)), "e.json"); err == nil ||
			!strings.Contains(err.Error(), strings.Replace(c.want, "emitters[0]", "emitters[1]", 1)) {
			t.Errorf("%s: error %v, want %q", c.e, err, c.want)
		}
	}
	for _, c := range []struct {
		set  func(e *Emitter)
		want string
	}{
		{func(e *Emitter) { e.Start = math.NaN() }, "emitters[0].start"},
		{func(e *Emitter) { e.Stop = math.Inf(1) }, "emitters[0].stop"},
		{func(e *Emitter) { e.Speed = math.NaN() }, "emitters[0].speed"},
		{func(e *Emitter) { e.Center[1] = math.NaN() }, "emitters[0].center"},
		{func(e *Emitter) { e.Direction = Vec3{math.NaN(), 1, 0} }, "emitters[0].direction"},
	} {
		bad := sc.Clone()
		c.set(&bad.Emitters[0])
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// An emitter names the material it pours as a fluid block does: one of the scene's, or none for water. An unknown
// name is an error at the emitter's field path, and the name survives Marshal and Clone.
func TestEmitterMaterial(t *testing.T) {
	withEmitter := func(material string) string {
		e := `{"center":[0.5,0.8,0.1],"direction":[0,-1,0],"radius":0.05,"speed":2` + material + `}`
		return strings.TrimSuffix(materialScene, "}") + `, "emitters": [{"center":[0.2,0.8,0.1],"direction":[0,-1,0],"radius":0.05,"speed":1},` + e + `]}`
	}
	sc, err := Parse([]byte(withEmitter(`,"material":"brine"`)), "e.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := sc.Emitters[1].Material; got != "brine" || sc.Emitters[0].Material != "" {
		t.Errorf("materials %q, %q", sc.Emitters[0].Material, got)
	}
	if k, err := sc.MaterialNumber(sc.Emitters[1].Material); err != nil || k != 2 {
		t.Errorf("the emitter pours material %d (%v), want 2", k, err)
	}
	data, err := sc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"material": "brine"`) || strings.Count(string(data), `"material"`) != 3 {
		t.Errorf("Marshal writes the emitters' materials as\n%s", data)
	}
	back, err := Parse(data, "e.json")
	if err != nil || back.Emitters[1].Material != "brine" || back.Emitters[0].Material != "" {
		t.Fatalf("read back: %v, %+v", err, back.Emitters)
	}
	c := sc.Clone()
	c.Emitters[1].Material = "oil"
	if sc.Emitters[1].Material != "brine" {
		t.Error("Clone shares the emitters with the original")
	}

	for _, c := range []struct{ json, want string }{
		{withEmitter(`,"material":"mercury"`), `emitters[1].material: unknown material "mercury"; the scene's materials are "oil", "brine"`},
		{withEmitter(`,"material":7`), `emitters[1].material: want a string, got 7`},
		{baseScene + `,"emitters":[{"center":[0.5,0.8,0.5],"direction":[0,-1,0],"radius":0.05,"speed":2,"material":"oil"}]}`,
			`emitters[0].material: unknown material "oil": the scene defines no materials`},
	} {
		if _, err := Parse([]byte(c.json), "e.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	// a scene made in code is checked alike
	bad := sc.Clone()
	bad.Emitters[0].Material = "sand"
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `emitters[0].material: unknown material "sand"`) {
		t.Errorf("Validate: %v", err)
	}
}
