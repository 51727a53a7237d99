package video

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPNGSequenceWritesEveryFrameExactly(t *testing.T) {
	dir := t.TempDir()
	const wd, ht, n = 40, 30, 5
	w, err := Create(filepath.Join(dir, "clip.PNG"), Options{Width: wd, Height: ht})
	if err != nil {
		t.Fatal(err)
	}
	var sent []*image.RGBA
	for f := range n {
		img := pattern(wd, ht, f)
		if f == 2 { // a frame inside a larger image (a stride wider than the frame) with some alpha left over
			big := image.NewRGBA(image.Rect(0, 0, wd+7, ht+3))
			for y := range ht {
				copy(big.Pix[(y+2)*big.Stride+4*5:], img.Pix[y*img.Stride:(y+1)*img.Stride])
			}
			sub := big.SubImage(image.Rect(5, 2, 5+wd, 2+ht)).(*image.RGBA)
			sub.Pix[3] = 0
			if err := w.WriteFrame(sub); err != nil {
				t.Fatal(err)
			}
		} else if err := w.WriteFrame(img); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, img)
	}
	if err := w.WriteFrame(pattern(wd+1, ht, 0)); err == nil || !strings.Contains(err.Error(), "41×30") {
		t.Errorf("a frame of the wrong size: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Frames() != n || w.Path() != filepath.Join(dir, "clip_000001.png") {
		t.Errorf("Frames %d, Path %s", w.Frames(), w.Path())
	}
	if p := w.(*PNGSequence).Pattern(); p != filepath.Join(dir, "clip_%06d.png") {
		t.Errorf("Pattern %s", p)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != n {
		t.Errorf("%d files in the folder, want %d", len(entries), n)
	}
	for f, img := range sent {
		b, err := os.ReadFile(w.(*PNGSequence).File(f + 1))
		if err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("frame %d: %v", f+1, err)
		}
		if got.Bounds() != img.Bounds() {
			t.Fatalf("frame %d is %v, want %v", f+1, got.Bounds(), img.Bounds())
		}
		for y := range ht {
			for x := range wd {
				r1, g1, b1, a1 := got.At(x, y).RGBA()
				r2, g2, b2, _ := img.At(x, y).RGBA()
				if r1 != r2 || g1 != g2 || b1 != b2 || a1 != 0xffff {
					t.Fatalf("frame %d pixel (%d,%d) is %v, sent %v", f+1, x, y, got.At(x, y), img.At(x, y))
				}
			}
		}
	}
	// a second recording under the same name would mix its frames with these
	if _, err := Create(filepath.Join(dir, "clip.png"), Options{Width: wd, Height: ht}); err == nil ||
		!strings.Contains(err.Error(), "already there") {
		t.Errorf("a sequence over an earlier one: %v", err)
	}
}

func TestPNGSequenceKeepsTheFramesBeforeAFailure(t *testing.T) {
	dir := t.TempDir()
	s, err := NewPNGSequence(dir, "f", Options{Width: 8, Height: 8})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(s.File(4), 0o755); err != nil { // the 4th frame's name is taken by a folder
		t.Fatal(err)
	}
	var werr error
	for f := 0; f < 50 && werr == nil; f++ {
		werr = s.WriteFrame(pattern(8, 8, f))
	}
	cerr := s.Close()
	if werr == nil || cerr == nil || !strings.Contains(cerr.Error(), s.File(4)) {
		t.Fatalf("a frame that cannot be written: WriteFrame %v, Close %v; want errors naming %s", werr, cerr, s.File(4))
	}
	for f := 1; f <= 3; f++ {
		if _, err := os.Stat(s.File(f)); err != nil {
			t.Errorf("frame %d before the failure: %v", f, err)
		}
	}
	if _, err := os.Stat(s.File(5)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("frame 5, after the failure, was written")
	}
	if s.Saved() != 3 || !strings.HasSuffix(cerr.Error(), "the 3 frames before it are in "+s.File(1)+" to f000003.png") {
		t.Errorf("Saved %d, Close %q; want 3, and the error naming the files kept", s.Saved(), cerr)
	}
}
