package scene

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/mesh"
)

// Scenes are shared files: these tests feed the bad inputs of issue 11 and check that each is a clear refusal
// naming the field, never a crash, a hang, or a message about something else.

// parseErr parses src and returns its error, failing the test when there is none.
func parseErr(t *testing.T, src string) string {
	t.Helper()
	_, err := Parse([]byte(src), "bad.json")
	if err == nil {
		t.Fatalf("parsed without error: %.300s", src)
	}
	return err.Error()
}

// An emitter's disc is bounded before it is allocated: the scene (domain 1000 × 0.004 × 0.004 m, spacing
// 1 mm) with radius 1000 m died of out-of-memory in Disc, radius 10 m took 3 GB.
func TestEmitterDiscBudget(t *testing.T) {
	thin := func(radius string) string {
		return `{"name":"thin","domain":{"min":[0,0,0],"max":[1000,0.004,0.004]},"particles":{"spacing":0.001},
			"fluid":[{"shape":"box","center":[0.002,0.002,0.002],"size":[0.004,0.004,0.004]}],
			"emitters":[{"center":[500,0.002,0.002],"direction":[0,1,0],"radius":` + radius + `,"speed":1}]}`
	}
	for _, r := range []string{"1000", "10"} {
		if msg := parseErr(t, thin(r)); !strings.Contains(msg, "emitters[0].radius: "+r+" m makes a disc of") ||
			!strings.Contains(msg, "larger than the domain's largest cross-section (4 m²)") {
			t.Errorf("radius %s: %s", r, msg)
		}
	}
	// within the cross-section but over the points one disc may hold at this spacing
	wide := `{"name":"wide","domain":{"min":[0,0,0],"max":[10,10,10]},"particles":{"spacing":0.001},
		"fluid":[{"shape":"box","center":[0.05,0.05,0.05],"size":[0.1,0.1,0.1]}],
		"emitters":[{"center":[5,5,5],"direction":[0,1,0],"radius":1,"speed":1}]}`
	if msg := parseErr(t, wide); !strings.Contains(msg, "emitters[0].radius: 1 m makes a disc of about 3.14e+06 particles at spacing 0.001 m, over the limit of 1048576") {
		t.Errorf("disc points: %s", msg)
	}
	// the same emitter is fine at a coarser spacing, and the check runs again at the spacing sampling uses
	sc, err := Parse([]byte(strings.Replace(wide, `"spacing":0.001`, `"spacing":0.01`, 1)), "wide.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sc.Sample(0.001); err == nil || !strings.Contains(err.Error(), "emitters[0].radius") {
		t.Errorf("Sample at a finer spacing: %v", err)
	}

	// Disc itself is safe for any input (a tool's emitter from a replay is not validated here)
	for _, e := range []Emitter{
		{Center: Vec3{1, 1, 1}, Direction: Vec3{0, 1, 0}, Radius: 1e10},
		{Center: Vec3{1, 1, 1}, Direction: Vec3{0, 1, 0}, Radius: math.Inf(1)},
		{Center: Vec3{1, 1, 1}, Direction: Vec3{1, 1, 0}, Radius: 1e300},
	} {
		pts := e.Disc(0.001)
		if len(pts) == 0 || len(pts) > MaxDiscPoints {
			t.Errorf("radius %g: %d points, want 1..%d", e.Radius, len(pts), MaxDiscPoints)
		}
	}
	for _, c := range []struct {
		radius, spacing float64
		want            int
	}{
		{math.NaN(), 0.01, 1}, {-1, 0.01, 1}, {0, 0.01, 1}, {0.1, math.NaN(), 0}, {0.1, 0, 0}, {0.1, -1, 0}, {0.1, math.Inf(1), 0},
	} {
		e := Emitter{Center: Vec3{1, 1, 1}, Direction: Vec3{0, 1, 0}, Radius: c.radius}
		if got := len(e.Disc(c.spacing)); got != c.want {
			t.Errorf("radius %g, spacing %g: %d points, want %d", c.radius, c.spacing, got, c.want)
		}
	}
}

