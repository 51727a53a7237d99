package app

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/replay"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/ui"
)

// sitting works the tools in the window — a drop, a drain held for a moment, the paddle dragged through the water,
// a parameter changed in the panel, the drop undone — then pauses and saves the replay and the state at the same
// step. It returns the two files.
func sitting(t *testing.T, v *viewer, dir string) (replayPath, statePath string) {
	return sittingWith(t, v, dir, "pbf.vorticity", "0.2")
}

// sittingWith is sitting with the panel's parameter change given: name set to value.
func sittingWith(t *testing.T, v *viewer, dir, name, value string) (replayPath, statePath string) {
	t.Helper()
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 6 })
	press(v, glfw.Key3)
	x, y := screenOf(v, mgl32.Vec3{0.5, 0.35, 0.4})
	click(v, x, y, 0, 0)
	frames(t, v, "the drop", func() bool { return len(v.drv.PickFrame().Bodies) == 1 })
	settle(v, 60*time.Millisecond)
	press(v, glfw.Key5)
	x, y = screenOf(v, mgl32.Vec3{0.3, 0.08, 0.4})
	click(v, x, y, 0, 80*time.Millisecond)
	x, y = screenOf(v, mgl32.Vec3{0.2, 0.1, 0.3})
	x2, y2 := screenOf(v, mgl32.Vec3{0.6, 0.1, 0.3})
	click(v, x, y, glfw.ModControl, 60*time.Millisecond, x2, y2)
	if err := v.drv.Params().SetString(name, value); err != nil {
		t.Fatal(err)
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ParamsChanged: true})
	settle(v, 60*time.Millisecond)
	v.Key(glfw.KeyZ, glfw.Press, glfw.ModControl) // undo the drain
	settle(v, 60*time.Millisecond)

	return saveSitting(t, v, dir)
}

// saveFiles pauses the window of v and saves its replay and its state at the same step into dir as name, waiting
// until both files are written.
func saveFiles(t *testing.T, v *viewer, dir, name string) (replayPath, statePath string) {
	t.Helper()
	v.drv.SetPaused(true)
	frames(t, v, "the pause", func() bool { return v.drv.Paused() })
	replayPath, statePath = filepath.Join(dir, name+ReplayExt), filepath.Join(dir, name+".slosh")
	v.saveReplay(replayPath)
	v.saveState(statePath)
	frames(t, v, "the files", func() bool {
		_, e1 := os.Stat(replayPath)
		_, e2 := os.Stat(statePath)
		return e1 == nil && e2 == nil
	})
	return replayPath, statePath
}

// saveSitting pauses the window of v, saves its replay and its state at the same step into dir and returns the two
// files, after checking that the replay holds every kind of action a sitting makes.
func saveSitting(t *testing.T, v *viewer, dir string) (replayPath, statePath string) {
	t.Helper()
	replayPath, statePath = saveFiles(t, v, dir, "sitting")
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
	return replayPath, statePath
}

// sameBodies requires two save files' scenes to list the same rigid bodies: a replay's save, as the window's, lists
// the bodies dropped during the sitting, so that a load draws them.
func sameBodies(t *testing.T, a, b string) {
	t.Helper()
	x, err := savefile.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := savefile.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(x.Scene.Bodies) == 0 || !reflect.DeepEqual(x.Scene.Bodies, y.Scene.Bodies) {
		t.Fatalf("%s's scene lists %d bodies, %s's %d", filepath.Base(a), len(x.Scene.Bodies), filepath.Base(b), len(y.Scene.Bodies))
	}
}

// sameState requires two saved states to hold the same simulation, bit for bit (sameSaved).
func sameState(t *testing.T, a, b string) { sameSaved(t, a, b) }

