package flat

import (
	"io/fs"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/slosh/slosh/shaders"
	"github.com/slosh/slosh/sim"
)

var (
	red   = [4]float32{1, 0, 0, 1}
	green = [4]float32{0, 1, 0, 1}
	blue  = [4]float32{0, 0, 1, 1}
	white = [4]float32{1, 1, 1, 1}
	clear = [4]float32{}
)

func square(x0, y0, x1, y1 float32) [][2]float32 {
	return [][2]float32{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

// TestShapeLandsWhereToScreenSays: a filled square covers exactly the pixels whose centres lie inside its corners
// as ToScreen places them, and its outline straddles its edge.
func TestShapeLandsWhereToScreenSays(t *testing.T) {
	r := newTest(t)
	const w, h = 320, 200
	f := &sim.FlatFrame{Size: [2]float32{2, 1}, Shapes: []sim.FlatShape{{Points: square(0.5, 0.25, 1.0, 0.75), Fill: red}}}
	img := render(t, r, f, w, h)
	left, bottom := r.ToScreen(0.5, 0.25, w, h)
	right, top := r.ToScreen(1.0, 0.75, w, h)
	if !(left < right && top < bottom) {
		t.Fatalf("corners at (%g, %g) and (%g, %g) px", left, bottom, right, top)
	}
	wrong, in := 0, 0
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			cx, cy := float64(i)+0.5, float64(j)+0.5
			d := min(cx-left, right-cx, cy-top, bottom-cy) // > 0 inside, px from the nearest edge
			if math.Abs(d) < 0.51 {
				continue // the centre is on an edge: either way
			}
			isRed := near(img, i, j, red)
			if d > 0 {
				in++
			}
			if isRed != (d > 0) {
				if wrong < 5 {
					t.Errorf("pixel (%d, %d), %.1f px inside the square: %v", i, j, d, rgb(img, i, j))
				}
				wrong++
			}
		}
	}
	if wrong > 0 || in < 1000 {
		t.Errorf("%d pixels wrong, %d inside the square", wrong, in)
	}

	// an outline in green, drawn after the fill, is centred on the edge
	f.Shapes[0].Line = green
	img = render(t, r, f, w, h)
	mid := int((left + right) / 2)
	if c := rgb(img, mid, int(top)); c[1] < 0.5 || c[0] > 0.5 {
		t.Errorf("pixel on the top edge (%d, %d): %v, want mostly the green outline", mid, int(top), c)
	}
	if c := rgb(img, mid, int(top)+4); !near(img, mid, int(top)+4, red) {
		t.Errorf("pixel 4 px inside the top edge: %v, want the red fill", c)
	}
}

// TestImageOrientationAndFiltering: the image's first texel is the rectangle's lower-left corner and its rows go
// up; between texel centres colours blend linearly.
func TestImageOrientationAndFiltering(t *testing.T) {
	r := newTest(t)
	const w, h = 320, 200
	f := &sim.FlatFrame{Size: [2]float32{2, 1}, ImageW: 2, ImageH: 2,
		Image: [][4]float32{red, green, blue, white}} // bottom row: red, green; top row: blue, white
	img := render(t, r, f, w, h)
	for _, c := range []struct {
		x, y float32
		want [4]float32
		name string
	}{
		{0.1, 0.05, red, "lower-left"}, {1.9, 0.05, green, "lower-right"},
		{0.1, 0.95, blue, "upper-left"}, {1.9, 0.95, white, "upper-right"},
	} {
		px, py := r.ToScreen(c.x, c.y, w, h)
		if !near(img, int(px), int(py), c.want) {
			t.Errorf("%s corner at (%d, %d): %v, want %v", c.name, int(px), int(py), rgb(img, int(px), int(py)), c.want)
		}
	}
	// the centre is the mean of the four texels: (0.5, 0.5, 0.5)
	px, py := r.ToScreen(1, 0.5, w, h)
	if c := rgb(img, int(px), int(py)); math.Abs(c[0]-0.5) > 0.06 || math.Abs(c[1]-0.5) > 0.06 || math.Abs(c[2]-0.5) > 0.06 {
		t.Errorf("centre (%d, %d): %v, want the four texels' mean (0.5, 0.5, 0.5): not linearly filtered", int(px), int(py), c)
	}
}

