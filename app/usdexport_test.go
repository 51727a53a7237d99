package app

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/export/usd"
)

// usdSample is the one time sample of attribute name of the prim named prim in a frame layer, as written: the
// text after "N: ", without the trailing comma.
func usdSample(t *testing.T, text, prim, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, `"`+prim+`"`)
	if !ok {
		t.Fatalf("no prim %s", prim)
	}
	_, rest, ok = strings.Cut(rest, " "+name+".timeSamples = {\n")
	if !ok {
		t.Fatalf("%s has no samples of %s", prim, name)
	}
	line, _, _ := strings.Cut(rest, "\n")
	_, v, ok := strings.Cut(line, ": ")
	if !ok {
		t.Fatalf("%s.%s: sample line %q", prim, name, line)
	}
	return strings.TrimSuffix(v, ",")
}

// `slosh export --usd` writes the run as a stage with a layer per frame, whose particles are the PLY frame's and
// whose surface is the OBJ export's; the surfaces are the same whether the mesh export made them or the stage did.
func TestExportUSD(t *testing.T) {
	if testing.Short() {
		t.Skip("two headless exports; make test runs them")
	}
	refusesFlat(t, "--usd", func(o *ExportOptions) { o.USD = true })
	long := ExportOptions{Options: Options{Scene: "dambreak", Stderr: io.Discard}, Frames: usd.MaxFrames + 1,
		Out: filepath.Join(t.TempDir(), "long"), USD: true, Stdout: io.Discard}
	if err := Export(long); err == nil || !strings.Contains(err.Error(), "--usd") {
		t.Errorf("--usd with %d frames: %v, want a usage error naming --usd", long.Frames, err)
	}
	export2 := func(mesh string) string {
		dir := filepath.Join(t.TempDir(), "cache")
		o := ExportOptions{Options: Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Stderr: io.Discard,
			Sets: []string{"mesh.cell=0.5"}}, Frames: 2, Out: dir, USD: true, Mesh: mesh, Stdout: io.Discard}
		if err := Export(o); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir := export2("obj")
	car := readSidecar(t, dir)
	if car.Format != export.SidecarFormat || car.USD != usd.RootName || len(car.USDFrames) != 2 || car.USDFrames[1] != "usd.000002.usda" {
		t.Fatalf("sidecar: format %d, usd %q, frames %v", car.Format, car.USD, car.USDFrames)
	}
	root, err := os.ReadFile(filepath.Join(dir, usd.RootName))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"endTimeCode = 2", "framesPerSecond = 60", "templateEndTime = 2", `def Camera "Camera"`, `def Mesh "Surface"`} {
		if !bytes.Contains(root, []byte(want)) {
			t.Errorf("the root stage lacks %q", want)
		}
	}
	tuple := regexp.MustCompile(`\([^()]*\)`)
	for k, name := range car.USDFrames {
		text, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		n, cols := readPLYFile(t, filepath.Join(dir, car.Files[k]))
		pts := tuple.FindAllString(usdSample(t, string(text), "Particles", "points"), -1)
		if len(pts) != n {
			t.Fatalf("%s: %d points, the PLY frame %d", name, len(pts), n)
		}
		if want := "(" + fmtF32(cols[0].F32[0]) + ", " + fmtF32(cols[1].F32[0]) + ", " + fmtF32(cols[2].F32[0]) + ")"; pts[0] != want {
			t.Errorf("%s: first point %s, the PLY's %s", name, pts[0], want)
		}
		obj, err := os.ReadFile(filepath.Join(dir, car.Meshes[k]))
		if err != nil {
			t.Fatal(err)
		}
		faces := strings.Count(usdSample(t, string(text), "Surface", "faceVertexCounts"), "3")
		if objFaces := bytes.Count(obj, []byte("\nf ")); faces == 0 || faces != objFaces {
			t.Errorf("%s: %d faces, the OBJ %d", name, faces, objFaces)
		}
	}
	// the same run without --mesh: the stage meshes the surfaces itself, and they are the same
	alone := export2("")
	for _, name := range car.USDFrames {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, err := os.ReadFile(filepath.Join(alone, name))
		if err != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between the exports with and without --mesh (%v)", name, err)
		}
	}
}

func fmtF32(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) }
