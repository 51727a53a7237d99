package flat

import (
	"image"
	"math"
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
)

func TestMain(m *testing.M) { gltest.Main(m) }

// newTest makes a renderer on the shared test context, deleted when the test ends.
func newTest(t testing.TB) *Renderer {
	t.Helper()
	ctx := gltest.Acquire(t)
	r, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Delete)
	return r
}

// render draws f offscreen at w×h over a magenta clear and reads the picture back, top row first (pixel (i, j)
// spans window pixels [i, i+1] × [j, j+1] in ToScreen's coordinates).
func render(t testing.TB, r *Renderer, f *sim.FlatFrame, w, h int) *image.RGBA {
	t.Helper()
	fb, err := glh.NewFramebuffer(w, h)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Delete()
	fb.Bind()
	gl.ClearColor(1, 0, 1, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	r.Draw(f, w, h)
	img := glh.ReadRGBA(fb.ID(), w, h)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if err := glh.CheckError("drawing a flat frame"); err != nil {
		t.Fatal(err)
	}
	return img
}

// rgb is a pixel's colour in [0, 1].
func rgb(img *image.RGBA, x, y int) [3]float64 {
	c := img.RGBAAt(x, y)
	return [3]float64{float64(c.R) / 255, float64(c.G) / 255, float64(c.B) / 255}
}

// coverage is how much of colour fg a pixel shows over the background bg, from the channel where they differ
// most.
func coverage(img *image.RGBA, x, y int, bg, fg [4]float32) float64 {
	c := rgb(img, x, y)
	k, d := 0, 0.0
	for i := 0; i < 3; i++ {
		if e := math.Abs(float64(fg[i] - bg[i])); e > d {
			k, d = i, e
		}
	}
	return (c[k] - float64(bg[k])) / float64(fg[k]-bg[k])
}

// near reports whether a pixel has colour c to within 8-bit rounding and a little.
func near(img *image.RGBA, x, y int, c [4]float32) bool {
	p := rgb(img, x, y)
	for i := 0; i < 3; i++ {
		if math.Abs(p[i]-float64(c[i])) > 3.0/255 {
			return false
		}
	}
	return true
}