// TestLetterboxKeepsSquareSquare: a square rectangle's image covers a square of pixels, centred, in a wide and a
// tall viewport, with the background around it.
func TestLetterboxKeepsSquareSquare(t *testing.T) {
	r := newTest(t)
	for _, vp := range [][2]int{{320, 200}, {160, 240}} {
		w, h := vp[0], vp[1]
		f := &sim.FlatFrame{Size: [2]float32{1, 1}, ImageW: 1, ImageH: 1, Image: [][4]float32{white}}
		img := render(t, r, f, w, h)
		x0, y0, x1, y1 := w, h, -1, -1
		for j := 0; j < h; j++ {
			for i := 0; i < w; i++ {
				if near(img, i, j, white) {
					x0, y0, x1, y1 = min(x0, i), min(y0, j), max(x1, i), max(y1, j)
				} else if !near(img, i, j, r.Background) {
					t.Fatalf("%dx%d: pixel (%d, %d) is %v, neither the image nor the background", w, h, i, j, rgb(img, i, j))
				}
			}
		}
		pw, ph := x1-x0+1, y1-y0+1
		if pw != ph || pw < min(w, h)*9/10 {
			t.Errorf("%dx%d: the square is %d×%d px", w, h, pw, ph)
		}
		if d := x0 - (w - 1 - x1); d < -1 || d > 1 {
			t.Errorf("%dx%d: %d px left of the square, %d right", w, h, x0, w-1-x1)
		}
		if d := y0 - (h - 1 - y1); d < -1 || d > 1 {
			t.Errorf("%dx%d: %d px above the square, %d below", w, h, y0, h-1-y1)
		}
		if min(x0, y0) < 1 {
			t.Errorf("%dx%d: no margin: the square starts at (%d, %d)", w, h, x0, y0)
		}
	}
}

// TestLineWidth: a line w px wide covers w px across, measured perpendicular to it, and a right-angled joint
// has its outer corner filled and its inner overlap blended once.
func TestLineWidth(t *testing.T) {
	r := newTest(t)
	const w, h = 320, 200
	half := [4]float32{1, 1, 1, 0.5}
	f := &sim.FlatFrame{Size: [2]float32{2, 1}, Lines: []sim.FlatLine{
		{Points: [][2]float32{{0.1, 0.8}, {0.9, 0.8}}, Color: white, Width: 6},             // horizontal
		{Points: [][2]float32{{1.1, 0.1}, {1.9, 0.9}}, Color: white, Width: 6},             // 45°
		{Points: [][2]float32{{0.2, 0.2}, {0.7, 0.2}, {0.7, 0.6}}, Color: half, Width: 10}, // a right angle
	}}
	img := render(t, r, f, w, h)
	bg := r.Background
	sum := func(x float32) float64 { // coverage summed down the column through world x
		px, _ := r.ToScreen(x, 0, w, h)
		s := 0.0
		for j := 0; j < h; j++ {
			s += max(0, coverage(img, int(px), j, bg, white))
		}
		return s
	}
	if s := sum(0.85); math.Abs(s-6) > 0.5 {
		t.Errorf("the horizontal line of width 6 covers %.2f px down a column", s)
	}
	if s := sum(1.5); math.Abs(s-6*math.Sqrt2) > 0.7 {
		t.Errorf("the 45° line of width 6 covers %.2f px down a column, want %.2f", s, 6*math.Sqrt2)
	}
	// the joint at (0.7, 0.2): its outer corner lies 5 px right of and 5 px below it on the screen
	cx, cy := r.ToScreen(0.7, 0.2, w, h)
	halfCover := float64(half[3])
	if c := coverage(img, int(cx)+3, int(cy)+3, bg, white); math.Abs(c-halfCover) > 0.05 {
		t.Errorf("outer corner of the joint (%d, %d): coverage %.2f, want %.2f (a gap?)", int(cx)+3, int(cy)+3, c, halfCover)
	}
	if c := coverage(img, int(cx)-2, int(cy)-2, bg, white); math.Abs(c-halfCover) > 0.05 {
		t.Errorf("inner corner of the joint: coverage %.2f, want %.2f (drawn twice?)", c, halfCover)
	}
}

