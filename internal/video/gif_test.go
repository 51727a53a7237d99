package video

import (
	"fmt"
	"image"
	"image/color"
	"image/color/palette"
	"image/draw"
	"image/gif"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recordGIF records frames into a GIF and decodes it again.
func recordGIF(t *testing.T, o Options, frames []*image.RGBA) *gif.GIF {
	t.Helper()
	path := filepath.Join(t.TempDir(), "a.gif")
	w, err := Create(path, o)
	if err != nil {
		t.Fatal(err)
	}
	for f, img := range frames {
		if err := w.WriteFrame(img); err != nil {
			t.Fatalf("frame %d: %v", f, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Frames() != len(frames) {
		t.Errorf("Frames %d, want %d", w.Frames(), len(frames))
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatalf("decoding the GIF: %v", err)
	}
	loops := g.LoopCount == 0 || len(g.Image) == 1 // a still GIF has no loop count
	if g.Config.Width != o.Width || g.Config.Height != o.Height || !loops {
		t.Errorf("the GIF is %d×%d looping %d times, want %d×%d looping forever", g.Config.Width, g.Config.Height,
			g.LoopCount, o.Width, o.Height)
	}
	return g
}

// composite plays g: each frame drawn over the ones before (every frame's disposal is "none").
func composite(t *testing.T, g *gif.GIF) []*image.RGBA {
	t.Helper()
	canvas := image.NewRGBA(image.Rect(0, 0, g.Config.Width, g.Config.Height))
	var out []*image.RGBA
	for i, pm := range g.Image {
		if g.Disposal[i] != gif.DisposalNone {
			t.Fatalf("frame %d's disposal is %d, want none", i, g.Disposal[i])
		}
		draw.Draw(canvas, pm.Bounds(), pm, pm.Bounds().Min, draw.Over)
		out = append(out, image.NewRGBA(canvas.Bounds()))
		copy(out[i].Pix, canvas.Pix)
	}
	return out
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// TestGIFTiming checks frame dropping above the quality's rate and delays that add up to the recording's length.
func TestGIFTiming(t *testing.T) {
	for _, c := range []struct {
		fps     float64
		q       Quality
		n, kept int
		delays  []int // the first few
	}{
		{30, High, 45, 45, []int{3, 3, 4, 3, 3, 4}},
		{60, High, 60, 30, []int{3, 3, 4, 3, 3, 4}}, // every second frame: 30 fps
		{60, Medium, 61, 21, []int{5, 5, 5, 5, 5}},  // every third: 20 fps
		{50, High, 20, 20, []int{2, 2, 2, 2}},       // 50 fps is kept
		{144, Low, 50, 9, []int{4, 4, 4, 4, 4, 5}},  // every sixth: 24 fps
		{12.5, High, 10, 10, []int{8, 8, 8, 8}},
	} {
		t.Run(fmt.Sprintf("%gfps-%v", c.fps, c.q), func(t *testing.T) {
			frames := make([]*image.RGBA, c.n)
			for f := range frames {
				frames[f] = pattern(24, 16, f)
			}
			g := recordGIF(t, Options{Width: 24, Height: 16, FPS: c.fps, Quality: c.q}, frames)
			if len(g.Image) != c.kept {
				t.Fatalf("%d frames in the GIF, want %d", len(g.Image), c.kept)
			}
			for i, d := range c.delays {
				if g.Delay[i] != d {
					t.Fatalf("delays %v, want them to start %v", g.Delay, c.delays)
				}
			}
			want := float64(c.n) * 100 / c.fps
			if got := float64(sum(g.Delay)); math.Abs(got-want) > 2 {
				t.Errorf("the delays %v add up to %g/100 s, want %g", g.Delay, got, want)
			}
			for i, d := range g.Delay {
				if d < 2 {
					t.Errorf("frame %d's delay is %d/100 s: browsers slow that down", i, d)
				}
			}
		})
	}
}

// TestGIFStoresOnlyWhatChanged records a small square moving over a still background: later frames must be only
// the part that changed, still frames must lengthen the one before, and playing the GIF must give the frames.
func TestGIFStoresOnlyWhatChanged(t *testing.T) {
	const wd, ht = 64, 48
	bg := photo(wd, ht)
	var frames []*image.RGBA
	for f := range 12 {
		img := image.NewRGBA(bg.Rect)
		copy(img.Pix, bg.Pix)
		x := 4 + 3*min(f, 8) // still from frame 8 on
		draw.Draw(img, image.Rect(x, 10, x+8, 18), image.NewUniform(color.RGBA{250, 30, 30, 255}), image.Point{}, draw.Src)
		frames = append(frames, img)
	}
	g := recordGIF(t, Options{Width: wd, Height: ht, FPS: 25, Quality: High}, frames)
	if len(g.Image) != 9 {
		t.Fatalf("%d frames in the GIF, want 9 (the last 3 repeat the 9th)", len(g.Image))
	}
	if g.Delay[8] != 16 {
		t.Errorf("the last frame's delay is %d/100 s, want 16 (4 frames at 25 fps)", g.Delay[8])
	}
	for i, pm := range g.Image[1:] {
		if b := pm.Bounds(); b.Dx() > 11 || b.Dy() > 8 {
			t.Errorf("frame %d is stored as %v, want only the moved square's %d×8", i+1, b, 11)
		}
	}
	played := composite(t, g)
	for _, f := range []int{0, 1, 5, 8} {
		if e := meanAbsRGB(played[f], frames[f]); e > 6 {
			t.Errorf("frame %d plays %.2f/255 away from the frame recorded", f, e)
		}
	}
}

// TestGIFPaletteQuality compares the GIF's colours with the frame recorded, and with what the fixed Plan 9
// palette gives for the same frame: the median-cut palette must be clearly better.
func TestGIFPaletteQuality(t *testing.T) {
	const wd, ht = 160, 120
	src := photo(wd, ht)
	for _, c := range []struct {
		q     Quality
		bound float64
	}{{High, 5}, {Low, 6.5}} {
		g := recordGIF(t, Options{Width: wd, Height: ht, FPS: 10, Quality: c.q}, []*image.RGBA{src})
		ours := meanAbsRGB(composite(t, g)[0], src)
		plan9 := image.NewPaletted(src.Rect, palette.Plan9)
		if c.q == Low {
			draw.Draw(plan9, plan9.Rect, src, image.Point{}, draw.Src)
		} else {
			draw.FloydSteinberg.Draw(plan9, plan9.Rect, src, image.Point{})
		}
		theirs := meanAbsRGB(plan9, src)
		t.Logf("%v: mean error %.2f/255 with our palette, %.2f/255 with Plan 9's", c.q, ours, theirs)
		if ours > c.bound || ours > 0.6*theirs {
			t.Errorf("%v: mean error %.2f/255, want below %g and below 0.6 × Plan 9's %.2f", c.q, ours, c.bound, theirs)
		}
	}
}

func TestMedianCut(t *testing.T) {
	var m matcher
	// fewer colours than asked for: each is found exactly
	few := []rgb{{1, 2, 3}, {200, 10, 10}, {1, 2, 3}, {0, 255, 0}, {200, 10, 10}}
	pal := medianCut(nil, append([]rgb(nil), few...), 16)
	if len(pal) != 3 {
		t.Fatalf("palette %v for 3 colours", pal)
	}
	m.reset(pal)
	for _, c := range few {
		if got := pal[m.nearest(int32(c.r), int32(c.g), int32(c.b))]; got != c {
			t.Errorf("%v matches %v", c, got)
		}
	}
	// the matcher agrees with a brute-force search
	var rnd rng = 12345
	var samples []rgb
	for range 5000 {
		v := rnd.next()
		samples = append(samples, rgb{uint8(v), uint8(v >> 8), uint8(v >> 16)})
	}
	pal = medianCut(nil, samples, 200)
	m.reset(pal)
	for range 2000 {
		v := rnd.next()
		r, g, b := int32(uint8(v)), int32(uint8(v>>8)), int32(uint8(v>>16))
		best := int32(math.MaxInt32)
		for _, c := range pal {
			best = min(best, dist(c, r, g, b))
		}
		if got := dist(pal[m.nearest(r, g, b)], r, g, b); got != best {
			t.Fatalf("(%d,%d,%d): the matcher's colour is %d away, the nearest %d", r, g, b, got, best)
		}
	}
	// no samples: a palette of one colour, which the GIF encoder needs
	if pal := medianCut(nil, nil, 256); len(pal) != 1 {
		t.Errorf("the palette of no samples is %v", pal)
	}
}

// BenchmarkGIFWrite640x360 measures frames per second into a GIF at High quality and 30 fps, including Close's
// encoding and writing, for the frames of BenchmarkMP4Write1280x720.
func BenchmarkGIFWrite640x360(b *testing.B) {
	for _, c := range benchFrames(640, 360) {
		b.Run(c.name, func(b *testing.B) {
			w, err := Create(filepath.Join(b.TempDir(), "bench.gif"), Options{Width: 640, Height: 360, FPS: 30, Quality: High})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if err := w.WriteFrame(c.frames[i%len(c.frames)]); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
			if fi, err := os.Stat(w.Path()); err == nil {
				b.ReportMetric(float64(fi.Size())/float64(b.N), "B/frame")
			}
		})
	}
}

// A GIF that cannot be written at Close (a folder took its name) says that nothing was saved, and Saved is 0;
// one that was written saves every frame.
func TestGIFSavedSaysWhatWasWritten(t *testing.T) {
	dir := t.TempDir()
	for _, blocked := range []bool{false, true} {
		path := filepath.Join(dir, fmt.Sprintf("blocked-%v.gif", blocked))
		w, err := Create(path, Options{Width: 16, Height: 16, FPS: 25})
		if err != nil {
			t.Fatal(err)
		}
		for f := range 5 {
			if err := w.WriteFrame(pattern(16, 16, f)); err != nil {
				t.Fatal(err)
			}
		}
		if blocked {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		err = w.Close()
		switch {
		case !blocked && (err != nil || w.Saved() != 5):
			t.Errorf("a written GIF: Close %v, Saved %d, want 5", err, w.Saved())
		case blocked && (err == nil || !strings.Contains(err.Error(), "nothing was saved") || w.Saved() != 0):
			t.Errorf("a GIF that could not be written: Close %v, Saved %d; want an error saying nothing was saved, 0", err, w.Saved())
		}
	}
}
