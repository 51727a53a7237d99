package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/slosh/slosh/app"
	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim/param"
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
	return runCmd(t, cmd, args)
}

// runCmd runs cmd, which runs slosh with args, and returns its exit status and output; a panic fails the test.
func runCmd(t *testing.T, cmd *exec.Cmd, args []string) result {
	t.Helper()
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
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a run of the slosh binary; make test runs it")
	}
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
	folder := t.TempDir()
	for _, args := range [][]string{
		{"bench", "--frames", "0"},  // ran 60 frames
		{"bench", "--warmup", "-5"}, // was taken as 0
		{"replay", "x.replay", "--quality", "ultra"},
		{"run", "--scene", "pool", "--mode", "pbf-cpu", "--save", folder},           // wrote FOLDER.slosh
		{"run", "--scene", "pool", "--mode", "pbf-cpu", "--save", "/dev/null"},      // created /dev/null.slosh
		{"run", "--scene", "pool", "--mode", "pbf-cpu", "--save", folder + "/new/"}, // wrote FOLDER/new/.slosh
		{"replay", "x.replay", "--save", folder},
		{"frobnicate"},
		{"run", "--bogus"},
		{"--bogus"},
		{"--mode", "warp"}, // the window's own usage error: "Run `slosh -h`", one space
		{"bench", "--frames", "many"},
		{"run", "--scene", "pool", "extra"},
		{"run", "--mode", "warp", "--scene", "pool"},
		{"run", "--scene", "pool", "--frames", "0"},
		{"run", "--scene", "pool", "--gl", "3.3", "--mode", "pbf-cpu"},
		{"params", "--mode", "warp"},
		{"bench", "--width", "640", "--height", "360"}, // a picture size without --render
		{"help", "frobnicate"},
	} {
		r := runSlosh(t, noDisplay(), args...)
		if r.code != 2 || !strings.Contains(r.stderr, "slosh") || !strings.Contains(strings.ToLower(r.stderr), "usage") && !strings.Contains(r.stderr, "-h` for help") {
			t.Errorf("slosh %s: exit %d, want 2 with usage; stderr:\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "  -h`") {
			t.Errorf("slosh %s: the help hint has a double space: %s", strings.Join(args, " "), r.stderr)
		}
	}
	for _, p := range []string{folder + ".slosh", "/dev/null.slosh", folder + "/new"} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was made", p)
		}
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"run", "-h"}, {"bench", "--help"}, {"scenes", "-h"}, {"params", "-h"}, {"help", "run"}} {
		r := runSlosh(t, noDisplay(), args...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage: slosh") || !strings.Contains(r.stdout, "Examples:") || r.stderr != "" {
			t.Errorf("slosh %s: exit %d; stdout:\n%s\nstderr (want none):\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
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

// TestParamsListsWhatSetTakes checks that `slosh params --mode M` lists exactly the parameters --set accepts with
// that mode: the mode's own, the surface reconstruction's surface.* and the renderer's render.*.
func TestParamsListsWhatSetTakes(t *testing.T) {
	row := regexp.MustCompile(`^  ([a-z][a-z0-9_]*\.[a-z0-9_.]+)\s`)
	for _, m := range app.Modes() {
		r := runSlosh(t, noDisplay(), "params", "--mode", m.Name)
		r.expect(t, 0)
		listed := map[string]bool{}
		for _, l := range strings.Split(r.stdout, "\n") {
			if mm := row.FindStringSubmatch(l); mm != nil {
				if listed[mm[1]] {
					t.Errorf("slosh params --mode %s lists %s twice", m.Name, mm[1])
				}
				listed[mm[1]] = true
			}
		}
		takes := map[string]bool{}
		for _, set := range []*param.Set{m.Params(), app.SurfaceParams(), render.NewParams()} {
			for _, name := range set.Names() {
				takes[name] = true
				if !listed[name] {
					t.Errorf("slosh params --mode %s does not list %s, which --set takes", m.Name, name)
				}
			}
		}
		for name := range listed {
			if !takes[name] {
				t.Errorf("slosh params --mode %s lists %s, which --set does not take", m.Name, name)
			}
		}
		if len(listed) < 30 {
			t.Errorf("slosh params --mode %s: only %d parameters read from\n%s", m.Name, len(listed), r.stdout)
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

// needDisplay skips a test that opens a window when there is no display, and fails it instead where GL tests are
// required (SLOSH_REQUIRE_GL=1, which make test sets, or CI).
func needDisplay(t *testing.T) {
	t.Helper()
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		if glh.RequireGL() {
			t.Fatal("GL tests are required here (SLOSH_REQUIRE_GL=1 or CI) but there is no display")
		}
		t.Skip("no display")
	}
}

// TestBenchRender runs `slosh bench --render` on a tiny scene in each way a frame can be drawn — a GPU solver's own
// buffers with kernels from gpu/surface, a CPU solver's uploaded frame, the kernels on the CPU without compute
// shaders, and the mesh or the upsampled surface made on the CPU — and checks that the JSON and the table hold
// each pass of the renderer, by its name, with a time. It needs a display (make test provides Xvfb).
func TestBenchRender(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s on 2 cores: a run of the slosh binary; make test runs it")
	}
	needDisplay(t)
	tiny := writeFile(t, "tiny.json", sceneWith("")) // 500 particles
	for _, tc := range []struct {
		name    string
		args    []string
		kernels string // where the anisotropic kernels (or the mesh, or the upsampled surface) are made
		upload  bool   // whether the frame is uploaded (a CPU solver)
		mode    string // render.mode
		cpuWork string // the name of the CPU's work on the surface
	}{
		{"gpu solver", []string{"--mode", "pbf"}, "gpu", false, "surface", ""},
		{"cpu solver", []string{"--mode", "pbf-cpu"}, "gpu", true, "surface", ""},
		{"no compute shaders", []string{"--mode", "pbf-cpu", "--gl", "4.1"}, "cpu", true, "surface", "anisotropy (cpu)"},
		{"mesh", []string{"--mode", "pbf-cpu", "--set", "render.mode=mesh"}, "cpu", true, "mesh", "mesh (cpu)"},
		{"gpu solver, mesh", []string{"--mode", "pbf", "--set", "render.mode=mesh"}, "cpu", false, "mesh", "mesh (cpu)"},
		{"upsampled", []string{"--mode", "pbf-cpu", "--set", "upsample.enabled=true"}, "cpu", true, "surface", "upsampling (cpu)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bench.json")
			args := append([]string{"bench", "--scene", tiny, "--frames", "2", "--warmup", "1", "--render",
				"--width", "160", "--height", "90", "--json", path}, tc.args...)
			r := runSlosh(t, nil, args...)
			r.expect(t, 0)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			type pass struct {
				Name   string
				MeanMs *float64 `json:"mean_ms"`
			}
			var got struct {
				Steps  int
				Render *struct {
					Width, Height int
					RenderMode    string `json:"render_mode"`
					Frames        int
					UploadMs      float64 `json:"upload_ms"`
					Kernels       string
					Surface       []pass
					Passes        []pass
					PassSamples   int     `json:"pass_samples"`
					GPUMs         float64 `json:"gpu_ms"`
					StepsMs       float64 `json:"steps_ms"`
					RenderMs      float64 `json:"render_ms"`
					FrameMs       float64 `json:"frame_ms"`
					FPS           float64
				}
			}
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("bench JSON: %v\n%s", err, data)
			}
			rr := got.Render
			if rr == nil {
				t.Fatalf("the bench JSON has no render results:\n%s", data)
			}
			if rr.Width != 160 || rr.Height != 90 || rr.RenderMode != tc.mode || rr.Frames != 2 || rr.PassSamples != 2 ||
				rr.Kernels != tc.kernels || (rr.UploadMs > 0) != tc.upload || rr.UploadMs < 0 {
				t.Errorf("render results:\n%s", data)
			}
			checkTime := func(what string, p pass) float64 {
				if p.Name == "" || p.MeanMs == nil || !(*p.MeanMs >= 0) || math.IsInf(*p.MeanMs, 0) {
					t.Errorf("%s pass %q has no time: %v", what, p.Name, p.MeanMs)
					return 0
				}
				return *p.MeanMs
			}
			sum := 0.0
			for _, p := range rr.Surface {
				if ms := checkTime("surface", p); tc.kernels == "gpu" {
					sum += ms
				}
			}
			if len(rr.Surface) == 0 || tc.kernels == "cpu" && (len(rr.Surface) != 1 || rr.Surface[0].Name != tc.cpuWork) {
				t.Errorf("surface kernels' passes: %+v", rr.Surface)
			}
			// the renderer's passes, by the renderer's names, in its order, each once
			names := render.PassNames()
			last := -1
			seen := map[string]bool{}
			for _, p := range rr.Passes {
				sum += checkTime("render", p)
				i := slices.Index(names, p.Name)
				if i < 0 {
					t.Errorf("render pass %q is none of the renderer's %v", p.Name, names)
				} else if i <= last {
					t.Errorf("render pass %q out of the renderer's order %v", p.Name, names)
				}
				last = max(last, i)
				seen[p.Name] = true
			}
			for _, want := range []string{"background", "splat", "thickness", "smooth", "composite"} {
				if !seen[want] {
					t.Errorf("the surface pipeline's pass %q is missing: %+v", want, rr.Passes)
				}
			}
			if math.Abs(rr.GPUMs-sum) > 1e-3 {
				t.Errorf("gpu_ms %g is not the passes' sum %g", rr.GPUMs, sum)
			}
			if !(rr.StepsMs > 0) || !(rr.RenderMs > 0) || math.Abs(rr.FrameMs-rr.StepsMs-rr.RenderMs) > 1e-3 ||
				math.Abs(rr.FPS*rr.FrameMs-1000) > 0.1 {
				t.Errorf("wall times: steps %g, render %g, frame %g ms, %g fps", rr.StepsMs, rr.RenderMs, rr.FrameMs, rr.FPS)
			}
			work := strings.TrimSuffix(tc.cpuWork, " (cpu)")
			if work == "" {
				work = "anisotropy"
			}
			for _, want := range []string{"render: 160×90", "frames/s", work, "splat", "composite"} {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("the bench table lacks %q:\n%s", want, r.stdout)
				}
			}
		})
	}
}

// TestGL41FallsBackToCPU caps the context at OpenGL 4.1 and asks for the GPU mode: slosh must say once why it
// runs pbf-cpu instead, and still render the screenshot. It needs a display (make test provides Xvfb).
func TestGL41FallsBackToCPU(t *testing.T) {
	needDisplay(t)
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

// commandFlags is each command's flags as its FlagSet registers them, by command name ("" is the window).
func commandFlags() map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, c := range commands(io.Discard, io.Discard) {
		fs := flag.NewFlagSet("slosh "+c.name, flag.ContinueOnError)
		c.flags(fs)
		set := map[string]bool{}
		fs.VisitAll(func(f *flag.Flag) { set[f.Name] = true })
		out[c.name] = set
	}
	return out
}

// anyCommand is a mention's command when the text names none: the flag must exist in some command.
const anyCommand = "*"

// A flagMention is a flag named in documentation, with the command it is given to.
type flagMention struct {
	cmd, flag string
	at        string // where, for messages
}

// docScanner collects the commands and flags that texts name.
type docScanner struct {
	commands map[string]map[string]bool // commandFlags
	mentions []flagMention
	invoked  map[string]bool // commands shown being run ("slosh run ...", "slosh" alone for the window)
	errs     []string        // "slosh WORD" where WORD is no command
}

func newDocScanner() *docScanner {
	return &docScanner{commands: commandFlags(), invoked: map[string]bool{}}
}

var (
	flagWord = regexp.MustCompile(`(?:^|[^\w-])--([a-z][a-z0-9-]*)`)
	lowWord  = regexp.MustCompile(`^[a-z][a-z0-9-]*`)
)

// scan reads one unit of text: a line, or a Markdown code span. "slosh" runs a command where it begins the unit, a
// code span or a shell command (after &&, ;, |, $ or "Usage:"); elsewhere it is a word ("every file slosh
// writes"). After "slosh CMD" the flags belong to CMD, after a bare "slosh" to the window, up to a shell separator
// (&&, ;, |, #); flags before any, or after a separator, belong to def. With cmds false only flags are read (prose).
func (d *docScanner) scan(text, def, at string, cmds bool) {
	cur := def
	toks := strings.Fields(text)
	for i := 0; i < len(toks); i++ {
		tok := toks[i]
		if tok == "&&" || tok == ";" || tok == "|" || strings.HasPrefix(tok, "#") {
			cur = def
			continue
		}
		runs := i == 0 || strings.HasPrefix(tok, "`") || slices.Contains([]string{"&&", ";", "|", "$", "Usage:"}, toks[i-1])
		if left := strings.TrimLeft(tok, "`[(\"'"); cmds && runs && strings.TrimRight(left, "`])\"'") == "slosh" {
			switch next := ""; {
			case left != "slosh": // "`slosh`": the program's name alone
				cur = ""
				d.invoked[""] = true
			case i+1 < len(toks) && func() bool { next = lowWord.FindString(toks[i+1]); return next != "" }():
				i++
				switch _, ok := d.commands[next]; {
				case ok:
					cur = next
					d.invoked[next] = true
				case next == "help":
					cur = anyCommand
				default:
					d.errs = append(d.errs, fmt.Sprintf("%s: %q names no command", at, "slosh "+next))
					cur = anyCommand
				}
			case i+1 < len(toks) && strings.ToUpper(toks[i+1]) == toks[i+1] && lowWord.MatchString(strings.ToLower(toks[i+1])):
				cur = anyCommand // a placeholder: slosh COMMAND
			default:
				cur = ""
				d.invoked[""] = true
			}
			continue
		}
		for _, m := range flagWord.FindAllStringSubmatch(tok, -1) {
			d.mentions = append(d.mentions, flagMention{cmd: cur, flag: m[1], at: at})
		}
	}
}

// markdown reads a Markdown file: each line of a fenced block and each inline code span is a unit that may run
// slosh; the prose between is read for flags only.
func (d *docScanner) markdown(name, text string) {
	lines := strings.Split(text, "\n")
	fenced := false
	var para []string
	paraStart := 0
	flush := func() {
		p := strings.Join(para, "\n")
		at := fmt.Sprintf("%s:%d", name, paraStart+1)
		rest := p
		for {
			i := strings.Index(rest, "`")
			if i < 0 {
				break
			}
			j := strings.Index(rest[i+1:], "`")
			if j < 0 {
				break
			}
			d.scan(rest[:i], anyCommand, at, false)
			d.scan(rest[i+1:i+1+j], anyCommand, at, true)
			rest = rest[i+1+j+1:]
		}
		d.scan(rest, anyCommand, at, false)
		para = para[:0]
	}
	for n, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			flush()
			fenced = !fenced
			continue
		}
		if fenced {
			d.scan(line, anyCommand, fmt.Sprintf("%s:%d", name, n+1), true)
			continue
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "|") {
			flush() // a table row is a paragraph of its own
		}
		if len(para) == 0 {
			paraStart = n
		}
		para = append(para, line)
	}
	flush()
}