// TestTracersAreRoundDotsOfTheirSize: a 14 px tracer covers about π·7² pixels, 14 across each way and not its
// bounding square's corners; a 4 px one about π·2².
func TestTracersAreRoundDotsOfTheirSize(t *testing.T) {
	r := newTest(t)
	const w, h = 320, 200
	f := &sim.FlatFrame{Size: [2]float32{2, 1}, Tracers: []sim.FlatPoint{
		{Pos: [2]float32{0.5, 0.5}, Color: white, Size: 14},
		{Pos: [2]float32{1.5, 0.5}, Color: white, Size: 4},
	}}
	img := render(t, r, f, w, h)
	bg := r.Background
	for _, tr := range f.Tracers {
		cx, cy := r.ToScreen(tr.Pos[0], tr.Pos[1], w, h)
		rad := float64(tr.Size) / 2
		area := 0.0
		x0, y0, x1, y1 := w, h, -1, -1
		for j := int(cy - rad - 3); j <= int(cy+rad+3); j++ {
			for i := int(cx - rad - 3); i <= int(cx+rad+3); i++ {
				c := max(0, coverage(img, i, j, bg, white))
				area += c
				if c > 0.5 {
					x0, y0, x1, y1 = min(x0, i), min(y0, j), max(x1, i), max(y1, j)
				}
			}
		}
		want := math.Pi * rad * rad
		if math.Abs(area-want) > 0.1*want+1 {
			t.Errorf("tracer of size %g: covers %.1f px², want about %.1f", tr.Size, area, want)
		}
		if dw, dh := x1-x0+1, y1-y0+1; math.Abs(float64(dw)-2*rad) > 1 || math.Abs(float64(dh)-2*rad) > 1 {
			t.Errorf("tracer of size %g: %d×%d px", tr.Size, dw, dh)
		}
		// round: pixels in the bounding square but beyond the rim (its corners) stay empty
		corners := 0
		for j := int(cy - rad); j <= int(cy+rad); j++ {
			for i := int(cx - rad); i <= int(cx+rad); i++ {
				if math.Hypot(float64(i)+0.5-cx, float64(j)+0.5-cy) < rad+0.6 {
					continue
				}
				corners++
				if c := coverage(img, i, j, bg, white); c > 0.05 {
					t.Errorf("tracer of size %g: pixel (%d, %d) beyond its rim has coverage %.2f", tr.Size, i, j, c)
				}
			}
		}
		if tr.Size >= 10 && corners < 12 {
			t.Errorf("tracer of size %g: only %d pixels in the corners of its bounding square", tr.Size, corners)
		}
	}
}

