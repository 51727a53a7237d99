package export

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// sandScene names a liquid, a granular material and a liquid whose name holds a line break and a quote.
func sandScene() *scene.Scene {
	return &scene.Scene{Materials: []scene.Material{
		{Name: "sand", Kind: scene.KindGranular, Density: 1600, Color: [3]float64{0.76, 0.6, 0.38}, FrictionAngle: 33},
		{Name: "oil \"light\"\nsecond line", Density: 800, Color: [3]float64{0.9, 0.7, 0.1}},
	}}
}

// The particle export says what each material number is (issue 27): the sidecar lists every number's name, kind
// and phase, and a frame's header names them in comments a PLY reader hands back, one line each whatever the
// names hold.
func TestMaterialsNamed(t *testing.T) {
	ms := SceneMaterials(sandScene())
	want := []Material{
		{Number: 0, Name: "water", Kind: "liquid", Phase: 0, Color: scene.DefaultMaterial().Color},
		{Number: 1, Name: "sand", Kind: "granular", Phase: int(scene.PhaseGranular), Color: [3]float64{0.76, 0.6, 0.38}},
		{Number: 2, Name: "oil \"light\"\nsecond line", Kind: "liquid", Phase: 0, Color: [3]float64{0.9, 0.7, 0.1}},
	}
	if !reflect.DeepEqual(ms, want) {
		t.Fatalf("SceneMaterials:\n got %+v\nwant %+v", ms, want)
	}

	// the sidecar
	path := filepath.Join(t.TempDir(), "export.json")
	if err := WriteSidecar(path, &Sidecar{Software: "slosh", Materials: ms}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var car struct {
		Format    int              `json:"format"`
		Materials []map[string]any `json:"materials"`
	}
	if err := json.Unmarshal(data, &car); err != nil {
		t.Fatal(err)
	}
	if car.Format < 4 || len(car.Materials) != 3 {
		t.Fatalf("sidecar format %d with %d materials:\n%s", car.Format, len(car.Materials), data)
	}
	if m := car.Materials[1]; m["number"] != 1.0 || m["name"] != "sand" || m["kind"] != "granular" || m["phase"] != 1.0 {
		t.Errorf("the sidecar's material 1 is %v, want sand, granular, phase 1", m)
	}

	// the frame's header
	f := &sim.Frame{}
	f.Resize(3)
	f.Material, f.Phase = []uint8{0, 1, 2}, []scene.Phase{scene.PhaseLiquid, scene.PhaseGranular, scene.PhaseLiquid}
	comments := append([]string{"slosh flip"}, MaterialComments(ms)...)
	var buf bytes.Buffer
	if err := WritePLY(&buf, f.N, FrameColumns(f), comments...); err != nil {
		t.Fatal(err)
	}
	_, cols, got, err := ReadPLY(&buf)
	if err != nil {
		t.Fatal(err)
	}
	wantComments := []string{"slosh flip",
		`material 0 "water" liquid, phase 0`,
		`material 1 "sand" granular, phase 1`,
		`material 2 "oil \"light\"\nsecond line" liquid, phase 0`}
	if !reflect.DeepEqual(got, wantComments) {
		t.Errorf("the header's comments:\n got %q\nwant %q", got, wantComments)
	}
	if names := Names(cols); !reflect.DeepEqual(names[len(names)-2:], []string{"material", "phase"}) {
		t.Errorf("columns %v", names)
	}
}

// A sidecar written before materials were listed (format 3) still decodes, without them.
func TestSidecarWithoutMaterials(t *testing.T) {
	old := []byte(`{"format": 3, "software": "slosh", "version": "v0.9", "mode": "flip", "scene": "dam-break",
		"params": {}, "frames": 1, "frame_dt": 0.016666666666666666, "time_step": "CFL 1", "steps": [2],
		"particle_radius": 0.01, "files": ["frame_000001.ply"], "columns": ["x", "y", "z"],
		"created": "2025-01-02T03:04:05Z"}`)
	var car Sidecar
	if err := json.Unmarshal(old, &car); err != nil {
		t.Fatal(err)
	}
	if car.Format != 3 || car.Frames != 1 || car.Materials != nil {
		t.Errorf("read %+v", car)
	}
}
