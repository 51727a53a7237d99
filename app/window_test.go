package app

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/ui"
)

// hangGuard bounds the tests' waits on the runner, the window and ffmpeg. It only turns a hang into a failure:
// every wait is for a condition, however long this machine takes to reach it, and no test asserts on time.
const hangGuard = 5 * time.Minute

// frames runs display frames until ok holds, failing if it has not after hangGuard.
func frames(t *testing.T, v *viewer, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		glfw.PollEvents()
		v.frame(time.Now())
		if ok() {
			return
		}
	}
	t.Fatalf("no %s after %v (status %q)", what, hangGuard, v.status.msg)
}

// settle runs display frames for a while.
func settle(v *viewer, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		glfw.PollEvents()
		v.frame(time.Now())
	}
}

func press(v *viewer, k glfw.Key) { v.Key(k, glfw.Press, 0) }

func paramValue(set *param.Set, name string) string {
	p, ok := set.Lookup(name)
	if !ok {
		return "(none)"
	}
	return p.String()
}

// TestViewer drives the window's loop on the hidden test window: the CPU runner feeds the renderer, the keys and
// the mouse do what the panel says, and the panel's mode and scene switches rebuild the solver.
func TestViewer(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	ctx := gltest.Acquire(t)
	v := openViewer(t, ctx, Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1200, Sets: []string{"render.color=speed"}})
	if got := paramValue(v.rend.Params(), "render.color"); got != "speed" {
		t.Errorf("render.color = %s, want the --set speed", got)
	}

	frames(t, v, "particles on screen and steps", func() bool {
		return v.drv.Particles().N > 1000 && v.drv.Stats().Steps >= 4
	})
	frames(t, v, "the title", func() bool { return strings.HasPrefix(v.title, "slosh — pbf-cpu — ") })
	// the drawing passes' GPU times reach the panel
	frames(t, v, "render timings in the panel's model", func() bool {
		v.fillModel()
		names := map[string]bool{}
		for _, p := range v.model.RenderPasses {
			names[p.Name] = true
		}
		return names["anisotropy"] && names["splat"] && names["composite"]
	})
	// the default render mode draws the surface, so the particles come with their anisotropic kernels
	if !v.rend.WantsEllipsoids() {
		t.Error("the default render mode does not draw the surface")
	}
	if p, err := v.surf.particles(v.drv, v.rend, v.sc); err != nil || p.Ellipsoids == nil || p.N != v.drv.Particles().N {
		t.Errorf("surface kernels: %v, ellipsoids %v for %d particles", err, p.Ellipsoids != nil, p.N)
	}
	if !strings.Contains(v.title, " particles — ") || !strings.HasSuffix(v.title, " fps") {
		t.Errorf("title %q", v.title)
	}

	// space pauses: the step count stops
	press(v, glfw.KeySpace)
	if !v.drv.Paused() {
		t.Fatal("space did not pause")
	}
	idle := func() bool { return v.drv.(*cpuDriver).runner.Status().Pending == 0 }
	frames(t, v, "the runner to pause", idle)
	settle(v, 50*time.Millisecond)
	steps := v.drv.Stats().Steps
	settle(v, 150*time.Millisecond)
	if s := v.drv.Stats().Steps; s != steps {
		t.Fatalf("paused, yet the steps went from %d to %d", steps, s)
	}
	// . steps one frame (the substeps the solver chose) and stays paused
	press(v, glfw.KeyPeriod)
	frames(t, v, "a single step", func() bool { return v.drv.Stats().Steps > steps })
	settle(v, 100*time.Millisecond)
	sub := v.drv.Stats().Substeps
	if s := v.drv.Stats().Steps; s != steps+sub || sub < int(pbf.DefaultConfig().Step.Min) || !v.drv.Paused() {
		t.Fatalf("after one single step: %d steps (from %d, a frame of %d), paused %v", s, steps, sub, v.drv.Paused())
	}
	// r resets
	press(v, glfw.KeyR)
	frames(t, v, "the reset", func() bool { return v.drv.Stats().Steps == 0 })
	// space runs again
	press(v, glfw.KeySpace)
	frames(t, v, "running after the reset", func() bool { return v.drv.Stats().Steps > sub })

	// h hides and shows the panel
	press(v, glfw.KeyH)
	settle(v, 30*time.Millisecond)
	if v.ui.Visible() {
		t.Error("h did not hide the panel")
	}
	press(v, glfw.KeyH)
	if !v.ui.Visible() {
		t.Error("h did not show the panel again")
	}

	// the mouse: left drag orbits, shift + left pans, the wheel zooms, f frames the domain
	yaw, target, dist := v.cam.Yaw, v.cam.Target, v.cam.Distance
	v.CursorPos(100, 100)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, 0)
	v.CursorPos(140, 100)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, 0)
	if v.cam.Yaw == yaw || v.cam.Target != target {
		t.Errorf("a left drag: yaw %g → %g, target %v → %v", yaw, v.cam.Yaw, target, v.cam.Target)
	}
	v.CursorPos(180, 120)
	yaw = v.cam.Yaw
	if v.cam.Yaw != yaw {
		t.Error("the camera moved after the button was released")
	}
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, glfw.ModShift)
	v.CursorPos(150, 140)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, glfw.ModShift)
	if v.cam.Target == target || v.cam.Yaw != yaw {
		t.Errorf("a shift + left drag: target %v → %v, yaw %g → %g", target, v.cam.Target, yaw, v.cam.Yaw)
	}
	v.Scroll(0, 2)
	if v.cam.Distance >= dist {
		t.Errorf("scrolling up did not zoom in: %g → %g", dist, v.cam.Distance)
	}
	press(v, glfw.KeyF)
	framed := sceneCamera(v.sc)
	framed.Yaw, framed.Pitch = v.cam.Yaw, v.cam.Pitch
	frameDomain(framed, v.sc)
	if v.cam.Target != framed.Target || v.cam.Distance != framed.Distance {
		t.Errorf("f: target %v distance %g, want %v %g", v.cam.Target, v.cam.Distance, framed.Target, framed.Distance)
	}

	// Esc asks the loop to end
	press(v, glfw.KeyEscape)
	if !v.win.ShouldClose() {
		t.Error("Esc did not close the window")
	}
	v.win.SetShouldClose(false) // the window is shared with other tests

	// An edit in the panel's mirror reaches the solver running on its own goroutine.
	if err := v.drv.Params().Assign("pbf.iterations=3"); err != nil {
		t.Fatal(err)
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ParamsChanged: true})

	// The panel switches the mode to pbf: the GPU solver where it runs here, else pbf-cpu saying why. The shared
	// parameters carry over.
	gpu := -1
	for i, m := range v.modes {
		if m.Name == "pbf" {
			gpu = i
		}
	}
	v.apply(ui.Actions{Mode: gpu, Scene: v.model.Scene})
	switch name := v.drv.Mode().Name; {
	case name == "pbf" && !v.status.isErr:
		frames(t, v, "GPU steps", func() bool { return v.drv.Stats().Steps > 4 && v.drv.Particles().N > 1000 })
	case name == "pbf-cpu" && strings.Contains(v.status.msg, "running PBF on the CPU (pbf-cpu)"):
		t.Logf("the GPU mode fell back: %s", v.status.msg)
	default:
		t.Fatalf("after switching to pbf: mode %s, status %q", name, v.status.msg)
	}
	if got := paramValue(v.drv.Params(), "pbf.iterations"); got != "3" {
		t.Errorf("pbf.iterations = %s after the mode switch, want 3", got)
	}
	if got := paramValue(v.drv.Params(), "pbf.particles"); got != "1200" {
		t.Errorf("pbf.particles = %s after the mode switch, want 1200", got)
	}
	fillModelAndCheck(t, v)

	// The panel switches the scene: new geometry, new particles, same mode.
	pool := -1
	for i, n := range v.scenes {
		if n == "pool" {
			pool = i
		}
	}
	mode := v.drv.Mode().Name
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: pool})
	if v.sc.Name != "pool" || v.drv.Mode().Name != mode {
		t.Fatalf("after switching to pool: scene %s, mode %s", v.sc.Name, v.drv.Mode().Name)
	}
	frames(t, v, "the pool running", func() bool { return v.drv.Stats().Time > 0 && v.drv.Stats().Particles > 1000 })

	// and back to the CPU mode
	v.apply(ui.Actions{Mode: 1 - gpu, Scene: v.model.Scene})
	if v.drv.Mode().Name != "pbf-cpu" {
		t.Fatalf("mode %s after switching back to pbf-cpu", v.drv.Mode().Name)
	}
	frames(t, v, "the CPU mode running again", func() bool { return v.drv.Stats().Steps > 2 })
}

