package video

import (
	"fmt"
	"image"
	"image/png"
	"io"
	"path/filepath"
	"strings"

	"github.com/slosh/slosh/internal/atomicfile"
)

// pngDepth is how many frames may wait for the PNG encoder before WriteFrame waits.
const pngDepth = 3

// PNGSequence records frames as numbered PNG files, dir/prefix000001.png, dir/prefix000002.png, …, each written
// atomically: a frame that fails leaves no partial file and the frames before it stay. The files are opaque RGB,
// compressed fast so that recording keeps up; Pattern names them the way ffmpeg's -i reads them.
type PNGSequence struct {
	dir, prefix string
	w, h        int
	pipe        *pipeline
	enc         png.Encoder

	written int // files written, counted by the encoding goroutine

	closed   bool
	closeErr error
}

// NewPNGSequence starts a PNG sequence of o.Width × o.Height frames in dir (FPS and Quality do not matter to it).
// It fails if dir is missing or read-only, or if the sequence's first file is already there: frames of an
// earlier recording would mix with the new ones.
func NewPNGSequence(dir, prefix string, o Options) (*PNGSequence, error) {
	s := &PNGSequence{dir: dir, prefix: prefix, w: o.Width, h: o.Height,
		enc: png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: &pngBuffers{}}}
	first := s.File(1)
	if strings.ContainsAny(prefix, `/\`) {
		return nil, fmt.Errorf("recording %s: the prefix %q holds a folder: give the folder as dir", first, prefix)
	}
	if err := o.check(PNG); err != nil {
		return nil, fmt.Errorf("recording %s: %w", first, err)
	}
	there, err := checkTarget(first)
	if err != nil {
		return nil, err
	}
	if there != nil {
		return nil, fmt.Errorf("recording %s: the file is already there, from an earlier recording: choose another name or remove the old frames", first)
	}
	s.pipe = newPipeline(o.Width, o.Height, pngDepth, s.encode)
	return s, nil
}

// File is the name of the i-th frame's file, from 1.
func (s *PNGSequence) File(i int) string {
	return filepath.Join(s.dir, fmt.Sprintf("%s%06d.png", s.prefix, i))
}

// Pattern names the files as ffmpeg's image2 input reads them: dir/prefix%06d.png.
func (s *PNGSequence) Pattern() string {
	return filepath.Join(s.dir, strings.ReplaceAll(s.prefix, "%", "%%")+"%06d.png")
}

// WriteFrame queues img to be written as the next file.
func (s *PNGSequence) WriteFrame(img *image.RGBA) error {
	if s.closed {
		return fmt.Errorf("recording %s: WriteFrame after Close", s.Path())
	}
	if err := checkFrame(img, s.w, s.h); err != nil {
		return fmt.Errorf("recording %s: %w", s.File(s.pipe.n+1), err)
	}
	return s.pipe.put(img)
}

// encode writes the i-th frame (from 0).
func (s *PNGSequence) encode(i int, pix []byte) error {
	for k := 3; k < len(pix); k += 4 {
		pix[k] = 255 // a recording is opaque, whatever blending left in the alpha channel
	}
	img := &image.RGBA{Pix: pix, Stride: 4 * s.w, Rect: image.Rect(0, 0, s.w, s.h)}
	if err := atomicfile.Write(s.File(i+1), func(w io.Writer) error { return s.enc.Encode(w, img) }); err != nil {
		return err
	}
	s.written++
	return nil
}

// Close waits for the queued frames to be written. It is safe to call twice. After a frame failed, its error
// says which files hold the frames before it.
func (s *PNGSequence) Close() error {
	if s.closed {
		return s.closeErr
	}
	s.closed = true
	s.pipe.close()
	s.pipe.wait(0)
	switch err := s.pipe.failed(); {
	case err != nil && s.written > 0:
		s.closeErr = fmt.Errorf("%w; the %d frames before it are in %s to %s", err, s.written, s.File(1), filepath.Base(s.File(s.written)))
	case err != nil:
		s.closeErr = fmt.Errorf("%w; no frame was saved", err)
	case s.pipe.n == 0:
		s.closeErr = fmt.Errorf("recording %s: %w; nothing was written", s.Path(), ErrNoFrames)
	}
	return s.closeErr
}

// Frames is the number of frames WriteFrame has taken.
func (s *PNGSequence) Frames() int { return s.pipe.n }

// Saved is the number of files written, once Close has returned.
func (s *PNGSequence) Saved() int { return s.written }

// Path is the sequence's first file.
func (s *PNGSequence) Path() string { return s.File(1) }

// pngBuffers keeps the PNG encoder's buffers from one frame to the next; only the encoding goroutine uses it.
type pngBuffers struct{ b *png.EncoderBuffer }

func (p *pngBuffers) Get() *png.EncoderBuffer {
	b := p.b
	p.b = nil
	return b
}

func (p *pngBuffers) Put(b *png.EncoderBuffer) { p.b = b }
