package app

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/export/usd"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/surface/field"
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

// The surface's velocities on the stage are the liquid's (for motion blur): a block of water moving at (1, 2, 3)
// m/s beside sand moving at (−5, 0, 0), one spacing apart, has (1, 2, 3) at every vertex of its surface (a weighted
// mean of equal vectors, to float32 rounding; the sand's would pull it away), and the sand's surface (−5, 0, 0); spinning at ω about its centre c, each
// vertex x reads ω × (x̄ − c) with x̄ the kernel-weighted mean of the particles within R of it, so within |ω|·R of
// ω × (x − c).
func TestUSDSurfaceVelocities(t *testing.T) {
	const n, h = 6, 0.02
	omega := [3]float32{0, 0, 2}
	for _, spin := range []bool{false, true} {
		f := sandAndWater(n, n, 1, h)
		c := [3]float32{h + (n-1)*h/2, h + (n-1)*h/2, h + (n-1)*h/2} // the water block's centre
		for i := range f.N {
			switch {
			case f.Phase[i] != scene.PhaseLiquid:
				f.Vel[i] = [4]float32{-5, 0, 0, 0}
			case spin:
				r := [3]float32{f.Pos[i][0] - c[0], f.Pos[i][1] - c[1], f.Pos[i][2] - c[2]}
				f.Vel[i] = [4]float32{omega[1]*r[2] - omega[2]*r[1], omega[2]*r[0] - omega[0]*r[2], omega[0]*r[1] - omega[1]*r[0], 0}
			default:
				f.Vel[i] = [4]float32{1, 2, 3, 0}
			}
		}
		dir := t.TempDir()
		cw, err := newCacheWriter(dir, "flip", sandFrameScene(), param.NewSet())
		if err != nil {
			t.Fatal(err)
		}
		s := field.DefaultSettings()
		cw.setUSD(newUSDExport(s, sandFrameScene(), nil, "test"))
		if err := cw.write(f); err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(filepath.Join(dir, usd.FrameName(1)))
		if err != nil {
			t.Fatal(err)
		}
		tuple := regexp.MustCompile(`\(([^()]*)\)`)
		parse := func(name string) [][3]float64 {
			var out [][3]float64
			for _, m := range tuple.FindAllStringSubmatch(usdSample(t, string(text), "Surface", name), -1) {
				var v [3]float64
				if _, err := fmt.Sscanf(m[1], "%g, %g, %g", &v[0], &v[1], &v[2]); err != nil {
					t.Fatalf("%s %q: %v", name, m[1], err)
				}
				out = append(out, v)
			}
			return out
		}
		pts, vel := parse("points"), parse("velocities")
		if len(pts) == 0 || len(vel) != len(pts) {
			t.Fatalf("%d surface velocities for %d vertices", len(vel), len(pts))
		}
		cfg, err := s.Config(2*float64(f.Radius), 0)
		if err != nil {
			t.Fatal(err)
		}
		bound := 2 * cfg.Support // |ω| R
		worst := 0.0
		for k, x := range pts {
			want := [3]float64{1, 2, 3}
			if spin {
				r := [3]float64{x[0] - float64(c[0]), x[1] - float64(c[1]), x[2] - float64(c[2])}
				want = [3]float64{-2 * r[1], 2 * r[0], 0}
			}
			d := math.Sqrt((vel[k][0]-want[0])*(vel[k][0]-want[0]) + (vel[k][1]-want[1])*(vel[k][1]-want[1]) + (vel[k][2]-want[2])*(vel[k][2]-want[2]))
			worst = max(worst, d)
			if !spin && d > 1e-5 || spin && d > bound {
				t.Fatalf("spin %v: vertex %v reads %v, want %v", spin, x, vel[k], want)
			}
		}
		t.Logf("spin %v: %d vertices, farthest %.3g m/s from ω × (x − c) or the translation (bound %.3g)", spin, len(pts), worst, bound)
		// the sand's own surface moves with the sand
		sandVel := tuple.FindAllStringSubmatch(usdSample(t, string(text), "sand", "velocities"), -1)
		if len(sandVel) == 0 {
			t.Fatal("the sand's surface has no velocities")
		}
		for _, v := range sandVel {
			if v[1] != "-5, 0, 0" {
				t.Fatalf("the sand's surface reads %s, want -5, 0, 0", v[1])
			}
		}
	}
}
