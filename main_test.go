package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/sim/pbf"
)

// slosh is the binary built once by TestMain; the tests run it as a user would.
var slosh string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "slosh-cli-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	slosh = filepath.Join(dir, "slosh")
	build := exec.Command("go", "build", "-o", slosh, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building slosh: %v\n", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	code           int
	stdout, stderr string
}

// noDisplay is the environment without any display.
func noDisplay() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			env = append(env, kv)
		}
	}
	return env
}

// runSlosh executes slosh with args in env (nil: this process's environment).
func runSlosh(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(slosh, args...)
	cmd.Env = env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("slosh %s: %v", strings.Join(args, " "), err)
	}
	if strings.Contains(r.stderr, "goroutine ") || strings.Contains(r.stderr, "panic:") {
		t.Fatalf("slosh %s panicked:\n%s", strings.Join(args, " "), r.stderr)
	}
	return r
}

// expect checks the exit status and that stderr holds every want.
func (r result) expect(t *testing.T, code int, want ...string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
	for _, w := range want {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not say %q:\n%s", w, r.stderr)
		}
	}
}

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sceneWith is a small valid scene file with the given extra members.
func sceneWith(extra string) string {
	return `{
  "name": "tank",
  "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.4]},
  "particles": {"spacing": 0.04},
  "fluid": [{"shape": "box", "center": [0.2, 0.1, 0.2], "size": [0.4, 0.2, 0.4]}]` + extra + `
}`
}

func statsLines(out string) []string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

func TestRunCPUModeNeedsNoDisplay(t *testing.T) {
	r := runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", "pool", "--frames", "3")
	r.expect(t, 0)
	lines := statsLines(r.stdout)
	if len(lines) != 3 {
		t.Fatalf("%d stats lines, want 3:\n%s", len(lines), r.stdout)
	}
	var header []string // the columns: frame, time, substeps, step time, particles, speed, then PBF's figures
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, "# frame") {
			header = strings.Fields(strings.TrimPrefix(l, "#"))
		}
	}
	want := []string{"frame", "time_s", "substeps", "step_ms", "particles", "max_speed_m/s", "density_error_mean_%",
		"density_error_max_%", "neighbours_mean", "neighbours_max"}
	if fmt.Sprint(header) != fmt.Sprint(want) {
		t.Errorf("column header %q, want %q:\n%s", header, want, r.stdout)
	}
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != len(want) || f[0] != fmt.Sprint(i+1) || f[4] != "36000" || f[2] != "4" {
			t.Errorf("stats line %d: %q; want %d columns: frame %d, 4 substeps, 36000 particles", i+1, l, len(want), i+1)
		}
	}
}

func TestUnknownScene(t *testing.T) {
	r := runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", "atlantis", "--frames", "1")
	r.expect(t, 1, `"atlantis"`, "dambreak", "double-dambreak", "obstacles", "pool")
}

func TestMalformedSceneFiles(t *testing.T) {
	syntax := writeFile(t, "broken.json", "{\n  \"name\": \"broken\",\n  \"domain\": {\"min\": [0, 0, 0] \"max\": [1, 1, 1]}\n}\n")
	r := runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", syntax, "--frames", "1")
	r.expect(t, 1, syntax, "line 3")

	field := writeFile(t, "field.json", `{
  "name": "field",
  "domain": {"min": [0, 0, 0], "max": [1, 1, 1]},
  "particles": {"spacing": 0.05},
  "fluid": [{"shape": "box", "center": [0.5, 0.5, 0.5], "size": [0.2, -1, 0.2]}]
}`)
	r = runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", field, "--frames", "1")
	r.expect(t, 1, field, "fluid[0].size")

	unknown := writeFile(t, "unknown.json", sceneWith(`, "gravity": [0, -9.81, 0]`))
	r = runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", unknown, "--frames", "1")
	r.expect(t, 1, unknown, "gravity", "unknown field")

	r = runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", filepath.Join(t.TempDir(), "missing.json"), "--frames", "1")
	r.expect(t, 1, "missing.json", "does not exist")
}