// A scene whose spacing implies more than MaxParticles is refused at validation, in closed form, with the field
// and a spacing that works; it used to take 22 s and 3 GB of sampling before saying so.
func TestImpliedParticleCountRefusedEarly(t *testing.T) {
	for _, c := range []struct{ name, fluid, want string }{
		{"box", `{"shape":"box","center":[0.5,0.5,0.5],"size":[1,1,1]}`, "particles.spacing: at 0.0035 m the fluid blocks hold at least 23149125 particles, over the limit of 16777216; use a spacing of at least 0.0039"},
		{"sphere", `{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.5}`, "particles.spacing: at 0.002 m the fluid blocks hold at least"},
		{"rotated", `{"shape":"box","center":[0.5,0.5,0.5],"size":[0.7,0.7,0.7],"rotation":[30,0,0]}`, "particles.spacing: at 0.0015 m the fluid blocks hold at least"},
	} {
		spacing := map[string]string{"box": "0.0035", "sphere": "0.002", "rotated": "0.0015"}[c.name]
		msg := parseErr(t, `{"name":"big","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":`+spacing+`},"fluid":[`+c.fluid+`]}`)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %s", c.name, msg)
		}
	}
	// sampling visits the box around the fluid: a fine spacing over a wide, nearly empty box is refused too
	msg := parseErr(t, `{"name":"sparse","domain":{"min":[0,0,0],"max":[10,10,10]},"particles":{"spacing":0.002},
		"fluid":[{"shape":"sphere","center":[0.1,0.1,0.1],"radius":0.05},{"shape":"sphere","center":[9.9,9.9,9.9],"radius":0.05}]}`)
	if !strings.Contains(msg, "particles.spacing: particle spacing 0.002 m is too fine: sampling would visit") {
		t.Errorf("sparse: %s", msg)
	}
}

// leastParticles is a lower bound: it never refuses a scene that fits. Random scenes with obstacles and bodies
// cutting into the fluid, and overlapping blocks, against the exact count.
func TestLeastParticlesIsALowerBound(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	shape := func() Shape {
		c := Vec3{0.2 + 0.6*rng.Float64(), 0.2 + 0.6*rng.Float64(), 0.2 + 0.6*rng.Float64()}
		rot := Vec3{}
		if rng.Intn(2) == 0 {
			rot = Vec3{rng.Float64() * 90, rng.Float64() * 90, 0}
		}
		switch rng.Intn(4) {
		case 0:
			return Shape{Kind: ShapeBox, Center: c, Size: Vec3{0.1 + 0.5*rng.Float64(), 0.1 + 0.5*rng.Float64(), 0.1 + 0.5*rng.Float64()}, Rotation: rot}
		case 1:
			return Shape{Kind: ShapeSphere, Center: c, Radius: 0.05 + 0.25*rng.Float64()}
		case 2:
			return Shape{Kind: ShapeCapsule, A: c, B: c.Add(Vec3{0.2, 0.1, 0}), Radius: 0.05 + 0.15*rng.Float64()}
		}
		return Shape{Kind: ShapeCylinder, Center: c, Radius: 0.05 + 0.25*rng.Float64(), Height: 0.1 + 0.4*rng.Float64(), Rotation: rot}
	}
	tight := 0
	for it := 0; it < 60; it++ {
		sc := &Scene{Name: "r", Domain: Box{Max: Vec3{1, 1, 1}}}
		for k := 0; k <= rng.Intn(3); k++ {
			sc.Fluid = append(sc.Fluid, Fluid{Shape: shape()})
		}
		for k := 0; k < rng.Intn(3); k++ {
			sc.Obstacles = append(sc.Obstacles, Obstacle{Shape: shape()})
		}
		if rng.Intn(2) == 0 {
			sc.Bodies = append(sc.Bodies, Body{Shape: Shape{Kind: ShapeSphere, Center: Vec3{0.5, 0.5, 0.5}, Radius: 0.1}, Density: 500})
		}
		const d = 0.02
		n, err := sc.Count(d)
		if err != nil {
			t.Fatal(err)
		}
		least := sc.leastParticles(d)
		if least > float64(n) {
			t.Fatalf("scene %d: lower bound %g > %d particles: %+v", it, least, n, sc)
		}
		if least > 0.3*float64(n) {
			tight++
		}
	}
	if tight < 10 { // a bound of 0 would pass the check above
		t.Errorf("the lower bound is within 30%% of the count in only %d of 60 scenes", tight)
	}
}

