package app

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/testenv"
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
		Sets: []string{"mesh.cell=0.4"}}, Frames: 2, Out: dir, VDB: true, Stdout: io.Discard}
	if err := Export(o); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, dir)
	voxel := float64(float32(0.4)) * 2 * car.ParticleRadius
	if car.Format != 5 || len(car.VDB) != 2 || car.VDB[1] != "surface_000002.vdb" || len(car.VDBGrids) != 1 ||
		car.VDBGrids[0] != "surface" || car.VDBVoxelSize != voxel {
		t.Fatalf("sidecar: format %d, vdb %v, grids %v, voxel size %g (want %g)", car.Format, car.VDB, car.VDBGrids, car.VDBVoxelSize, voxel)
	}
	for _, name := range car.VDB {
		path := filepath.Join(dir, name)
		if st, err := os.Stat(path); err != nil || st.Size() == 0 {
			t.Fatalf("%s: %v", name, err)
		}
		out, err := exec.Command(py, filepath.Join("..", "sim", "export", "vdb", "testdata", "readvdb.py"), path, "[]").Output()
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
		if !strings.HasPrefix(name, "surface_") {
			t.Errorf("%s: not named like the surface meshes", name)
		}
	}
}
