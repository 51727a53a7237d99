package scene

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fileContent is a copy of the scene without what is not part of the file: its Source and the loaded meshes (which
// are compared by name).
func fileContent(s *Scene) *Scene {
	c := s.Clone()
	c.Source = ""
	for i := range c.Fluid {
		c.Fluid[i].meshData = nil
	}
	for i := range c.Obstacles {
		c.Obstacles[i].meshData = nil
	}
	for i := range c.Bodies {
		c.Bodies[i].meshData = nil
	}
	return c
}

// roundTrip marshals the scene, parses it back as source and checks that it is the same scene, mesh shapes
// loaded, and that marshalling that gives the same bytes.
func roundTrip(t *testing.T, sc *Scene, source string) []byte {
	t.Helper()
	data, err := sc.Marshal()
	if err != nil {
		t.Fatalf("%s: %v", sc.Name, err)
	}
	back, err := Parse(data, source)
	if err != nil {
		t.Fatalf("%s: the marshalled scene does not parse: %v\n%s", sc.Name, err, data)
	}
	if !reflect.DeepEqual(fileContent(back), fileContent(sc)) {
		t.Fatalf("%s: the scene read back differs:\n%s\nwas %+v\nnow %+v", sc.Name, data, *fileContent(sc), *fileContent(back))
	}
	for i := range back.Fluid {
		if back.Fluid[i].Kind == ShapeMesh && back.Fluid[i].MeshData() == nil {
			t.Fatalf("%s: fluid[%d]'s mesh was not loaded", sc.Name, i)
		}
	}
	again, err := back.Marshal()
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("%s: marshalling the scene read back gives different bytes (%v):\n%s\n%s", sc.Name, err, data, again)
	}
	return data
}

func TestMarshalRoundTripsBuiltinScenes(t *testing.T) {
	for _, n := range BuiltinNames() {
		sc, err := Builtin(n)
		if err != nil {
			t.Fatal(err)
		}
		data := roundTrip(t, sc, "builtin:"+n)
		// the layout: one top-level field a line, one fluid block a line
		if lines := strings.Count(string(data), "\n"); lines < 6+len(sc.Fluid) {
			t.Errorf("%s: marshalled into %d lines:\n%s", n, lines, data)
		}
	}
}