func fillModelAndCheck(t *testing.T, v *viewer) {
	t.Helper()
	v.fillModel()
	m := v.model
	if m.Modes[m.Mode] != v.drv.Mode().Name || m.Scenes[m.Scene] != "dambreak" || len(m.Sets) != 5 || m.Sets[0] != v.drv.Params() ||
		m.Sets[1] != v.hands.set || m.Sets[3] != v.surf.Params() || m.Sets[4] != v.capSet {
		t.Errorf("panel model: mode %d of %v, scene %d of %v, %d sets", m.Mode, m.Modes, m.Scene, m.Scenes, len(m.Sets))
	}
}

// Without compute shaders (macOS, OpenGL 4.1), the CPU runner computes the surface's kernels and the CPU driver
// uploads them with the frame, so the window still draws the surface.
func TestViewerSurfaceWithoutCompute(t *testing.T) {
	ctx := gltest.Acquire(t)
	noCompute := *ctx
	noCompute.Compute = false
	modes := Modes()
	st, err := prepare(modes, &Options{Scene: "pool", Mode: "pbf-cpu", Particles: 800})
	if err != nil {
		t.Fatal(err)
	}
	v, err := newViewer(modes, &noCompute, st, "", io.Discard, RealTime)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if v.surf.gpu != nil {
		t.Fatal("the surfacer uses the GPU on a context without compute shaders")
	}
	frames(t, v, "kernels uploaded with the CPU frames", func() bool {
		p, err := v.surf.particles(v.drv, v.rend, v.sc)
		return err == nil && p.Ellipsoids != nil && p.N > 700
	})
	// switching the render mode to particles stops the runner's work
	if err := v.rend.Params().Assign("render.mode=particles"); err != nil {
		t.Fatal(err)
	}
	frames(t, v, "frames without kernels", func() bool {
		v.surf.particles(v.drv, v.rend, v.sc)
		p := v.drv.(*cpuDriver).runner.Latest()
		return p != nil && len(p.View.Ellipsoids) == 0
	})
}
