package scene

import (
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinScenesLoadAndSample(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: sampling every shipped scene; make test runs it")
	}
	names := BuiltinNames()
	for _, want := range []string{"bench-dambreak", "bunny-bath", "dam-obstacle", "dambreak", "double-dambreak", "duck-pond", "fountain", "fountains",
		"obstacles", "oil-and-water", "pool", "quad-dambreak", "rayleigh-taylor", "reduced-1", "reduced-2", "reduced-3", "three-liquids", "underwater-blast", "wave-tank",
		"lumpy-board", "stairs", "splash", "still-column"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("builtin scene %q missing from %v", want, names)
		}
	}
	for _, n := range names {
		sc, err := Builtin(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if sc.Name != n {
			t.Errorf("%s.json names itself %q", n, sc.Name)
		}
		if sc.IsFlat() {
			// the 2D levels: sampling refuses them (the reduced mode's tests play them)
			if _, err := sc.Sample(0.01); err == nil || !strings.Contains(err.Error(), "reduced mode") {
				t.Errorf("%s: a 2D scene sampled as a 3D one: %v", n, err)
			}
			continue
		}
		d, err := sc.Spacing(sc.Particles.Spacing, sc.Particles.Count)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := sc.Sample(d)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) < 1000 {
			t.Errorf("%s: only %d particles", n, len(ps))
		}
		for _, p := range ps {
			for c := 0; c < 3; c++ {
				if p.Pos[c] < sc.Domain.Min[c]+0.49*d || p.Pos[c] > sc.Domain.Max[c]-0.49*d {
					t.Fatalf("%s: particle %v not half a spacing inside the domain", n, p.Pos)
				}
			}
			for i := range sc.Obstacles {
				if dist, _ := sc.Obstacles[i].SDF(p.Pos); dist < 0.49*d {
					t.Fatalf("%s: particle %v inside obstacle %d", n, p.Pos, i)
				}
			}
		}
	}
}

func TestDambreakLatticeCount(t *testing.T) {
	sc, err := Builtin("dambreak")
	if err != nil {
		t.Fatal(err)
	}
	// a 0.5×0.6×0.6 block at spacing 0.05 starting on the domain corner: 10×12×12 lattice points
	ps, err := sc.Sample(0.05)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 10*12*12 {
		t.Errorf("got %d particles, want %d", len(ps), 10*12*12)
	}
}

func TestSpacingForCount(t *testing.T) {
	sc, _ := Builtin("dambreak")
	for _, n := range []int{1000, 8000, 32768} {
		d, err := sc.SpacingFor(n)
		if err != nil {
			t.Fatal(err)
		}
		c, _ := sc.Count(d)
		if math.Abs(float64(c-n))/float64(n) > 0.1 {
			t.Errorf("SpacingFor(%d) = %g gives %d particles", n, d, c)
		}
	}
	if _, err := sc.SpacingFor(0); err == nil {
		t.Error("SpacingFor(0) should fail")
	}
}

