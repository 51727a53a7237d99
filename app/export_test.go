package app

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/scene"
)

// `slosh export` writes one readable PLY per frame with the frame's particles, and a sidecar that lists them with
// the scene and parameters; an unwritable folder is a clear error.
func TestExportWritesFramesAndSidecar(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	o := ExportOptions{Options: Options{Scene: "fountain", Mode: "pbf-cpu", Particles: 1500, Stderr: io.Discard}, Frames: 3, Out: dir, Stdout: io.Discard}
	if err := Export(o); err != nil {
		t.Fatal(err)
	}
	var car export.Sidecar
	data, err := os.ReadFile(filepath.Join(dir, SidecarName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &car); err != nil {
		t.Fatal(err)
	}
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
		Material: []uint8{0, 1}, Palette: [][3]float32{{0, 0, 1}, {1, 0, 0}},
		Radius: 0.01, Time: 0.5, Steps: 30,
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
