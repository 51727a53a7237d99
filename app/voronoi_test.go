package app

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/replay"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/voronoi"
	"github.com/slosh/slosh/ui"
)

// stateBytes is a loaded save file's whole state.
func stateBytes(t *testing.T, f *savefile.File) []byte {
	t.Helper()
	b, err := f.StateBytes()
	if err != nil {
		t.Fatalf("%s: %v", f.Path, err)
	}
	return b
}

// voronoiState decodes a save file's Voronoi state.
func voronoiState(t *testing.T, path string) *voronoi.State {
	t.Helper()
	f, err := savefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Mode != voronoi.Name || f.Kind != voronoi.Name {
		t.Fatalf("%s: mode %s, kind %s, want voronoi", path, f.Mode, f.Kind)
	}
	st, err := voronoi.DecodeState(bytes.NewReader(stateBytes(t, f)))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// sameVoronoiState requires two saved Voronoi states to be identical, bit for bit: particles, pressures, the
// emitters' streams and the bodies.
func sameVoronoiState(t *testing.T, a, b string) {
	t.Helper()
	x, y := voronoiState(t, a), voronoiState(t, b)
	if x.N() != y.N() || x.Steps != y.Steps || x.Time != y.Time {
		t.Fatalf("%s: %d particles at step %d; %s: %d at step %d", a, x.N(), x.Steps, b, y.N(), y.Steps)
	}
	for i := range x.Pos {
		if x.Pos[i] != y.Pos[i] || x.Vel[i] != y.Vel[i] || x.ID[i] != y.ID[i] || x.Pres[i] != y.Pres[i] {
			t.Fatalf("particle %d differs: %v %v %g against %v %v %g", i, x.Pos[i], x.Vel[i], x.Pres[i], y.Pos[i], y.Vel[i], y.Pres[i])
		}
	}
	var bx, by bytes.Buffer
	if err := x.Encode(&bx); err != nil {
		t.Fatal(err)
	}
	if err := y.Encode(&by); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bx.Bytes(), by.Bytes()) {
		t.Fatalf("the states differ (emitters' streams or bodies: %d and %d bytes of bodies)", len(x.Bodies), len(y.Bodies))
	}
}

// steps runs display frames until the solver has taken k more steps.
func steps(t *testing.T, v *viewer, k int) {
	t.Helper()
	n := v.drv.Stats().Steps
	frames(t, v, fmt.Sprintf("%d steps", k), func() bool { return v.drv.Stats().Steps >= n+k })
}

// voronoiSitting is sittingWith with every tool held for some solver steps rather than for a wall-clock time, so
// that each acts on the water however slowly the CPU solver steps: a drop, a drain held for a moment, the paddle
// dragged through the water in small moves (so that it has a velocity the cells see), a parameter changed in the
// panel, the drain undone. It pauses, saves the replay and the state at the same step, and returns the two files.
func voronoiSitting(t *testing.T, v *viewer, dir string) (replayPath, statePath string) {
	t.Helper()
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 6 })
	press(v, glfw.Key3)
	x, y := screenOf(v, mgl32.Vec3{0.5, 0.35, 0.4})
	click(v, x, y, 0, 0)
	frames(t, v, "the drop", func() bool { return len(v.drv.PickFrame().Bodies) == 1 })
	steps(t, v, 3)
	press(v, glfw.Key5)
	x, y = screenOf(v, mgl32.Vec3{0.3, 0.25, 0.4})
	v.CursorPos(x, y)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, 0)
	steps(t, v, 2)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, 0)
	steps(t, v, 2)
	x, y = screenOf(v, mgl32.Vec3{0.2, 0.25, 0.3})
	v.CursorPos(x, y)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, glfw.ModControl)
	for k := 1; k <= 8; k++ {
		x, y = screenOf(v, mgl32.Vec3{0.2 + 0.05*float32(k), 0.25, 0.3})
		v.CursorPos(x, y)
		steps(t, v, 1)
	}
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, glfw.ModControl)
	steps(t, v, 2)
	if err := v.drv.Params().SetString("voronoi.neighbours", "12"); err != nil {
		t.Fatal(err)
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ParamsChanged: true})
	steps(t, v, 2)
	v.Key(glfw.KeyZ, glfw.Press, glfw.ModControl) // undo the drain
	steps(t, v, 2)

	v.drv.SetPaused(true)
	frames(t, v, "the pause", func() bool { return v.drv.Paused() })
	replayPath, statePath = filepath.Join(dir, "sitting"+ReplayExt), filepath.Join(dir, "sitting.slosh")
	v.saveReplay(replayPath)
	v.saveState(statePath)
	frames(t, v, "the files", func() bool {
		_, e1 := os.Stat(replayPath)
		_, e2 := os.Stat(statePath)
		return e1 == nil && e2 == nil
	})
	if v.status.isErr {
		t.Fatalf("status %q", v.status.msg)
	}
	f, err := replay.Read(replayPath)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[replay.Op]int{}
	for _, a := range f.Actions {
		ops[a.Op]++
	}
	for _, op := range []replay.Op{replay.OpAddBody, replay.OpDrain, replay.OpAddFluid, replay.OpSetTools, replay.OpParams} {
		if ops[op] == 0 {
			t.Fatalf("the replay has no %s action: %v", op, ops)
		}
	}
	t.Logf("the sitting: %d steps, actions %v", v.drv.Stats().Steps, ops)
	return replayPath, statePath
}

