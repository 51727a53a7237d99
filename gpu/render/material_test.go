package render

import (
	"fmt"
	"image"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/scene"
)

// twoFluids is a pool of two blocks side by side along x, seen from the front: particles left of x = split are
// material 1, the others material 2 (0 is the default material).
func twoFluids(t *testing.T, r *Renderer, w, h int) (fs *fluidScene, cam Camera, split float32) {
	t.Helper()
	const d = 0.05
	sc := &scene.Scene{Domain: scene.Box{Min: scene.Vec3{0, 0, 0}, Max: scene.Vec3{1, 0.5, 0.5}}}
	r.SetScene(sc)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	fs = pool(18, 5, 8, mgl32.Vec3{0.05 + d/2, d / 2, 0.05 + d/2}, d)
	oc := NewOrbitCamera()
	oc.Yaw, oc.Pitch = 0, 0.45
	oc.Frame(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 0.5, 0.5})
	return fs, oc.Camera(float32(w) / float32(h)), 0.05 + 9*d
}

// uploadMaterials uploads s with material numbers from mat (nil: none) and the palette.
func (s *fluidScene) uploadMaterials(t *testing.T, mat func(p mgl32.Vec3) uint8, palette [][3]float32) Particles {
	t.Helper()
	f := s.frame()
	if mat != nil {
		f.Material = make([]uint8, f.N)
		for i, p := range s.pos {
			f.Material[i] = mat(p)
		}
		f.Palette = palette
	}
	var fb FrameBuffers
	t.Cleanup(fb.Delete)
	p, err := fb.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	if p, err = fb.UploadEllipsoids(p, s.flat()); err != nil {
		t.Fatal(err)
	}
	return p
}

// halves are the mean colours of the fluid's pixels (those that differ from the picture without fluid) left and
// right of column x0 − margin and x0 + margin, and how many there are.
type halves struct {
	left, right [3]float64
	nl, nr      int
}

func (h halves) String() string {
	return fmt.Sprintf("left %.0f (%d px), right %.0f (%d px)", h.left, h.nl, h.right, h.nr)
}

func fluidHalves(img, empty *image.RGBA, x0, margin int) halves {
	var out halves
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl := rgb(img, x, y)
			er, eg, eb := rgb(empty, x, y)
			if math.Abs(r-er)+math.Abs(g-eg)+math.Abs(bl-eb) < 12 {
				continue
			}
			switch {
			case x < x0-margin:
				out.left[0], out.left[1], out.left[2], out.nl = out.left[0]+r, out.left[1]+g, out.left[2]+bl, out.nl+1
			case x > x0+margin:
				out.right[0], out.right[1], out.right[2], out.nr = out.right[0]+r, out.right[1]+g, out.right[2]+bl, out.nr+1
			}
		}
	}
	for c := 0; c < 3; c++ {
		out.left[c] /= float64(max(out.nl, 1))
		out.right[c] /= float64(max(out.nr, 1))
	}
	return out
}

