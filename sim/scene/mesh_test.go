package scene

import (
	"encoding/json"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/assets"
	"github.com/slosh/slosh/sim/mesh"
)

// cubeOBJ is the unit cube [0, 1]³; openCubeOBJ lacks its +x face.
const cubeOBJ = `v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 4 8 7 3
f 1 5 8 4
f 2 3 7 6
`

var openCubeOBJ = strings.TrimSuffix(cubeOBJ, "f 2 3 7 6\n")

// writeFiles puts files (name → content, slash paths) under a new temporary folder and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A mesh shape as a fluid block fills exactly the lattice points inside the mesh: every lattice point is compared
// with the mesh's own exact inside test, and only points within half a grid cell of the surface (where the
// interpolated distance may round either way) may differ.
func TestMeshFluidSamplesInsideMesh(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: sampling fluid inside a mesh; make test runs it")
	}
	const spacing = 0.012
	sc, err := Parse([]byte(`{"name": "liquid bunny", "domain": {"min": [0, 0, 0], "max": [1, 1, 1]},
		"particles": {"spacing": 0.012},
		"fluid": [{"shape": "mesh", "mesh": "bunny.obj", "center": [0.5, 0.4, 0.5], "extent": 0.5, "rotation": [10, 30, -20],
			"velocity": [0, -1, 0]}]}`), "builtin:liquid-bunny")
	if err != nil {
		t.Fatal(err)
	}
	f := &sc.Fluid[0].Shape
	md := f.MeshData()
	if md == nil {
		t.Fatal("the mesh was not loaded")
	}
	ps, err := sc.Sample(spacing)
	if err != nil {
		t.Fatal(err)
	}
	sampled := map[[3]int]bool{}
	for _, p := range ps {
		if p.Vel != (Vec3{0, -1, 0}) {
			t.Fatalf("particle velocity %v", p.Vel)
		}
		sampled[latticeIndex(p.Pos, sc.Domain.Min, spacing)] = true
	}
	if len(sampled) != len(ps) {
		t.Fatalf("%d particles on %d lattice points", len(ps), len(sampled))
	}
	loc := mesh.NewLocator(md.Mesh)
	tr := f.MeshTransform()
	cell := md.SDF.Cell * f.Extent // a grid cell in metres
	b := f.Bounds()
	inside, near := 0, 0
	n := int(math.Floor(1 / spacing))
	for k := 0; k < n; k++ {
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				p := Vec3{(float64(i) + 0.5) * spacing, (float64(j) + 0.5) * spacing, (float64(k) + 0.5) * spacing}
				if p != p.Max(b.Min).Min(b.Max) {
					if sampled[[3]int{i, j, k}] {
						t.Fatalf("particle at %v outside the mesh's bounds %v", p, b)
					}
					continue
				}
				q := tr.Inverse(mesh.Vec3(p))
				in := loc.Inside(q)
				d, _, _ := loc.Nearest(q)
				if in {
					inside++
				}
				if got := sampled[[3]int{i, j, k}]; got != in {
					if d*f.Extent > 0.5*cell {
						t.Fatalf("lattice point %v: sampled %v, inside the mesh %v, %g m from its surface", p, got, in, d*f.Extent)
					}
					near++
				}
			}
		}
	}
	if inside < 5000 || near > inside/100 {
		t.Errorf("%d lattice points inside the mesh, %d decided differently near the surface", inside, near)
	}
	// the particles fill the mesh's exact volume
	vol := f.Volume()
	if want := md.Volume * math.Pow(f.Extent, 3); math.Abs(vol-want) > 1e-15 || vol < 0.02 {
		t.Fatalf("volume %g, want %g", vol, want)
	}
	if got := float64(len(ps)) * spacing * spacing * spacing; math.Abs(got-vol) > 0.03*vol {
		t.Errorf("%d particles fill %g m³, the mesh holds %g m³", len(ps), got, vol)
	}
	t.Logf("%d particles, %d lattice points inside, %d differ within half a grid cell of the surface", len(ps), inside, near)
}

func latticeIndex(p, lo Vec3, d float64) [3]int {
	var ix [3]int
	for c := 0; c < 3; c++ {
		ix[c] = int(math.Floor((p[c] - lo[c]) / d))
	}
	return ix
}

