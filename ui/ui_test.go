package ui

import (
	"image"
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/inkyblackness/imgui-go/v4"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/shaders"
)

func TestMain(m *testing.M) { gltest.Main(m) }

// newTestUI opens a UI on the shared hidden test window; it is deleted when the test ends.
func newTestUI(t *testing.T) *UI {
	t.Helper()
	ctx := gltest.Acquire(t)
	u, err := New(ctx.Window)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(u.Delete)
	return u
}

// testRect is where drawTestWindow puts its window: (10,10) to (130,90) in display coordinates.
var testRect = [4]float32{10, 10, 130, 90}

func drawTestWindow() (clicked bool, button [4]float32) {
	imgui.SetNextWindowPos(imgui.Vec2{X: testRect[0], Y: testRect[1]})
	imgui.SetNextWindowSize(imgui.Vec2{X: testRect[2] - testRect[0], Y: testRect[3] - testRect[1]})
	imgui.Begin("test")
	imgui.Text("Hello, panel")
	clicked = imgui.Button("OK")
	lo, hi := imgui.ItemRectMin(), imgui.ItemRectMax()
	imgui.End()
	return clicked, [4]float32{lo.X, lo.Y, hi.X, hi.Y}
}

// checkPanelPixels asserts that the scaled test rectangle is covered by the panel (with some bright text pixels)
// and that every pixel clear of it still has the clear colour.
func checkPanelPixels(t *testing.T, img *image.RGBA, scale float32, clear [3]uint8) {
	t.Helper()
	b := img.Bounds()
	x0, y0 := int(testRect[0]*scale), int(testRect[1]*scale)
	x1, y1 := int(testRect[2]*scale), int(testRect[3]*scale)
	var inside, changed, bright, outside, touched int
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			i := img.PixOffset(x, y)
			px := img.Pix[i : i+3]
			isClear := px[0] == clear[0] && px[1] == clear[1] && px[2] == clear[2]
			switch {
			case x >= x0+2 && x < x1-2 && y >= y0+2 && y < y1-2:
				inside++
				if !isClear {
					changed++
				}
				if px[0] > 180 && px[1] > 180 && px[2] > 180 {
					bright++
				}
			case x < x0-2 || x >= x1+2 || y < y0-2 || y >= y1+2:
				outside++
				if !isClear {
					touched++
				}
			}
		}
	}
	if inside == 0 || outside == 0 {
		t.Fatalf("framebuffer %v too small for the test rectangle", b)
	}
	if changed < inside*95/100 {
		t.Errorf("panel covers %d of %d pixels of its rectangle, want nearly all", changed, inside)
	}
	if bright < 10 {
		t.Errorf("only %d bright (text) pixels in the panel; the font atlas did not draw", bright)
	}
	if touched > 0 {
		t.Errorf("%d of %d pixels outside the panel changed", touched, outside)
	}
}