// The count a scene may ask for and what sampling may yield are one limit: SpacingFor never picks a spacing whose
// count is over it (particles.count at exactly the maximum used to pass validation and fail 5 s later).
func TestSpacingForStaysWithinTheLimit(t *testing.T) {
	sc, err := Parse([]byte(`{"name":"cube","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"count":1000},
		"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[1,1,1]},{"shape":"sphere","center":[0.3,0.3,0.3],"radius":0.2}]}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1000, 3000, 4913} {
		d, err := sc.spacingFor(limit, limit)
		if err != nil {
			t.Fatalf("limit %d: %v", limit, err)
		}
		n, err := sc.count(d, limit)
		if err != nil || n > limit || n < limit*9/10 {
			t.Errorf("limit %d: spacing %g gives %d particles (%v)", limit, d, n, err)
		}
	}
	// and Sample allocates exactly what it returns (it counts first)
	ps, err := sc.Sample(0.05)
	if err != nil || len(ps) == 0 || cap(ps) != len(ps) {
		t.Errorf("Sample: %d particles in room for %d (%v)", len(ps), cap(ps), err)
	}
}

// Geometry that overflows is refused as out of range with its field path, not explained as "no fluid particles
// lie inside" or "make it larger".
func TestGeometryOutOfRange(t *testing.T) {
	head := `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.05},`
	fluid := `"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[0.5,0.5,0.5]}]`
	cases := []struct{ json, want string }{
		{head + `"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[0.5,0.5,0.5],"rotation":[1e308,0,0]}]}`, "fluid[0].rotation[0]: 1e+308 is out of range: rotations are degrees within ±3600"},
		{head + `"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[1e308,0.5,0.5]}]}`, "fluid[0].size[0]: 1e+308 m is out of range: sizes lie within [1e-06, 10000] m"},
		{head + fluid + `,"obstacles":[{"shape":"capsule","a":[-1e300,0,0],"b":[1e300,0,0],"radius":0.1}]}`, "obstacles[0].a[0]: -1e+300 is out of range: positions lie within ±10000 m"},
		{head + fluid + `,"obstacles":[{"shape":"sphere","center":[0.5,1e300,0.5],"radius":0.1}]}`, "obstacles[0].center[1]: 1e+300 is out of range"},
		{head + fluid + `,"obstacles":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":1e-300}]}`, "obstacles[0].radius: 1e-300 m is out of range"},
		{head + `"fluid":[{"shape":"cylinder","center":[0.5,0.5,0.5],"radius":0.2,"height":1e308}]}`, "fluid[0].height: 1e+308 m is out of range"},
		{head + `"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[0.5,0.5,0.5]}],"camera":{"eye":[1e300,0,0],"target":[0,0,0]}}`, "camera.eye[0]: 1e+300 is out of range"},
		{head + `"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[0.5,0.5,0.5],"velocity":[1e308,0,0]}]}`, "fluid[0].velocity[0]: 1e+308 m/s is out of range: at most 1000"},
		{head + fluid + `,"bodies":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.1,"density":500,"spin":[0,50000,0]}]}`, "bodies[0].spin[1]: 50000 rad/s is out of range"},
		{head + fluid + `,"obstacles":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.1,"motion":{"axis":[1,0,0],"amplitude":0,"period":1e-300}}]}`, "obstacles[0].motion.period: 1e-300 s is out of range: at least 0.001 s"},
		{head + fluid + `,"obstacles":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.1,"motion":{"axis":[1,0,0],"amplitude":0.1,"period":2,"phase":1e300}}]}`, "obstacles[0].motion.phase: 1e+300 is out of range"},
		{`{"name":"x","domain":{"min":[-1e300,0,0],"max":[1,1,1]},"particles":{"spacing":0.05},` + fluid + `}`, "domain.min[0]: -1e+300 is out of range: positions lie within ±10000 m"},
	}
	for _, c := range cases {
		if msg := parseErr(t, c.json); !strings.Contains(msg, c.want) {
			t.Errorf("error %q, want %q", msg, c.want)
		}
	}
}

// Inputs that used to reach the solvers and come back as messages naming no file or field ("grid: empty extent 0
// along axis 0", "cell size 0 must be positive", "density 0 must be positive" for a file that said 1e-300) are
// refused by validation with the field.
func TestSolverErrorsCaughtAtValidation(t *testing.T) {
	fluid := `"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[0.5,0.5,0.5]}]`
	cases := []struct{ json, want string }{
		// a domain float32 cannot tell from empty
		{`{"name":"x","domain":{"min":[0,0,0],"max":[1e-300,1,1]},"particles":{"spacing":0.05},` + fluid + `}`, "domain.max[0]: the domain is 1e-300 m along axis 0; at least 0.001 m"},
		// a spacing whose kernel radius is 0 in float32
		{`{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":1e-300},` + fluid + `}`, "particles.spacing: particle spacing 1e-300 m is out of range: spacings lie within [0.0001, 10000] m"},
		// a density that is 0 in float32
		{`{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.05},` + fluid + `,"bodies":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.1,"density":1e-300}]}`, "bodies[0].density: 1e-300 kg/m³ is outside [1, 100000]"},
		// 32-bit positions far from the origin cannot hold a fine lattice
		{`{"name":"x","domain":{"min":[9000,0,0],"max":[9001,1,1]},"particles":{"spacing":0.0002},"fluid":[{"shape":"box","center":[9000.5,0.5,0.5],"size":[0.01,0.01,0.01]}]}`, "particles.spacing: particle spacing 0.0002 m is too fine for a domain 9001 m from the origin"},
		// a fluid block so small its volume underflows (the count path used to give a spacing of 0)
		{`{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"count":1000},"fluid":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":1e-30}]}`, "fluid[0].radius: 1e-30 m is out of range"},
	}
	for _, c := range cases {
		if msg := parseErr(t, c.json); !strings.Contains(msg, c.want) {
			t.Errorf("error %q, want %q", msg, c.want)
		}
	}
	// the finest spacing a scene may have samples, and the spacing search stays at or above it
	sc, err := Parse([]byte(`{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"count":10},"fluid":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":1e-4}]}`), "x.json")
	if err != nil {
		t.Fatal(err)
	}
	if d, err := sc.SpacingFor(1000); err == nil && d < MinSpacing {
		t.Errorf("SpacingFor gave %g, under MinSpacing", d)
	}
}

// Counts a file may ask for are bounded, with the reason.
func TestCountLimits(t *testing.T) {
	many := func(n int, item string) string {
		return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
	}
	head := `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.05},`
	fluid := `"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[0.5,0.5,0.5]}]`
	sphere := `{"shape":"sphere","center":[0.5,0.9,0.5],"radius":0.05}`
	cases := []struct{ json, want string }{
		{head + fluid + `,"obstacles":[` + many(MaxObstacles+1, sphere) + `]}`, "obstacles: 257 entries, over the limit of 256 (every particle is tested against every obstacle"},
		{head + fluid + `,"bodies":[` + many(MaxBodies+1, `{"shape":"sphere","center":[0.5,0.9,0.5],"radius":0.05,"density":500}`) + `]}`, "bodies: 257 entries, over the limit of 256"},
		{head + fluid + `,"emitters":[` + many(MaxEmitters+1, `{"center":[0.5,0.9,0.5],"direction":[0,1,0],"radius":0.05,"speed":1}`) + `]}`, "emitters: 65 entries, over the limit of 64"},
		{head + fluid + `,"blasts":[` + many(MaxBlasts+1, `{"time":1,"center":[0.5,0.5,0.5],"radius":0.1,"speed":1}`) + `]}`, "blasts: 65 entries, over the limit of 64 (each blast visits every particle"},
		{head + `"fluid":[` + many(MaxFluidBlocks+1, sphere) + `]}`, "fluid: 257 entries, over the limit of 256"},
		{head + `"materials":[` + many(MaxMaterials+1, `{"name":"m","density":1000,"color":[0,0,0]}`) + `],` + fluid + `}`, "materials: 17 entries, over the limit of 16"},
		{head + fluid + `,"params":{"` + strings.Repeat("p", 500) + `":1}}`, "params: \"pppp"},
		{`{"name":"` + strings.Repeat("n", 300) + `",` + head[len(`{"name":"x",`):] + fluid + `}`, "name: \"nnnn"},
	}
	for _, c := range cases {
		if msg := parseErr(t, c.json); !strings.Contains(msg, c.want) || len(msg) > 400 {
			t.Errorf("error %.400q, want %q", msg, c.want)
		}
	}
	// at the limits a scene is fine
	if _, err := Parse([]byte(head+fluid+`,"obstacles":[`+many(MaxObstacles, sphere)+`]}`), "ok.json"); err != nil {
		t.Errorf("%d obstacles: %v", MaxObstacles, err)
	}
	if _, err := Parse([]byte(head+fluid+`,"blasts":[`+many(MaxBlasts, `{"time":1,"center":[0.5,0.5,0.5],"radius":0.1,"speed":1}`)+`]}`), "ok.json"); err != nil {
		t.Errorf("%d blasts: %v", MaxBlasts, err)
	}
}

// A scene may name at most MaxMeshFiles distinct mesh files (any number of shapes may share one), of at most
// mesh.MaxTriangles triangles together; the loader's limits are lowered here so that small files reach them.
func TestMeshFileLimits(t *testing.T) {
	dir := writeFiles(t, map[string]string{"a.obj": cubeOBJ, "b.obj": cubeOBJ, "c.obj": cubeOBJ})
	l := newMeshLoader(filepath.Join(dir, "s.json"))
	l.maxFiles = 2
	for _, name := range []string{"a.obj", "b.obj", "a.obj", "b.obj"} {
		if _, err := l.load(name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := l.load("c.obj"); err == nil || !strings.Contains(err.Error(), `"c.obj" would be mesh file number 3, over the limit of 2 a scene may name`) {
		t.Errorf("a third file: %v", err)
	}
	l = newMeshLoader(filepath.Join(dir, "s.json"))
	l.maxTriangles = 20 // a cube is 12 triangles
	if _, err := l.load("a.obj"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.load("b.obj"); err == nil || !strings.Contains(err.Error(), `"b.obj" brings the scene's meshes to 24 triangles, over the limit of 20`) {
		t.Errorf("too many triangles: %v", err)
	}
	// through Parse: the limits are the loader's
	if newMeshLoader("x").maxFiles != MaxMeshFiles || newMeshLoader("x").maxTriangles != mesh.MaxTriangles {
		t.Error("the loader's limits are not the package's")
	}
}

// Quoted input is cut to a readable length: a huge field name, shape name, mesh name or number.
func TestLongInputIsCut(t *testing.T) {
	long := strings.Repeat("x", 900_000)
	head := `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.05},`
	for _, src := range []string{
		`{"` + long + `": 1}`,
		head + `"fluid":[{"shape":"` + long + `"}]}`,
		head + `"fluid":[{"shape":"mesh","mesh":"` + long + `","extent":0.1,"center":[0.5,0.5,0.5]}]}`,
		head + `"fluid":[{"shape":"sphere","radius":1` + strings.Repeat("0", 900_000) + `}]}`,
		head + `"fluid":[{"shape":"sphere","radius":"` + long + `"}]}`,
		`{"name":"x","particles":{"count":1` + strings.Repeat("0", 900_000) + `}}`,
	} {
		if msg := parseErr(t, src); len(msg) > 500 || !strings.Contains(msg, "…") {
			t.Errorf("%d bytes of error: %.200s", len(msg), msg)
		}
	}
	// a file over the limit is refused before decoding
	if msg := parseErr(t, `{"`+strings.Repeat("x", MaxFileBytes)+`": 1}`); !strings.Contains(msg, "over the limit of 1.0 MiB for scene files") {
		t.Errorf("huge scene: %.300s", msg)
	}
}

// A byte-order mark is skipped; UTF-16 is named.
func TestSceneEncoding(t *testing.T) {
	data, err := os.ReadFile("../../assets/scenes/pool.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse(append([]byte("\xEF\xBB\xBF"), data...), "bom.json"); err != nil {
		t.Errorf("UTF-8 with a byte-order mark: %v", err)
	}
	utf16 := []byte{0xFF, 0xFE}
	for _, b := range data {
		utf16 = append(utf16, b, 0)
	}
	if _, err := Parse(utf16, "u16.json"); err == nil || !strings.Contains(err.Error(), "u16.json: the file is UTF-16 (little-endian) text, and slosh reads UTF-8") {
		t.Errorf("UTF-16: %v", err)
	}
}

// Only regular files of at most MaxFileBytes are read as scenes.
func TestSceneFileMustBeRegularAndSmall(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadFile(dir); err == nil || !strings.Contains(err.Error(), "is a folder, not a file") {
		t.Errorf("a folder: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil { // sparse: no disk space
		t.Fatal(err)
	}
	f.Close()
	if _, err := LoadFile(big); err == nil || !strings.Contains(err.Error(), "over the limit of 1.0 MiB") || !strings.Contains(err.Error(), "is "+big+" a scene?") {
		t.Errorf("a huge file: %v", err)
	}
}