func TestMarshalRoundTripsEverything(t *testing.T) {
	const src = `{"name": "everything", "description": "Fish & chips <b>", "mode": "flip",
		"domain": {"min": [-0.5, 0, -0.25], "max": [1.5, 1.2, 0.75]},
		"particles": {"spacing": 0.0173, "count": 12345},
		"fluid": [
			{"shape": "box", "center": [0.2, 0.3, 0.1], "size": [0.4, 0.6, 0.3], "rotation": [0, 0, 12.5], "velocity": [1e-5, -2, 0]},
			{"shape": "mesh", "mesh": "bunny.obj", "extent": 0.3, "center": [0.9, 0.5, 0.2], "rotation": [-90, 45, 0]},
			{"shape": "sphere", "center": [0, 0, 0], "radius": 0.1}
		],
		"obstacles": [
			{"shape": "capsule", "a": [0, 0, 0], "b": [1, 0.1, 0], "radius": 0.03},
			{"shape": "cylinder", "center": [0.5, 0.1, 0.2], "radius": 0.05, "height": 0.2, "rotation": [90, 0, 0],
				"motion": {"axis": [0.6, 0, 0.8], "amplitude": 0.1, "period": 1.5, "phase": 0.3}},
			{"shape": "mesh", "mesh": "bunny.obj", "extent": 0.2, "center": [1.2, 0.2, 0.5],
				"motion": {"axis": [0, 3, 0], "amplitude": 0.05, "period": 2}}
		],
		"bodies": [
			{"shape": "box", "center": [0.5, 0.9, 0.25], "size": [0.1, 0.1, 0.1], "density": 600, "spin": [0, 3, 0]},
			{"shape": "mesh", "mesh": "bunny.obj", "extent": 0.15, "center": [0.2, 0.9, 0.4], "density": 700, "velocity": [0, 0, 0.5]}
		],
		"emitters": [
			{"center": [0.5, 1.0, 0.25], "direction": [0, -1, 0], "radius": 0.04, "speed": 2},
			{"center": [0.1, 0.5, 0.1], "direction": [1, 2, 1], "radius": 0.02, "speed": 3.3, "start": 0.5, "stop": 2.25}
		],
		"blasts": [
			{"time": 0, "center": [0.5, 0.1, 0.25], "radius": 0.3, "speed": 4},
			{"time": 1.25, "center": [-0.5, 1.2, 0.75], "radius": 0.0123, "speed": 0.7}
		],
		"camera": {"eye": [0.5, 1, 2], "target": [0.5, 0.3, 0.25]},
		"params": {"pbf.iterations": 4, "pbf.gravity": [0, -9.81, 0], "render.color": "speed", "x.flag": true, "y.small": 1e-7}}`
	sc, err := Parse([]byte(src), "builtin:everything")
	if err != nil {
		t.Fatal(err)
	}
	data := roundTrip(t, sc, "builtin:everything")
	for _, want := range []string{`"Fish & chips <b>"`, `"mesh": "bunny.obj"`, `"emitters": [`, `"start": 0.5, "stop": 2.25`,
		`"blasts": [`, `{"time": 1.25, "center": [-0.5, 1.2, 0.75], "radius": 0.0123, "speed": 0.7}`,
		`"motion": {"axis": [0, 1, 0], "amplitude": 0.05, "period": 2}`, `"pbf.gravity": [0,-9.81,0]`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the marshalled scene lacks %s:\n%s", want, data)
		}
	}
	// a posed body, its rotation from EulerDegrees, reads back the same
	posed := sc.Clone()
	posed.Bodies[0].Shape = posed.Bodies[0].Posed(Vec3{0.5, 0.9, 0.25}, Vec3{0.4, 0.8, 0.3}, posed.Fluid[1].RotationMatrix())
	roundTrip(t, posed, "builtin:everything")

	// numbers a file cannot hold are errors naming the field
	bad := sc.Clone()
	bad.Emitters[1].Speed = math.NaN()
	if _, err := bad.Marshal(); err == nil || !strings.Contains(err.Error(), "emitters[1].speed") {
		t.Errorf("marshalling a NaN speed: %v", err)
	}
	bad = sc.Clone()
	bad.Blasts[0].Time = math.NaN()
	if _, err := bad.Marshal(); err == nil || !strings.Contains(err.Error(), "blasts[0].time") {
		t.Errorf("marshalling a NaN time: %v", err)
	}
	bad = sc.Clone()
	bad.Obstacles[1].Motion.Axis[0] = math.Inf(1)
	if _, err := bad.Marshal(); err == nil || !strings.Contains(err.Error(), "obstacles[1].motion.axis[0]") {
		t.Errorf("marshalling an infinite axis: %v", err)
	}
}

// A mesh beside the scene file keeps its relative name: saved into the same folder the scene loads again; saved
// elsewhere it needs the OBJ file there too.
func TestMarshalKeepsRelativeMeshNames(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"parts/cube.obj": cubeOBJ,
		"scene.json": `{"name": "cubes", "domain": {"min": [0, 0, 0], "max": [1, 1, 1]}, "particles": {"spacing": 0.05},
			"fluid": [{"shape": "box", "center": [0.5, 0.2, 0.5], "size": [1, 0.4, 1]}],
			"obstacles": [{"shape": "mesh", "mesh": "parts/cube.obj", "extent": 0.2, "center": [0.5, 0.5, 0.5]}]}`,
	})
	sc, err := LoadFile(filepath.Join(dir, "scene.json"))
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, sc, filepath.Join(dir, "copy.json"))
	data, _ := sc.Marshal()
	if !strings.Contains(string(data), `"mesh": "parts/cube.obj"`) {
		t.Errorf("the mesh's name changed:\n%s", data)
	}
	elsewhere := filepath.Join(t.TempDir(), "moved.json")
	if err := os.WriteFile(elsewhere, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(elsewhere); err == nil || !strings.Contains(err.Error(), "obstacles[0].mesh") {
		t.Errorf("a scene saved away from its mesh: %v", err)
	}
}