// A cube mesh placed, scaled and rotated like a box shape has the box's distances and normals: the mesh transform
// follows the same conventions (centre, size, rotation R = Rz·Ry·Rx) as the analytic shapes.
func TestMeshShapeMatchesBox(t *testing.T) {
	dir := writeFiles(t, map[string]string{"meshes/cube.obj": cubeOBJ})
	src := `{"name": "cubes", "domain": {"min": [-1, -1, -1], "max": [1, 1, 1]}, "particles": {"spacing": 0.05},
		"fluid": [{"shape": "box", "center": [0, 0, 0], "size": [0.5, 0.5, 0.5]}],
		"obstacles": [{"shape": "mesh", "mesh": "../meshes/cube.obj", "center": [0.1, -0.2, 0.3], "extent": 0.8, "rotation": [20, 35, -10]}]}`
	sc, err := Parse([]byte(src), filepath.Join(dir, "scenes", "cubes.json"))
	if err != nil {
		t.Fatal(err)
	}
	m := &sc.Obstacles[0].Shape
	box := Shape{Kind: ShapeBox, Center: m.Center, Size: Vec3{0.8, 0.8, 0.8}, Rotation: m.Rotation}
	if r1, r2 := mesh.Rotation(mesh.Vec3(m.Rotation)), m.RotationMatrix(); r1 != mesh.Mat3(r2) {
		t.Fatalf("mesh.Rotation %v differs from Shape.RotationMatrix %v", r1, r2)
	}
	cell := m.MeshData().SDF.Cell * m.Extent
	bb, mb := box.Bounds(), m.Bounds()
	if bb.Min.Sub(mb.Min).Len() > 1e-12 || bb.Max.Sub(mb.Max).Len() > 1e-12 {
		t.Errorf("bounds %v, the box's %v", mb, bb)
	}
	if v := m.Volume(); math.Abs(v-0.512) > 1e-12 {
		t.Errorf("volume %g, want 0.512", v)
	}
	rng := rand.New(rand.NewSource(4))
	for n := 0; n < 5000; n++ {
		p := Vec3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}
		want, wn := box.SDF(p)
		got, gn := m.SDF(p)
		// beyond the mesh's grid the distance is an upper bound (to the grid, plus the value at the grid)
		q := m.MeshTransform().Inverse(mesh.Vec3(p))
		glo, ghi := m.MeshData().SDF.Bounds()
		inGrid := q == q.Max(glo).Min(ghi)
		if got < want-0.5*cell || (inGrid && got > want+0.5*cell) {
			t.Fatalf("at %v: mesh distance %g, box %g", p, got, want)
		}
		if d := m.Distance(p); d != got {
			t.Fatalf("Distance %g differs from SDF %g", d, got)
		}
		if math.Abs(want) > 0.5*cell && (got < 0) != (want < 0) {
			t.Fatalf("at %v: mesh distance %g, box %g: wrong sign", p, got, want)
		}
		if inGrid && want > 2*cell && gn.Dot(wn) < 0.9 {
			t.Fatalf("at %v: mesh normal %v, box normal %v", p, gn, wn)
		}
	}
}

