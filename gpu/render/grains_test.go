package render

import (
	"bytes"
	"image"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// asGrains makes every particle of f sand: material 1 of the granular phase, in a sand colour.
func asGrains(f *sim.Frame) {
	f.Material = make([]uint8, f.N)
	f.Phase = make([]scene.Phase, f.N)
	for i := range f.N {
		f.Material[i], f.Phase[i] = 1, scene.PhaseGranular
	}
	f.Palette = [][3]float32{{0.1, 0.3, 0.9}, {0.76, 0.6, 0.38}}
}

// shuffled is f's particles in another order (a fixed seed), as a solver that re-sorts its particles gives them.
func shuffled(f *sim.Frame) *sim.Frame {
	g := &sim.Frame{Radius: f.Radius, Palette: f.Palette}
	g.Resize(f.N)
	g.Material, g.Phase = make([]uint8, f.N), make([]scene.Phase, f.N)
	for k, i := range rand.New(rand.NewPCG(7, 11)).Perm(f.N) {
		g.Pos[k], g.Vel[k], g.Rho[k], g.ID[k] = f.Pos[i], f.Vel[i], f.Rho[i], f.ID[i]
		g.Material[k], g.Phase[k] = f.Material[i], f.Phase[i]
	}
	return g
}

// grainShades are the colours of a lattice's front layer (the particles of largest z) at their centres' pixels.
func grainShades(img *image.RGBA, cam Camera, f *sim.Frame) [][3]float64 {
	front := float32(math.Inf(-1))
	for _, p := range f.Pos[:f.N] {
		front = max(front, p[2])
	}
	var out [][3]float64
	for _, p := range f.Pos[:f.N] {
		if p[2] == front {
			x, y := project(cam, img.Rect.Dx(), img.Rect.Dy(), mgl32.Vec3{p[0], p[1], p[2]})
			r, g, b := rgb(img, x, y)
			out = append(out, [3]float64{r, g, b})
		}
	}
	return out
}

// Sand is drawn as grains (issue 27): in the particles and surface modes the grains of a block of one granular
// material differ in brightness by tens of percent and in warmth, each by its own identity, so the same particles
// in another order (a solver re-sorts them every step) draw the same picture. Liquid particles draw as before: a
// block of liquid with phases (whose ids are uploaded) draws as the block without.
func TestGrainsTintedByIdentity(t *testing.T) {
	r, fb, cam, f := blockScene(t)
	var bufs, again, liq FrameBuffers
	defer bufs.Delete()
	defer again.Delete()
	defer liq.Delete()

	liquid, err := bufs.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	withPhases := *f
	withPhases.Phase = make([]scene.Phase, f.N) // all liquid
	liquidPhases, err := liq.Upload(&withPhases)
	if err != nil {
		t.Fatal(err)
	}
	if liquidPhases.ID == nil {
		t.Fatal("Upload left the ids of a frame with phases out")
	}
	for _, mode := range []string{"particles", "surface"} {
		setParam(t, r, "render.mode", mode)
		if a, b := draw(t, r, fb, cam, liquid), draw(t, r, fb, cam, liquidPhases); !bytes.Equal(a.Pix, b.Pix) {
			n, most := pixDiff(a.Pix, b.Pix)
			t.Errorf("%s: liquid with phases and ids differs from liquid without in %d bytes (by up to %d)", mode, n, most)
		}
	}

	asGrains(f)
	p, err := bufs.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	g := shuffled(f)
	q, err := again.Upload(g)
	if err != nil {
		t.Fatal(err)
	}
	plain := p
	plain.ID = nil // every grain in its material's colour
	for _, mode := range []string{"particles", "surface"} {
		setParam(t, r, "render.mode", mode)
		img := draw(t, r, fb, cam, p)
		save(t, img, "grains-"+mode)
		tinted, flat := grainShades(img, cam, f), grainShades(draw(t, r, fb, cam, plain), cam, f)
		// each grain's tint: its colour over its plain colour, lit the same
		lo, hi := math.Inf(1), math.Inf(-1)   // brightness
		wlo, whi := math.Inf(1), math.Inf(-1) // warmth: red over blue
		bins := map[int]bool{}
		for k, c := range tinted {
			fl := flat[k]
			if min(fl[0], fl[1], fl[2]) < 20 || max(c[0], c[1], c[2]) > 250 {
				continue // too dark to measure, or clipped
			}
			b := (c[0] + c[1] + c[2]) / (fl[0] + fl[1] + fl[2])
			w := (c[0] / c[2]) / (fl[0] / fl[2])
			lo, hi, wlo, whi = min(lo, b), max(hi, b), min(wlo, w), max(whi, w)
			bins[int(math.Floor(b/0.05))] = true
		}
		t.Logf("%s: %d grains in front, brightness ×%.2f–%.2f in %d bins of 0.05, warmth ×%.2f–%.2f", mode, len(tinted), lo, hi, len(bins), wlo, whi)
		if len(tinted) < 30 || len(bins) == 0 {
			t.Fatalf("%s: %d grains in front, none measured: the test cannot see them", mode, len(tinted))
		}
		if lo < 0.75 || hi > 1.2 || hi-lo < 0.2 || len(bins) < 5 {
			t.Errorf("%s: the grains' brightness spans ×%.2f–%.2f in %d bins of 0.05, want several tints within ×0.8–1.15", mode, lo, hi, len(bins))
		}
		if whi/wlo < 1.1 || wlo < 0.8 || whi > 1.25 {
			t.Errorf("%s: the grains' warmth spans ×%.2f–%.2f, want a slight shift either way", mode, wlo, whi)
		}
		if other := draw(t, r, fb, cam, q); !bytes.Equal(other.Pix, img.Pix) {
			n, most := pixDiff(other.Pix, img.Pix)
			t.Errorf("%s: the grains in another order differ in %d bytes (by up to %d): a grain's tint is not its own", mode, n, most)
		}
	}
	if err := r.Err(); err != nil {
		t.Error(err)
	}
}
