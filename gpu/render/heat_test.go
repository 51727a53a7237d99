package render

import (
	"bytes"
	"fmt"
	"image"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// rowScene is a renderer without ground or tank, a 320×240 target, a camera looking down −z at the origin from 2 m,
// and a frame of n particles of radius 0.08 in a row along x, 0.25 apart, centred on the origin.
func rowScene(t *testing.T, n int) (*Renderer, *glh.Framebuffer, Camera, *sim.Frame) {
	t.Helper()
	gltest.Acquire(t)
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, 320, 240)
	setParam(t, r, "render.show_ground", "false")
	setParam(t, r, "render.show_tank", "false")
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0, 0, 2}, mgl32.Vec3{0, 0, 0}, 45)
	f := &sim.Frame{Radius: 0.08}
	f.Resize(n)
	for i := range n {
		f.Pos[i] = [4]float32{(float32(i) - float32(n-1)/2) * 0.25, 0, 0, 0}
		f.Rho[i] = 1
		f.ID[i] = uint32(i)
	}
	return r, fb, oc.Camera(float32(fb.W) / float32(fb.H)), f
}

// centreColors are the colours of f's particles at their centres' pixels. There the sphere faces the eye, so
// its rim light is nil and its shading (far from the highlight) scales its colour alone.
func centreColors(img *image.RGBA, cam Camera, f *sim.Frame) [][3]float64 {
	out := make([][3]float64, f.N)
	for i, p := range f.Pos[:f.N] {
		x, y := project(cam, img.Rect.Dx(), img.Rect.Dy(), mgl32.Vec3{p[0], p[1], p[2]})
		r, g, b := rgb(img, x, y)
		out[i] = [3]float64{r, g, b}
	}
	return out
}

// warmth is how far a colour leans to red (positive) or blue (negative), whatever its brightness.
func warmth(c [3]float64) float64 { return (c[0] - c[2]) / max(c[0]+c[1]+c[2], 1) }

// chroma is a colour with its brightness divided out: its channels sum to 1.
func chroma(c [3]float64) [3]float64 {
	s := max(c[0]+c[1]+c[2], 1e-9)
	return [3]float64{c[0] / s, c[1] / s, c[2] / s}
}

// chromaDist is the largest difference between two colours' chroma channels.
func chromaDist(a, b [3]float64) float64 {
	p, q := chroma(a), chroma(b)
	return max(math.Abs(p[0]-q[0]), math.Abs(p[1]-q[1]), math.Abs(p[2]-q[2]))
}

