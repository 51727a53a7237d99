package app

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/ui"
)

// openViewer opens the window's viewer on the test context, closed when the test ends.
func openViewer(t testing.TB, ctx *glh.Context, o Options) *viewer {
	t.Helper()
	v, _ := openViewerWith(t, ctx, Modes(), o)
	return v
}

// openViewerWith is openViewer with the modes given, returning the setup it opened too.
func openViewerWith(t testing.TB, ctx *glh.Context, modes []Mode, o Options) (*viewer, *setup) {
	t.Helper()
	st, err := prepare(modes, &o)
	if err != nil {
		t.Fatal(err)
	}
	v, err := newViewer(modes, ctx, st, "", io.Discard, RealTime)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(v.Close)
	return v, st
}

// screenOf is where a world point shows in the window (screen coordinates), for clicking on it.
func screenOf(v *viewer, p mgl32.Vec3) (float64, float64) {
	r := v.viewRect()
	px, _, _ := v.viewPixels()
	cam := v.viewCamera(px.W, px.H)
	c := cam.Proj.Mul4(cam.View).Mul4x1(p.Vec4(1))
	return float64(r.X0 + (c[0]/c[3]+1)/2*r.W()), float64(r.Y0 + (1-c[1]/c[3])/2*r.H())
}

// click presses the left button at (x, y), runs display frames while it is held, and releases it.
func click(v *viewer, x, y float64, mods glfw.ModifierKey, hold time.Duration, moveTo ...float64) {
	v.CursorPos(x, y)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, mods)
	settle(v, hold)
	if len(moveTo) == 2 {
		v.CursorPos(moveTo[0], moveTo[1])
		settle(v, hold)
	}
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, mods)
}

// holdUntil presses the left button at (x, y) and releases it once done holds, however many frames that takes:
// for tools that act while the simulation runs (a pour adds nothing until the solver steps with the stream on,
// which on a loaded machine may take longer than any fixed hold).
func holdUntil(t *testing.T, v *viewer, x, y float64, what string, done func() bool) {
	t.Helper()
	v.CursorPos(x, y)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, 0)
	frames(t, v, what, done)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, 0)
}

// quiesce waits until the CPU runner has carried out every command posted and the window shows a frame simulated
// after them: the second frame after the one it showed then (the first may have been under way before them),
// however long the frames take on this machine.
func quiesce(t *testing.T, v *viewer) {
	t.Helper()
	frames(t, v, "the runner to take its commands", func() bool { return v.drv.(*cpuDriver).runner.Status().Pending == 0 })
	for range 2 {
		steps := v.drv.Stats().Steps
		frames(t, v, "a frame after the commands", func() bool { return v.drv.Stats().Steps != steps })
	}
}