// A sitting on the CPU mode, replayed headless, ends in the same state bit for bit; replaying it into a clip
// renders every frame.
func TestReplayReproducesSittingCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a headless run of the app; make test runs it")
	}
	v := openViewer(t, gltest.Acquire(t), Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Sets: []string{"render.mode=particles"}})
	dir := t.TempDir()
	rp, sp := sitting(t, v, dir)
	out := filepath.Join(dir, "replayed.slosh")
	var stdout bytes.Buffer
	if err := Replay(ReplayOptions{File: rp, Save: out, Stdout: &stdout, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	sameState(t, sp, out)
	sameBodies(t, sp, out)

	// into a clip at another size: a frame per simulated frame
	clipPath := filepath.Join(dir, "replay.mp4")
	if err := Replay(ReplayOptions{File: rp, Record: clipPath, Width: 192, Height: 108, Sets: []string{"render.mode=particles"}, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	f, _ := replay.Read(rp)
	want := 0 // the frames of the sitting, as a headless replay plays them
	if err := replay.Run(pbf.New(), f, func(int) error { want++; return nil }); err != nil {
		t.Fatal(err)
	}
	if p := ffprobe(t, clipPath); p.Codec != "h264" || p.W != 192 || p.H != 108 || p.Frames != want {
		t.Errorf("the replay's clip: %+v, want 192×108 with %d frames", p, want)
	}

	// a replay that is edited runs and no longer reproduces the sitting: without its parameter change, or without
	// the drop (nothing later refers to the body)
	for _, edit := range []struct {
		name string
		drop func(a replay.Action) bool
	}{
		{"without the parameter change", func(a replay.Action) bool { return a.Op == replay.OpParams }},
		{"without the drop", func(a replay.Action) bool { return a.Op == replay.OpAddBody }},
	} {
		g := *f
		g.Actions = nil
		for _, a := range f.Actions {
			if !edit.drop(a) {
				g.Actions = append(g.Actions, a)
			}
		}
		if len(g.Actions) == len(f.Actions) {
			t.Fatalf("the replay %s: nothing to drop from %d actions", edit.name, len(f.Actions))
		}
		edited, saved := filepath.Join(dir, "edited"+ReplayExt), filepath.Join(dir, "edited.slosh")
		os.Remove(saved)
		if err := replay.Write(edited, &g); err != nil {
			t.Fatal(err)
		}
		if err := Replay(ReplayOptions{File: edited, Save: saved, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
			t.Errorf("the replay %s: %v", edit.name, err)
			continue
		}
		if a, b := stateOf(t, sp), stateOf(t, saved); sameParticles(a, b) {
			t.Errorf("the replay %s reproduced the sitting too (%d particles at step %d)", edit.name, b.N(), b.Steps)
		}
	}

	// a state loaded in the window cannot be replayed until the next reset; a state of the scene on screen keeps the
	// camera where the user turned it
	v.cam.Orbit(0.7, 0.2)
	cam := *v.cam
	v.loadStateFile(sp)
	if *v.cam != cam {
		t.Errorf("loading a state of the same scene moved the camera")
	}
	v.saveReplay(filepath.Join(dir, "after-load"+ReplayExt))
	frames(t, v, "the refusal", func() bool { return v.status.isErr })
	if !strings.Contains(v.status.msg, "saved state was loaded") {
		t.Errorf("saving a replay after a load: status %q", v.status.msg)
	}
}

// The same on the GPU mode: the headless replay on the same device ends in the window's state bit for bit.
func TestReplayReproducesSittingGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5 s on 2 cores: a headless run of the app; make test runs it")
	}
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx)
	v := openViewer(t, ctx, Options{Scene: "dambreak", Mode: "pbf", Particles: 1500, Sets: []string{"render.mode=particles"}})
	if v.drv.Mode().Name != "pbf" {
		t.Fatalf("mode %s (status %q)", v.drv.Mode().Name, v.status.msg)
	}
	dir := t.TempDir()
	rp, sp := sitting(t, v, dir)
	out := filepath.Join(dir, "replayed.slosh")
	if err := Replay(ReplayOptions{File: rp, Save: out, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	ctx.Window.MakeContextCurrent() // the replay's hidden window had the context
	sameState(t, sp, out)
}

// sameParticles reports whether two states hold the same particles at the same positions and velocities.
func sameParticles(a, b *pbf.State) bool {
	if a.N() != b.N() {
		return false
	}
	for i := range a.Pos {
		if a.Pos[i] != b.Pos[i] || a.Vel[i] != b.Vel[i] || a.ID[i] != b.ID[i] {
			return false
		}
	}
	return true
}

// A replay of 2⁴⁰ steps (the format's limit) ran on with thousands of years left; after replayMeasure it stops,
// saying what it would take at this machine's rate. Its time is the budget's measurement and no more: the check is
// a rate, whatever the machine's speed (each step of the tiny tank takes far more than the 0.55 µs that 2⁴⁰ steps in
// seven days would allow).
func TestReplayLongerThanAnySittingStops(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a headless run of the app; make test runs it")
	}
	path := filepath.Join(t.TempDir(), "long.replay.json")
	data := `{"format": "slosh-replay", "version": 1, "mode": "pbf-cpu", "frame_dt": 0.016666666666666666, "steps": 1099511627776,
 "scene": {"name": "tank", "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.4]}, "particles": {"spacing": 0.04},
  "fluid": [{"shape": "box", "center": [0.2, 0.1, 0.2], "size": [0.4, 0.2, 0.4]}]},
 "params": {}, "actions": []}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err := Replay(ReplayOptions{File: path, Stdout: io.Discard, Stderr: &stderr})
	if err == nil || !strings.Contains(err.Error(), "1099511627776 steps") || !strings.Contains(err.Error(), "days, over the 7 days a replay may run") {
		t.Fatalf("a replay of 2⁴⁰ steps: %v", err)
	}
	if !strings.Contains(stderr.String(), "left") {
		t.Errorf("no progress with the time left before it stopped:\n%s", stderr.String())
	}
}
