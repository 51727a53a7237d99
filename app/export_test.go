package app

import (
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/mesh"
	"github.com/slosh/slosh/sim/scene"
)

// readSidecar reads and decodes the export sidecar in dir.
// readPLYFile reads a PLY frame an export wrote: its particle count and columns.
func readPLYFile(t testing.TB, path string) (int, []export.Column) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, cols, _, err := export.ReadPLY(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return n, cols
}

func readSidecar(t testing.TB, dir string) export.Sidecar {
	t.Helper()
	var car export.Sidecar
	data, err := os.ReadFile(filepath.Join(dir, SidecarName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &car); err != nil {
		t.Fatalf("%s: %v", SidecarName, err)
	}
	return car
}

// `slosh export` writes one readable PLY per frame with the frame's particles, and a sidecar that lists them with
// the scene and parameters; an unwritable folder is a clear error.
func TestExportWritesFramesAndSidecar(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	o := ExportOptions{Options: Options{Scene: "fountain", Mode: "pbf-cpu", Particles: 1500, Stderr: io.Discard}, Frames: 3, Out: dir, Stdout: io.Discard}
	if err := Export(o); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, dir)
	if car.Frames != 3 || len(car.Files) != 3 || car.Mode != "pbf-cpu" || car.Params["pbf.particles"] == nil {
		t.Fatalf("sidecar: %d frames, files %v, mode %s, params %d", car.Frames, car.Files, car.Mode, len(car.Params))
	}
	if sc, err := scene.Parse(car.SceneJSON, "sidecar"); err != nil || sc.Name != "fountain" {
		t.Fatalf("the sidecar's scene: %v", err)
	}
	prev := 0
	for i, name := range car.Files {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		n, cols, comments, err := export.ReadPLY(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n < prev || n == 0 || strings.Join(export.Names(cols), " ") != strings.Join(car.Columns, " ") || len(comments) != 1 {
			t.Fatalf("%s: %d particles (previous %d), columns %v (sidecar %v)", name, n, prev, export.Names(cols), car.Columns)
		}
		for _, y := range cols[1].F32 {
			if y < 0 || y > 1 {
				t.Fatalf("%s: a particle at height %g, outside the domain", name, y)
			}
		}
		prev = n
		if want := export.FrameName(dir, i+1); filepath.Join(dir, name) != want {
			t.Errorf("frame %d is %s, want %s", i+1, name, want)
		}
	}
	if prev <= 1500 {
		t.Errorf("the fountain's emitters added nothing: %d particles", prev)
	}

	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	o.Out = filepath.Join(blocker, "cache")
	if err := Export(o); err == nil || !strings.Contains(err.Error(), "writable") {
		t.Errorf("export into a folder under a file: %v", err)
	}
}

// copyFrame copies every field of a frame: a field added to sim.Frame and not copied fails here.
func TestCopyFrameCopiesEveryField(t *testing.T) {
	src := sim.Frame{
		N: 2, Pos: [][4]float32{{1, 2, 3, 0}, {4, 5, 6, 0}}, Vel: [][4]float32{{7, 8, 9, 0}, {1, 1, 1, 0}},
		Rho: []float32{1, 1.1}, ID: []uint32{1, 0}, Body: []int32{-1, 0},
		Bodies:   []sim.BodyState{{Center: [3]float32{1, 2, 3}, Rot: [4]float32{0, 0, 0, 1}}},
		Material: []uint8{0, 1}, Palette: [][3]float32{{0, 0, 1}, {1, 0, 0}}, Phase: []scene.Phase{scene.PhaseLiquid, scene.PhaseGranular},
		Temperature: []float32{20, 80}, Radius: 0.01, Time: 0.5, Steps: 30,
	}
	var dst sim.Frame
	copyFrame(&dst, &src)
	v := reflect.ValueOf(src)
	for i := 0; i < v.NumField(); i++ {
		if reflect.ValueOf(src).Field(i).IsZero() {
			t.Fatalf("the test's frame leaves %s zero: set it", v.Type().Field(i).Name)
		}
	}
	if !reflect.DeepEqual(dst, src) {
		t.Errorf("copyFrame lost something:\n got %+v\nwant %+v", dst, src)
	}
}

// `slosh export --mesh` writes each frame's fluid surface as a closed mesh around the fluid particles and each
// rigid body as a mesh where its particles are; the sidecar lists them all. Sim/mesh's OBJ reader (the scene
// loader's, which shares nothing with the writer) reads the surface back and checks it closed and oriented.
func TestExportMeshes(t *testing.T) {
	if testing.Short() {
		t.Skip("about 4 s on 2 cores: a headless run of the app; make test runs it")
	}
	dir := filepath.Join(t.TempDir(), "cache")
	o := ExportOptions{Options: Options{Scene: "duck-pond", Mode: "pbf-cpu", Particles: 4000, Stderr: io.Discard,
		Sets: []string{"mesh.smooth=0"}}, Frames: 20, Out: dir, Mesh: export.MeshOBJ, Stdout: io.Discard}
	if err := Export(o); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, dir)
	if car.MeshFormat != "obj" || len(car.Meshes) != 20 || len(car.BodyMeshes) != 10 || len(car.BodyMeshes[3]) != 20 ||
		string(car.MeshParams["mesh.smooth"]) != "0" {
		t.Fatalf("sidecar: format %q, meshes %v, body meshes %v, mesh params %v", car.MeshFormat, car.Meshes, car.BodyMeshes, car.MeshParams)
	}
	// the last frame's particles (the bodies have fallen into the water by then): fluid and each body's
	last := len(car.Files) - 1
	n, cols := readPLYFile(t, filepath.Join(dir, car.Files[last]))
	body := cols[len(cols)-1].I32
	fluid := 0
	type box struct{ lo, hi [3]float64 }
	grow := func(b *box, p [3]float64) {
		for k := range 3 {
			b.lo[k], b.hi[k] = min(b.lo[k], p[k]), max(b.hi[k], p[k])
		}
	}
	empty := box{lo: [3]float64{9, 9, 9}, hi: [3]float64{-9, -9, -9}}
	bodyBox := make([]box, 10)
	bodySum := make([][4]float64, 10) // Σ x, y, z and the count
	for i := range bodyBox {
		bodyBox[i] = empty
	}
	for i := range n {
		if body[i] < 0 {
			fluid++
			continue
		}
		p := [3]float64{float64(cols[0].F32[i]), float64(cols[1].F32[i]), float64(cols[2].F32[i])}
		grow(&bodyBox[body[i]], p)
		bodySum[body[i]] = [4]float64{bodySum[body[i]][0] + p[0], bodySum[body[i]][1] + p[1], bodySum[body[i]][2] + p[2], bodySum[body[i]][3] + 1}
	}

	surf, err := os.ReadFile(filepath.Join(dir, car.Meshes[last]))
	if err != nil {
		t.Fatal(err)
	}
	m, err := mesh.Parse(surf, car.Meshes[last])
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("the surface mesh: %v", err)
	}
	spacing := 2 * car.ParticleRadius
	v, want := m.Volume(), float64(fluid)*spacing*spacing*spacing
	if math.Abs(v-want) > 0.15*want {
		t.Errorf("the surface encloses %.5f m³, the %d fluid particles fill %.5f m³", v, fluid, want)
	}
	t.Logf("the surface encloses %.5f m³, the %d fluid particles fill %.5f m³", v, fluid, want)
	// each body's mesh sits where its particles are: they are inside its box (give or take half a spacing) and their
	// centroid is the solid's within a spacing (the lattice samples the shape)
	for b, names := range car.BodyMeshes {
		data, err := os.ReadFile(filepath.Join(dir, names[last]))
		if err != nil {
			t.Fatal(err)
		}
		bm, err := mesh.Parse(data, names[last])
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := bm.Bounds()
		var c [3]float64 // the solid's centroid: Σ over the tetrahedra from the origin of their centroids × volumes
		total := bm.Volume()
		for _, tr := range bm.Triangles {
			a, b, d := bm.Vertices[tr[0]], bm.Vertices[tr[1]], bm.Vertices[tr[2]]
			vol := a.Dot(b.Cross(d)) / 6
			for k := range 3 {
				c[k] += (a[k] + b[k] + d[k]) / 4 * vol / total
			}
		}
		for k := range 3 {
			pc := bodySum[b][k] / bodySum[b][3]
			if bodyBox[b].lo[k] < lo[k]-spacing/2 || bodyBox[b].hi[k] > hi[k]+spacing/2 || math.Abs(pc-c[k]) > spacing {
				t.Errorf("body %d: mesh box %v–%v centroid %v, its particles' %v–%v centroid %v", b, lo, hi, c,
					bodyBox[b].lo, bodyBox[b].hi, pc)
				break
			}
		}
	}
	// a format that is not one is a usage error, before anything runs
	o.Mesh = "stl"
	if err := Export(o); err == nil || !strings.Contains(err.Error(), "obj, ply") {
		t.Errorf("--mesh stl: %v", err)
	}
}