// TestViewerTools works every tool with the mouse in the window, on the CPU mode (the GPU mode's tools are the
// same calls, tested against it in gpu/pbf): grab and throw, drop and undo, drain and undo, pour, the paddle;
// then saving and loading states, scenes and parameters, and loading bad files without losing the run.
func TestViewerTools(t *testing.T) {
	if testing.Short() {
		t.Skip("about 4 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	v := openViewer(t, gltest.Acquire(t), Options{Scene: "duck-pond", Mode: "pbf-cpu", Particles: 3000, Sets: []string{"render.mode=particles"}})
	dir := t.TempDir()
	count := func() int { return v.drv.Stats().Particles }
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 8 })

	// grab the beach ball (or whichever body is in front of it) and fling it sideways: it follows the cursor and
	// keeps going after the release
	f := v.drv.PickFrame()
	x, y := screenOf(v, mgl32.Vec3(f.Bodies[0].Center))
	v.CursorPos(x, y)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, 0)
	if v.hands.gesture != gestureGrab {
		t.Fatalf("a press on body 0 did not grab it (status %q)", v.status.msg)
	}
	b := v.hands.body
	c := v.drv.PickFrame().Bodies[b].Center
	settle(v, 100*time.Millisecond)
	v.CursorPos(x+120, y)
	// however many frames the machine manages while the button is held
	frames(t, v, "the grabbed body following the cursor", func() bool { return v.drv.PickFrame().Bodies[b].Center[0]-c[0] >= 0.05 })
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, 0)
	frames(t, v, "the throw", func() bool { return strings.Contains(v.status.msg, "threw body") })
	settle(v, 50*time.Millisecond)
	if c2 := v.drv.PickFrame().Bodies[b].Center; c2[0]-c[0] < 0.05 {
		t.Errorf("the grabbed body %d moved from %v to %v; dragged to the right it should have followed", b, c, c2)
	}

	// drop a box into the pool, then undo it
	press(v, glfw.Key3)
	if v.hands.cfg.Tool != toolDrop {
		t.Fatalf("key 3 chose tool %d", v.hands.cfg.Tool)
	}
	bodies := len(v.hands.bodies)
	x, y = screenOf(v, mgl32.Vec3{0.6, 0.3, 0.4})
	click(v, x, y, 0, 0)
	frames(t, v, "the drop", func() bool { return len(v.drv.PickFrame().Bodies) == bodies+1 })
	if len(v.hands.bodies) != bodies+1 || v.hands.undo == nil || v.hands.undo.label != "drop" {
		t.Fatalf("after the drop: %d shapes, undo %+v", len(v.hands.bodies), v.hands.undo)
	}
	v.Key(glfw.KeyZ, glfw.Press, glfw.ModControl)
	frames(t, v, "the drop undone", func() bool { return len(v.drv.PickFrame().Bodies) == bodies })
	if len(v.hands.bodies) != bodies {
		t.Fatalf("after undo: %d shapes for %d bodies", len(v.hands.bodies), bodies)
	}

	// drain some water while the button is held; undo gives it back
	press(v, glfw.Key5)
	before := count()
	x, y = screenOf(v, mgl32.Vec3{0.6, 0.15, 0.6})
	click(v, x, y, 0, 200*time.Millisecond)
	frames(t, v, "the drain", func() bool { return count() < before })
	quiesce(t, v)
	drained := before - count()
	if v.hands.undo == nil || len(v.hands.undo.removed) != before-count() {
		t.Fatalf("drained %d particles but the undo holds %v", before-count(), v.hands.undo)
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, Undo: true})
	frames(t, v, "the drain undone", func() bool { return count() == before })
	t.Logf("drained and restored %d particles", drained)

	// pour: the count grows while the button is held
	press(v, glfw.Key4)
	before = count()
	x, y = screenOf(v, mgl32.Vec3{0.3, 0.3, 0.4})
	holdUntil(t, v, x, y, "the pour", func() bool { return count() > before })
	quiesce(t, v) // the stream put away, and the frames under way when the button came up shown
	poured := count()
	settle(v, 150*time.Millisecond)
	if count() != poured {
		t.Errorf("the stream went on after the button was released: %d → %d", poured, count())
	}

	// ctrl + drag is the paddle whatever the tool; it leaves no error behind
	x, y = screenOf(v, mgl32.Vec3{0.3, 0.15, 0.4})
	click(v, x, y, glfw.ModControl, 100*time.Millisecond, x+80, y)
	settle(v, 50*time.Millisecond)
	if v.status.isErr || v.hands.gesture != gestureNone {
		t.Fatalf("after the paddle: status %q, gesture %d", v.status.msg, v.hands.gesture)
	}

	// save the state, change it, load it back
	v.model.Path = filepath.Join(dir, "pond")
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, Save: true})
	frames(t, v, "the save", func() bool { return strings.Contains(v.status.msg, "saved") })
	saved := filepath.Join(dir, "pond.slosh")
	if _, err := os.Stat(saved); err != nil {
		t.Fatalf("%v (status %q)", err, v.status.msg)
	}
	savedCount := count()
	press(v, glfw.Key5)
	click(v, x, y, 0, 150*time.Millisecond)
	frames(t, v, "a drain after the save", func() bool { return count() < savedCount })
	v.model.Path = saved
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, Load: true})
	if v.status.isErr || !strings.Contains(v.status.msg, "loaded") {
		t.Fatalf("load: %q", v.status.msg)
	}
	frames(t, v, "the loaded state", func() bool { return v.drv.PickFrame() != nil && v.drv.PickFrame().N == savedCount })

	// a bad file and a state of another kind are refused; the run goes on
	for _, bad := range []struct{ name, data, want string }{
		{"junk.slosh", "not a zip", "not a slosh save file"},
		{"missing.slosh", "", "does not exist"},
	} {
		p := filepath.Join(dir, bad.name)
		if bad.data != "" {
			os.WriteFile(p, []byte(bad.data), 0o644)
		}
		v.model.Path = p
		v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, Load: true})
		if !v.status.isErr || !strings.Contains(v.status.msg, bad.want) {
			t.Errorf("loading %s: status %q, want an error containing %q", bad.name, v.status.msg, bad.want)
		}
	}
	steps := v.drv.Stats().Steps
	frames(t, v, "running after the refused loads", func() bool { return v.drv.Stats().Steps > steps })

	// save as scene: the file opens with --scene and holds the bodies where they are now
	v.model.Path = filepath.Join(dir, "setup.slosh")
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, SaveScene: true})
	sc, err := scene.LoadFile(filepath.Join(dir, "setup.json"))
	if err != nil {
		t.Fatalf("the saved scene does not load: %v (status %q)", err, v.status.msg)
	}
	if len(sc.Bodies) != len(v.hands.bodies) || sc.Params["pbf.particles"] == nil {
		t.Errorf("saved scene: %d bodies (want %d), params %v", len(sc.Bodies), len(v.hands.bodies), sc.Params)
	}

	// parameters alone: save, change, load back; a preset for another mode is refused whole
	v.model.Path = filepath.Join(dir, "p.slosh")
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, SavePreset: true})
	preset := filepath.Join(dir, "p-params.json")
	if err := v.drv.Params().Assign("pbf.iterations=7"); err != nil {
		t.Fatal(err)
	}
	v.model.Path = preset
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, LoadPreset: true})
	if got := paramValue(v.drv.Params(), "pbf.iterations"); got != "3" || v.status.isErr {
		t.Errorf("after loading the preset: pbf.iterations = %s, status %q", got, v.status.msg)
	}
	other := filepath.Join(dir, "flip.json")
	os.WriteFile(other, []byte(`{"mode": "flip", "params": {"pbf.iterations": 9}}`), 0o644)
	v.model.Path = other
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, LoadPreset: true})
	if got := paramValue(v.drv.Params(), "pbf.iterations"); got != "3" || !v.status.isErr || !strings.Contains(v.status.msg, "flip") {
		t.Errorf("a preset for mode flip: pbf.iterations = %s, status %q", got, v.status.msg)
	}
}

