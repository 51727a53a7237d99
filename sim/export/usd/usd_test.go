package usd

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/trimesh"
)

// attr is one attribute as the test's reader sees it: its type, and its value or its one time sample.
type attr struct {
	typ     string
	sampled bool
	time    int
	value   string
	meta    string // the metadata in parentheses after it, if any
}

// layer is a usda layer as the test reads it: the layer's metadata lines and each attribute by prim path and name
// ("/World/Particles.points"), and each prim's specifier and type.
type layer struct {
	meta  map[string]string
	attrs map[string]attr
	prims map[string]string // "/World/Surface" → "def Mesh"
}

var (
	primLine = regexp.MustCompile(`^\s*(def \w+|def|over) "(\w+)"( \($)?$`)
	attrLine = regexp.MustCompile(`^\s*(?:uniform )?([\w\[\]0-9]+) ([\w:]+?)(\.timeSamples)?(?: = (.*?))?(?: \(([a-z]\w* = .*)\))?$`)
	sample   = regexp.MustCompile(`^\s*(\d+): (.*),$`)
)

// readLayer reads the usda this package writes, line by line (it is not a general usda reader: the real readers
// are OpenUSD's, which `make interop` runs on these files). It fails the test on any line it does not
// understand, so a change to the writer's layout shows here.
func readLayer(t *testing.T, text string) *layer {
	t.Helper()
	l := &layer{meta: map[string]string{}, attrs: map[string]attr{}, prims: map[string]string{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<28)
	var path []string
	var pending string // a prim whose "{" is next
	inMeta, inClips := false, false
	first := true
	for sc.Scan() {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		switch {
		case first:
			if line != "#usda 1.0" {
				t.Fatalf("first line %q", line)
			}
			first = false
		case trim == "":
		case len(path) == 0 && pending == "" && trim == "(":
			inMeta = true
		case inMeta && trim == ")":
			inMeta = false
		case inMeta:
			k, v, ok := strings.Cut(trim, " = ")
			if !ok {
				t.Fatalf("metadata line %q", line)
			}
			l.meta[k] = v
		case inClips:
			if trim == ")" {
				inClips = false
				continue
			}
			if k, v, ok := strings.Cut(trim, " = "); ok && !strings.HasSuffix(v, "{") {
				f := strings.Fields(k)
				l.meta["clips."+f[len(f)-1]] = v
			}
		case primLine.MatchString(line):
			m := primLine.FindStringSubmatch(line)
			pending = m[2]
			l.prims["/"+strings.Join(append(path, m[2]), "/")] = m[1]
			if m[3] != "" {
				inClips = true
			}
		case trim == "{":
			if pending == "" {
				t.Fatalf("a brace with no prim before it")
			}
			path, pending = append(path, pending), ""
		case trim == "}":
			path = path[:len(path)-1]
		case attrLine.MatchString(line):
			m := attrLine.FindStringSubmatch(line)
			a := attr{typ: m[1], sampled: m[3] != "", value: m[4], meta: m[5]}
			if a.sampled {
				if !sc.Scan() {
					t.Fatalf("%s: no sample", m[2])
				}
				s := sample.FindStringSubmatch(sc.Text())
				if s == nil {
					t.Fatalf("%s: sample line %q", m[2], sc.Text())
				}
				a.time, _ = strconv.Atoi(s[1])
				a.value = s[2]
				if !sc.Scan() || strings.TrimSpace(sc.Text()) != "}" {
					t.Fatalf("%s: more than one sample", m[2])
				}
			}
			key := "/" + strings.Join(path, "/") + "." + m[2]
			if _, dup := l.attrs[key]; dup {
				t.Fatalf("%s twice", key)
			}
			l.attrs[key] = a
		default:
			t.Fatalf("line %q", line)
		}
	}
	if len(path) != 0 || inMeta {
		t.Fatalf("unbalanced: %v", path)
	}
	return l
}

// numbers reads an array value's numbers, tuples flattened: "[(1, 2, 3), (4, 5, 6)]" → 1 2 3 4 5 6.
func numbers(t *testing.T, v string) []float64 {
	t.Helper()
	v = strings.NewReplacer("[", "", "]", "", "(", "", ")", "").Replace(v)
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var out []float64
	for _, f := range strings.Split(v, ", ") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			t.Fatalf("number %q: %v", f, err)
		}
		out = append(out, x)
	}
	return out
}

