package render

import (
	"bytes"
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// project returns the pixel of a world point.
func project(cam Camera, w, h int, p mgl32.Vec3) (int, int) {
	c := cam.Proj.Mul4(cam.View).Mul4x1(p.Vec4(1))
	x := (c[0]/c[3] + 1) / 2 * float32(w)
	y := (1 - c[1]/c[3]) / 2 * float32(h)
	return int(x), int(y)
}

// A body is drawn where its pose puts it: a box moved and turned away from where the scene placed it shows in its
// colour at its new centre and no longer at its old one.
func TestBodiesDrawAtTheirPose(t *testing.T) {
	gltest.Acquire(t)
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, 200, 150)
	setParam(t, r, "render.body_color", "1,0,0")
	setParam(t, r, "render.show_ground", "false")
	setParam(t, r, "render.show_tank", "false")
	origin := scene.Vec3{-0.5, 0, 0}
	r.SetBodies([]scene.Shape{{Kind: scene.ShapeBox, Center: origin, Size: scene.Vec3{0.3, 0.3, 0.3}}})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0, 0, 3}, mgl32.Vec3{0, 0, 0}, 45)
	cam := oc.Camera(float32(fb.W) / float32(fb.H))
	o := [3]float32{float32(origin[0]), float32(origin[1]), float32(origin[2])}
	turn := mgl32.QuatRotate(0.6, mgl32.Vec3{0, 1, 0})
	for _, pose := range []sim.BodyState{
		{Center: o, Rot: [4]float32{0, 0, 0, 1}, Origin: o},
		{Center: [3]float32{0.5, 0.2, 0}, Rot: [4]float32{turn.V[0], turn.V[1], turn.V[2], turn.W}, Origin: o},
	} {
		img := draw(t, r, fb, cam, Particles{Bodies: []sim.BodyState{pose}})
		x, y := project(cam, fb.W, fb.H, mgl32.Vec3(pose.Center))
		if rr, g, b := rgb(img, x, y); !reddish(rr, g, b) {
			t.Errorf("pose %+v: the pixel at the body's centre (%d, %d) is (%g, %g, %g), not the body's red", pose, x, y, rr, g, b)
		}
		if pose.Center != o {
			x0, y0 := project(cam, fb.W, fb.H, mgl32.Vec3(o))
			if rr, g, b := rgb(img, x0, y0); reddish(rr, g, b) {
				t.Errorf("the body still shows where the scene placed it (%d, %d) after moving away", x0, y0)
			}
		}
	}
}

// Particles of rigid bodies are never drawn as water, spheres or spray: a frame of body particles only (with no
// body shapes set) equals the empty frame, pixel for pixel, in the surface and particles modes.
func TestBodyParticlesAreNotWater(t *testing.T) {
	r, fb, cam, f := blockScene(t)
	var bufs FrameBuffers
	defer bufs.Delete()
	p, err := bufs.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int32, f.N)
	body, err := glh.NewBuffer(4*f.N, gl.STATIC_DRAW)
	if err != nil {
		t.Fatal(err)
	}
	defer body.Delete()
	glh.Upload(body, 0, ids) // every particle belongs to body 0
	for _, mode := range []string{"surface", "particles"} {
		setParam(t, r, "render.mode", mode)
		empty := draw(t, r, fb, cam, Particles{})
		water := draw(t, r, fb, cam, p)
		if bytes.Equal(water.Pix, empty.Pix) {
			t.Fatalf("%s: the fluid particles drew nothing: the test cannot tell", mode)
		}
		p.Body = body
		solid := draw(t, r, fb, cam, p)
		p.Body = nil
		if !bytes.Equal(solid.Pix, empty.Pix) {
			diff, _ := pixDiff(solid.Pix, empty.Pix)
			t.Errorf("%s: body particles changed %d bytes of the frame", mode, diff)
		}
	}
}