// TestEmptyFramesDrawOnlyTheBackground: no frame, a frame with nothing in it, and a frame with no rectangle draw
// the background over the whole viewport and nothing else.
func TestEmptyFramesDrawOnlyTheBackground(t *testing.T) {
	r := newTest(t)
	r.Background = [4]float32{0.2, 0.4, 0.6, 1}
	const w, h = 64, 40
	for name, f := range map[string]*sim.FlatFrame{
		"nil":          nil,
		"empty":        {Size: [2]float32{2, 1}},
		"no rectangle": {Shapes: []sim.FlatShape{{Points: square(0, 0, 1, 1), Fill: red}}, ImageW: 1, ImageH: 1, Image: [][4]float32{red}},
	} {
		img := render(t, r, f, w, h)
		bad := 0
		for j := 0; j < h; j++ {
			for i := 0; i < w; i++ {
				if !near(img, i, j, r.Background) {
					bad++
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s frame: %d pixels are not the background, e.g. %v", name, bad, rgb(img, 0, 0))
		}
	}
}

// TestImageUploadsWhenItChanges: an unchanged image is not uploaded again; a changed texel and a changed size
// are, and show.
func TestImageUploadsWhenItChanges(t *testing.T) {
	r := newTest(t)
	const w, h = 160, 100
	f := &sim.FlatFrame{Size: [2]float32{2, 1}, ImageW: 2, ImageH: 2, Image: [][4]float32{red, red, red, red}}
	at := func(x, y float32) (int, int) {
		px, py := r.ToScreen(x, y, w, h)
		return int(px), int(py)
	}
	render(t, r, f, w, h)
	render(t, r, f, w, h)
	if r.imageUploads != 1 {
		t.Errorf("the same image drawn twice went up %d times", r.imageUploads)
	}
	f.Image[3] = blue // upper-right
	img := render(t, r, f, w, h)
	if x, y := at(1.9, 0.95); r.imageUploads != 2 || !near(img, x, y, blue) {
		t.Errorf("after a texel changed: %d uploads, upper-right %v", r.imageUploads, rgb(img, x, y))
	}
	// a 3×1 image, as big in bytes as nothing before: left, middle and right thirds
	f.ImageW, f.ImageH, f.Image = 3, 1, [][4]float32{green, white, blue}
	img = render(t, r, f, w, h)
	for _, c := range []struct {
		x    float32
		want [4]float32
	}{{0.1, green}, {1, white}, {1.9, blue}} {
		if x, y := at(c.x, 0.9); !near(img, x, y, c.want) {
			t.Errorf("3×1 image at x = %g m: %v, want %v", c.x, rgb(img, x, y), c.want)
		}
	}
	render(t, r, f, w, h)
	if r.imageUploads != 3 {
		t.Errorf("%d uploads, want 3", r.imageUploads)
	}
}

// benchFrame is the benchmark's frame, also used to check that drawing allocates nothing: a 65×65 image, 15
// shapes, 5 lines of 40 points, and n tracers.
func benchFrame(n int) *sim.FlatFrame {
	f := &sim.FlatFrame{Size: [2]float32{2, 1}, ImageW: 65, ImageH: 65, Image: make([][4]float32, 65*65)}
	for k := 0; k < 15; k++ {
		cx, cy := 0.1+0.12*float32(k), 0.3+0.03*float32(k%5)
		var pts [][2]float32
		for i := 0; i < 12; i++ {
			a := 2 * math.Pi * float64(i) / 12
			pts = append(pts, [2]float32{cx + 0.04*float32(math.Cos(a)), cy + 0.04*float32(math.Sin(a))})
		}
		f.Shapes = append(f.Shapes, sim.FlatShape{Points: pts, Fill: [4]float32{0.8, 0.5, 0.2, 1}, Line: white})
	}
	for k := 0; k < 5; k++ {
		var pts [][2]float32
		for i := 0; i < 40; i++ {
			x := 0.05 + 1.9*float32(i)/39
			pts = append(pts, [2]float32{x, 0.7 + 0.05*float32(k) + 0.03*float32(math.Sin(float64(10*x)))})
		}
		f.Lines = append(f.Lines, sim.FlatLine{Points: pts, Color: [4]float32{1, 1, 0, 0.8}, Width: 3})
	}
	for i := 0; i < n; i++ {
		f.Tracers = append(f.Tracers, sim.FlatPoint{Pos: [2]float32{2 * float32(i%173) / 173, float32(i%97) / 97},
			Color: [4]float32{0.9, 0.95, 1, 0.6}, Size: 2})
	}
	return f
}

// changeImage makes frame k's image differ from frame k−1's, as a moving dye would.
func changeImage(f *sim.FlatFrame, k int) {
	for i := range f.Image {
		v := float32((i+k)%65) / 64
		f.Image[i] = [4]float32{v, 0.5 * v, 1 - v, 1}
	}
}

// TestDrawAllocatesNothing: once the buffers have grown, drawing a frame whose image changes every time
// allocates nothing.
func TestDrawAllocatesNothing(t *testing.T) {
	r := newTest(t)
	f := benchFrame(500)
	render(t, r, f, 64, 40) // grow the buffers and make the texture
	k := 0
	allocs := testing.AllocsPerRun(5, func() {
		k++
		changeImage(f, k)
		r.Draw(f, 64, 40)
	})
	if allocs != 0 {
		t.Errorf("Draw allocates %.1f times a frame", allocs)
	}
}

// TestBadInputDrawsWhatItCan: short image slices, NaN and infinite points, negative and NaN widths and sizes
// do not crash, and the background still shows; nor does drawing with a deleted renderer.
func TestBadInputDrawsWhatItCan(t *testing.T) {
	r := newTest(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	f := &sim.FlatFrame{Size: [2]float32{2, 1}, ImageW: 10, ImageH: 10, Image: make([][4]float32, 5),
		Shapes: []sim.FlatShape{{Points: [][2]float32{{nan, 0}, {1, inf}}, Fill: red, Line: red}, {Fill: red, Line: red},
			{Points: [][2]float32{{1, 1}, {1, 1}, {1, 1}}, Fill: red, Line: red}},
		Lines: []sim.FlatLine{{Points: [][2]float32{{0, 0}, {1, 1}}, Color: red, Width: nan}, {Points: [][2]float32{{0, 0}, {1, 1}, {0, 0}}, Color: red, Width: 4},
			{Points: [][2]float32{{0, 0}}, Color: red, Width: 4}, {Points: [][2]float32{{0, 0}, {1, 1}}, Color: red, Width: -3}},
		Tracers: []sim.FlatPoint{{Pos: [2]float32{nan, 0}, Color: red, Size: 4}, {Pos: [2]float32{1, 0.5}, Color: red, Size: -4}},
	}
	img := render(t, r, f, 64, 40)
	if !near(img, 0, 0, r.Background) {
		t.Errorf("corner pixel %v, want the background", rgb(img, 0, 0))
	}
	f.ImageW = 1 << 30 // larger than any texture
	f.ImageH = 1
	render(t, r, f, 64, 40)
	// a deleted renderer draws nothing and may be deleted again
	r.Delete()
	r.Delete()
	if img := render(t, r, f, 64, 40); !near(img, 0, 0, [4]float32{1, 0, 1, 1}) {
		t.Errorf("a deleted renderer drew %v over the magenta clear", rgb(img, 0, 0))
	}
}

// TestBrokenShaderIsReported: a shader that does not compile fails New with the file's name, and New wants a
// context.
func TestBrokenShaderIsReported(t *testing.T) {
	newTest(t) // the context
	fsys := fstest.MapFS{}
	err := fs.WalkDir(shaders.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(shaders.FS(), path)
		fsys[path] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	src := string(fsys["flat_tracer.frag"].Data)
	fsys["flat_tracer.frag"] = &fstest.MapFile{Data: []byte(strings.Replace(src, "discard;", "discard_me;", 1))}
	if r, err := newRenderer(fsys); err == nil || !strings.Contains(err.Error(), "flat_tracer.frag") {
		r.Delete()
		t.Errorf("a broken tracer shader: %v", err)
	}
	if _, err := New(nil); err == nil {
		t.Error("New without a context succeeded")
	}
}
