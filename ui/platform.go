package ui

import (
	"errors"
	"math"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/inkyblackness/imgui-go/v4"
)

// Input receives the events imgui does not want. Implemented by the app (camera, shortcuts).
//
// A mouse-button release is always delivered, even for a press the panel took, so that drags end; handle releases
// without a matching press gracefully.
type Input interface {
	MouseButton(b glfw.MouseButton, a glfw.Action, mods glfw.ModifierKey)
	CursorPos(x, y float64) // window coordinates (not framebuffer pixels)
	Scroll(dx, dy float64)
	Key(k glfw.Key, a glfw.Action, mods glfw.ModifierKey)
	FramebufferSize(w, h int)
}

// mouseButtons is the number of buttons imgui tracks (ImGuiIO::MouseDown).
const mouseButtons = 5

// keysDown is the size of imgui's ImGuiIO::KeysDown array, indexed here by GLFW key codes.
const keysDown = 512

// cursorUnset marks that no cursor shape has been applied yet.
const cursorUnset imgui.MouseCursorID = -2

// Platform feeds one GLFW window's input, size and time to an imgui context and forwards what imgui does not
// want to the application's Input. It owns the window's mouse-button, cursor-position, scroll, key, char and
// framebuffer-size callbacks from NewPlatform until Delete, which puts the previous ones back.
type Platform struct {
	window  *glfw.Window
	io      imgui.IO
	input   Input
	visible bool

	mouseX, mouseY float64
	hasMouse       bool               // a cursor position has been seen
	down           [mouseButtons]bool // held, from events
	pressed        [mouseButtons]bool // pressed since the last frame: a click shorter than a frame still registers
	cursors        [imgui.MouseCursorCount]*glfw.Cursor
	cursor         imgui.MouseCursorID // shape last applied to the window
	lastTime       float64

	prevMouseButton glfw.MouseButtonCallback
	prevCursorPos   glfw.CursorPosCallback
	prevScroll      glfw.ScrollCallback
	prevKey         glfw.KeyCallback
	prevChar        glfw.CharCallback
	prevFramebuffer glfw.FramebufferSizeCallback
	installed       bool
}

// NewPlatform connects window to the imgui context whose IO is io: key map, clipboard, standard cursors and the
// window's input callbacks. The window may be hidden (tests, offscreen runs).
func NewPlatform(window *glfw.Window, io imgui.IO) (*Platform, error) {
	if window == nil {
		return nil, errors.New("ui: platform needs a window")
	}
	p := &Platform{window: window, io: io, visible: true, cursor: cursorUnset}

	keys := [...][2]int{
		{imgui.KeyTab, int(glfw.KeyTab)},
		{imgui.KeyLeftArrow, int(glfw.KeyLeft)},
		{imgui.KeyRightArrow, int(glfw.KeyRight)},
		{imgui.KeyUpArrow, int(glfw.KeyUp)},
		{imgui.KeyDownArrow, int(glfw.KeyDown)},
		{imgui.KeyPageUp, int(glfw.KeyPageUp)},
		{imgui.KeyPageDown, int(glfw.KeyPageDown)},
		{imgui.KeyHome, int(glfw.KeyHome)},
		{imgui.KeyEnd, int(glfw.KeyEnd)},
		{imgui.KeyInsert, int(glfw.KeyInsert)},
		{imgui.KeyDelete, int(glfw.KeyDelete)},
		{imgui.KeyBackspace, int(glfw.KeyBackspace)},
		{imgui.KeySpace, int(glfw.KeySpace)},
		{imgui.KeyEnter, int(glfw.KeyEnter)},
		{imgui.KeyEscape, int(glfw.KeyEscape)},
		{imgui.KeyKeyPadEnter, int(glfw.KeyKPEnter)},
		{imgui.KeyA, int(glfw.KeyA)},
		{imgui.KeyC, int(glfw.KeyC)},
		{imgui.KeyV, int(glfw.KeyV)},
		{imgui.KeyX, int(glfw.KeyX)},
		{imgui.KeyY, int(glfw.KeyY)},
		{imgui.KeyZ, int(glfw.KeyZ)},
	}
	for _, k := range keys {
		io.KeyMap(k[0], k[1])
	}
	io.SetClipboard(clipboard{window})

	// GLFW 3.3 has six standard shapes; the diagonal and all-direction resize cursors fall back to the arrow.
	shapes := map[imgui.MouseCursorID]glfw.StandardCursor{
		imgui.MouseCursorArrow:     glfw.ArrowCursor,
		imgui.MouseCursorTextInput: glfw.IBeamCursor,
		imgui.MouseCursorResizeNS:  glfw.VResizeCursor,
		imgui.MouseCursorResizeEW:  glfw.HResizeCursor,
		imgui.MouseCursorHand:      glfw.HandCursor,
	}
	for id, shape := range shapes {
		p.cursors[id] = glfw.CreateStandardCursor(shape)
	}
	for id := range p.cursors {
		if p.cursors[id] == nil {
			p.cursors[id] = p.cursors[imgui.MouseCursorArrow]
		}
	}
	io.SetBackendFlags(io.GetBackendFlags() | imgui.BackendFlagsHasMouseCursors)

	p.prevMouseButton = window.SetMouseButtonCallback(p.mouseButton)
	p.prevCursorPos = window.SetCursorPosCallback(p.cursorPos)
	p.prevScroll = window.SetScrollCallback(p.scroll)
	p.prevKey = window.SetKeyCallback(p.key)
	p.prevChar = window.SetCharCallback(p.char)
	p.prevFramebuffer = window.SetFramebufferSizeCallback(p.framebufferSize)
	p.installed = true
	return p, nil
}

