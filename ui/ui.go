// Package ui is slosh's Dear ImGui layer: the GLFW platform glue (input, sizes, clipboard, cursors), an OpenGL
// 4.1 core renderer for imgui draw lists, and the panels (simulation controls, parameters generated from a
// param.Set, statistics with a density-error plot).
//
// The panels draw what they are given; they know no solver by name. The binding (imgui-go v4) is confined to this
// package, so moving to another binding is a contained change.
//
// One frame:
//
//	u.NewFrame()           // after glfw.PollEvents
//	acts := panels.Draw(m) // widgets
//	... draw the 3D scene ...
//	u.Render()             // over the scene
//	u.RenderOverlay()      // the recording indicator, over everything (left out of recordings with the panel)
//	window.SwapBuffers()
package ui

import (
	"errors"
	"fmt"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/inkyblackness/imgui-go/v4"

	"github.com/slosh/slosh/assets"
)

// baseFontPx is the font height at a content scale of 1.
const baseFontPx = 15

// UI is an imgui context bound to one window: its platform input and its renderer.
type UI struct {
	ctx      *imgui.Context
	io       imgui.IO
	platform *Platform
	renderer *Renderer
	scale    float32 // content scale the fonts and style were built for
	glyphs   imgui.AllocatedGlyphRanges
	font     imgui.Font
	overlay  bool // Indicator drew into the foreground list this frame
}

// New creates the imgui context for window, installs its input callbacks and builds the renderer. The window's
// GL context must be current. Fonts are rasterised at the window's content scale so text stays crisp on HiDPI
// screens; no imgui.ini file is written.
func New(window *glfw.Window) (*UI, error) {
	if window == nil {
		return nil, errors.New("ui: no window")
	}
	ctx := imgui.CreateContext(nil)
	if err := ctx.SetCurrent(); err != nil {
		return nil, fmt.Errorf("ui: imgui context: %w", err)
	}
	u := &UI{ctx: ctx, io: imgui.CurrentIO()}
	u.io.SetIniFilename("")
	u.setupFontAndStyle(window)

	var err error
	if u.platform, err = NewPlatform(window, u.io); err != nil {
		u.Delete()
		return nil, err
	}
	if u.renderer, err = NewRenderer(u.io); err != nil {
		u.Delete()
		return nil, err
	}
	return u, nil
}

// setupFontAndStyle builds the default font at 13 px × content scale. Where the framebuffer is denser than window
// coordinates (macOS Retina) the extra resolution comes from the framebuffer, so the font is drawn at 1/fbScale in
// window coordinates; where it is not (Windows, Linux at 200 %), widgets are scaled up instead.
func (u *UI) setupFontAndStyle(window *glfw.Window) {
	cs, _ := window.GetContentScale()
	if !(cs > 0) {
		cs = 1
	}
	fbScale := float32(1)
	if w, _ := window.GetSize(); w > 0 {
		if fw, _ := window.GetFramebufferSize(); fw > 0 {
			fbScale = float32(fw) / float32(w)
		}
	}
	u.scale = cs

	// DejaVu Sans with Latin, Greek and the symbol blocks the parameter labels use (ε, ρ0, Δq, ∇, Σ, ≥, ·, ×, ²);
	// the ranges must live until the atlas is built, so the UI keeps them.
	var b imgui.GlyphRangesBuilder
	atlas := u.io.Fonts()
	b.AddExisting(atlas.GlyphRangesDefault())
	for _, r := range [][2]rune{{0x0370, 0x03FF}, {0x2000, 0x206F}, {0x2070, 0x209F}, {0x2190, 0x21FF}, {0x2200, 0x22FF}} {
		b.Add(r[0], r[1])
	}
	u.glyphs = b.Build()
	cfg := imgui.NewFontConfig()
	cfg.SetOversampleH(2)
	u.font = atlas.AddFontFromMemoryTTFV(assets.PanelFont(), baseFontPx*cs, cfg, u.glyphs.GlyphRanges)
	cfg.Delete()

	if fbScale > 1 {
		u.io.SetFontGlobalScale(1 / fbScale)
	}
	imgui.StyleColorsDark()
	style := imgui.CurrentStyle()
	if s := cs / fbScale; s > 1.01 {
		style.ScaleAllSizes(s)
	}
	style.SetWindowRounding(4)
	style.SetFrameRounding(3)
	style.SetGrabRounding(3)
}

// Platform gives access to input settings: SetInput, SetVisible.
func (u *UI) Platform() *Platform { return u.platform }

// SetInput sets where the events imgui does not want go (the app's camera and shortcuts).
func (u *UI) SetInput(in Input) { u.platform.SetInput(in) }

// SetVisible shows or hides the panel; while hidden every event goes to the application, and Render draws
// nothing. The app should skip Panels.Draw while hidden.
func (u *UI) SetVisible(v bool) { u.platform.SetVisible(v) }

// Visible reports whether the panel is shown.
func (u *UI) Visible() bool { return u.platform.Visible() }

// NewFrame starts an imgui frame: it makes this context current and passes sizes, time and input to imgui.
// Call it once per frame after polling events, before any widget.
func (u *UI) NewFrame() {
	_ = u.ctx.SetCurrent() // only fails after Delete
	u.platform.NewFrame()
	imgui.NewFrame()
}