func TestBadScenesNameFileAndField(t *testing.T) {
	cases := []struct {
		name, json, want string
	}{
		{"syntax", `{"name": "x",, }`, "line 1, column 15"},
		{"syntax line", "{\n\"name\": \"x\",\n\"domain\": {\"min\": [0,0,0] \"max\": [1,1,1]}\n}", "line 3"},
		{"empty", ``, "empty file"},
		{"unknown top", `{"name":"x","domian":{}}`, "domian: unknown field"},
		{"unknown nested", `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},
			"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[1,1,1]},{"shape":"box","center":[0.5,0.5,0.5],"sise":[1,1,1]}]}`, "fluid[1].sise: unknown field"},
		{"wrong type", `{"name":"x","domain":{"min":[0,0,0],"max":[1,"a",1]}}`, `domain.max[1]: want a number, got "a"`},
		{"short vector", `{"name":"x","domain":{"min":[0,0],"max":[1,1,1]}}`, "domain.min: want an array of 3"},
		{"inverted domain", `{"name":"x","domain":{"min":[0,0,0],"max":[1,0,1]},"particles":{"spacing":0.1},"fluid":[]}`, "domain.max[1]: must be greater"},
		{"no resolution", `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{},"fluid":[]}`, "particles: give a spacing"},
		{"no fluid", `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1}}`, "fluid: a scene needs at least one"},
		{"zero size", `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},
			"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[1,1,1]},{"shape":"box","center":[0.5,0.5,0.5],"size":[1,0,1]}]}`, "fluid[1].size[1]: must be > 0"},
		{"unknown shape", `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},
			"fluid":[{"shape":"torus","center":[0.5,0.5,0.5]}]}`, `fluid[0].shape: unknown shape "torus"`},
		{"unused field", `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},
			"fluid":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.2,"size":[1,1,1]}]}`, "fluid[0].size: is not used by a sphere"},
		{"outside", `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},
			"fluid":[{"shape":"sphere","center":[5,0.5,0.5],"radius":0.2}]}`, "fluid[0]: sphere at [5, 0.5, 0.5]"},
		{"obstacle radius", `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},
			"fluid":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.2}],"obstacles":[{"shape":"capsule","a":[0,0,0],"b":[1,1,1],"radius":-1}]}`, "obstacles[0].radius: must be > 0"},
		{"trailing", `{"name":"x"} {}`, "unexpected data"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.json), "scenes/bad.json")
		if err == nil {
			t.Errorf("%s: parsed without error", c.name)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "scenes/bad.json: ") || !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %q does not name the file and %q", c.name, msg, c.want)
		}
	}
}