// SetInput sets where events imgui does not want go; nil drops them.
func (p *Platform) SetInput(in Input) { p.input = in }

// SetVisible shows or hides the panel. While hidden, imgui sees no mouse and no key presses, and every event goes
// to the application.
func (p *Platform) SetVisible(v bool) {
	if v == p.visible {
		return
	}
	p.visible = v
	if !v {
		p.pressed = [mouseButtons]bool{}
		if p.cursor == imgui.MouseCursorNone && p.window.GetInputMode(glfw.CursorMode) == glfw.CursorHidden {
			p.window.SetInputMode(glfw.CursorMode, glfw.CursorNormal)
		}
		p.window.SetCursor(nil)
		p.cursor = cursorUnset
	}
}

// Visible reports whether the panel is shown.
func (p *Platform) Visible() bool { return p.visible }

// DisplaySize is the window's size in window coordinates, the space imgui lays out in.
func (p *Platform) DisplaySize() [2]float32 {
	w, h := p.window.GetSize()
	return [2]float32{float32(w), float32(h)}
}

// FramebufferSize is the window's framebuffer size in pixels.
func (p *Platform) FramebufferSize() [2]float32 {
	w, h := p.window.GetFramebufferSize()
	return [2]float32{float32(w), float32(h)}
}

// NewFrame passes sizes, time, mouse state and the cursor shape to imgui. Call it with the context current,
// right before imgui.NewFrame.
func (p *Platform) NewFrame() {
	display, fb := p.DisplaySize(), p.FramebufferSize()
	p.io.SetDisplaySize(imgui.Vec2{X: display[0], Y: display[1]})
	if display[0] > 0 && display[1] > 0 {
		p.io.SetDisplayFrameBufferScale(imgui.Vec2{X: fb[0] / display[0], Y: fb[1] / display[1]})
	}

	now := glfw.GetTime()
	dt := now - p.lastTime
	if p.lastTime == 0 || dt <= 0 {
		dt = 1.0 / 60
	}
	p.lastTime = now
	p.io.SetDeltaTime(float32(dt))

	if p.visible && p.hasMouse {
		p.io.SetMousePosition(imgui.Vec2{X: float32(p.mouseX), Y: float32(p.mouseY)})
	} else {
		p.io.SetMousePosition(imgui.Vec2{X: -math.MaxFloat32, Y: -math.MaxFloat32})
	}
	for i := range p.down {
		p.io.SetMouseButtonDown(i, p.visible && (p.down[i] || p.pressed[i]))
		p.pressed[i] = false
	}
	p.updateCursor()
}