// check reports every mention of a flag its command does not take, and every "slosh WORD" that is no command.
func (d *docScanner) check(t *testing.T) {
	t.Helper()
	for _, e := range d.errs {
		t.Error(e)
	}
	for _, m := range d.mentions {
		if m.flag == "help" {
			continue // every command takes -h and --help
		}
		if m.cmd == anyCommand {
			found := false
			for _, set := range d.commands {
				found = found || set[m.flag]
			}
			if !found {
				t.Errorf("%s: --%s is no command's flag", m.at, m.flag)
			}
			continue
		}
		if !d.commands[m.cmd][m.flag] {
			t.Errorf("%s: --%s is given to %s, which has no such flag (it has %s)", m.at, m.flag, commandName(m.cmd),
				strings.Join(slices.Sorted(maps.Keys(d.commands[m.cmd])), ", "))
		}
	}
}

func commandName(c string) string {
	if c == "" {
		return "the window (slosh)"
	}
	return "slosh " + c
}

// TestHelpNamesOnlyRealFlags reads every command's help as a user sees it: each flag its synopsis, summary,
// examples and flag list name must be one the command takes, and each flag it takes must be listed.
func TestHelpNamesOnlyRealFlags(t *testing.T) {
	cmds := commands(io.Discard, io.Discard)
	d := newDocScanner()
	for _, c := range cmds {
		fs := flag.NewFlagSet("slosh "+c.name, flag.ContinueOnError)
		c.flags(fs)
		var help bytes.Buffer
		commandUsage(&help, c, fs, cmds)
		before := len(d.mentions)
		for n, line := range strings.Split(help.String(), "\n") {
			d.scan(line, c.name, fmt.Sprintf("help of %s, line %d", commandName(c.name), n+1), true)
		}
		listed := map[string]bool{}
		for _, m := range d.mentions[before:] {
			if m.cmd == c.name {
				listed[m.flag] = true
			}
		}
		fs.VisitAll(func(f *flag.Flag) {
			if !listed[f.Name] {
				t.Errorf("the help of %s does not list --%s", commandName(c.name), f.Name)
			}
		})
	}
	var overview bytes.Buffer
	usage(&overview, cmds)
	d.invoked = map[string]bool{}
	for n, line := range strings.Split(overview.String(), "\n") {
		d.scan(line, anyCommand, fmt.Sprintf("slosh help, line %d", n+1), true)
	}
	for _, c := range cmds {
		if !d.invoked[c.name] {
			t.Errorf("slosh help does not show %s", commandName(c.name))
		}
	}
	d.check(t)
	if len(d.mentions) < 50 {
		t.Errorf("only %d flags found in the help texts: the scanner reads nothing", len(d.mentions))
	}
}