// Grains and solids (sim.Frame.Phase) are never drawn as water: in the surface, ellipsoids and mesh modes a block of
// granular particles draws exactly what the particles mode draws of it — shaded spheres in their material's colour
// — so no surface, thickness, tint or spray pass adds anything; and the same block as liquid draws a surface.
func TestGrainsAreNotWater(t *testing.T) {
	r, fb, cam, f := blockScene(t)
	f.Material = make([]uint8, f.N)
	f.Phase = make([]scene.Phase, f.N)
	for i := range f.N {
		f.Material[i], f.Phase[i] = 1, scene.PhaseGranular
	}
	f.Palette = [][3]float32{{0.1, 0.3, 0.9}, {0.9, 0.1, 0.05}}
	var bufs FrameBuffers
	defer bufs.Delete()
	p, err := bufs.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	if p.Phase == nil {
		t.Fatal("Upload left the phases out")
	}
	setParam(t, r, "render.mode", "particles")
	spheres := draw(t, r, fb, cam, p)
	x, y := project(cam, fb.W, fb.H, mgl32.Vec3{0, 0, 0.15})
	if rr, g, b := rgb(spheres, x, y); !reddish(rr, g, b) {
		t.Fatalf("the grains' front at (%d, %d) is (%g, %g, %g), not their material's red", x, y, rr, g, b)
	}
	for _, mode := range []string{"surface", "ellipsoids"} {
		setParam(t, r, "render.mode", mode)
		got := draw(t, r, fb, cam, p)
		if !bytes.Equal(got.Pix, spheres.Pix) {
			diff, maxd := pixDiff(got.Pix, spheres.Pix)
			t.Errorf("%s: grains drew %d bytes other than their spheres (by up to %d)", mode, diff, maxd)
		}
		liquid := p
		liquid.Phase = nil
		if water := draw(t, r, fb, cam, liquid); bytes.Equal(water.Pix, spheres.Pix) {
			t.Errorf("%s: the same block as liquid draws as the grains do: the test cannot tell", mode)
		}
	}
}

// blockScene is a renderer, a 160×120 target, a camera and a block of 6³ particles in front of it.
func blockScene(t *testing.T) (*Renderer, *glh.Framebuffer, Camera, *sim.Frame) {
	t.Helper()
	gltest.Acquire(t)
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, 160, 120)
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0, 0.3, 2}, mgl32.Vec3{0, 0, 0}, 45)
	return r, fb, oc.Camera(float32(fb.W) / float32(fb.H)), lattice(6, mgl32.Vec3{-0.15, -0.15, -0.15}, 0.05)
}

// pixDiff counts the bytes in which two images differ and the largest difference.
func pixDiff(a, b []byte) (n, most int) {
	for i := range a {
		if a[i] != b[i] {
			n++
			most = max(most, int(max(a[i], b[i])-min(a[i], b[i])))
		}
	}
	return n, most
}

// The paddle tool's sphere is drawn where it pushes the fluid while it is set, and not after (issue 26: it was not
// drawn at all, so a newcomer could not see what pushed the water).
func TestPaddleShows(t *testing.T) {
	gltest.Acquire(t)
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, 200, 150)
	setParam(t, r, "render.show_ground", "false")
	setParam(t, r, "render.show_tank", "false")
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0, 0, 3}, mgl32.Vec3{0, 0, 0}, 45)
	cam := oc.Camera(float32(fb.W) / float32(fb.H))
	centre := [3]float32{0.3, -0.1, 0}
	x, y := project(cam, fb.W, fb.H, mgl32.Vec3(centre))
	empty := draw(t, r, fb, cam, Particles{})
	r.SetPaddle(centre, 0.15)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	img := draw(t, r, fb, cam, Particles{})
	if bytes.Equal(img.Pix, empty.Pix) {
		t.Fatal("the paddle changed no pixel")
	}
	yellow := func(r, g, b float64) bool { return r > 120 && g > 90 && b < r-50 }
	if rr, g, b := rgb(img, x, y); !yellow(rr, g, b) {
		t.Errorf("the pixel at the paddle's centre (%d, %d) is (%g, %g, %g), not its yellow", x, y, rr, g, b)
	}
	if rr, g, b := rgb(empty, x, y); yellow(rr, g, b) {
		t.Fatalf("the background at (%d, %d) is yellow already (%g, %g, %g): the test cannot tell", x, y, rr, g, b)
	}
	r.SetPaddle(centre, 0)
	if img := draw(t, r, fb, cam, Particles{}); !bytes.Equal(img.Pix, empty.Pix) {
		t.Error("the paddle still shows after it was put away")
	}
}