// updateCursor shows the shape imgui asked for during the last frame, or hides the cursor when it asked for none.
// It leaves the cursor alone while the application has disabled it (camera look).
func (p *Platform) updateCursor() {
	if !p.visible || p.window.GetInputMode(glfw.CursorMode) == glfw.CursorDisabled {
		return
	}
	want := imgui.MouseCursor()
	if want == p.cursor {
		return
	}
	p.cursor = want
	if want == imgui.MouseCursorNone {
		p.window.SetInputMode(glfw.CursorMode, glfw.CursorHidden)
		return
	}
	p.window.SetInputMode(glfw.CursorMode, glfw.CursorNormal)
	c := p.cursors[imgui.MouseCursorArrow]
	if want >= 0 && want < imgui.MouseCursorCount {
		c = p.cursors[want]
	}
	p.window.SetCursor(c)
}

// Delete puts the window's previous callbacks back and destroys the cursors; safe to call twice. Call it before
// glfw.Terminate.
func (p *Platform) Delete() {
	if p == nil || !p.installed {
		return
	}
	p.installed = false
	p.window.SetMouseButtonCallback(p.prevMouseButton)
	p.window.SetCursorPosCallback(p.prevCursorPos)
	p.window.SetScrollCallback(p.prevScroll)
	p.window.SetKeyCallback(p.prevKey)
	p.window.SetCharCallback(p.prevChar)
	p.window.SetFramebufferSizeCallback(p.prevFramebuffer)
	p.window.SetCursor(nil)
	if p.cursor == imgui.MouseCursorNone {
		p.window.SetInputMode(glfw.CursorMode, glfw.CursorNormal)
	}
	done := map[*glfw.Cursor]bool{}
	for i, c := range p.cursors {
		if c != nil && !done[c] {
			done[c] = true
			c.Destroy()
		}
		p.cursors[i] = nil
	}
	p.io.SetClipboard(nil)
}

// The callbacks below are installed on the window; tests call them directly with fake events.

func (p *Platform) mouseButton(_ *glfw.Window, b glfw.MouseButton, a glfw.Action, mods glfw.ModifierKey) {
	wanted := p.visible && p.io.WantCaptureMouse()
	if i := int(b); i >= 0 && i < mouseButtons {
		switch a {
		case glfw.Press:
			p.down[i] = true
			p.pressed[i] = p.visible
		case glfw.Release:
			p.down[i] = false
		}
	}
	if p.input != nil && (a == glfw.Release || !wanted) {
		p.input.MouseButton(b, a, mods)
	}
}

func (p *Platform) cursorPos(_ *glfw.Window, x, y float64) {
	p.mouseX, p.mouseY, p.hasMouse = x, y, true
	if p.input != nil {
		p.input.CursorPos(x, y)
	}
}

func (p *Platform) scroll(_ *glfw.Window, dx, dy float64) {
	wanted := p.visible && p.io.WantCaptureMouse()
	if p.visible {
		p.io.AddMouseWheelDelta(float32(dx), float32(dy))
	}
	if p.input != nil && !wanted {
		p.input.Scroll(dx, dy)
	}
}

func (p *Platform) key(_ *glfw.Window, k glfw.Key, _ int, a glfw.Action, mods glfw.ModifierKey) {
	wanted := p.visible && p.io.WantCaptureKeyboard()
	if k >= 0 && int(k) < keysDown {
		switch {
		case a == glfw.Press && p.visible:
			p.io.KeyPress(int(k))
		case a == glfw.Release:
			p.io.KeyRelease(int(k)) // even while hidden, so no key stays stuck down
		}
	}
	p.io.KeyCtrl(int(glfw.KeyLeftControl), int(glfw.KeyRightControl))
	p.io.KeyShift(int(glfw.KeyLeftShift), int(glfw.KeyRightShift))
	p.io.KeyAlt(int(glfw.KeyLeftAlt), int(glfw.KeyRightAlt))
	p.io.KeySuper(int(glfw.KeyLeftSuper), int(glfw.KeyRightSuper))
	if p.input != nil && !wanted {
		p.input.Key(k, a, mods)
	}
}

func (p *Platform) char(_ *glfw.Window, r rune) {
	if p.visible {
		p.io.AddInputCharacters(string(r))
	}
}

func (p *Platform) framebufferSize(_ *glfw.Window, w, h int) {
	if p.input != nil {
		p.input.FramebufferSize(w, h)
	}
}

// clipboard is imgui's clipboard backed by GLFW's.
type clipboard struct{ window *glfw.Window }

func (c clipboard) Text() (string, error) { return c.window.GetClipboardString(), nil }
func (c clipboard) SetText(text string)   { c.window.SetClipboardString(text) }
