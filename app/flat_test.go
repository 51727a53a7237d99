package app

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/reduced/game"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/scene"
)

// The window plays the reduced game: the level's picture on screen (not the 3D tank), its status line, a current
// drawn with the mouse joins the basis, a digit key excites it, a right click spawns a box that a left drag then
// holds and throws, and N opens the next level. A 3D scene chosen in the panel takes the window back to a 3D mode.
func TestViewerPlaysTheGame(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	ctx := gltest.Acquire(t)
	v := openViewer(t, ctx, Options{Scene: "reduced-1", Mode: game.Name})
	if !v.flatMode() {
		t.Fatal("the reduced mode runs without the 2D view")
	}
	frames(t, v, "the level's first frames", func() bool { return v.drv.Stats().Steps >= 4 && v.flatFrame() != nil && v.flat.r != nil })
	f := v.flatFrame()
	if !strings.Contains(f.Status, "0/1 crates home") || !strings.Contains(f.Status, "\nGoal: bring the crate into the green zone") {
		t.Errorf("status line before the first move %q", f.Status)
	}
	// the picture, drawn offscreen as the window draws it: the lower water is the level's dye, bluish, not the
	// renderer's sky or the background
	fb, err := glh.NewFramebuffer(200, 150)
	if err != nil {
		t.Fatal(err)
	}
	fb.Bind()
	v.drawFlat(200, 150)
	sx, sy := v.flat.r.ToScreen(1, 0.2, 200, 150) // low in the still water
	px := render.Screenshot(fb.ID(), 200, 150).RGBAAt(int(sx), int(sy))
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	fb.Delete()
	if px.B < px.R+20 || px.B < 60 {
		t.Errorf("the middle of the 2D view is %v, not water", px)
	}
	modesOf := func() float64 {
		for _, fg := range v.drv.Stats().Figures {
			if fg.Name == "modes" {
				return fg.Value
			}
		}
		return 0
	}
	before := modesOf()
	// a stroke across the lower water with the left button: a current joins the basis
	w, h := v.win.GetSize()
	at := func(x, y float32) { v.CursorPos(v.flat.r.ToScreen(x, y, w, h)) }
	at(0.3, 0.2)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, 0)
	for k := 1; k <= 10; k++ {
		at(0.3+0.12*float32(k), 0.2+0.03*float32(k))
	}
	if n := len(v.flat.stroke); n < 5 {
		t.Fatalf("the stroke has %d points", n)
	}
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, 0)
	frames(t, v, "the drawn current in the basis", func() bool { return modesOf() == before+1 })
	// its key excites it again; a key with no current says so
	press(v, glfw.Key1)
	frames(t, v, "the current's key", func() bool { return strings.Contains(v.status.msg, "current 1 again") })
	// the level's clock runs since the stroke, and the status line is the compact one
	if st := v.flatFrame().Status; strings.Contains(st, "Goal:") {
		t.Errorf("after the first move the status still says the goal: %q", st)
	}
	press(v, glfw.Key7)
	frames(t, v, "a key with no current", func() bool { return strings.Contains(v.status.msg, "no current on key 7") })
	// a right click in the water spawns a box; a left drag on it holds it, and letting go throws it
	at(1.0, 0.9)
	v.MouseButton(glfw.MouseButtonRight, glfw.Press, 0)
	frames(t, v, "the spawned box", func() bool {
		f := v.flatFrame()
		return f != nil && len(f.Shapes) == 3 // the zone, the crate, the box
	})
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, 0)
	frames(t, v, "the box held", func() bool { return strings.Contains(v.status.msg, "holding body 1") })
	at(1.2, 1.0)
	settle(v, 0)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, 0)
	// the sitting's replay holds the game's hands
	snap := make(chan []string, 1)
	v.drv.Do(func(s sim.Solver) (string, error) {
		file, err := v.log.Snapshot(s.Stats().Steps)
		if err != nil {
			return "", err
		}
		var ops []string
		for _, a := range file.Actions {
			ops = append(ops, string(a.Op))
		}
		snap <- ops
		return "", nil
	}, nil)
	var ops []string
	frames(t, v, "the replay log", func() bool {
		select {
		case ops = <-snap:
			return true
		default:
			return false
		}
	})
	got := strings.Join(ops, " ")
	for _, want := range []string{"draw", "excite", "spawn", "grab", "release"} {
		if !strings.Contains(got, want) {
			t.Errorf("the replay log's actions %q lack %s", got, want)
		}
	}
	// N: the next level
	press(v, glfw.KeyN)
	frames(t, v, "level 2", func() bool { return v.sc.Name == "reduced-2" && v.drv.Stats().Steps > 0 })
	// a 3D scene takes the window back to a 3D mode
	v.switchScene("dambreak")
	frames(t, v, "a 3D mode", func() bool { return !v.flatMode() && v.sc.Name == "dambreak" && v.drv.Particles().N > 0 })
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
}