// testFrame is a frame whose values are hard to print: a subnormal, the largest float32, a tenth, a negative
// zero; with bodies, materials, phases and temperatures.
func testFrame() *sim.Frame {
	f := &sim.Frame{Radius: 0.0125, Time: 0.05}
	f.Resize(5)
	vals := []float32{0.1, -0, 1e-45, 3.4028235e38, -2.5e-7, 1.0 / 3, 7, -1.25, 0.3, 100.5, 2, 1e-3, 4, 5, 6}
	for i := range 5 {
		f.Pos[i] = [4]float32{vals[3*i], vals[3*i+1], vals[3*i+2], 99}
		f.Vel[i] = [4]float32{vals[(3*i+1)%15], -vals[3*i], float32(i), 0}
		f.Rho[i] = 1 + float32(i)/7
		f.ID[i] = uint32(4000000000 - i)
	}
	f.Body = []int32{-1, -1, 0, 0, -1}
	f.Material = []uint8{0, 1, 2, 2, 1}
	f.Phase = []scene.Phase{0, 1, 2, 2, 1}
	f.Temperature = []float32{20, 21.5, -4, 100, 0.25}
	f.Bodies = []sim.BodyState{{Center: [3]float32{1, 2, 3}, Rot: [4]float32{0, 0.6, 0, 0.8}, Origin: [3]float32{0.5, 0.5, 0.5}}}
	return f
}

func triangle(z float32) *trimesh.Mesh {
	return &trimesh.Mesh{
		Positions: [][3]float32{{0, 0, z}, {1, 0, z}, {0, 1, z}, {1, 1, z}},
		Normals:   [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}},
		Triangles: [][3]int32{{0, 1, 2}, {1, 3, 2}},
	}
}