func TestOpenUnknownAndMissing(t *testing.T) {
	if _, err := Open("no-such-scene"); err == nil || !strings.Contains(err.Error(), "dambreak") {
		t.Errorf("unknown scene error should list the shipped scenes: %v", err)
	}
	if _, err := Open("/nonexistent/x.json"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: %v", err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "mine.json")
	data, _ := os.ReadFile("../../assets/scenes/pool.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := Open(p)
	if err != nil || sc.Source != p {
		t.Fatalf("Open(%s) = %v, %v", p, sc, err)
	}
}

// The analytic SDFs agree with a brute-force estimate: the sign matches containment, and the normal is the
// finite-difference gradient of the distance.
func TestSDFs(t *testing.T) {
	shapes := []Shape{
		{Kind: ShapeSphere, Center: Vec3{0.1, 0.2, 0.3}, Radius: 0.5},
		{Kind: ShapeBox, Center: Vec3{0, 0, 0}, Size: Vec3{1, 0.5, 0.8}, Rotation: Vec3{10, 35, -20}},
		{Kind: ShapeCapsule, A: Vec3{-0.3, 0, 0}, B: Vec3{0.4, 0.3, 0.1}, Radius: 0.2},
		{Kind: ShapeCylinder, Center: Vec3{0, 0.1, 0}, Radius: 0.3, Height: 0.8, Rotation: Vec3{30, 0, 0}},
	}
	rng := rand.New(rand.NewSource(3))
	for _, s := range shapes {
		b := s.Bounds()
		for n := 0; n < 2000; n++ {
			p := Vec3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}
			d, nrm := s.SDF(p)
			if math.Abs(nrm.Len()-1) > 1e-9 {
				t.Fatalf("%s: normal %v not unit", s.String(), nrm)
			}
			if d < 0 {
				for c := 0; c < 3; c++ {
					if p[c] < b.Min[c]-1e-9 || p[c] > b.Max[c]+1e-9 {
						t.Fatalf("%s: %v inside but outside the bounds %v", s.String(), p, b)
					}
				}
			}
			// the gradient of the distance is the normal, away from medial axes
			const e = 1e-6
			var g Vec3
			for c := 0; c < 3; c++ {
				q1, q2 := p, p
				q1[c] += e
				q2[c] -= e
				d1, _ := s.SDF(q1)
				d2, _ := s.SDF(q2)
				g[c] = (d1 - d2) / (2 * e)
			}
			if math.Abs(g.Len()-1) < 1e-3 && g.Sub(nrm).Len() > 1e-3 {
				t.Fatalf("%s at %v: normal %v, distance gradient %v", s.String(), p, nrm, g)
			}
			// moving along the normal by −d lands on the surface
			if d > 0 {
				q := p.Sub(nrm.Scale(d))
				if dq, _ := s.SDF(q); math.Abs(dq) > 1e-9 {
					t.Fatalf("%s: projecting %v gives %v at distance %g", s.String(), p, q, dq)
				}
			}
		}
	}
	// volumes against Monte Carlo
	for _, s := range shapes {
		b := s.Bounds()
		sz := b.Size()
		in, total := 0, 200000
		for n := 0; n < total; n++ {
			p := Vec3{b.Min[0] + rng.Float64()*sz[0], b.Min[1] + rng.Float64()*sz[1], b.Min[2] + rng.Float64()*sz[2]}
			if d, _ := s.SDF(p); d < 0 {
				in++
			}
		}
		mc := float64(in) / float64(total) * sz[0] * sz[1] * sz[2]
		if math.Abs(mc-s.Volume()) > 0.02*s.Volume() {
			t.Errorf("%s: volume %g, Monte Carlo %g", s.String(), s.Volume(), mc)
		}
	}
}

func TestCloneIsDeep(t *testing.T) {
	sc, _ := Builtin("obstacles")
	c := sc.Clone()
	c.Obstacles[0].Radius = 99
	c.Fluid[0].Size[0] = 99
	if sc.Obstacles[0].Radius == 99 || sc.Fluid[0].Size[0] == 99 {
		t.Error("Clone shares slices with the original")
	}
	for _, n := range []string{"wave-tank", "fountain"} {
		sc, _ := Builtin(n)
		c := sc.Clone()
		for i := range c.Obstacles {
			if m := c.Obstacles[i].Motion; m != nil {
				m.Amplitude = 99
				if sc.Obstacles[i].Motion.Amplitude == 99 {
					t.Errorf("%s: Clone shares obstacles[%d].motion", n, i)
				}
			}
		}
		for i := range c.Emitters {
			c.Emitters[i].Speed = 99
			if sc.Emitters[i].Speed == 99 {
				t.Errorf("%s: Clone shares emitters", n)
			}
		}
	}
}

// The scenes that show off emitters, moving obstacles and a mesh-shaped fluid block have them, with sensible
// particle counts at their own spacing.
func TestFeatureScenes(t *testing.T) {
	load := func(name string, lo, hi int) *Scene {
		t.Helper()
		sc, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		n, err := sc.Count(sc.Particles.Spacing)
		if err != nil || n < lo || n > hi {
			t.Errorf("%s: %d particles at spacing %g (%v), want %d–%d", name, n, sc.Particles.Spacing, err, lo, hi)
		}
		if sc.Camera == nil || sc.Mode != "pbf" {
			t.Errorf("%s: camera %v, mode %q", name, sc.Camera, sc.Mode)
		}
		return sc
	}

	bath := load("bunny-bath", 30000, 60000)
	if len(bath.Fluid) != 2 || bath.Fluid[1].Kind != ShapeMesh || bath.Fluid[1].MeshData() == nil {
		t.Fatalf("bunny-bath: fluid %+v", bath.Fluid)
	}
	pool, bunny := bath.Fluid[0].Bounds(), bath.Fluid[1].Bounds()
	if !(bunny.Min[1] > pool.Max[1]+0.05) || math.Abs(bunny.Size().MaxComp()-0.35) > 1e-9 {
		t.Errorf("bunny-bath: the bunny %v is not held above the pool %v", bunny, pool)
	}

	fountain := load("fountain", 10000, 60000)
	if len(fountain.Emitters) != 2 || fountain.HasMotion() {
		t.Fatalf("fountain: %d emitters", len(fountain.Emitters))
	}
	jet := fountain.Emitters[0]
	if jet.Direction != (Vec3{0, 1, 0}) || jet.Speed < 2 || !jet.Active(0) {
		t.Errorf("fountain: the jet is %+v", jet)
	}
	// the jet's apex, v²/2g above the nozzle, is inside the domain
	if apex := jet.Center[1] + jet.Speed*jet.Speed/(2*9.81); apex > fountain.Domain.Max[1]-0.1 {
		t.Errorf("fountain: the jet reaches %g m, the domain %g m", apex, fountain.Domain.Max[1])
	}
	spout := fountain.Emitters[1]
	if math.Abs(spout.Direction.Len()-1) > 1e-12 || spout.Active(0) || !spout.Active(2) || spout.Active(5) {
		t.Errorf("fountain: the spout is %+v", spout)
	}
	for i, e := range fountain.Emitters {
		for _, p := range e.Disc(fountain.Particles.Spacing) {
			for oi := range fountain.Obstacles {
				if d := fountain.Obstacles[oi].Distance(p); d < fountain.Particles.Spacing {
					t.Fatalf("fountain: emitters[%d] emits at %v, %g from obstacles[%d]", i, p, d, oi)
				}
			}
			if d := fountain.Fluid[0].Distance(p); d < fountain.Particles.Spacing {
				t.Fatalf("fountain: emitters[%d] emits at %v, inside the basin's water", i, p)
			}
		}
	}

	tank := load("wave-tank", 20000, 60000)
	if !tank.HasMotion() {
		t.Fatal("wave-tank: nothing moves")
	}
	paddle := tank.Obstacles[0]
	if m := paddle.Motion; m == nil || m.Axis != (Vec3{1, 0, 0}) || m.Amplitude != 0.1 || m.Period != 1.5 {
		t.Fatalf("wave-tank: the paddle moves by %+v", paddle.Motion)
	}
	// the paddle stays in the tank and clear of its far end
	for _, tt := range []float64{0, 0.375, 0.75, 1.125} {
		at := paddle.ShapeAt(tt)
		b := at.Bounds()
		if b.Min[0] < tank.Domain.Min[0] || b.Max[0] > 0.5 {
			t.Errorf("wave-tank: at %g s the paddle spans %v", tt, b)
		}
	}
	// the beach rises from the floor out of the water: under the water's surface at its foot, above it at the
	// far wall, with no water trapped under it
	beach := &tank.Obstacles[1]
	if beach.Motion != nil || beach.Distance(Vec3{1.9, 0.2, 0.2}) > 0 || beach.Distance(Vec3{1.3, 0.05, 0.2}) < 0 {
		t.Errorf("wave-tank: the beach is %s", beach.String())
	}
	ps, _ := tank.Sample(tank.Particles.Spacing)
	for _, p := range ps {
		if p.Pos[0] > 1.8 && p.Pos[1] < 0.15 {
			t.Fatalf("wave-tank: particle %v trapped under the beach", p.Pos)
		}
	}
}

func TestBodies(t *testing.T) {
	base := `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.05},
		"fluid":[{"shape":"box","center":[0.5,0.25,0.5],"size":[1,0.5,1]}],`
	sc, err := Parse([]byte(base+`"bodies":[{"shape":"sphere","center":[0.5,0.4,0.5],"radius":0.15,"density":500,"velocity":[1,0,0]}]}`), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	bodies, err := sc.SampleBodies(0.05)
	if err != nil {
		t.Fatal(err)
	}
	if len(bodies) != 1 || len(bodies[0]) < 50 {
		t.Fatalf("sampled %d bodies, the first with %d particles", len(bodies), len(bodies[0]))
	}
	fluid, _ := sc.Sample(0.05)
	full := sc.Clone()
	full.Bodies = nil
	all, _ := full.Sample(0.05)
	for _, p := range fluid {
		if d, _ := sc.Bodies[0].SDF(p.Pos); d < 0.5*0.05 {
			t.Fatalf("fluid particle %v inside the body", p.Pos)
		}
	}
	if len(all)-len(fluid) < len(bodies[0])/2 {
		t.Errorf("the body displaced %d fluid particles; it holds %d of its own", len(all)-len(fluid), len(bodies[0]))
	}
	for _, c := range []struct{ json, want string }{
		{`"bodies":[{"shape":"sphere","center":[0.5,0.4,0.5],"radius":0.15,"density":0}]}`, "bodies[0].density"},
		{`"bodies":[{"shape":"sphere","center":[0.5,0.4,0.5],"radius":0.15,"density":1e9}]}`, "bodies[0].density"},
		{`"bodies":[{"shape":"sphere","center":[0.95,0.4,0.5],"radius":0.15,"density":500}]}`, "bodies[0]: sphere"},
		{`"bodies":[{"shape":"sphere","center":[0.5,0.4,0.5],"radius":-1,"density":500}]}`, "bodies[0].radius"},
		{`"bodies":[{"shape":"sphere","center":[0.5,0.4,0.5],"radius":0.1,"density":500,"mass":2}]}`, "bodies[0].mass: unknown field"},
	} {
		if _, err := Parse([]byte(base+c.json), "b.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.json, err, c.want)
		}
	}
	tiny, _ := Parse([]byte(base+`"bodies":[{"shape":"sphere","center":[0.512,0.4,0.5],"radius":0.01,"density":500}]}`), "b.json")
	if _, err := tiny.SampleBodies(0.05); err == nil || !strings.Contains(err.Error(), "bodies[0]") {
		t.Errorf("a body smaller than the spacing: %v", err)
	}
}

// A rotated cylinder's bounds are exact: they hold every point of its surface and each face is touched.
func TestCylinderBoundsAreTight(t *testing.T) {
	for _, rot := range []Vec3{{0, 0, 0}, {70, 0, 0}, {30, 40, 50}, {90, 0, 0}} {
		c := Shape{Kind: ShapeCylinder, Center: Vec3{1, 2, 3}, Radius: 0.2, Height: 0.6, Rotation: rot}
		b := c.Bounds()
		r := c.RotationMatrix()
		lo, hi := Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		for k := 0; k < 3600; k++ {
			a := 2 * math.Pi * float64(k) / 3600
			for _, y := range []float64{-0.3, 0.3} {
				p := c.Center.Add(r.MulVec(Vec3{0.2 * math.Cos(a), y, 0.2 * math.Sin(a)}))
				lo, hi = lo.Min(p), hi.Max(p)
			}
		}
		for i := 0; i < 3; i++ {
			if lo[i] < b.Min[i]-1e-9 || hi[i] > b.Max[i]+1e-9 || lo[i]-b.Min[i] > 1e-5 || b.Max[i]-hi[i] > 1e-5 {
				t.Errorf("rotation %v, axis %d: surface spans [%g, %g], bounds [%g, %g]", rot, i, lo[i], hi[i], b.Min[i], b.Max[i])
			}
		}
	}
}

// The scenes of the splashing-liquids chapter (issue 12) open in flip with the camera on the action, with
// particle counts a 2-core laptop runs (the FLIP mode seeds 8 particles per cell of twice the spacing, the same
// count as the lattice) and the paper's proportions: Figure 3.1 tall (1:2:1), 3.2 80:60:40, 3.4 and 3.9 cubes.
func TestFlipScenes(t *testing.T) {
	load := func(name string, lo, hi int, shape Vec3) *Scene {
		t.Helper()
		sc, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		n, err := sc.Count(sc.Particles.Spacing)
		if err != nil || n < lo || n > hi {
			t.Errorf("%s: %d particles at spacing %g (%v), want %d–%d", name, n, sc.Particles.Spacing, err, lo, hi)
		}
		if sc.Camera == nil || sc.Mode != "flip" {
			t.Errorf("%s: camera %v, mode %q", name, sc.Camera, sc.Mode)
		}
		if sz := sc.Domain.Size(); math.Abs(sz[1]/sz[0]-shape[1]/shape[0]) > 1e-9 || math.Abs(sz[2]/sz[0]-shape[2]/shape[0]) > 1e-9 {
			t.Errorf("%s: the domain is %v, not in the proportions %v", name, sz, shape)
		}
		return sc
	}

	// two jets side by side over a shallow pool, falling back in the tank; the emitters' particles fit the budget
	fountains := load("fountains", 20000, 300000, Vec3{50, 100, 50})
	pool := fountains.Fluid[0].Bounds()
	if len(fountains.Emitters) != 2 || pool.Size()[1] > 0.2*fountains.Domain.Size()[1] {
		t.Fatalf("fountains: %d emitters over a pool %v", len(fountains.Emitters), pool)
	}
	added := 0.0
	for i, e := range fountains.Emitters {
		if e.Direction != (Vec3{0, 1, 0}) || !e.Active(0) || e.Stop == 0 {
			t.Errorf("fountains: emitters[%d] is %+v", i, e)
		}
		if apex := e.Center[1] + e.Speed*e.Speed/(2*9.81); apex > fountains.Domain.Max[1]-0.2 || apex < 0.5*fountains.Domain.Max[1] {
			t.Errorf("fountains: emitters[%d] reaches %g m in a %g m tank", i, apex, fountains.Domain.Max[1])
		}
		for _, p := range e.Disc(fountains.Particles.Spacing) {
			if d := fountains.Fluid[0].Distance(p); d < fountains.Particles.Spacing {
				t.Fatalf("fountains: emitters[%d] emits at %v, inside the pool", i, p)
			}
		}
		// one disc each time the stream moves a spacing
		added += float64(len(e.Disc(fountains.Particles.Spacing))) * e.Speed * (e.Stop - e.Start) / fountains.Particles.Spacing
	}
	if a, b := fountains.Emitters[0], fountains.Emitters[1]; a.Center[1] != b.Center[1] || a.Center.Sub(b.Center).Len() < 4*a.Radius {
		t.Errorf("fountains: the jets at %v and %v are not side by side", a.Center, b.Center)
	}
	n, _ := fountains.Count(fountains.Particles.Spacing)
	var budget int
	if err := json.Unmarshal(fountains.Params["flip.budget"], &budget); err != nil || float64(budget) < float64(n)+added || budget > 300000 {
		t.Errorf("fountains: flip.budget %d (%v) for %d particles and %.0f emitted", budget, err, n, added)
	}

	// a column at one end, a block on the floor in its path, short enough for the flow to leap
	dam := load("dam-obstacle", 80000, 300000, Vec3{80, 60, 40})
	col := dam.Fluid[0].Bounds()
	if len(dam.Obstacles) != 1 || dam.Obstacles[0].Motion != nil {
		t.Fatalf("dam-obstacle: obstacles %+v", dam.Obstacles)
	}
	block := dam.Obstacles[0].Bounds()
	if col.Min[0] != dam.Domain.Min[0] || block.Min[0] < col.Max[0]+0.2 || block.Max[0] > dam.Domain.Max[0]-0.2 ||
		block.Min[1] != 0 || block.Max[1] > 0.5*col.Max[1] {
		t.Errorf("dam-obstacle: the column %v and the block %v", col, block)
	}

	// four equal columns, one in each corner of a square tank, leaving the centre free
	quad := load("quad-dambreak", 80000, 300000, Vec3{100, 100, 100})
	if len(quad.Fluid) != 4 {
		t.Fatalf("quad-dambreak: %d columns", len(quad.Fluid))
	}
	corners := map[[2]bool]bool{}
	for i, f := range quad.Fluid {
		b := f.Bounds()
		if b.Size().Sub(quad.Fluid[0].Bounds().Size()).Len() > 1e-9 || b.Size()[1] < 1.5*b.Size()[0] {
			t.Errorf("quad-dambreak: column %d is %v", i, b)
		}
		atMin := [2]bool{b.Min[0] == quad.Domain.Min[0], b.Min[2] == quad.Domain.Min[2]}
		atMax := [2]bool{b.Max[0] == quad.Domain.Max[0], b.Max[2] == quad.Domain.Max[2]}
		if atMin[0] == atMax[0] || atMin[1] == atMax[1] {
			t.Errorf("quad-dambreak: column %d at %v is not in a corner", i, b)
		}
		corners[atMin] = true
		if f.Distance(quad.Domain.Center()) < 0.2 {
			t.Errorf("quad-dambreak: column %d reaches the centre", i)
		}
	}
	if len(corners) != 4 {
		t.Errorf("quad-dambreak: the columns fill %d corners", len(corners))
	}

	// blasts under the surface of a pool, one after another, each well inside the water
	blast := load("underwater-blast", 80000, 300000, Vec3{80, 80, 80})
	water := blast.Fluid[0].Bounds()
	if len(blast.Blasts) < 2 {
		t.Fatalf("underwater-blast: %d blasts", len(blast.Blasts))
	}
	for i, b := range blast.Blasts {
		if d := blast.Fluid[0].Distance(b.Center); d > -0.1 {
			t.Errorf("underwater-blast: blasts[%d] at %v is %g m inside the water", i, b.Center, -d)
		}
		if b.Center[1]+b.Radius < water.Max[1] || b.Radius > water.Size()[1] {
			t.Errorf("underwater-blast: blasts[%d] of radius %g at %v does not reach the surface at %g m", i, b.Radius, b.Center, water.Max[1])
		}
		if b.Time <= 0 || (i > 0 && b.Time < blast.Blasts[i-1].Time+0.5) {
			t.Errorf("underwater-blast: blasts[%d] at %g s", i, b.Time)
		}
	}
}