// `slosh run --load` takes the scene from the file and refuses another given beside it. (That a load continues bit
// for bit is the contract's, every mode: TestContractSaveLoadContinues.)
func TestLoadRefusesAnotherScene(t *testing.T) {
	dir := t.TempDir()
	runQuiet(t, RunOptions{Options: Options{Scene: "fountain", Mode: "pbf-cpu", Particles: 1500}, Frames: 2, Save: filepath.Join(dir, "half.slosh")})
	if err := Run(RunOptions{Options: Options{Load: filepath.Join(dir, "half.slosh"), Scene: "pool"}, Frames: 1}); err == nil {
		t.Error("--load with --scene was accepted")
	}
}

func stateOf(t *testing.T, path string) *pbf.State {
	t.Helper()
	f, err := savefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := pbf.DecodeState(bytes.NewReader(stateBytes(t, f)))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The GPU mode takes the same tools from the window: a drop and its undo, a drain, and a save loaded back.
func TestViewerToolsGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx)
	v := openViewer(t, ctx, Options{Scene: "pool", Mode: "pbf", Particles: 2000, Sets: []string{"render.mode=particles"}})
	if v.drv.Mode().Name != "pbf" {
		t.Fatalf("mode %s (status %q)", v.drv.Mode().Name, v.status.msg)
	}
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 8 })
	// the GPU driver changes the solver between simulated frames: an action in the middle of a frame the budget
	// spread over display frames lands when the frame ends
	gpu := v.drv.(*gpuDriver)
	between := func(what string) {
		frames(t, v, what, func() bool { return !gpu.inFrame() && len(gpu.waiting) == 0 })
	}
	press(v, glfw.Key3)
	x, y := screenOf(v, mgl32.Vec3{0.5, 0.3, 0.4})
	click(v, x, y, 0, 0)
	between("the drop")
	if n := len(v.drv.PickFrame().Bodies); n != 1 || len(v.hands.bodies) != 1 {
		t.Fatalf("after a drop on the GPU: %d bodies, %d shapes (status %q)", n, len(v.hands.bodies), v.status.msg)
	}
	settle(v, 100*time.Millisecond)
	v.Key(glfw.KeyZ, glfw.Press, glfw.ModControl)
	between("the undo")
	if n := len(v.drv.PickFrame().Bodies); n != 0 || len(v.hands.bodies) != 0 {
		t.Fatalf("after undo on the GPU: %d bodies, %d shapes", n, len(v.hands.bodies))
	}
	before := v.drv.PickFrame().N
	v.model.Path = filepath.Join(t.TempDir(), "gpu.slosh")
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, Save: true})
	between("the save")
	press(v, glfw.Key5)
	x, y = screenOf(v, mgl32.Vec3{0.5, 0.1, 0.4})
	click(v, x, y, 0, 100*time.Millisecond)
	between("the drain")
	if n := v.drv.PickFrame().N; n >= before {
		t.Fatalf("the drain on the GPU left %d of %d particles (status %q)", n, before, v.status.msg)
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, Load: true})
	if n := v.drv.PickFrame().N; n != before || v.status.isErr {
		t.Fatalf("after loading the GPU save: %d particles, want %d (status %q)", n, before, v.status.msg)
	}
}

