package app

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/ui"
)

// shotsDir, when set, is where TestWindowShots writes its pictures (docs/shots keeps the ones the docs show):
//
//	go test ./app -run TestWindowShots -args -shots ../docs/shots
var shotsDir = flag.String("shots", "", "write the window's screenshots (default window, game, A/B) into this folder")

// shotSize is the window size a newcomer's laptop shows: the size issue 26 measured the panels' cover at.
const shotW, shotH = 1280, 720

// withWindowSize resizes the shared test window for a test and puts it back after.
func withWindowSize(t *testing.T, ctx *glh.Context, w, h int) {
	t.Helper()
	ow, oh := ctx.Window.GetSize()
	ctx.Window.SetSize(w, h)
	deadline := time.Now().Add(hangGuard)
	for time.Now().Before(deadline) {
		glfw.PollEvents()
		if fw, fh := ctx.Window.GetFramebufferSize(); fw == w && fh == h {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if fw, fh := ctx.Window.GetFramebufferSize(); fw != w || fh != h {
		t.Fatalf("the test window is %d×%d after asking for %d×%d", fw, fh, w, h)
	}
	t.Cleanup(func() {
		ctx.Window.SetSize(ow, oh)
		glfw.PollEvents()
	})
}

// shotViewer opens the window as `slosh` would with o, at the newcomer's window size.
func shotViewer(t *testing.T, ctx *glh.Context, o *Options) *viewer {
	t.Helper()
	withWindowSize(t, ctx, shotW, shotH)
	return openViewer(t, ctx, *o)
}

// shoot takes a screenshot of the window with its panels into the shots folder (a temporary one without -shots)
// under name, after frames have run until ready holds.
func shoot(t *testing.T, v *viewer, name string, ready func() bool) string {
	t.Helper()
	frames(t, v, name+" ready", ready)
	dir := *shotsDir
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	v.captures = t.TempDir()
	v.shot = shotPanel
	frames(t, v, name+" screenshot", func() bool { return v.lastShot != "" })
	path := filepath.Join(dir, name+".png")
	data, err := os.ReadFile(v.lastShot)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	v.lastShot = ""
	return path
}

// TestWindowShots opens the window a newcomer meets — the default scene, the game, an A/B comparison — at
// 1280×720 and takes a screenshot of each with the panels.
func TestWindowShots(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds on 2 cores: three windows at 1280×720 on llvmpipe; make test runs it")
	}
	t.Run("default", func(t *testing.T) {
		ctx := gltest.Acquire(t)
		v := shotViewer(t, ctx, &Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 4000})
		shoot(t, v, "window-default", func() bool { return v.drv.Stats().Time > 0.3 })
	})
	t.Run("game", func(t *testing.T) {
		ctx := gltest.Acquire(t)
		v := shotViewer(t, ctx, &Options{Scene: "reduced-1"})
		shoot(t, v, "window-game", func() bool { return v.drv.Stats().Time > 0.3 })
	})
	t.Run("ab", func(t *testing.T) {
		ctx := gltest.Acquire(t)
		v := shotViewer(t, ctx, &Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 3000})
		frames(t, v, "steps", func() bool { return v.drv.Stats().Steps > 2 })
		press(v, glfw.KeyB)
		shoot(t, v, "window-ab", func() bool { return v.ab.on && v.drv.Stats().Time > 0.3 })
	})
}

// TestNewcomerWalk walks the window as issue 26's newcomer did, at 1280×720, and checks what confused them: the
// panels leave the view free and the view is what F12 saves; a failed load says so in sight at once; `b` shows
// a difference at once; a scene opens in its own mode, with the particle count the newcomer asked for.
func TestNewcomerWalk(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds on 2 cores: a viewer at 1280×720 on llvmpipe; make test runs it")
	}
	ctx := gltest.Acquire(t)
	v := shotViewer(t, ctx, &Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 3000})
	frames(t, v, "steps", func() bool { return v.drv.Stats().Steps > 2 })

	// the view beside the panels: most of the window, none of it under a panel, and F12 saves exactly it
	r := v.viewRect()
	if r.X0 < 300 || r.W()*r.H() < 0.6*shotW*shotH || r.Y1 > shotH-10 {
		t.Errorf("the view %+v: want it right of the left dock, above the status bar, and most of the window", r)
	}
	v.captures = t.TempDir()
	press(v, glfw.KeyF12)
	frames(t, v, "the F12 screenshot", func() bool { return v.lastShot != "" })
	r = v.viewRect() // the status bar's height follows its message
	if img := decodePNG(t, v.lastShot); img.Bounds().Dx() != int(r.W()+0.5) || img.Bounds().Dy() != int(r.H()+0.5) {
		t.Errorf("F12 saved %v, want the view's %g×%g", img.Bounds(), r.W(), r.H())
	}

	// a failed load: its message is in the status bar in the next frame, in the error colour
	v.model.Path = filepath.Join(t.TempDir(), "no-such-state.slosh")
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, Load: true})
	frames(t, v, "the status bar to show the failed load", func() bool {
		return v.status.isErr && v.panels.StatusShown() == v.status.msg
	})
	if !strings.Contains(v.status.msg, "no-such-state.slosh") {
		t.Errorf("a failed load says %q, want it to name the file", v.status.msg)
	}

	// b: B differs from A at once, and the status says what each runs
	press(v, glfw.KeyB)
	frames(t, v, "the comparison", func() bool { return v.ab.on })
	if a, b := v.abLabelA(), v.abLabelB(); a == b || v.status.isErr {
		t.Errorf("b compares %q with %q (status %q), want a difference", a, b, v.status.msg)
	}
	press(v, glfw.KeyB)

	// a scene opens in its own mode, as the picker shows it, with the count given on the command line
	oil := slices.Index(v.scenes, "oil-and-water")
	if oil < 0 || v.sceneInfo[oil].Mode != "sph" || v.sceneInfo[oil].Desc == "" {
		t.Fatalf("the picker says %+v of oil-and-water, want its mode sph and its description", v.sceneInfo[max(oil, 0)])
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: oil})
	if v.drv.Mode().Name != "sph" || v.sc.Name != "oil-and-water" {
		t.Fatalf("picking oil-and-water opened it in %s (%s)", v.drv.Mode().Name, v.sc.Name)
	}
	if got := paramValue(v.drv.Params(), "sph.particles"); got != "3000" {
		t.Errorf("sph.particles = %s after the switch, want the 3000 of --particles", got)
	}
	// with "keep mode" a 3D scene opens in the running mode
	frames(t, v, "sph running", func() bool { return v.drv.Stats().Steps > 0 })
	v.model.KeepMode = true
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: slices.Index(v.scenes, "dambreak")})
	if v.drv.Mode().Name != "sph" || v.sc.Name != "dambreak" {
		t.Errorf("with keep mode, picking dambreak opened it in %s (%s), want sph", v.drv.Mode().Name, v.sc.Name)
	}
}