// Mesh files resolve relative to the scene file and otherwise among the shipped meshes; each loads once per scene.
func TestMeshPathsAndSharing(t *testing.T) {
	dir := writeFiles(t, map[string]string{"scenes/cube.obj": cubeOBJ})
	src := `{"name": "two", "domain": {"min": [0, 0, 0], "max": [2, 2, 2]}, "particles": {"spacing": 0.1},
		"fluid": [{"shape": "mesh", "mesh": "cube.obj", "center": [1, 1, 1], "extent": 0.5}],
		"obstacles": [{"shape": "mesh", "mesh": "cube.obj", "center": [0.3, 0.3, 0.3], "extent": 0.2},
			{"shape": "mesh", "mesh": "bunny.obj", "center": [1.5, 0.5, 1.5], "extent": 0.4}]}`
	sc, err := Parse([]byte(src), filepath.Join(dir, "scenes", "two.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, b, c := sc.Fluid[0].MeshData(), sc.Obstacles[0].MeshData(), sc.Obstacles[1].MeshData()
	if a == nil || a != b {
		t.Error("two shapes naming cube.obj do not share one load")
	}
	if a.File != filepath.Join(dir, "scenes", "cube.obj") {
		t.Errorf("cube.obj read from %s", a.File)
	}
	if c == nil || c.File != "bunny.obj" || len(c.Mesh.Triangles) != 3674 {
		t.Errorf("bunny.obj (not next to the scene) should come from the shipped meshes: %+v", c)
	}
	// Clone shares the read-only geometry and copies the placement
	cl := sc.Clone()
	cl.Obstacles[1].Extent = 0.1
	if sc.Obstacles[1].Extent != 0.4 || cl.Obstacles[1].MeshData() != c {
		t.Error("Clone shares the shape's fields or drops its mesh")
	}
	if v0, v1 := sc.Obstacles[1].Volume(), cl.Obstacles[1].Volume(); math.Abs(v1-v0/64) > 1e-15 {
		t.Errorf("volumes %g and %g after scaling by ¼", v0, v1)
	}
	// renaming the mesh detaches the old geometry until the scene is validated again
	cl.Obstacles[1].Mesh = "cube.obj"
	if cl.Obstacles[1].MeshData() != nil || !math.IsInf(cl.Obstacles[1].Distance(Vec3{1.5, 0.5, 1.5}), 1) {
		t.Error("a renamed mesh shape still answers with the old mesh")
	}
	cl.Source = sc.Source
	if err := cl.Validate(); err != nil || cl.Obstacles[1].MeshData() == nil || cl.Obstacles[1].MeshData().Name != "cube.obj" {
		t.Errorf("revalidating: %v", err)
	}
	// a shape made in code
	md, err := LoadMesh(assets.Meshes(), "bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	s := Shape{Kind: ShapeMesh, Center: Vec3{1, 2, 3}, Extent: 2}
	s.SetMesh(md)
	if d := s.Distance(Vec3{1, 2, 3 + 10}); s.Mesh != "bunny.obj" || d < 8 || d > 10 {
		t.Errorf("SetMesh: Mesh %q, distance %g", s.Mesh, d)
	}
}

// Bad mesh references fail with the field's path and what is wrong with the mesh.
func TestBadMeshReferences(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"open.obj":  openCubeOBJ,
		"cube.obj":  cubeOBJ,
		"typo.obj":  "v 0 0 0\nv 1 0 0\nv 0 1 0\nff 1 2 3\n",
		"empty.obj": "# nothing\n",
	})
	scenePath := filepath.Join(dir, "bad.json")
	head := `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},`
	sphere := `{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.2}`
	cases := []struct {
		name, source, json string
		want               []string
	}{
		{"missing file", scenePath, head + `"fluid":[{"shape":"mesh","mesh":"nope.obj","center":[0.5,0.5,0.5],"extent":0.3}]}`,
			[]string{"fluid[0].mesh: " + filepath.Join(dir, "nope.obj") + " does not exist", "relative to the scene file", "bunny.obj"}},
		{"open mesh", scenePath, head + `"fluid":[` + sphere + `],"obstacles":[` + sphere + `,{"shape":"mesh","mesh":"open.obj","center":[0.5,0.5,0.5],"extent":0.3}]}`,
			[]string{"obstacles[1].mesh: " + filepath.Join(dir, "open.obj") + ": not closed and manifold: 4 edges are used by other than exactly two triangles"}},
		{"syntax", scenePath, head + `"fluid":[` + sphere + `],"obstacles":[` + sphere + `,{"shape":"mesh","mesh":"typo.obj","center":[0.5,0.5,0.5],"extent":0.3}]}`,
			[]string{"obstacles[1].mesh: " + filepath.Join(dir, "typo.obj") + `: line 4: unknown statement "ff"`}},
		{"no faces", scenePath, head + `"fluid":[{"shape":"mesh","mesh":"empty.obj","center":[0.5,0.5,0.5],"extent":0.3}]}`,
			[]string{"fluid[0].mesh: " + filepath.Join(dir, "empty.obj") + ": no faces"}},
		{"no mesh", scenePath, head + `"fluid":[{"shape":"mesh","center":[0.5,0.5,0.5],"extent":0.3}]}`,
			[]string{"fluid[0].mesh: missing: the OBJ file"}},
		{"no extent", scenePath, head + `"fluid":[{"shape":"mesh","mesh":"cube.obj","center":[0.5,0.5,0.5]}]}`,
			[]string{"fluid[0].extent: must be > 0"}},
		{"size instead of extent", scenePath, head + `"fluid":[{"shape":"mesh","mesh":"cube.obj","center":[0.5,0.5,0.5],"size":[1,1,1]}]}`,
			[]string{"fluid[0].size: is not used by a mesh; give the longest side of its bounding box as extent"}},
		{"scalar size", scenePath, head + `"fluid":[{"shape":"mesh","mesh":"cube.obj","center":[0.5,0.5,0.5],"size":0.3}]}`,
			[]string{"fluid[0].size: want an array of 3 numbers (a box's full extents), got 0.3; a mesh's size is its extent"}},
		{"radius on a mesh", scenePath, head + `"fluid":[{"shape":"mesh","mesh":"cube.obj","center":[0.5,0.5,0.5],"extent":0.3,"radius":1}]}`,
			[]string{"fluid[0].radius: is not used by a mesh"}},
		{"extent on a box", scenePath, head + `"fluid":[{"shape":"box","center":[0.5,0.5,0.5],"size":[1,1,1],"extent":0.3}]}`,
			[]string{"fluid[0].extent: is not used by a box"}},
		{"outside the domain", scenePath, head + `"fluid":[{"shape":"mesh","mesh":"cube.obj","center":[5,0.5,0.5],"extent":0.3}]}`,
			[]string{`fluid[0]: mesh "cube.obj" at [5, 0.5, 0.5] extent 0.3 lies outside the domain`}},
		{"shipped scene, unshipped mesh", "builtin:x", head + `"fluid":[{"shape":"mesh","mesh":"cube.obj","center":[0.5,0.5,0.5],"extent":0.3}]}`,
			[]string{`fluid[0].mesh: "cube.obj" is not a shipped mesh; the shipped meshes are bunny.obj`}},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.json), c.source)
		if err == nil {
			t.Errorf("%s: parsed without error", c.name)
			continue
		}
		for _, w := range append([]string{c.source + ": "}, c.want...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
	// through LoadFile, with the scene on disk
	if err := os.WriteFile(scenePath, []byte(cases[1].json), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(scenePath); err == nil || !strings.HasPrefix(err.Error(), scenePath+": obstacles[1].mesh: ") {
		t.Errorf("Open: %v", err)
	}
}

// The shipped bunny loads and validates, and the test scene with a bunny obstacle loads and samples around it.
func TestBunnyObstacleScene(t *testing.T) {
	md, err := LoadMesh(assets.Meshes(), "bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	if err := md.Mesh.Validate(); err != nil {
		t.Fatal(err)
	}
	lo, hi := md.Mesh.Bounds()
	if sz := hi.Sub(lo); math.Abs(sz.MaxComp()-1) > 1e-12 || lo.Add(hi).Len() > 1e-12 || md.Volume < 0.1 {
		t.Errorf("unit-frame bunny: bounds %v–%v, volume %g", lo, hi, md.Volume)
	}
	sc, err := Open(filepath.Join("testdata", "bunny-obstacle.json"))
	if err != nil {
		t.Fatal(err)
	}
	bunny := &sc.Obstacles[0].Shape
	if bunny.MeshData() == nil {
		t.Fatal("the bunny was not loaded")
	}
	if b := bunny.Bounds(); math.Abs(b.Min[1]) > 1e-3 || b.Max[1] > 0.36 {
		t.Errorf("the bunny should sit on the floor: bounds %v", b)
	}
	if !strings.Contains(bunny.String(), `mesh "bunny.obj"`) {
		t.Errorf("String() = %q", bunny.String())
	}
	d := sc.Particles.Spacing
	ps, err := sc.Sample(d)
	if err != nil {
		t.Fatal(err)
	}
	loc := mesh.NewLocator(bunny.MeshData().Mesh)
	tr := bunny.MeshTransform()
	cell := bunny.MeshData().SDF.Cell * bunny.Extent
	for _, p := range ps {
		q := tr.Inverse(mesh.Vec3(p.Pos))
		dist, _, _ := loc.Nearest(q)
		if loc.Inside(q) || dist*bunny.Extent < 0.5*d-0.5*cell {
			t.Fatalf("particle at %v is %g m from the bunny (inside: %v)", p.Pos, dist*bunny.Extent, loc.Inside(q))
		}
	}
	// with the whole tank full, the bunny displaces its own volume and a shell of half a spacing around it
	full := sc.Clone()
	full.Fluid[0].Shape = Shape{Kind: ShapeBox, Center: sc.Domain.Center(), Size: sc.Domain.Size()}
	with, _ := full.Count(d)
	full.Obstacles = nil
	without, _ := full.Count(d)
	displaced := float64(without-with) * d * d * d
	vol, area := bunny.Volume(), bunny.MeshData().Mesh.Area()*bunny.Extent*bunny.Extent
	if displaced < vol || displaced > vol+1.2*area*0.5*d {
		t.Errorf("the bunny (%g m³, %g m²) displaces %d particles, %g m³", vol, area, without-with, displaced)
	}
	// the loaded geometry stays out of the JSON
	out, err := json.Marshal(sc.Obstacles[0])
	if err != nil {
		t.Fatal(err)
	}
	if js := string(out); !strings.Contains(js, `"mesh":"bunny.obj","extent":0.36`) || strings.Contains(js, "Values") || strings.Contains(js, "Volume") {
		t.Errorf("marshalled %s", out)
	}
}