func TestRenderDrawsPanelIntoFramebufferAndRestoresState(t *testing.T) {
	u := newTestUI(t)
	display, fbSize := u.platform.DisplaySize(), u.platform.FramebufferSize()
	w, h := int(fbSize[0]), int(fbSize[1])
	scale := fbSize[0] / display[0]
	fb, err := glh.NewFramebuffer(w, h)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Delete()

	// The caller's state, which Render must leave as it found it.
	other, err := glh.NewProgram(shaders.FS(), nil, "imgui.vert", "imgui.frag")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Delete()
	tex := glh.NewTexture2D(4, 4, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)
	defer tex.Delete()
	vao := glh.NewVertexArray()
	defer vao.Delete()

	clear := [3]uint8{51, 102, 153}
	for frame := 0; frame < 2; frame++ { // the second frame checks a window that already existed
		u.NewFrame()
		drawTestWindow()

		fb.Bind()
		gl.ClearColor(0.2, 0.4, 0.6, 1)
		gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
		other.Use()
		tex.Bind(0)
		vao.Bind()
		gl.Disable(gl.BLEND)
		gl.Disable(gl.SCISSOR_TEST)
		gl.Enable(gl.DEPTH_TEST)
		gl.Enable(gl.CULL_FACE)
		gl.BlendFunc(gl.ONE, gl.ZERO)
		gl.Viewport(3, 5, 100, 70)

		u.Render()

		var prog, boundTex, boundVAO, src, dst int32
		var vp [4]int32
		gl.GetIntegerv(gl.CURRENT_PROGRAM, &prog)
		gl.GetIntegerv(gl.TEXTURE_BINDING_2D, &boundTex)
		gl.GetIntegerv(gl.VERTEX_ARRAY_BINDING, &boundVAO)
		gl.GetIntegerv(gl.BLEND_SRC_RGB, &src)
		gl.GetIntegerv(gl.BLEND_DST_RGB, &dst)
		gl.GetIntegerv(gl.VIEWPORT, &vp[0])
		if uint32(prog) != other.ID() {
			t.Errorf("program %d after Render, want %d", prog, other.ID())
		}
		if uint32(boundTex) != tex.ID() {
			t.Errorf("texture %d after Render, want %d", boundTex, tex.ID())
		}
		if uint32(boundVAO) != vao.ID() {
			t.Errorf("vertex array %d after Render, want %d", boundVAO, vao.ID())
		}
		if gl.IsEnabled(gl.BLEND) || gl.IsEnabled(gl.SCISSOR_TEST) {
			t.Errorf("blend %v, scissor test %v after Render, want both off", gl.IsEnabled(gl.BLEND), gl.IsEnabled(gl.SCISSOR_TEST))
		}
		if !gl.IsEnabled(gl.DEPTH_TEST) || !gl.IsEnabled(gl.CULL_FACE) {
			t.Errorf("depth test %v, cull face %v after Render, want both on", gl.IsEnabled(gl.DEPTH_TEST), gl.IsEnabled(gl.CULL_FACE))
		}
		if src != gl.ONE || dst != gl.ZERO {
			t.Errorf("blend func %#x,%#x after Render, want ONE,ZERO", src, dst)
		}
		if vp != [4]int32{3, 5, 100, 70} {
			t.Errorf("viewport %v after Render, want [3 5 100 70]", vp)
		}
		gl.Disable(gl.DEPTH_TEST)
		gl.Disable(gl.CULL_FACE)
		gl.UseProgram(0)
		gl.BindVertexArray(0)
		if err := glh.CheckError("rendering the panel"); err != nil {
			t.Fatal(err)
		}
	}
	img := glh.ReadRGBA(fb.ID(), w, h)
	checkPanelPixels(t, img, scale, clear)

	// The same frame into a target twice the size: clip rectangles and geometry scale with it.
	big, err := glh.NewFramebuffer(2*w, 2*h)
	if err != nil {
		t.Fatal(err)
	}
	defer big.Delete()
	big.Bind()
	gl.ClearColor(0.2, 0.4, 0.6, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	u.Redraw(2*w, 2*h)
	checkPanelPixels(t, glh.ReadRGBA(big.ID(), 2*w, 2*h), 2*scale, clear)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if err := glh.CheckError("redrawing the panel"); err != nil {
		t.Fatal(err)
	}
}

func TestHiddenPanelDrawsNothing(t *testing.T) {
	u := newTestUI(t)
	fbSize := u.platform.FramebufferSize()
	w, h := int(fbSize[0]), int(fbSize[1])
	fb, err := glh.NewFramebuffer(w, h)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Delete()
	u.SetVisible(false)
	u.NewFrame()
	drawTestWindow()
	fb.Bind()
	gl.ClearColor(0.2, 0.4, 0.6, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	u.Render()
	img := glh.ReadRGBA(fb.ID(), w, h)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 51 || img.Pix[i+1] != 102 || img.Pix[i+2] != 153 {
			t.Fatalf("hidden panel drew pixel %v at byte %d", img.Pix[i:i+4], i)
		}
	}
}

// The panel's font has every symbol the parameter labels and units use, rather than imgui's "?" fallback.
func TestFontHasTheParameterSymbols(t *testing.T) {
	u := newTestUI(t)
	for _, r := range "εερρΔΣ∇≥≤·×²³ωλη|Δq|" {
		if g := u.font.FindGlyph(r); rune(g.Codepoint()) != r {
			t.Errorf("the panel font lacks %q (U+%04X): imgui would draw %q", r, r, rune(g.Codepoint()))
		}
	}
}

// The recording indicator is drawn by RenderOverlay alone, in the top-right corner, with the panel shown or
// hidden; Render leaves it out (so a recording with the panel, read between the two, does not show it).
func TestIndicatorIsDrawnOnlyByRenderOverlay(t *testing.T) {
	u := newTestUI(t)
	fbSize := u.platform.FramebufferSize()
	w, h := int(fbSize[0]), int(fbSize[1])
	fb, err := glh.NewFramebuffer(w, h)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Delete()
	// reds counts strongly red pixels in the top-right corner and anywhere else.
	reds := func(img *image.RGBA) (corner, elsewhere int) {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				i := img.PixOffset(x, y)
				if img.Pix[i] > 180 && img.Pix[i+1] < 80 && img.Pix[i+2] < 80 {
					if x > w/2 && y < h/4 {
						corner++
					} else {
						elsewhere++
					}
				}
			}
		}
		return corner, elsewhere
	}
	for _, visible := range []bool{true, false} {
		u.SetVisible(visible)
		u.NewFrame()
		drawTestWindow()
		ds := u.platform.DisplaySize()
		u.Indicator("0:07", Rect{X1: ds[0], Y1: ds[1]})
		fb.Bind()
		gl.ClearColor(0.2, 0.4, 0.6, 1)
		gl.Clear(gl.COLOR_BUFFER_BIT)
		u.Render()
		panelOnly := glh.ReadRGBA(fb.ID(), w, h)
		u.RenderOverlay()
		withDot := glh.ReadRGBA(fb.ID(), w, h)
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		if c, e := reds(panelOnly); c+e != 0 {
			t.Errorf("panel visible %v: Render drew %d red pixels", visible, c+e)
		}
		if c, e := reds(withDot); c < 10 || e != 0 {
			t.Errorf("panel visible %v: RenderOverlay drew %d red pixels in the top-right corner and %d elsewhere", visible, c, e)
		}
		if visible {
			checkPanelPixels(t, panelOnly, u.platform.FramebufferSize()[0]/u.platform.DisplaySize()[0], [3]uint8{51, 102, 153})
		}
	}
	// a frame without Indicator draws nothing in RenderOverlay
	u.SetVisible(true)
	u.NewFrame()
	fb.Bind()
	gl.Clear(gl.COLOR_BUFFER_BIT)
	u.Render()
	u.RenderOverlay()
	img := glh.ReadRGBA(fb.ID(), w, h)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if c, e := reds(img); c+e != 0 {
		t.Errorf("RenderOverlay without Indicator drew %d red pixels", c+e)
	}
}
