package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/testenv"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/surface/field"
)

// `slosh export --vdb` writes each frame's fluid surface as an OpenVDB level set beside the frames, listed in the
// sidecar, which OpenVDB itself reads: one grid named surface, a level set, of voxels mesh.cell spacings wide.
func TestExportVDB(t *testing.T) {
	if testing.Short() {
		t.Skip("a headless run of the app and OpenVDB's reader; make test runs it")
	}
	refusesFlat(t, "--vdb", func(o *ExportOptions) { o.VDB = true })
	py := testenv.Python(t, "pyopenvdb", "python3-openvdb")
	dir := filepath.Join(t.TempDir(), "cache")
	o := ExportOptions{Options: Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Stderr: io.Discard,
		Sets: []string{"mesh.cell=0.4"}}, Frames: 2, Out: dir, VDB: true, Mesh: "obj", Stdout: io.Discard}
	if err := Export(o); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, dir)
	voxel := float64(float32(0.4)) * 2 * car.ParticleRadius
	if car.Format != export.SidecarFormat || len(car.VDB) != 2 || car.VDB[1] != "surface_000002.vdb" || len(car.VDBGrids) != 1 ||
		car.VDBGrids[0] != "surface" || car.VDBVoxelSize != voxel {
		t.Fatalf("sidecar: format %d, vdb %v, grids %v, voxel size %g (want %g)", car.Format, car.VDB, car.VDBGrids, car.VDBVoxelSize, voxel)
	}
	for _, name := range car.VDB {
		path := filepath.Join(dir, name)
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", name, err)
		}
		// the voxels nearest the vertices of the same frame's exported mesh (voxel (i,j,k) lies at voxel·(i,j,k))
		probes := meshVoxels(t, filepath.Join(dir, strings.TrimSuffix(name, ".vdb")+".obj"), voxel)
		probeFile := filepath.Join(t.TempDir(), "probes.json")
		if data, err := json.Marshal(probes); err != nil || os.WriteFile(probeFile, data, 0o644) != nil {
			t.Fatalf("probes: %v", err)
		}
		out, err := exec.Command(py, filepath.Join("..", "sim", "export", "vdb", "testdata", "readvdb.py"), path, "@"+probeFile).Output()
		if err != nil {
			t.Fatalf("OpenVDB did not read %s: %v", name, err)
		}
		lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
		var rb struct {
			Grids []struct {
				Name, Class string
				Voxel       []float64
				Background  float64
				Active      int64
				Values      []struct {
					Value  float64
					Active bool
				}
			}
		}
		if err := json.Unmarshal(lines[len(lines)-1], &rb); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if len(rb.Grids) != 1 {
			t.Fatalf("%s: %d grids, want 1", name, len(rb.Grids))
		}
		g := rb.Grids[0]
		if g.Name != "surface" || g.Class != "level set" || len(g.Voxel) != 3 || g.Voxel[0] != voxel ||
			float32(g.Background) != float32(3*voxel) || g.Active == 0 {
			t.Errorf("%s: %+v; want surface, a level set, voxel %g, background %g, active voxels", name, g, voxel, float32(3*voxel))
		}
		// the level set's zero crossing lies within a voxel of the mesh: the voxel nearest each vertex is in the
		// band and its distance is at most a voxel (issue 32's read-back check, through the export command)
		if len(g.Values) != len(probes) || len(probes) < 100 {
			t.Fatalf("%s: %d values for %d mesh vertices", name, len(g.Values), len(probes))
		}
		far := 0
		for k, v := range g.Values {
			if !v.Active || math.Abs(v.Value) > voxel {
				if far++; far <= 3 {
					t.Errorf("%s: voxel %v beside a mesh vertex reads %g (active %v), more than a voxel (%g) from the surface",
						name, probes[k], v.Value, v.Active, voxel)
				}
			}
		}
		if far > 0 {
			t.Errorf("%s: %d of %d mesh vertices lie more than a voxel from the level set's zero crossing", name, far, len(probes))
		}
		if !strings.HasPrefix(name, "surface_") {
			t.Errorf("%s: not named like the surface meshes", name)
		}
		// OpenVDB's own mesher puts the surface where slosh's marching cubes did: the two meshes' boxes agree to a
		// quarter of a voxel (the two methods place vertices differently within a voxel; a half-voxel shift of the
		// grid, Blender 3.4's, would fail)
		lo, hi := objBounds(t, filepath.Join(dir, strings.TrimSuffix(name, ".vdb")+".obj"))
		m := openVDBMeshes(t, py, path)["surface"]
		for k := range 3 {
			if m.Faces == 0 || math.Abs(m.Lo[k]-lo[k]) > voxel/4 || math.Abs(m.Hi[k]-hi[k]) > voxel/4 {
				t.Errorf("%s: OpenVDB meshes the level set to %v–%v (%d faces), the OBJ spans %v–%v: more than a quarter voxel (%g) apart",
					name, m.Lo, m.Hi, m.Faces, lo, hi, voxel/4)
				break
			}
		}
	}
}

