package ui

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/inkyblackness/imgui-go/v4"
)

// recorder is an Input that writes down what reaches the application.
type recorder struct{ got []string }

func (r *recorder) MouseButton(b glfw.MouseButton, a glfw.Action, _ glfw.ModifierKey) {
	r.got = append(r.got, fmt.Sprintf("button %d %d", b, a))
}
func (r *recorder) CursorPos(x, y float64)   { r.got = append(r.got, fmt.Sprintf("cursor %g %g", x, y)) }
func (r *recorder) Scroll(dx, dy float64)    { r.got = append(r.got, fmt.Sprintf("scroll %g %g", dx, dy)) }
func (r *recorder) FramebufferSize(w, h int) { r.got = append(r.got, fmt.Sprintf("fb %d %d", w, h)) }
func (r *recorder) Key(k glfw.Key, a glfw.Action, _ glfw.ModifierKey) {
	r.got = append(r.got, fmt.Sprintf("key %d %d", k, a))
}

// take returns and forgets what was recorded.
func (r *recorder) take() []string {
	got := r.got
	r.got = nil
	return got
}

func expect(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: app got %q, want %q", what, got, want)
	}
}

func TestMouseForwardingFollowsCapture(t *testing.T) {
	u := newTestUI(t)
	rec := &recorder{}
	u.SetInput(rec)
	p := u.platform
	frame := func() { u.NewFrame(); drawTestWindow(); u.Render() }
	left := fmt.Sprintf("button %d", glfw.MouseButtonLeft)
	press, release := fmt.Sprintf("%s %d", left, glfw.Press), fmt.Sprintf("%s %d", left, glfw.Release)

	frame()
	p.cursorPos(nil, 50, 50) // over the panel
	expect(t, "cursor over panel", rec.take(), "cursor 50 50")
	frame()
	if !u.WantsMouse() {
		t.Fatal("imgui does not want the mouse over its window")
	}
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Press, 0)
	p.scroll(nil, 0, 1)
	expect(t, "press and scroll over panel", rec.take())
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Release, 0)
	expect(t, "release over panel", rec.take(), release)
	p.framebufferSize(nil, 640, 480)
	expect(t, "framebuffer size", rec.take(), "fb 640 480")

	frame()
	p.cursorPos(nil, 200, 200) // the 3D view
	frame()                    // the click above started a window move, which imgui keeps for this frame
	frame()
	if u.WantsMouse() {
		t.Fatal("imgui wants the mouse outside its window")
	}
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Press, 0)
	p.scroll(nil, 0, -2)
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Release, 0)
	expect(t, "outside panel", rec.take(), "cursor 200 200", press, "scroll 0 -2", release)

	// Hidden: everything goes to the app, even over where the panel was.
	p.cursorPos(nil, 50, 50)
	frame()
	if !u.WantsMouse() {
		t.Fatal("imgui does not want the mouse over its window")
	}
	u.SetVisible(false)
	frame()
	if u.WantsMouse() {
		t.Error("hidden panel wants the mouse")
	}
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Press, 0)
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Release, 0)
	expect(t, "hidden panel", rec.take(), "cursor 50 50", press, release)
}

func TestKeyForwardingFollowsCapture(t *testing.T) {
	u := newTestUI(t)
	rec := &recorder{}
	u.SetInput(rec)
	p := u.platform
	var text string
	var rect [4]float32
	field := func(show bool) {
		u.NewFrame()
		imgui.SetNextWindowPos(imgui.Vec2{X: 10, Y: 10})
		imgui.SetNextWindowSize(imgui.Vec2{X: 160, Y: 60})
		imgui.Begin("keys")
		if show {
			imgui.InputText("##field", &text)
			lo, hi := imgui.ItemRectMin(), imgui.ItemRectMax()
			rect = [4]float32{lo.X, lo.Y, hi.X, hi.Y}
		}
		imgui.End()
		u.Render()
	}
	// Click into the text field.
	field(true)
	p.cursorPos(nil, float64(rect[0]+rect[2])/2, float64(rect[1]+rect[3])/2)
	field(true)
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Press, 0)
	field(true)
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Release, 0)
	field(true)
	field(true)
	rec.take()
	if !u.WantsKeyboard() {
		t.Fatal("imgui does not want the keyboard while a text field is active")
	}
	p.key(nil, glfw.KeyR, 0, glfw.Press, 0)
	p.char(nil, 'r')
	p.key(nil, glfw.KeyR, 0, glfw.Release, 0)
	expect(t, "typing into a field", rec.take())
	field(true)
	if text != "r" {
		t.Errorf("text field holds %q after typing r, want \"r\"", text)
	}

	// Without the field the active widget goes away and keys belong to the app again.
	field(false)
	field(false)
	if u.WantsKeyboard() {
		t.Fatal("imgui still wants the keyboard without a text field")
	}
	p.key(nil, glfw.KeySpace, 0, glfw.Press, 0)
	p.key(nil, glfw.KeySpace, 0, glfw.Release, 0)
	expect(t, "shortcut", rec.take(),
		fmt.Sprintf("key %d %d", glfw.KeySpace, glfw.Press), fmt.Sprintf("key %d %d", glfw.KeySpace, glfw.Release))
}

func TestShortClickIsLatched(t *testing.T) {
	u := newTestUI(t)
	p := u.platform
	frame := func() (bool, [4]float32) {
		u.NewFrame()
		clicked, rect := drawTestWindow()
		u.Render()
		return clicked, rect
	}
	_, rect := frame()
	p.cursorPos(nil, float64(rect[0]+rect[2])/2, float64(rect[1]+rect[3])/2)
	frame()
	// Press and release between two frames: without the latch imgui would never see the button down.
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Press, 0)
	p.mouseButton(nil, glfw.MouseButtonLeft, glfw.Release, 0)
	clicks := 0
	for i := 0; i < 3; i++ {
		if c, _ := frame(); c {
			clicks++
		}
	}
	if clicks != 1 {
		t.Errorf("a press and release within one frame clicked the button %d times, want 1", clicks)
	}
}
