package glh_test

import (
	"bytes"
	"image"
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
)

// fill clears framebuffer f to four coloured quadrants: red top left, green top right, blue bottom left, white
// bottom right (top row first, as images are).
func fill(f *glh.Framebuffer) {
	f.Bind()
	gl.Enable(gl.SCISSOR_TEST)
	quads := []struct {
		x, y       int32
		r, g, b, a float32
	}{{0, 1, 1, 0, 0, 1}, {1, 1, 0, 1, 0, 1}, {0, 0, 0, 0, 1, 1}, {1, 0, 1, 1, 1, 1}}
	hw, hh := int32(f.W/2), int32(f.H/2)
	for _, q := range quads {
		gl.Scissor(q.x*hw, q.y*hh, hw, hh)
		gl.ClearColor(q.r, q.g, q.b, q.a)
		gl.Clear(gl.COLOR_BUFFER_BIT)
	}
	gl.Disable(gl.SCISSOR_TEST)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
}

// TestReadbackMatchesSyncReadAndScales reads a picture through the pixel-buffer ring at full size (equal to a
// synchronous read, with tags in order) and at half size (the quadrants keep their colours).
func TestReadbackMatchesSyncReadAndScales(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 64, 48
	fb, err := glh.NewFramebuffer(w, h)
	if err != nil {
		t.Fatal(err)
	}
	defer fb.Delete()
	fill(fb)
	want := glh.ReadRGBA(fb.ID(), w, h)

	rb, err := glh.NewReadback(w, h, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer rb.Delete()
	for tag := 1; tag <= 3; tag++ {
		if ok, err := rb.Start(fb.ID(), w, h, tag); !ok || err != nil {
			t.Fatalf("Start %d: %v %v", tag, ok, err)
		}
	}
	if ok, _ := rb.Start(fb.ID(), w, h, 4); ok || !rb.Full() {
		t.Fatal("a full ring accepted a fourth copy")
	}
	got := image.NewRGBA(image.Rect(0, 0, w, h))
	for tag := 1; tag <= 3; tag++ {
		k, ok, err := rb.Next(got, true)
		if !ok || err != nil || k != tag {
			t.Fatalf("Next: tag %d (want %d), %v, %v", k, tag, ok, err)
		}
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Fatalf("copy %d differs from a synchronous read", tag)
		}
	}
	if _, ok, _ := rb.Next(got, true); ok || rb.Pending() != 0 {
		t.Fatal("Next returned a picture from an empty ring")
	}

	half, err := glh.NewReadback(w/2, h/2, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer half.Delete()
	if ok, err := half.Start(fb.ID(), w, h, 7); !ok || err != nil {
		t.Fatalf("scaled Start: %v %v", ok, err)
	}
	small := image.NewRGBA(image.Rect(0, 0, w/2, h/2))
	if _, ok, err := half.Next(small, true); !ok || err != nil {
		t.Fatalf("scaled Next: %v %v", ok, err)
	}
	for _, c := range []struct {
		x, y int
		want [4]uint8
	}{{3, 3, [4]uint8{255, 0, 0, 255}}, {w/2 - 3, 3, [4]uint8{0, 255, 0, 255}}, {3, h/2 - 3, [4]uint8{0, 0, 255, 255}}, {w/2 - 3, h/2 - 3, [4]uint8{255, 255, 255, 255}}} {
		i := small.PixOffset(c.x, c.y)
		if got := [4]uint8(small.Pix[i : i+4]); got != c.want {
			t.Errorf("scaled pixel (%d, %d) = %v, want %v", c.x, c.y, got, c.want)
		}
	}
	if ok, err := half.Start(fb.ID(), w, h, 8); !ok || err != nil {
		t.Fatalf("scaled Start: %v %v", ok, err)
	}
	if _, _, err := half.Next(got, true); err == nil {
		t.Error("Next into an image of the wrong size did not fail")
	}
}