// refusesFlat checks that an export of a 2D mode with the option flag (set sets it) is a usage error naming flag,
// before anything is simulated: a 2D mode's tracers mark the flow and make no fluid surface.
func refusesFlat(t *testing.T, flag string, set func(*ExportOptions)) {
	t.Helper()
	flat := ExportOptions{Options: Options{Scene: "reduced-1", Mode: "reduced", Stderr: io.Discard}, Frames: 1,
		Out: filepath.Join(t.TempDir(), "flat"), Stdout: io.Discard}
	set(&flat)
	if err := Export(flat); err == nil || !strings.Contains(err.Error(), flag) {
		t.Errorf("a 2D mode's export with %s: %v, want a usage error naming it", flag, err)
	}
}

// vdbMesh is a level set grid meshed by OpenVDB's own mesher (testdata/meshvdb.py): its box and face count.
type vdbMesh struct {
	Lo, Hi []float64
	Faces  int
}

// openVDBMeshes meshes every level set grid of the VDB file at path with OpenVDB, by grid name.
func openVDBMeshes(t *testing.T, py, path string) map[string]vdbMesh {
	t.Helper()
	out, err := exec.Command(py, filepath.Join("..", "sim", "export", "vdb", "testdata", "meshvdb.py"), path).Output()
	if err != nil {
		t.Fatalf("OpenVDB did not mesh %s: %v", path, err)
	}
	var m map[string]vdbMesh
	if err := json.Unmarshal(bytes.TrimSpace(out), &m); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, out)
	}
	return m
}

// objBounds is the box of an OBJ file's vertices.
func objBounds(t *testing.T, path string) (lo, hi [3]float64) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, line := range strings.Split(string(data), "\n") {
		var v [3]float64
		if n, _ := fmt.Sscanf(line, "v %g %g %g", &v[0], &v[1], &v[2]); n != 3 {
			continue
		}
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], v[k]), max(hi[k], v[k])
		}
	}
	return lo, hi
}