// Two fluids of different colours side by side: in the surface, particles and ellipsoids modes the left half of
// the water is the first fluid's colour and the right half the second's; the same particles without materials are
// all water blue, and a frame whose particles are all of one material in the water colour looks as one without
// materials.
func TestFluidsTakeTheirMaterialsColour(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 200, 120
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	fs, cam, split := twoFluids(t, r, w, h)
	x0, _ := project(cam, w, h, mgl32.Vec3{split, 0.25, 0.45})
	water := [3]float32{0.12, 0.40, 0.85}
	setParam(t, r, "render.water_color", fmt.Sprintf("%g,%g,%g", water[0], water[1], water[2]))
	palette := [][3]float32{water, {0.9, 0.3, 0.08}, {0.15, 0.8, 0.2}}
	byHalf := func(p mgl32.Vec3) uint8 {
		if p[0] < split {
			return 1
		}
		return 2
	}
	two := fs.uploadMaterials(t, byHalf, palette)
	none := fs.uploadMaterials(t, nil, nil)
	one := fs.uploadMaterials(t, func(mgl32.Vec3) uint8 { return 0 }, palette[:1])

	for _, mode := range []string{"surface", "particles", "ellipsoids"} {
		setParam(t, r, "render.mode", mode)
		empty := draw(t, r, fb, cam, Particles{})
		imgTwo := draw(t, r, fb, cam, two)
		save(t, imgTwo, "materials-"+mode)
		hv := fluidHalves(imgTwo, empty, x0, 4)
		if hv.nl < 500 || hv.nr < 500 {
			t.Fatalf("%s: too little fluid in view: %v", mode, hv)
		}
		// left: red over green over blue; right: green over red and blue
		if l := hv.left; !(l[0] > l[1]+25 && l[0] > l[2]+25) {
			t.Errorf("%s: the left fluid is not the first material's red: %v", mode, hv)
		}
		if rt := hv.right; !(rt[1] > rt[0]+25 && rt[1] > rt[2]+10) {
			t.Errorf("%s: the right fluid is not the second material's green: %v", mode, hv)
		}

		hn := fluidHalves(draw(t, r, fb, cam, none), empty, x0, 4)
		for _, c := range [][3]float64{hn.left, hn.right} {
			if !(c[2] > c[0]+25 && c[2] > c[1]) {
				t.Errorf("%s: without materials the water is not blue: %v", mode, hn)
			}
		}
		h1 := fluidHalves(draw(t, r, fb, cam, one), empty, x0, 4)
		if math.Abs(float64(h1.nl-hn.nl)) > 0.01*float64(hn.nl) || math.Abs(float64(h1.nr-hn.nr)) > 0.01*float64(hn.nr) {
			t.Errorf("%s: one material covers %v, none %v", mode, h1, hn)
		}
		for c := 0; c < 3; c++ {
			if math.Abs(h1.left[c]-hn.left[c]) > 2 || math.Abs(h1.right[c]-hn.right[c]) > 2 {
				t.Errorf("%s: one material in the water colour looks %v, without materials %v", mode, h1, hn)
				break
			}
		}
	}
	// the palette's colours, not render.water_color, tint a frame with materials
	setParam(t, r, "render.mode", "surface")
	setParam(t, r, "render.water_color", "0.9,0.9,0.1")
	empty := draw(t, r, fb, cam, Particles{})
	if hv := fluidHalves(draw(t, r, fb, cam, two), empty, x0, 4); !(hv.left[0] > hv.left[1]+25 && hv.right[1] > hv.right[0]+25) {
		t.Errorf("render.water_color changed a frame with materials: %v", hv)
	}
	if err := r.Err(); err != nil {
		t.Error(err)
	}
}

// Material numbers past the palette take its last colour, and a frame's Material without a Palette is ignored.
func TestMaterialNumbersOutOfPalette(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 200, 120
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	fs, cam, split := twoFluids(t, r, w, h)
	x0, _ := project(cam, w, h, mgl32.Vec3{split, 0.25, 0.45})
	setParam(t, r, "render.mode", "particles")
	empty := draw(t, r, fb, cam, Particles{})
	green := [][3]float32{{0.1, 0.35, 0.9}, {0.15, 0.8, 0.2}}
	p := fs.uploadMaterials(t, func(mgl32.Vec3) uint8 { return 200 }, green)
	if hv := fluidHalves(draw(t, r, fb, cam, p), empty, x0, 4); !(hv.left[1] > hv.left[0]+25 && hv.right[1] > hv.right[2]) {
		t.Errorf("material 200 of 2 colours: %v", hv)
	}
	f := fs.frame()
	f.Material = make([]uint8, f.N) // no palette
	var fbuf FrameBuffers
	defer fbuf.Delete()
	q, err := fbuf.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	if q.Material != nil {
		t.Errorf("a frame with materials but no palette uploaded them")
	}
}