// Render ends the frame and draws the panels into the bound framebuffer, which is assumed to be the window's (its
// framebuffer size). Call it after the 3D scene so the panel lies on top. The indicator waits for RenderOverlay.
func (u *UI) Render() {
	_ = u.ctx.SetCurrent()
	imgui.Render()
	if u.platform.Visible() {
		u.renderer.RenderLists(u.platform.DisplaySize(), u.platform.FramebufferSize(), imgui.RenderedDrawData(), u.notOverlay())
	}
}

// RenderOverlay draws what Indicator put on screen this frame, over the panels, shown or hidden. Call it after
// Render; a recording that includes the panel reads the picture between the two, so the indicator is not in it.
func (u *UI) RenderOverlay() {
	if !u.overlay {
		return
	}
	u.overlay = false
	_ = u.ctx.SetCurrent()
	fg := imgui.ForegroundDrawList()
	u.renderer.RenderLists(u.platform.DisplaySize(), u.platform.FramebufferSize(), imgui.RenderedDrawData(),
		func(l imgui.DrawList) bool { return l == fg })
}

// notOverlay keeps every draw list but the indicator's.
func (u *UI) notOverlay() func(imgui.DrawList) bool {
	if !u.overlay {
		return nil
	}
	fg := imgui.ForegroundDrawList()
	return func(l imgui.DrawList) bool { return l != fg }
}

// Indicator shows a red dot and text (the recording's elapsed time) in the top-right corner of view (the
// rectangle the panels leave, or the whole window), over everything, until the frame ends; RenderOverlay draws it.
// Call it between NewFrame and Render, panel shown or not.
func (u *UI) Indicator(text string, view Rect) {
	em := imgui.FontSize()
	size := imgui.CalcTextSize(text, false, 0)
	r := 0.4 * em
	pad := 0.5 * em
	x1 := view.X1 - pad
	x0 := x1 - (size.X + 2*r + 3*pad)
	y0 := view.Y0 + pad
	y1 := y0 + size.Y + pad
	fg := imgui.ForegroundDrawList()
	fg.AddRectFilledV(imgui.Vec2{X: x0, Y: y0}, imgui.Vec2{X: x1, Y: y1}, imgui.PackedColorFromVec4(imgui.Vec4{X: 0, Y: 0, Z: 0, W: 0.55}), 0.3*em, 0)
	cy := (y0 + y1) / 2
	fg.AddCircleFilled(imgui.Vec2{X: x0 + pad + r, Y: cy}, r, imgui.PackedColorFromVec4(imgui.Vec4{X: 0.9, Y: 0.1, Z: 0.1, W: 1}))
	fg.AddText(imgui.Vec2{X: x0 + 2*pad + 2*r, Y: cy - size.Y/2}, imgui.PackedColorFromVec4(imgui.Vec4{X: 1, Y: 1, Z: 1, W: 1}), text)
	u.overlay = true
}

// Caption shows text (lines split by \n) centred over [x0, x1] with its bottom at y, in screen coordinates, on
// a dark box over everything until the frame ends: the labels of A/B views. Like Indicator it is drawn by
// RenderOverlay, panel shown or not, and is not in recordings.
func (u *UI) Caption(x0, x1, y float32, text string) {
	em := imgui.FontSize()
	pad := 0.4 * em
	size := imgui.CalcTextSize(text, false, 0)
	cx := (x0 + x1) / 2
	bx0, bx1 := cx-size.X/2-pad, cx+size.X/2+pad
	by0, by1 := y-size.Y-2*pad, y
	fg := imgui.ForegroundDrawList()
	fg.AddRectFilledV(imgui.Vec2{X: bx0, Y: by0}, imgui.Vec2{X: bx1, Y: by1}, imgui.PackedColorFromVec4(imgui.Vec4{X: 0, Y: 0, Z: 0, W: 0.55}), 0.3*em, 0)
	fg.AddText(imgui.Vec2{X: bx0 + pad, Y: by0 + pad}, imgui.PackedColorFromVec4(imgui.Vec4{X: 1, Y: 1, Z: 1, W: 1}), text)
	u.overlay = true
}

// Redraw draws the frame last ended by Render again, into the bound framebuffer of width×height pixels: an
// offscreen target for a screenshot or a recording with the panel. It is valid until the next NewFrame.
func (u *UI) Redraw(width, height int) {
	_ = u.ctx.SetCurrent()
	if u.platform.Visible() {
		u.renderer.RenderLists(u.platform.DisplaySize(), [2]float32{float32(width), float32(height)}, imgui.RenderedDrawData(), u.notOverlay())
	}
}

// WantsMouse reports whether imgui uses the mouse (the cursor is over a panel or dragging a widget).
func (u *UI) WantsMouse() bool { return u.platform.Visible() && u.io.WantCaptureMouse() }

// WantsKeyboard reports whether imgui uses the keyboard (a text field is active).
func (u *UI) WantsKeyboard() bool { return u.platform.Visible() && u.io.WantCaptureKeyboard() }

// Delete frees the renderer, gives the window's callbacks back and destroys the imgui context; safe to call
// twice. The GL context must be current, and GLFW not yet terminated.
func (u *UI) Delete() {
	if u == nil || u.ctx == nil {
		return
	}
	_ = u.ctx.SetCurrent()
	u.renderer.Delete()
	u.renderer = nil
	u.platform.Delete()
	u.ctx.Destroy()
	u.ctx = nil
	u.glyphs.Free()
}