// Sand and solids get level sets of their own beside the liquid's (issue 32: "solid materials (sand, solids) as
// their own level sets"): a block of water beside a block of sand, or of jelly (an elastic solid), gives a file with
// grids surface and the material's, each a level set that OpenVDB meshes around its own block's particles and not
// the other's.
func TestExportVDBSand(t *testing.T) {
	if testing.Short() {
		t.Skip("OpenVDB's reader; make test runs it")
	}
	py := testenv.Python(t, "pyopenvdb", "python3-openvdb")
	const n, h = 6, 0.02
	f := sandAndWater(n, n, 3, h)
	water, other := [2]float64{h, n * h}, [2]float64{(n + 4) * h, (2*n + 3) * h} // the blocks' particles in x
	jelly := sandFrameScene()
	jelly.Materials[0].Name, jelly.Materials[0].Kind = "jelly", scene.KindElastic
	for _, sc := range []*scene.Scene{sandFrameScene(), jelly} {
		name := sc.Materials[0].Name
		dir := t.TempDir()
		cw, err := newCacheWriter(dir, "sph", sc, param.NewSet())
		if err != nil {
			t.Fatal(err)
		}
		cw.setVDB(newVDBExport(field.DefaultSettings(), false, false))
		if err := cw.write(f); err != nil {
			t.Fatal(err)
		}
		if err := cw.finish(); err != nil {
			t.Fatal(err)
		}
		car := readSidecar(t, dir)
		if !slices.Equal(car.VDBGrids, []string{"surface", name}) || len(car.VDB) != 1 {
			t.Fatalf("sidecar: grids %v, files %v; want surface and %s", car.VDBGrids, car.VDB, name)
		}
		meshes := openVDBMeshes(t, py, filepath.Join(dir, car.VDB[0]))
		for grid, want := range map[string][2]float64{"surface": water, name: other} {
			m, ok := meshes[grid]
			if !ok || m.Faces == 0 {
				t.Fatalf("no level set %s in %v", grid, meshes)
			}
			// its box in x is its particles' box widened by at most the surface's reach (two spacings)
			if m.Lo[0] > want[0] || m.Hi[0] < want[1] || m.Lo[0] < want[0]-2*h || m.Hi[0] > want[1]+2*h {
				t.Errorf("%s spans x %.3f–%.3f, its particles %.3f–%.3f", grid, m.Lo[0], m.Hi[0], want[0], want[1])
			}
		}
	}
}

// meshVoxels reads an OBJ's vertices and returns the voxel nearest each (voxel (i,j,k) at voxel·(i,j,k)), once each.
func meshVoxels(t *testing.T, path string, voxel float64) [][3]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[3]int]bool{}
	var out [][3]int
	for _, line := range strings.Split(string(data), "\n") {
		var x, y, z float64
		if n, _ := fmt.Sscanf(line, "v %g %g %g", &x, &y, &z); n != 3 {
			continue
		}
		ijk := [3]int{int(math.Round(x / voxel)), int(math.Round(y / voxel)), int(math.Round(z / voxel))}
		if !seen[ijk] {
			seen[ijk] = true
			out = append(out, ijk)
		}
	}
	return out
}