// The Voronoi mode has the sandbox's hands, save files and replays: a sitting in the window (a dropped body, a
// drain and its undo, the paddle, a parameter changed in the panel) replays headless into the window's state bit
// for bit.
func TestVoronoiSittingReplays(t *testing.T) {
	v := openViewer(t, gltest.Acquire(t), Options{Scene: "pool", Mode: voronoi.Name, Particles: 1200, Sets: []string{"render.mode=particles"}})
	if v.drv.Mode().Name != voronoi.Name {
		t.Fatalf("the pool opened in %s (status %q), want voronoi", v.drv.Mode().Name, v.status.msg)
	}
	dir := t.TempDir()
	rp, sp := voronoiSitting(t, v, dir)
	out := filepath.Join(dir, "replayed.slosh")
	if err := Replay(ReplayOptions{File: rp, Save: out, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if st := voronoiState(t, sp); st.Steps == 0 || len(st.Bodies) == 0 {
		t.Fatalf("the sitting's state: step %d, %d bytes of bodies", st.Steps, len(st.Bodies))
	}
	sameVoronoiState(t, sp, out)
}

// `slosh run --save` then `--load` continues a Voronoi run bit for bit: 6 frames, saved, then 4 more, end in the
// state of 10 frames straight (a fountain: the scene's emitters pour throughout).
func TestVoronoiRunSaveLoadContinues(t *testing.T) {
	dir := t.TempDir()
	run := func(o RunOptions) {
		t.Helper()
		o.Stdout, o.Stderr = io.Discard, io.Discard
		if err := Run(o); err != nil {
			t.Fatal(err)
		}
	}
	base := Options{Scene: "fountain", Mode: voronoi.Name, Particles: 1000, Sets: []string{"voronoi.neighbours=12"}}
	run(RunOptions{Options: base, Frames: 10, Save: filepath.Join(dir, "straight.slosh")})
	run(RunOptions{Options: base, Frames: 6, Save: filepath.Join(dir, "half.slosh")})
	run(RunOptions{Options: Options{Load: filepath.Join(dir, "half.slosh")}, Frames: 4, Save: filepath.Join(dir, "resumed.slosh")})
	sameVoronoiState(t, filepath.Join(dir, "straight.slosh"), filepath.Join(dir, "resumed.slosh"))
	if a, b := voronoiState(t, filepath.Join(dir, "half.slosh")), voronoiState(t, filepath.Join(dir, "straight.slosh")); a.N() >= b.N() {
		t.Errorf("the fountain poured nothing between frames 6 and 10 (%d and %d particles)", a.N(), b.N())
	}
}

// The headless commands run the Voronoi mode without GL: run prints its figures, export writes particle caches,
// bench times its passes and prints its figures.
func TestVoronoiHeadless(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := Run(RunOptions{Options: Options{Scene: "dambreak", Mode: voronoi.Name, Particles: 800, Stderr: io.Discard}, Frames: 2, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"solve_iterations", "liquid_volume", "time_step"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("slosh run's columns have no %q:\n%s", want, out.String())
		}
	}

	cache := filepath.Join(dir, "cache")
	if err := Export(ExportOptions{Options: Options{Scene: "obstacles", Mode: voronoi.Name, Particles: 800, Stderr: io.Discard}, Frames: 2, Out: cache, Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, cache)
	if car.Mode != voronoi.Name || len(car.Files) != 2 {
		t.Fatalf("the sidecar: mode %q, %d files", car.Mode, len(car.Files))
	}
	for _, name := range car.Files {
		f, err := os.Open(filepath.Join(cache, name))
		if err != nil {
			t.Fatal(err)
		}
		n, _, _, err := export.ReadPLY(f)
		f.Close()
		if err != nil || n < 700 {
			t.Fatalf("%s: %d particles, %v; want the run's", name, n, err)
		}
	}

	out.Reset()
	if err := Bench(BenchOptions{Options: Options{Scene: "dambreak", Mode: voronoi.Name, Particles: 800, Stderr: io.Discard}, Frames: 2, Warmup: 1, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"diagram", "clipping", "solve", "advection", voronoi.FigIterations} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("slosh bench's table has no %q:\n%s", want, out.String())
		}
	}
}

// slosh record renders a clip of the Voronoi mode.
func TestVoronoiRecords(t *testing.T) {
	gltest.Acquire(t)
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	if err := Record(RecordOptions{Options: Options{Scene: "dambreak", Mode: voronoi.Name, Particles: 800, Stderr: io.Discard},
		Frames: 4, Width: 160, Height: 90, Out: clip, Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if p := ffprobe(t, clip); p.Frames != 4 || p.W != 160 {
		t.Errorf("the clip: %+v, want 4 frames 160 wide", p)
	}
}