func TestInvalidSet(t *testing.T) {
	r := runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", "pool", "--frames", "1", "--set", "pbf.iterations=1000")
	r.expect(t, 2, "pbf.iterations", "[1, 100]")
	r = runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", "pool", "--frames", "1", "--set", "nope=1")
	r.expect(t, 2, "unknown parameter", `"nope"`)
	r = runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", "pool", "--frames", "1", "--set", "pbf.gravity=down")
	r.expect(t, 2, "pbf.gravity")
	r = runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", "pool", "--frames", "1", "--set", "pbf.iterations")
	r.expect(t, 2, "name=value")
	// the window checks --set before it looks for a display
	r = runSlosh(t, noDisplay(), "--scene", "pool", "--set", "pbf.substeps=0")
	r.expect(t, 2, "pbf.substeps", "[1, 256]")
	// a typo gets a suggestion
	r = runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", "pool", "--frames", "1", "--set", "pbf.iteratons=3")
	r.expect(t, 2, "did you mean pbf.iterations")
	// render parameters are checked even where nothing is rendered, and without a display
	r = runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", "pool", "--frames", "1", "--set", "render.speed_max=500")
	r.expect(t, 2, "render.speed_max=500", "[0.01, 100]")
}

func TestSceneParams(t *testing.T) {
	other := writeFile(t, "other.json", sceneWith(`, "params": {"flip.pic_ratio": 0.05, "pbf.iterations": 2}`))
	r := runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", other, "--frames", "1")
	r.expect(t, 0, other, "flip.pic_ratio", "another mode")

	typo := writeFile(t, "typo.json", sceneWith(`, "params": {"pbf.iteratons": 2}`))
	r = runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", typo, "--frames", "1")
	r.expect(t, 1, typo, `unknown parameter "pbf.iteratons"`)
}

func TestFluidInsideObstacleIsAnError(t *testing.T) {
	buried := writeFile(t, "buried.json", sceneWith(`,
  "obstacles": [{"shape": "box", "center": [0.2, 0.2, 0.2], "size": [0.4, 0.4, 0.4]}]`))
	r := runSlosh(t, noDisplay(), "run", "--mode", "pbf-cpu", "--scene", buried, "--frames", "1")
	r.expect(t, 1, "no fluid particles")
	if len(statsLines(r.stdout)) != 0 {
		t.Errorf("stats printed for a scene without particles:\n%s", r.stdout)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"run", "--bogus"},
		{"--bogus"},
		{"bench", "--frames", "many"},
		{"run", "--scene", "pool", "extra"},
		{"run", "--mode", "warp", "--scene", "pool"},
		{"run", "--scene", "pool", "--frames", "0"},
		{"run", "--scene", "pool", "--gl", "3.3", "--mode", "pbf-cpu"},
		{"params", "--mode", "warp"},
		{"help", "frobnicate"},
	} {
		r := runSlosh(t, noDisplay(), args...)
		if r.code != 2 || !strings.Contains(r.stderr, "slosh") || !strings.Contains(strings.ToLower(r.stderr), "usage") && !strings.Contains(r.stderr, "-h` for help") {
			t.Errorf("slosh %s: exit %d, want 2 with usage; stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"run", "-h"}, {"bench", "--help"}, {"scenes", "-h"}, {"params", "-h"}, {"help", "run"}} {
		r := runSlosh(t, noDisplay(), args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage: slosh") || !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("slosh %s: exit %d; stdout:\n%s", strings.Join(args, " "), r.code, r.stdout)
		}
	}
	r := runSlosh(t, noDisplay(), "help")
	if r.code != 0 || !strings.Contains(r.stdout, "pbf-cpu") || !strings.Contains(r.stdout, "bench") {
		t.Errorf("slosh help: exit %d\n%s", r.code, r.stdout)
	}
}

func TestScenesAndParams(t *testing.T) {
	r := runSlosh(t, noDisplay(), "scenes")
	r.expect(t, 0)
	if !strings.Contains(r.stdout, "dambreak") || !strings.Contains(r.stdout, "A column of water collapses") {
		t.Errorf("slosh scenes:\n%s", r.stdout)
	}
	r = runSlosh(t, noDisplay(), "params", "--mode", "pbf-cpu")
	r.expect(t, 0)
	for _, want := range []string{"pbf.iterations", "[1, 100]", "default 0.02", "PBF / Solver", "kg/m³", "pbf.gravity",
		"default 0,-9.81,0", "render.color", "water|speed|density", "render.speed_max"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("slosh params does not list %q:\n%s", want, r.stdout)
		}
	}
}