// --vdb-density adds a fog volume named density beside the level set, as OpenVDB's sdfToFogVolume makes one: read
// back by OpenVDB, a fog volume whose voxel in the middle of the dam break's column (its centre, 0.25 0.3 0.3,
// a frame in) is 1 and active, and whose voxel in the air above the far end is 0.
func TestExportVDBDensity(t *testing.T) {
	if testing.Short() {
		t.Skip("a headless run of the app and OpenVDB's reader; make test runs it")
	}
	if err := Export(ExportOptions{Options: Options{Scene: "dambreak", Stderr: io.Discard}, Frames: 1,
		Out: filepath.Join(t.TempDir(), "no-vdb"), VDBDensity: true, Stdout: io.Discard}); err == nil || !strings.Contains(err.Error(), "--vdb") {
		t.Errorf("--vdb-density without --vdb: %v, want a usage error naming --vdb", err)
	}
	py := testenv.Python(t, "pyopenvdb", "python3-openvdb")
	dir := filepath.Join(t.TempDir(), "cache")
	if err := Export(ExportOptions{Options: Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Stderr: io.Discard},
		Frames: 1, Out: dir, VDB: true, VDBDensity: true, Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, dir)
	if len(car.VDB) != 1 || strings.Join(car.VDBGrids, ",") != "surface,density" {
		t.Fatalf("sidecar: vdb %v, grids %v; want one file of surface and density", car.VDB, car.VDBGrids)
	}
	voxel := car.VDBVoxelSize
	probes := [][3]int{
		{int(math.Round(0.25 / voxel)), int(math.Round(0.3 / voxel)), int(math.Round(0.3 / voxel))},
		{int(math.Round(1.5 / voxel)), int(math.Round(0.9 / voxel)), int(math.Round(0.3 / voxel))},
	}
	data, _ := json.Marshal(probes)
	out, err := exec.Command(py, filepath.Join("..", "sim", "export", "vdb", "testdata", "readvdb.py"),
		filepath.Join(dir, car.VDB[0]), string(data), "surface", "density").Output()
	if err != nil {
		t.Fatalf("OpenVDB did not read %s: %v", car.VDB[0], err)
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	var rb struct {
		Grids []struct {
			Name, Class string
			Active      int64
			Values      []struct {
				Value  float64
				Active bool
			}
		}
	}
	if err := json.Unmarshal(lines[len(lines)-1], &rb); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rb.Grids) != 2 || rb.Grids[0].Name != "surface" || rb.Grids[1].Name != "density" {
		t.Fatalf("grids %+v; want surface and density", rb.Grids)
	}
	fog := rb.Grids[1]
	if fog.Class != "fog volume" || fog.Active == 0 || len(fog.Values) != 2 {
		t.Fatalf("density: %+v; want an active fog volume", fog)
	}
	if in, air := fog.Values[0], fog.Values[1]; in.Value != 1 || !in.Active || air.Value != 0 || air.Active {
		t.Errorf("density inside the column %+v (want 1, active), in the air %+v (want 0, inactive)", in, air)
	}
}

// vdbRead is what readvdb.py printed of a file's grids.
type vdbRead struct {
	Grids []struct {
		Name, Class, Type string
		VectorType        string `json:"vector_type"`
		Voxel             []float64
		Active            int64
		Values            []struct {
			Value  float64   // a float grid's
			Vec    []float64 // a vector grid's
			Active bool
		}
	}
}

// readVDB reads the VDB file at path with OpenVDB (python py), sampling probes, its grids in the order given.
func readVDB(t *testing.T, py, path string, probes [][3]int, order ...string) vdbRead {
	t.Helper()
	probeFile := filepath.Join(t.TempDir(), "probes.json")
	if probes == nil {
		probes = [][3]int{}
	}
	if data, err := json.Marshal(probes); err != nil || os.WriteFile(probeFile, data, 0o644) != nil {
		t.Fatalf("probes: %v", err)
	}
	args := append([]string{filepath.Join("..", "sim", "export", "vdb", "testdata", "readvdb.py"), path, "@" + probeFile}, order...)
	out, err := exec.Command(py, args...).Output()
	if err != nil {
		t.Fatalf("OpenVDB did not read %s: %v", path, err)
	}
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	var rb vdbRead
	if err := json.Unmarshal(lines[len(lines)-1], &rb); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, out)
	}
	if len(rb.Grids) != len(order) {
		t.Fatalf("%s: %d grids, want %v", path, len(rb.Grids), order)
	}
	for i, g := range rb.Grids {
		if g.Name != order[i] || len(g.Values) != len(probes) {
			t.Fatalf("%s: grid %d is %q with %d values; want %q with %d", path, i, g.Name, len(g.Values), order[i], len(probes))
		}
	}
	return rb
}