// The frame's values read back bit for bit: each float32 is written as the shortest decimal that names it.
func TestFrameValuesReadBackExactly(t *testing.T) {
	f := testFrame()
	_, cols := FramePrimvars(export.FrameColumns(f))
	fd := &FrameData{N: 7, Particles: f, Columns: cols, Surface: triangle(0.5),
		Grains: []Grain{{Name: "sand", Mesh: triangle(0.25)}}, Poses: f.Bodies, Doc: "a \"test\"\nframe"}
	var buf bytes.Buffer
	if err := WriteFrame(&buf, fd); err != nil {
		t.Fatal(err)
	}
	l := readLayer(t, buf.String())
	if l.meta["startTimeCode"] != "7" || l.meta["endTimeCode"] != "7" || l.meta["doc"] != `"a \"test\"\nframe"` {
		t.Errorf("metadata %v", l.meta)
	}
	get := func(key string, n int) []float64 {
		t.Helper()
		a, ok := l.attrs[key]
		if !ok {
			t.Fatalf("no %s", key)
		}
		if !a.sampled || a.time != 7 {
			t.Fatalf("%s: sampled %v at %d, want a sample at 7", key, a.sampled, a.time)
		}
		v := numbers(t, a.value)
		if len(v) != n {
			t.Fatalf("%s: %d numbers, want %d", key, len(v), n)
		}
		return v
	}
	pos, vel, ids := get("/World/Particles.points", 15), get("/World/Particles.velocities", 15), get("/World/Particles.ids", 5)
	rho, temp := get("/World/Particles.primvars:density", 5), get("/World/Particles.primvars:temperature", 5)
	body, mat, phase := get("/World/Particles.primvars:body", 5), get("/World/Particles.primvars:material", 5), get("/World/Particles.primvars:phase", 5)
	for i := range 5 {
		for k := range 3 {
			if math.Float32bits(float32(pos[3*i+k])) != math.Float32bits(f.Pos[i][k]) && !(pos[3*i+k] == 0 && f.Pos[i][k] == 0) {
				t.Errorf("particle %d position %d: read %g, wrote %g", i, k, pos[3*i+k], f.Pos[i][k])
			}
			if float32(vel[3*i+k]) != f.Vel[i][k] {
				t.Errorf("particle %d velocity %d: read %g, wrote %g", i, k, vel[3*i+k], f.Vel[i][k])
			}
		}
		if uint32(ids[i]) != f.ID[i] || float32(rho[i]) != f.Rho[i] || float32(temp[i]) != f.Temperature[i] {
			t.Errorf("particle %d: id %v density %v temperature %v", i, ids[i], rho[i], temp[i])
		}
		if int32(body[i]) != f.Body[i] || uint8(mat[i]) != f.Material[i] || scene.Phase(phase[i]) != f.Phase[i] {
			t.Errorf("particle %d: body %v material %v phase %v", i, body[i], mat[i], phase[i])
		}
	}
	// every column of the particle export is on the stage: a value a solver adds to its frames needs no word here
	for _, c := range export.FrameColumns(f) {
		key := "/World/Particles.primvars:" + c.Name
		if _, ok := l.attrs[key]; !ok && !skipped(c.Name) {
			t.Errorf("the PLY frame's column %s is not on the stage", c.Name)
		}
	}
	ext := get("/World/Particles.extent", 6)
	for i := range 5 {
		for k := range 3 {
			p, r := float64(f.Pos[i][k]), float64(f.Radius)
			tol := 1e-6 * max(1, math.Abs(p)) // the extent is float32
			if p-r < ext[k]-tol || p+r > ext[3+k]+tol {
				t.Errorf("particle %d axis %d (%g) outside the extent %v", i, k, p, ext)
			}
		}
	}
	for _, m := range []string{"/World/Surface", "/World/Grains/sand"} {
		if n := len(get(m+".faceVertexCounts", 2)); n != 2 {
			t.Errorf("%s: %d faces", m, n)
		}
		idx := get(m+".faceVertexIndices", 6)
		if idx[3] != 1 || idx[4] != 3 || idx[5] != 2 {
			t.Errorf("%s: indices %v", m, idx)
		}
		get(m+".points", 12)
		get(m+".normals", 12)
	}
	if l.prims["/World/Grains/sand"] != "def Mesh" || l.prims["/World/Bodies/Body0"] != "def Mesh" {
		t.Errorf("prims %v", l.prims)
	}
	if got := get("/World/Bodies/Body0.xformOp:transform", 16); got[15] != 1 {
		t.Errorf("body transform %v", got)
	}
}

// The body's transform moves its shape as the solver moved the body: the matrix, applied to the points as USD
// applies it (row vectors, translation in the last row), gives trimesh.Posed's points (the renderer's and the
// OBJ export's), to float32 rounding.
func TestBodyTransformIsThePose(t *testing.T) {
	rest, err := trimesh.Shape(&scene.Shape{Kind: "box", Center: scene.Vec3{0.5, 0.4, 0.3}, Size: scene.Vec3{0.2, 0.1, 0.3}})
	if err != nil {
		t.Fatal(err)
	}
	q := rigid.Quat{0.3, -0.5, 0.2, 0.7}.Normalized()
	pose := sim.BodyState{Center: [3]float32{1.5, 2, -0.25}, Rot: [4]float32(q), Origin: [3]float32{0.5, 0.4, 0.3}}
	m, ok := transform(pose)
	if !ok {
		t.Fatal("pose refused")
	}
	want := rest.Posed(pose)
	for i, p := range rest.Positions {
		for k := range 3 {
			got := float64(p[0])*m[0][k] + float64(p[1])*m[1][k] + float64(p[2])*m[2][k] + m[3][k]
			if math.Abs(got-float64(want.Positions[i][k])) > 1e-6 {
				t.Fatalf("vertex %d axis %d: the matrix gives %g, Posed %g", i, k, got, want.Positions[i][k])
			}
		}
	}
	if _, ok := transform(sim.BodyState{Rot: [4]float32{0, 0, 0, float32(math.NaN())}}); ok {
		t.Error("a NaN rotation was taken")
	}
}