// TestDocsNameOnlyRealFlags reads README.md and docs/*.md: every "slosh CMD --flag" must be a flag CMD takes,
// every bare --flag one that some command takes, every command must be shown, and README's table of flags must
// list exactly the flags each command takes.
func TestDocsNameOnlyRealFlags(t *testing.T) {
	d := newDocScanner()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	d.markdown("README.md", string(readme))
	for c := range d.commands {
		if !d.invoked[c] {
			t.Errorf("README.md never shows %s", commandName(c))
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d.markdown(f, string(data))
	}
	d.check(t)

	// the table: | `--flag X`, `--other Y` | cmd, cmd, ... | what it does |
	type pair struct{ cmd, flag string }
	table := map[pair]bool{}
	rows := 0
	in := false
	for n, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "| Flag | Commands |") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		rows++
		flags := flagWord.FindAllStringSubmatch(cells[1], -1)
		if len(flags) == 0 {
			t.Errorf("README.md:%d: the table's row names no flag: %s", n+1, line)
		}
		for _, name := range strings.Split(cells[2], ",") {
			c := strings.TrimSpace(name)
			if c == "window" {
				c = ""
			}
			if _, ok := d.commands[c]; !ok {
				t.Errorf("README.md:%d: the table names %q, which is no command", n+1, strings.TrimSpace(name))
				continue
			}
			for _, f := range flags {
				table[pair{c, f[1]}] = true
			}
		}
	}
	if rows == 0 {
		t.Fatal("README.md has no table of flags (a header row starting | Flag | Commands |)")
	}
	for c, set := range d.commands {
		for f := range set {
			if !table[pair{c, f}] {
				t.Errorf("README.md's table of flags does not say that %s takes --%s", commandName(c), f)
			}
		}
	}
	for p := range table {
		if !d.commands[p.cmd][p.flag] {
			t.Errorf("README.md's table of flags says that %s takes --%s; it does not", commandName(p.cmd), p.flag)
		}
	}
}