// --vdb-velocity adds a vector grid named velocity on the level set's band, after the density: read back by
// OpenVDB, vec3s, a velocity ("contravariant relative"), of the level set's voxel size and active voxels; at the
// voxels beside the frame's mesh, the kernel-weighted mean of the velocities of the particles of the frame's PLY
// within the surface's kernel radius, summed here over every particle (1e-5 relative).
func TestExportVDBVelocity(t *testing.T) {
	if testing.Short() {
		t.Skip("a headless run of the app and OpenVDB's reader; make test runs it")
	}
	if err := Export(ExportOptions{Options: Options{Scene: "dambreak", Stderr: io.Discard}, Frames: 1,
		Out: filepath.Join(t.TempDir(), "no-vdb"), VDBVelocity: true, Stdout: io.Discard}); err == nil || !strings.Contains(err.Error(), "--vdb") {
		t.Errorf("--vdb-velocity without --vdb: %v, want a usage error naming --vdb", err)
	}
	py := testenv.Python(t, "pyopenvdb", "python3-openvdb")
	dir := filepath.Join(t.TempDir(), "cache")
	if err := Export(ExportOptions{Options: Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Stderr: io.Discard},
		Frames: 2, Out: dir, VDB: true, VDBDensity: true, VDBVelocity: true, Mesh: "obj", Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, dir)
	if len(car.VDB) != 2 || strings.Join(car.VDBGrids, ",") != "surface,density,velocity" {
		t.Fatalf("sidecar: vdb %v, grids %v; want two files of surface, density and velocity", car.VDB, car.VDBGrids)
	}
	voxel := car.VDBVoxelSize
	cfg, err := field.DefaultSettings().Config(2*car.ParticleRadius, 0)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Cell != voxel {
		t.Fatalf("the default mesh settings' cell %g, the files' voxel %g", cfg.Cell, voxel)
	}
	// the last frame's particles (the dam break's are all water)
	n, cols := readPLYFile(t, filepath.Join(dir, car.Files[1]))
	if names := strings.Join(export.Names(cols), " "); !strings.HasPrefix(names, "x y z vx vy vz ") || strings.Contains(names, "body") {
		t.Fatalf("the frame's columns: %s", names)
	}
	probes := meshVoxels(t, filepath.Join(dir, strings.TrimSuffix(car.VDB[1], ".vdb")+".obj"), voxel)
	rb := readVDB(t, py, filepath.Join(dir, car.VDB[1]), probes, "surface", "density", "velocity")
	surf, vel := rb.Grids[0], rb.Grids[2]
	if vel.Type != "vec3s" || vel.Class != "unknown" || vel.VectorType != "contravariant relative" ||
		len(vel.Voxel) != 3 || vel.Voxel[0] != surf.Voxel[0] || vel.Active != surf.Active || vel.Active == 0 {
		t.Fatalf("velocity: %s, class %s, vector type %q, voxel %v, %d active voxels; want vec3s, unknown, contravariant relative, the surface's voxel %v and %d",
			vel.Type, vel.Class, vel.VectorType, vel.Voxel, vel.Active, surf.Voxel, surf.Active)
	}
	var fastest float64
	for k, v := range vel.Values {
		x := [3]float64{voxel * float64(probes[k][0]), voxel * float64(probes[k][1]), voxel * float64(probes[k][2])}
		var w float64
		var wv [3]float64
		for i := range n {
			d := [3]float64{float64(cols[0].F32[i]) - x[0], float64(cols[1].F32[i]) - x[1], float64(cols[2].F32[i]) - x[2]}
			if q := (d[0]*d[0] + d[1]*d[1] + d[2]*d[2]) / (cfg.Support * cfg.Support); q < 1 {
				k := (1 - q) * (1 - q) * (1 - q)
				w += k
				for a := range 3 {
					wv[a] += k * float64(cols[3+a].F32[i])
				}
			}
		}
		var want [3]float64
		if w > 0 {
			want = [3]float64{wv[0] / w, wv[1] / w, wv[2] / w}
		}
		size := math.Sqrt(want[0]*want[0] + want[1]*want[1] + want[2]*want[2])
		fastest = max(fastest, size)
		off := math.Sqrt((v.Vec[0]-want[0])*(v.Vec[0]-want[0]) + (v.Vec[1]-want[1])*(v.Vec[1]-want[1]) + (v.Vec[2]-want[2])*(v.Vec[2]-want[2]))
		if v.Active != surf.Values[k].Active || off > 1e-5*(1+size) {
			t.Fatalf("voxel %v: velocity %v (active %v), surface active %v; want the surface's band and the particles' mean %v",
				probes[k], v.Vec, v.Active, surf.Values[k].Active, want)
		}
	}
	t.Logf("%d voxels at the surface read the particles' mean velocities, the fastest %.3g m/s", len(probes), fastest)
}