// The root stage plays the frames: its clips name each frame's layer at its time code, and every attribute a
// frame samples is declared, with the same type, by the manifest (USD takes from clips only what the manifest
// declares) and by the stage's prim.
func TestStageManifestAndFramesAgree(t *testing.T) {
	f := testFrame()
	cam := &Camera{Eye: [3]float64{0.8, 1.1, 2.3}, Target: [3]float64{0.8, 0.3, 0.3}, Up: [3]float64{0, 1, 0}, FovY: 40, Aspect: 16.0 / 9, Near: 0.01, Far: 100}
	primvars, cols := FramePrimvars(export.FrameColumns(f))
	s := &Stage{Doc: "test", FPS: 60, Frames: 3, Radius: float64(f.Radius), Primvars: AddPrimvars(nil, primvars), Surface: true,
		Grains: []string{"sand"}, Velocities: true, Bodies: []*trimesh.Mesh{triangle(0)}, Camera: cam}
	var root, manifest bytes.Buffer
	if err := WriteStage(&root, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteManifest(&manifest, s); err != nil {
		t.Fatal(err)
	}
	r, m := readLayer(t, root.String()), readLayer(t, manifest.String())
	for k, want := range map[string]string{
		"startTimeCode": "1", "endTimeCode": "3", "framesPerSecond": "60", "timeCodesPerSecond": "60",
		"upAxis": `"Y"`, "metersPerUnit": "1", "defaultPrim": `"World"`,
		"clips.templateAssetPath": `"./usd.######.usda"`,
		"clips.templateStartTime": "1",
		"clips.templateEndTime":   "3",
		"clips.templateStride":    "1",
		"clips.manifestAssetPath": "@./usd_manifest.usda@",
		"clips.primPath":          `"/World"`,
	} {
		if r.meta[k] != want {
			t.Errorf("root %s = %s, want %s", k, r.meta[k], want)
		}
	}
	for n := 1; n <= 3; n++ {
		var buf bytes.Buffer
		v := make([][3]float32, 4)
		fd := &FrameData{N: n, Particles: f, Columns: cols, Surface: triangle(0), SurfaceVelocities: v,
			Grains: []Grain{{Name: "sand", Mesh: triangle(1), Velocities: v}}, Poses: f.Bodies}
		if err := WriteFrame(&buf, fd); err != nil {
			t.Fatal(err)
		}
		fl := readLayer(t, buf.String())
		for key, a := range fl.attrs {
			if !a.sampled {
				t.Errorf("frame %d: %s is not a time sample", n, key)
			}
			if ma, ok := m.attrs[key]; !ok || ma.typ != a.typ || ma.value != "" {
				t.Errorf("frame %d samples %s %s; the manifest declares %+v", n, a.typ, key, ma)
			}
			if ra, ok := r.attrs[key]; !ok || ra.typ != a.typ || ra.sampled {
				t.Errorf("frame %d samples %s %s; the stage declares %+v", n, a.typ, key, ra)
			}
		}
		for key := range m.attrs {
			if _, ok := fl.attrs[key]; !ok {
				t.Errorf("the manifest declares %s, which frame %d does not sample", key, n)
			}
		}
	}
	if w := r.attrs["/World/Particles.widths"]; w.value != "[0.025]" || w.meta != `interpolation = "constant"` {
		t.Errorf("widths %+v", w)
	}
	if r.prims["/World/Bodies/Body0"] != "def Mesh" || len(numbers(t, r.attrs["/World/Bodies/Body0.points"].value)) != 12 {
		t.Errorf("the body's shape is not in the stage")
	}
	// the camera: USD's looks down its −Z, so the matrix's third row points from the target to the eye, its last
	// row is the eye, and the apertures give the field of view
	mat := numbers(t, r.attrs["/World/Camera.xformOp:transform"].value)
	back := [3]float64{0, 0.8, 2}
	n := math.Hypot(back[1], back[2])
	for k := range 3 {
		if math.Abs(mat[8+k]-back[k]/n) > 1e-12 || math.Abs(mat[12+k]-cam.Eye[k]) > 1e-12 {
			t.Errorf("camera matrix %v", mat)
		}
	}
	focal, vert := numbers(t, r.attrs["/World/Camera.focalLength"].value)[0], numbers(t, r.attrs["/World/Camera.verticalAperture"].value)[0]
	if fov := 2 * math.Atan(vert/2/focal) * 180 / math.Pi; math.Abs(fov-40) > 1e-5 {
		t.Errorf("field of view %g°, want 40°", fov)
	}
}

// Bad values are refused, naming what is wrong, before a file that a reader would choke on is finished.
func TestRefusesWhatUSDCannotHold(t *testing.T) {
	f := testFrame()
	f.Pos[3][1] = float32(math.NaN())
	err := WriteFrame(&bytes.Buffer{}, &FrameData{N: 1, Particles: f})
	if err == nil || !strings.Contains(err.Error(), "particle 3") {
		t.Errorf("NaN position: %v", err)
	}
	f = testFrame()
	f.Temperature[2] = float32(math.Inf(1))
	_, cols := FramePrimvars(export.FrameColumns(f))
	if err := WriteFrame(&bytes.Buffer{}, &FrameData{N: 1, Particles: f, Columns: cols}); err == nil || !strings.Contains(err.Error(), "temperature") {
		t.Errorf("an infinite temperature: %v", err)
	}
	f = testFrame()
	bad := triangle(0)
	bad.Triangles[1][2] = 9
	if err := WriteFrame(&bytes.Buffer{}, &FrameData{N: 1, Particles: f, Surface: bad}); err == nil || !strings.Contains(err.Error(), "triangle 1") {
		t.Errorf("a triangle naming a missing vertex: %v", err)
	}
	if err := WriteFrame(&bytes.Buffer{}, &FrameData{N: 0, Particles: f}); err == nil {
		t.Error("frame 0 was written")
	}
	short := testFrame()
	short.ID = short.ID[:2]
	if err := WriteFrame(&bytes.Buffer{}, &FrameData{N: 1, Particles: short}); err == nil {
		t.Error("a frame with too few ids was written")
	}
	if err := WriteStage(&bytes.Buffer{}, &Stage{FPS: 60}); err == nil {
		t.Error("a stage of no frames was written")
	}
	if err := WriteStage(&bytes.Buffer{}, &Stage{FPS: 60, Frames: MaxFrames + 1}); err == nil {
		t.Error("a stage of more frames than the template numbers was written")
	}
	// the template's six #s are FrameName's six digits
	if got := strings.Replace("usd.######.usda", "######", fmt.Sprintf("%06d", 42), 1); got != FrameName(42) {
		t.Errorf("the template names frame 42 %s, FrameName %s", got, FrameName(42))
	}
	if err := WriteStage(&bytes.Buffer{}, &Stage{FPS: 60, Frames: 1, Camera: &Camera{FovY: 40, Aspect: 1, Near: 1, Far: 2}}); err == nil {
		t.Error("a camera whose eye is its target was written")
	}
}

// An empty frame (everything drained) is still a frame of the stage: empty arrays and no extent.
func TestEmptyFrame(t *testing.T) {
	f := &sim.Frame{Radius: 0.01}
	var buf bytes.Buffer
	_, cols := FramePrimvars(export.FrameColumns(f))
	if err := WriteFrame(&buf, &FrameData{N: 2, Particles: f, Columns: cols, Surface: &trimesh.Mesh{}}); err != nil {
		t.Fatal(err)
	}
	l := readLayer(t, buf.String())
	if a := l.attrs["/World/Particles.points"]; a.value != "[]" {
		t.Errorf("points %q", a.value)
	}
	if _, ok := l.attrs["/World/Particles.extent"]; ok {
		t.Error("an empty frame has an extent")
	}
	if a := l.attrs["/World/Surface.faceVertexCounts"]; a.value != "[]" {
		t.Errorf("faces %q", a.value)
	}
}

func TestIsFileName(t *testing.T) {
	for name, want := range map[string]bool{
		"slosh.usda": true, "usd_manifest.usda": true, "usd.000001.usda": true, "usd.1234567.usda": true,
		"usd.00001.usda": false, "usd.0000001.usda": false, "usd.00000a.usda": false, "scene.usda": false,
		"usd.000001.usd": false, "usd_000001.usda": false, "frame_000001.ply": false,
	} {
		if IsFileName(name) != want {
			t.Errorf("IsFileName(%q) = %v", name, !want)
		}
		if want && !strings.HasPrefix(name, "usd.1") && name != RootName && name != ManifestName && name != FrameName(1) {
			t.Errorf("%s is not a name the package writes", name)
		}
	}
}