// F12 saves the 3D view as a PNG of the framebuffer's size named after the scene, and shift + F12 the view with
// the panel; an unwritable folder is an error in the status line, and the simulation goes on.
func TestViewerScreenshot(t *testing.T) {
	v := openViewer(t, gltest.Acquire(t), Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Sets: []string{"render.mode=particles"}})
	v.captures = t.TempDir()
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 4 })
	fw, fh := v.win.GetFramebufferSize()
	read := func() *image.RGBA {
		t.Helper()
		f, err := os.Open(v.lastShot)
		if err != nil {
			t.Fatalf("%v (status %q)", err, v.status.msg)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		rgba, ok := img.(*image.RGBA)
		if !ok || img.Bounds().Dx() != fw || img.Bounds().Dy() != fh {
			t.Fatalf("screenshot %T %v, want RGBA %d×%d", img, img.Bounds(), fw, fh)
		}
		return rgba
	}
	press(v, glfw.KeyF12)
	settle(v, 30*time.Millisecond)
	if !strings.HasPrefix(filepath.Base(v.lastShot), "dambreak-") || !strings.Contains(v.status.msg, v.lastShot) {
		t.Fatalf("screenshot %q, status %q", v.lastShot, v.status.msg)
	}
	view := read()
	// the water is in it: blue-dominant pixels, and opaque everywhere
	blue, opaque := 0, true
	for i := 0; i < len(view.Pix); i += 4 {
		if water([3]float64{float64(view.Pix[i]), float64(view.Pix[i+1]), float64(view.Pix[i+2])}) {
			blue++
		}
		opaque = opaque && view.Pix[i+3] == 255
	}
	if blue < fw*fh/100 || !opaque {
		t.Errorf("the screenshot has %d water pixels of %d, opaque %v", blue, fw*fh, opaque)
	}
	first := v.lastShot
	v.Key(glfw.KeyF12, glfw.Press, glfw.ModShift)
	settle(v, 30*time.Millisecond)
	if v.lastShot == first {
		t.Fatal("shift + F12 saved nothing new")
	}
	withPanel := read()
	if bytes.Equal(withPanel.Pix, view.Pix) {
		t.Error("the screenshot with the panel equals the one without")
	}
	// a folder that cannot be made
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	v.captures = filepath.Join(blocker, "shots")
	steps := v.drv.Stats().Steps
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, Screenshot: true})
	settle(v, 30*time.Millisecond)
	if !v.status.isErr || !strings.Contains(v.status.msg, "screenshot not saved") {
		t.Errorf("an unwritable captures folder: status %q", v.status.msg)
	}
	frames(t, v, "running after the failed screenshot", func() bool { return v.drv.Stats().Steps > steps })
}

// The pouring stream is never thinner than a few particles: at a spacing of 0.033 m (a pool of a few thousand
// particles) the default radius of 0.03 m gave a disc of one particle.
func TestPourRadiusHoldsSeveralParticles(t *testing.T) {
	for _, spacing := range []float32{0.005, 0.018, 0.033, 0.08} {
		r := pourRadius(defaultToolConfig().PourRadius, spacing)
		e := scene.Emitter{Direction: scene.Vec3{0, -1, 0}, Radius: float64(r), Speed: 1}
		if n := len(e.Disc(float64(spacing))); n < 9 {
			t.Errorf("spacing %g m: a stream of radius %g m holds %d particles across", spacing, r, n)
		}
	}
	if r := pourRadius(0.05, 0.01); r != 0.05 {
		t.Errorf("a radius of five spacings became %g", r)
	}
}