func TestWindowWithoutDisplay(t *testing.T) {
	r := runSlosh(t, noDisplay(), "--mode", "pbf-cpu", "--scene", "pool")
	r.expect(t, 1, "no display", "DISPLAY")
}

func TestBenchWritesJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.json")
	r := runSlosh(t, noDisplay(), "bench", "--mode", "pbf-cpu", "--scene", "dambreak", "--particles", "1500", "--frames", "3", "--warmup", "1", "--json", path)
	r.expect(t, 0)
	for _, want := range []string{"predict", "lambda", "particle-steps/s", "step (wall)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the bench table lacks %q:\n%s", want, r.stdout)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Mode       string
		Scene      string
		Particles  int
		Substeps   float64 `json:"substeps_per_frame"`
		TimeStep   string  `json:"time_step"`
		Iterations int
		Frames     int
		Steps      int
		Passes     []struct {
			Name   string
			MeanMs float64 `json:"mean_ms"`
		}
		ParticleSteps float64 `json:"particle_steps_per_second"`
		Machine       struct {
			GOMAXPROCS int
		}
		GoVersion string `json:"go_version"`
		Timestamp string
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("bench JSON: %v\n%s", err, data)
	}
	def := pbf.DefaultConfig()
	if got.Mode != "pbf-cpu" || got.Scene != "builtin:dambreak" || got.Particles < 1400 || got.Particles > 1600 ||
		got.Substeps < float64(def.Step.Min) || got.Substeps != float64(got.Steps)/3 || !strings.HasPrefix(got.TimeStep, "CFL ") ||
		got.Iterations != int(def.Iterations) || got.Frames != 3 || len(got.Passes) < 5 ||
		!(got.ParticleSteps > 0) || got.Machine.GOMAXPROCS < 1 || got.GoVersion == "" || got.Timestamp == "" {
		t.Errorf("bench JSON:\n%s", data)
	}
	for _, p := range got.Passes {
		if !(p.MeanMs >= 0) || p.Name == "" {
			t.Errorf("pass %+v", p)
		}
	}
}

// TestGL41FallsBackToCPU caps the context at OpenGL 4.1 and asks for the GPU mode: slosh must say once why it
// runs pbf-cpu instead, and still render the screenshot. It needs a display (make test provides Xvfb).
func TestGL41FallsBackToCPU(t *testing.T) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		if glh.RequireGL() {
			t.Fatal("GL tests are required here (SLOSH_REQUIRE_GL=1 or CI) but there is no display")
		}
		t.Skip("no display")
	}
	shot := filepath.Join(t.TempDir(), "shot.png")
	r := runSlosh(t, nil, "run", "--gl", "4.1", "--mode", "pbf", "--scene", "pool", "--particles", "800", "--frames", "2",
		"--screenshot", shot, "--width", "160", "--height", "120")
	r.expect(t, 0, "OpenGL 4.3 compute shaders are not available", "running PBF on the CPU (pbf-cpu)")
	if n := strings.Count(r.stderr, "compute shaders are not available"); n != 1 {
		t.Errorf("the fallback was reported %d times:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stdout, "mode pbf-cpu") || len(statsLines(r.stdout)) != 2 {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 160 || b.Dy() != 120 {
		t.Errorf("screenshot is %v, want 160×120", b)
	}
}
