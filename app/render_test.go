package app

import (
	"image"
	"io"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// water is the colour class of particles in the default water colour; the sky, the ground and the glass are
// neutral or only faintly blue.
func water(c [3]float64) bool { return c[2] > 60 && c[2] > 2.5*c[0] && c[2] > 1.3*c[1] }

func pixel(img *image.RGBA, x, y int) [3]float64 {
	c := img.RGBAAt(x, y)
	return [3]float64{float64(c.R), float64(c.G), float64(c.B)}
}

// projectBox returns the screen rectangle (pixels, top row 0) that holds the projection of a box.
func projectBox(cam render.Camera, w, h int, lo, hi mgl32.Vec3) image.Rectangle {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	vp := cam.Proj.Mul4(cam.View)
	for i := 0; i < 8; i++ {
		p := mgl32.Vec3{lo[0], lo[1], lo[2]}
		if i&1 != 0 {
			p[0] = hi[0]
		}
		if i&2 != 0 {
			p[1] = hi[1]
		}
		if i&4 != 0 {
			p[2] = hi[2]
		}
		c := vp.Mul4x1(p.Vec4(1))
		x := (float64(c[0]/c[3]) + 1) / 2 * float64(w)
		y := (1 - float64(c[1]/c[3])) / 2 * float64(h)
		x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
	}
	return image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1))).Intersect(image.Rect(0, 0, w, h))
}

// TestOffscreenDambreak renders a few frames of the dam break as `slosh run --screenshot` does and checks that
// the water is where the particles are — blue pixels fill the projection of their bounding box — and nowhere
// else, in particular not in the sky above the tank.
func TestOffscreenDambreak(t *testing.T) {
	ctx := gltest.Acquire(t)
	const w, h = 320, 240
	ss, st, off := offscreenRun(t, ctx, Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500}, w, h, 5)
	var frame sim.Frame
	p, err := ss.particles(&off.bufs, &frame)
	if err != nil {
		t.Fatal(err)
	}
	if p.N < 1000 {
		t.Fatalf("%d particles drawn", p.N)
	}
	cam := sceneCamera(st.sc)
	img, err := off.render(st.sc, cam, p)
	if err != nil {
		t.Fatal(err)
	}

	lo := mgl32.Vec3{float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(1))}
	hi := lo.Mul(-1)
	for _, q := range frame.Pos[:frame.N] {
		for c := 0; c < 3; c++ {
			lo[c] = min(lo[c], q[c]-frame.Radius)
			hi[c] = max(hi[c], q[c]+frame.Radius)
		}
	}
	rc := cam.Camera(float32(w) / h)
	waterRect := projectBox(rc, w, h, lo, hi)
	if waterRect.Dx() < 20 || waterRect.Dy() < 20 {
		t.Fatalf("the water projects to %v; the scene's camera does not see it", waterRect)
	}
	inside, blueInside := 0, 0
	for y := waterRect.Min.Y; y < waterRect.Max.Y; y++ {
		for x := waterRect.Min.X; x < waterRect.Max.X; x++ {
			inside++
			if water(pixel(img, x, y)) {
				blueInside++
			}
		}
	}
	if blueInside < inside/2 {
		t.Errorf("only %d of the %d pixels of the water's screen box %v are water-coloured", blueInside, inside, waterRect)
	}

	// The sky: every row above the projection of the whole domain.
	d := st.sc.Domain
	tank := projectBox(rc, w, h, vec3(d.Min), vec3(d.Max))
	skyRows := tank.Min.Y - 2
	if skyRows*w < 5*w {
		t.Fatalf("the tank reaches row %d; no sky left to check", tank.Min.Y)
	}
	outside, blueOutside, blueSky := 0, 0, 0
	grown := waterRect.Inset(-4)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if image.Pt(x, y).In(grown) {
				continue
			}
			outside++
			if water(pixel(img, x, y)) {
				blueOutside++
				if y < skyRows {
					blueSky++
				}
			}
		}
	}
	if blueSky > 0 {
		t.Errorf("%d water-coloured pixels in the sky (rows 0–%d)", blueSky, skyRows)
	}
	if blueOutside > outside/200 {
		t.Errorf("%d of %d pixels away from the water are water-coloured", blueOutside, outside)
	}
}

func TestSceneCameraSeesTheDomain(t *testing.T) {
	sc, err := scene.Builtin("pool")
	if err != nil {
		t.Fatal(err)
	}
	sc.Camera = nil // framed on the domain
	cam := sceneCamera(sc).Camera(16.0 / 9)
	r := projectBox(cam, 1600, 900, vec3(sc.Domain.Min), vec3(sc.Domain.Max))
	if r.Min.X <= 0 || r.Min.Y <= 0 || r.Max.X >= 1600 || r.Max.Y >= 900 || r.Dy() < 450 {
		t.Errorf("a scene without a camera frames its domain at %v in a 1600×900 view", r)
	}
}

// offscreenRun is a headless session of o with an offscreen target of w×h configured by o's render settings,
// after frames simulated frames; both are closed when the test ends.
func offscreenRun(t *testing.T, ctx *glh.Context, o Options, w, h, frames int) (*session, *setup, *offscreen) {
	t.Helper()
	o.Stderr = io.Discard
	modes := Modes()
	st, err := prepare(modes, &o)
	if err != nil {
		t.Fatal(err)
	}
	off, err := newOffscreen(w, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(off.Delete)
	if err := st.configureRender(off.rend.Params()); err != nil {
		t.Fatal(err)
	}
	ss, err := openSession(modes, st, glInfo{ctx: ctx}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ss.Close)
	for f := 0; f < frames; f++ {
		if _, err := ss.frame(nil); err != nil {
			t.Fatal(err)
		}
	}
	return ss, st, off
}