// A reduced sitting saved to a file (as ctrl + s and `slosh run --save` do) loads into a fresh solver of the mode
// with the same state, bodies and drawn currents included.
func TestReducedSaveFile(t *testing.T) {
	modes := Modes()
	st, err := prepare(modes, &Options{Scene: "reduced-2", Mode: game.Name})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := openSession(modes, st, glInfo{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	h := ss.solver.(sim.FlatHands)
	if _, err := h.Draw([][2]float32{{0.2, 0.2}, {1, 0.6}, {1.8, 1}}, 0.7, 0.3); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Spawn(scene.FlatBody{Shape: scene.FlatCircle, Center: scene.Vec2{1, 1}, Radius: 0.05, Density: 800}); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 20; k++ {
		if _, err := ss.frame(nil); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(t.TempDir(), "game.slosh")
	if _, err := saveStateFile(path, game.Name, ss.solver, st.sc); err != nil {
		t.Fatal(err)
	}
	f, err := savefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := findMode(modes, game.Name)
	s, _, _, err := restoreSession(modes, m, glInfo{}, f)
	if err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	if err := ss.solver.(sim.Stateful).WriteState(&want); err != nil {
		t.Fatal(err)
	}
	if err := s.(sim.Stateful).WriteState(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want.Bytes(), got.Bytes()) {
		t.Fatal("the loaded state differs from the saved one")
	}
}

// The 2D game's hint and keys name its own controls, not the 3D tools', and a long status (the level's description
// before the first move) wraps to the width given, keeping its own line breaks and every word.
func TestFlatHintAndCaptionWrap(t *testing.T) {
	v := &viewer{}
	hint := v.flatHint() + " " + strings.Join(flatKeys, " ")
	for _, want := range []string{"current", "1–9", "throw", "spawn", "N", "r play again"} {
		if !strings.Contains(hint, want) {
			t.Errorf("the game's hint %q does not mention %q", hint, want)
		}
	}
	for _, tool := range toolHints {
		if hint == tool {
			t.Errorf("the game's hint is the 3D tool's %q", tool)
		}
	}
	in := "0/1 crates home · 1:00 left\\nGoal: bring the crate into the green zone within 1:00; the clock starts at your first move"
	in = strings.ReplaceAll(in, "\\n", "\n")
	out := wrapCaption(in, 30)
	for _, line := range strings.Split(out, "\n") {
		if len([]rune(line)) > 30 {
			t.Errorf("line %q is longer than 30 characters", line)
		}
	}
	if strings.Join(strings.Fields(out), " ") != strings.Join(strings.Fields(in), " ") {
		t.Errorf("wrapping lost words: %q", out)
	}
	if !strings.HasPrefix(out, "0/1 crates home · 1:00 left\n") {
		t.Errorf("the status line's own break is gone: %q", out)
	}
}