// The velocity grid takes only the liquid's particles, the ones the surface is made from: a block of water moving
// at (1, 2, 3) m/s with a rigid body's particles moving otherwise beside and inside it reads (1, 2, 3) at every band
// voxel (zero beyond R of the water); a frame without particles writes a file of empty grids.
func TestVDBVelocityLiquidOnly(t *testing.T) {
	py := testenv.Python(t, "pyopenvdb", "python3-openvdb")
	const s = 0.02
	var fr sim.Frame
	for i := range 20 { // first a body's particles, in a row through the block and beyond it
		fr.Pos = append(fr.Pos, [4]float32{float32(s * float64(i)), 3.5 * s, 3.5 * s})
		fr.Vel = append(fr.Vel, [4]float32{-5, 0, 0})
		fr.Body = append(fr.Body, 0)
	}
	for k := range 8 {
		for j := range 8 {
			for i := range 10 {
				fr.Pos = append(fr.Pos, [4]float32{float32(s * float64(i)), float32(s * float64(j)), float32(s * float64(k))})
				fr.Vel = append(fr.Vel, [4]float32{1, 2, 3})
				fr.Body = append(fr.Body, -1)
			}
		}
	}
	fr.N, fr.Radius = len(fr.Pos), s/2
	for i := range fr.N {
		fr.ID = append(fr.ID, uint32(i))
	}
	dir := t.TempDir()
	e := newVDBExport(field.DefaultSettings(), false, true)
	name, err := e.write(dir, 1, &fr)
	if err != nil {
		t.Fatal(err)
	}
	var probes [][3]int
	for _, v := range e.last.ActiveLeafVoxels(nil) {
		probes = append(probes, [3]int{int(v[0]), int(v[1]), int(v[2])})
	}
	rb := readVDB(t, py, filepath.Join(dir, name), probes, "surface", "velocity")
	if rb.Grids[1].Active != rb.Grids[0].Active || rb.Grids[1].Active != int64(len(probes)) || len(probes) == 0 {
		t.Fatalf("velocity: %d active voxels, the surface %d, its leaves %d", rb.Grids[1].Active, rb.Grids[0].Active, len(probes))
	}
	moving := 0
	for k, v := range rb.Grids[1].Values {
		if v.Vec[0] == 0 && v.Vec[1] == 0 && v.Vec[2] == 0 {
			continue
		}
		moving++
		if math.Abs(v.Vec[0]-1) > 1e-5 || math.Abs(v.Vec[1]-2) > 1e-5 || math.Abs(v.Vec[2]-3) > 1e-5 {
			t.Fatalf("voxel %v reads %v, want the water's (1, 2, 3): the body's particles left out", probes[k], v.Vec)
		}
	}
	if moving < len(probes)/2 {
		t.Errorf("%d of %d band voxels read the water's velocity", moving, len(probes))
	}

	empty := sim.Frame{Radius: s / 2}
	name, err = e.write(dir, 2, &empty)
	if err != nil {
		t.Fatal(err)
	}
	rb = readVDB(t, py, filepath.Join(dir, name), nil, "surface", "velocity")
	if rb.Grids[0].Active != 0 || rb.Grids[1].Active != 0 || rb.Grids[1].Type != "vec3s" {
		t.Errorf("an empty frame: %d and %d active voxels, velocity of %s; want none, vec3s", rb.Grids[0].Active, rb.Grids[1].Active, rb.Grids[1].Type)
	}
}
