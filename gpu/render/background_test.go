package render

import (
	"bytes"
	"strings"
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/scene"
)

// depth24Target is a w×h framebuffer with an RGBA8 colour texture and a 24-bit depth renderbuffer, as a window's
// own framebuffer usually has: it cannot take a copy of the renderer's background image.
func depth24Target(t *testing.T, w, h int) uint32 {
	t.Helper()
	color := glh.NewTexture2D(w, h, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE)
	var rb, fbo uint32
	gl.GenRenderbuffers(1, &rb)
	gl.BindRenderbuffer(gl.RENDERBUFFER, rb)
	gl.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, int32(w), int32(h))
	gl.GenFramebuffers(1, &fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, color.ID(), 0)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, rb)
	status := gl.CheckFramebufferStatus(gl.FRAMEBUFFER)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	t.Cleanup(func() {
		gl.DeleteFramebuffers(1, &fbo)
		gl.DeleteRenderbuffers(1, &rb)
		color.Delete()
	})
	if status != gl.FRAMEBUFFER_COMPLETE {
		t.Fatalf("the 24-bit depth framebuffer is incomplete (0x%x)", status)
	}
	return fbo
}

// TestBackgroundKept draws a scene with obstacles and the pool, as particles and as the surface: the first frame
// draws the still passes (sky, ground, tank, obstacles) into the background image and copies it, the next one with
// the same camera only copies it, and both pictures are the same. As particles, drawn into the caller's
// framebuffer, they are bit for bit the one drawn straight into a framebuffer that cannot take the copy (24-bit
// depth); the surface copies the image into its own scene image whatever the caller's framebuffer. A moved camera,
// another obstacle colour, SetTransparent and SetScene each draw the still passes again; another mode does not.
func TestBackgroundKept(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 240, 180
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	plain := depth24Target(t, w, h)
	if blitCompatible(plain) || !blitCompatible(fb.ID()) {
		t.Fatalf("blitCompatible: %v for 24-bit depth, %v for glh.Framebuffer", blitCompatible(plain), blitCompatible(fb.ID()))
	}
	fs, _ := poolSetup(t, r)
	sc := &scene.Scene{
		Domain:    scene.Box{Min: scene.Vec3{0, 0, 0}, Max: scene.Vec3{1.3, 0.8, 1.3}},
		Obstacles: []scene.Obstacle{{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{1.0, 0.5, 1.1}, Radius: 0.15}}},
	}
	r.SetScene(sc)
	p := fs.upload(t)
	oc := NewOrbitCamera()
	oc.Yaw, oc.Pitch = 0.3, 0.4
	oc.Frame(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1.3, 0.8, 1.3})

	passes := func() string {
		gl.Finish()
		ps, _ := r.Timings()
		var names []string
		for _, p := range ps {
			names = append(names, p.Name)
		}
		return strings.Join(names, ",")
	}
	drawInto := func(fbo uint32) *drawnFrame {
		gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
		r.Draw(Viewport{w, h}, oc.Camera(float32(w)/h), p)
		if err := glh.CheckError("Draw"); err != nil {
			t.Fatal(err)
		}
		img := Screenshot(fbo, w, h)
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		return &drawnFrame{img.Pix, passes()}
	}
	// frame draws a frame into fb twice and into the plain framebuffer, and checks the passes and the pictures
	frame := func(what string, surface, redrawn bool) {
		t.Helper()
		first := drawInto(fb.ID())
		second := drawInto(fb.ID())
		straight := drawInto(plain)
		still := "sky,ground,tank,obstacles,background,"
		if !redrawn {
			still = "background,"
		}
		wantStraight := "sky,ground,tank,obstacles,particles"
		if surface {
			wantStraight = "background,splat" // copied into the scene image
		}
		if !strings.HasPrefix(first.passes, still) || !strings.HasPrefix(second.passes, "background,") ||
			!strings.HasPrefix(straight.passes, wantStraight) {
			t.Errorf("%s: passes %q, then %q, and straight %q; want them to begin with %q, background, and %q",
				what, first.passes, second.passes, straight.passes, still, wantStraight)
		}
		if !bytes.Equal(first.pix, second.pix) || !bytes.Equal(first.pix, straight.pix) {
			t.Errorf("%s: the pictures with the background copied differ from the one drawn straight", what)
		}
	}
	for _, mode := range []string{"particles", "surface"} {
		surface := mode == "surface"
		setParam(t, r, "render.mode", mode)
		frame(mode+": the first frame", surface, !surface)
		frame(mode+": the same camera", surface, false)
		oc.Yaw += 0.1
		frame(mode+": the camera moved", surface, true)
		setParam(t, r, "render.obstacle_color", map[bool]string{false: "0.2,0.6,0.3", true: "0.7,0.3,0.3"}[surface])
		frame(mode+": another obstacle colour", surface, true)
		r.SetTransparent(true)
		frame(mode+": transparent", surface, true)
		r.SetTransparent(false)
		frame(mode+": opaque again", surface, true)
		r.SetScene(sc)
		frame(mode+": the scene set again", surface, true)
	}
}

// drawnFrame is a picture's pixels and the passes that drew it.
type drawnFrame struct {
	pix    []byte
	passes string
}
