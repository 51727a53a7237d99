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
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/testenv"
	"github.com/slosh/slosh/sim/export"
)

// `slosh export --vdb` writes each frame's fluid surface as an OpenVDB level set beside the frames, listed in the
// sidecar, which OpenVDB itself reads: one grid named surface, a level set, of voxels mesh.cell spacings wide.
func TestExportVDB(t *testing.T) {
	if testing.Short() {
		t.Skip("a headless run of the app and OpenVDB's reader; make test runs it")
	}
	// A 2D mode has no fluid surface: a usage error, before anything is simulated.
	flat := ExportOptions{Options: Options{Scene: "reduced-1", Mode: "reduced", Stderr: io.Discard}, Frames: 1,
		Out: filepath.Join(t.TempDir(), "flat"), VDB: true, Stdout: io.Discard}
	if err := Export(flat); err == nil || !strings.Contains(err.Error(), "--vdb") {
		t.Errorf("a 2D mode's export with --vdb: %v, want a usage error naming --vdb", err)
	}
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