func upload(t *testing.T, bufs *FrameBuffers, f *sim.Frame) Particles {
	t.Helper()
	p, err := bufs.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// render.color temperature: particles of −20 to 130 °C over the default range [0, 100] go from the blue end through
// grey at 50 °C to the red end, warmer with each step and clamped beyond the ends, in the particles and ellipsoids
// modes and, as solids, in the surface mode (where in render.color water they keep their material's green and the
// liquid's surface is the water whatever the colour mode). A particle without a finite temperature, and every one
// of a frame without temperatures, draws as in render.color water; the range follows its parameters.
func TestTemperatureColors(t *testing.T) {
	temps := []float32{-20, 0, 25, 50, 75, 100, 130}
	r, fb, cam, f := rowScene(t, len(temps))
	f.Temperature = temps
	var bufs, plainBufs, solidBufs FrameBuffers
	defer bufs.Delete()
	defer plainBufs.Delete()
	defer solidBufs.Delete()
	p := upload(t, &bufs, f)
	if p.Temperature == nil {
		t.Fatal("Upload left the temperatures out")
	}
	plainFrame := *f
	plainFrame.Temperature = nil
	plain := upload(t, &plainBufs, &plainFrame)
	if plain.Temperature != nil {
		t.Fatal("Upload gave a frame without temperatures a temperature buffer")
	}
	solidFrame := *f
	solidFrame.Phase = make([]scene.Phase, f.N)
	solidFrame.Material = make([]uint8, f.N)
	for i := range solidFrame.Phase {
		solidFrame.Phase[i], solidFrame.Material[i] = scene.PhaseSolid, 1
	}
	solidFrame.Palette = [][3]float32{{0.1, 0.3, 0.9}, {0.2, 0.7, 0.2}}
	solids := upload(t, &solidBufs, &solidFrame)

	ramp := func(what string, img *image.RGBA) {
		t.Helper()
		cs := centreColors(img, cam, f)
		w := make([]float64, len(cs))
		for i, c := range cs {
			w[i] = warmth(c)
		}
		t.Logf("%s: warmth by temperature %v: %.3f", what, temps, w)
		if w[1] > -0.25 {
			t.Errorf("%s: 0 °C draws %v (warmth %.2f), not the blue end", what, cs[1], w[1])
		}
		if w[5] < 0.35 {
			t.Errorf("%s: 100 °C draws %v (warmth %.2f), not the red end", what, cs[5], w[5])
		}
		if math.Abs(w[3]) > 0.05 || !neutral(cs[3][0], cs[3][1], cs[3][2]) {
			t.Errorf("%s: 50 °C draws %v (warmth %.2f), not the grey middle", what, cs[3], w[3])
		}
		for i := 2; i <= 5; i++ {
			if w[i] < w[i-1]+0.05 {
				t.Errorf("%s: %g °C (warmth %.2f) is not warmer than %g °C (%.2f)", what, temps[i], w[i], temps[i-1], w[i-1])
			}
		}
		if math.Abs(w[0]-w[1]) > 0.02 || math.Abs(w[6]-w[5]) > 0.02 {
			t.Errorf("%s: beyond the range the colours go on changing: warmth %.2f at −20 °C, %.2f at 130 °C", what, w[0], w[6])
		}
	}

	for _, mode := range []string{"particles", "ellipsoids"} {
		setParam(t, r, "render.mode", mode)
		setParam(t, r, "render.color", "water")
		water := draw(t, r, fb, cam, p)
		setParam(t, r, "render.color", "temperature")
		img := draw(t, r, fb, cam, p)
		save(t, img, "temperature-"+mode)
		ramp(mode, img)
		if none := draw(t, r, fb, cam, plain); !bytes.Equal(none.Pix, water.Pix) {
			n, most := pixDiff(none.Pix, water.Pix)
			t.Errorf("%s: a frame without temperatures differs from the water colours in %d bytes (by up to %d)", mode, n, most)
		}
	}

	// the surface: the water stays water, the solids show their heat
	setParam(t, r, "render.mode", "surface")
	setParam(t, r, "render.color", "water")
	water := draw(t, r, fb, cam, p)
	material := draw(t, r, fb, cam, solids)
	setParam(t, r, "render.color", "temperature")
	if img := draw(t, r, fb, cam, p); !bytes.Equal(img.Pix, water.Pix) {
		n, most := pixDiff(img.Pix, water.Pix)
		t.Errorf("surface: the liquid's surface changed with render.color temperature in %d bytes (by up to %d)", n, most)
	}
	img := draw(t, r, fb, cam, solids)
	save(t, img, "temperature-surface-solids")
	ramp("surface solids", img)
	for i, c := range centreColors(material, cam, f) {
		if !(c[1] > 1.5*c[0] && c[1] > 1.5*c[2]) {
			t.Errorf("surface, render.color water: solid %d draws %v, not its material's green", i, c)
		}
	}

	// a particle without a finite temperature takes the water colour
	setParam(t, r, "render.mode", "particles")
	setParam(t, r, "render.color", "water")
	water = draw(t, r, fb, cam, p)
	nanFrame := *f
	nanFrame.Temperature = append([]float32(nil), temps...)
	nanFrame.Temperature[5] = float32(math.NaN())
	setParam(t, r, "render.color", "temperature")
	got := centreColors(draw(t, r, fb, cam, upload(t, &bufs, &nanFrame)), cam, f)
	if want := centreColors(water, cam, f); got[5] != want[5] {
		t.Errorf("a NaN temperature draws %v, want the water colour %v", got[5], want[5])
	}

	// the range is the parameters': over [100, 200] no particle but the 130 °C one leaves the blue end
	setParam(t, r, "render.temperature_min", "100")
	setParam(t, r, "render.temperature_max", "200")
	cs := centreColors(draw(t, r, fb, cam, upload(t, &bufs, f)), cam, f)
	for i, c := range cs[:6] {
		if w := warmth(c); w > -0.25 {
			t.Errorf("over [100, 200] °C: %g °C draws %v (warmth %.2f), not the blue end", temps[i], c, w)
		}
	}
	if w, w0 := warmth(cs[6]), warmth(cs[0]); w < w0+0.05 {
		t.Errorf("over [100, 200] °C: 130 °C (warmth %.2f) is no warmer than the cold end (%.2f)", w, w0)
	}
	if err := r.Err(); err != nil {
		t.Error(err)
	}
}

// render.color phase: a liquid, a granular, a solid and a rigid particle draw in the four PhaseColors, told apart by
// hue, in the particles and ellipsoids modes; in the surface mode the three that are not liquid do (in render.color
// water they keep their material's grey). Without phases every particle draws in the liquid's colour.
func TestPhaseColors(t *testing.T) {
	phases := []scene.Phase{scene.PhaseLiquid, scene.PhaseGranular, scene.PhaseSolid, scene.PhaseRigid}
	r, fb, cam, f := rowScene(t, len(phases))
	f.Phase = phases
	f.Material = make([]uint8, f.N)
	f.Palette = [][3]float32{{0.5, 0.5, 0.5}}
	var bufs, plainBufs FrameBuffers
	defer bufs.Delete()
	defer plainBufs.Delete()
	p := upload(t, &bufs, f)
	plainFrame := *f
	plainFrame.Phase = nil
	plain := upload(t, &plainBufs, &plainFrame)

	// match checks that the particles of phases from..3 draw in their phases' colours, all told apart
	match := func(what string, cs [][3]float64, from int) {
		t.Helper()
		for i := from; i < len(phases); i++ {
			want := PhaseColors[phases[i]]
			wc := [3]float64{float64(want[0]), float64(want[1]), float64(want[2])}
			if d := chromaDist(cs[i], wc); d > 0.05 {
				t.Errorf("%s: the %v particle draws %v, not its phase's %v (chroma off by %.3f)", what, phases[i], cs[i], want, d)
			}
			for j := from; j < i; j++ {
				if d := chromaDist(cs[i], cs[j]); d < 0.15 {
					t.Errorf("%s: the %v and %v particles look alike: %v and %v (chroma apart by %.3f)", what, phases[j], phases[i], cs[j], cs[i], d)
				}
			}
		}
	}

	setParam(t, r, "render.color", "phase")
	for _, mode := range []string{"particles", "ellipsoids"} {
		setParam(t, r, "render.mode", mode)
		img := draw(t, r, fb, cam, p)
		save(t, img, "phase-"+mode)
		cs := centreColors(img, cam, f)
		t.Logf("%s: %v", mode, cs)
		match(mode, cs, 0)
		for i, c := range centreColors(draw(t, r, fb, cam, plain), cam, f) {
			if d := chromaDist(c, cs[0]); d > 0.02 {
				t.Errorf("%s: without phases particle %d draws %v, not the liquid's %v", mode, i, c, cs[0])
			}
		}
	}

	setParam(t, r, "render.mode", "surface")
	img := draw(t, r, fb, cam, p)
	save(t, img, "phase-surface")
	match("surface", centreColors(img, cam, f), 1)
	setParam(t, r, "render.color", "water")
	for i, c := range centreColors(draw(t, r, fb, cam, p), cam, f)[1:] {
		if !neutral(c[0], c[1], c[2]) {
			t.Errorf("surface, render.color water: the %v particle draws %v, not its material's grey", phases[i+1], c)
		}
	}
	if err := r.Err(); err != nil {
		t.Error(err)
	}
}

// The colour mode names are the parameter's items, in the order of the Color constants.
func TestColorModeNames(t *testing.T) {
	p, ok := NewParams().Lookup("render.color")
	if !ok {
		t.Fatal("render.color is not registered")
	}
	want := fmt.Sprint([]string{"water", "speed", "density", "temperature", "phase"})
	if got := fmt.Sprint(p.Items); got != want {
		t.Errorf("render.color items %s, want %s", got, want)
	}
	for _, c := range []struct {
		mode int32
		name string
	}{{ColorTemperature, "temperature"}, {ColorPhase, "phase"}} {
		if p.Items[c.mode] != c.name {
			t.Errorf("item %d is %s, want %s", c.mode, p.Items[c.mode], c.name)
		}
	}
}
