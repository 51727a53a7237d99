// Package video records a stream of rendered frames into a file: an H.264 MP4 made by an ffmpeg process that the
// frames are piped into, an animated GIF quantised and dithered here with the standard library, or a numbered
// PNG sequence (the fallback when there is no ffmpeg; FallbackHint says how to make the MP4 from it later).
//
// Frames are *image.RGBA, top row first, all of the size given to Create; alpha is ignored (a recording is opaque).
// WriteFrame copies the frame and returns: the encoding runs on a goroutine of the writer's own, so a render loop
// pays for one copy per frame until the encoder falls behind by a few frames, and then waits for it. An error the
// encoder meets (ffmpeg exits, the disk fills) is returned by the next WriteFrame and by Close. A Writer is used
// from one goroutine.
package video

import (
	"errors"
	"fmt"
	"image"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/slosh/slosh/internal/atomicfile"
)

// Format is the kind of file a recording makes.
type Format int

const (
	MP4 Format = iota // H.264 in a fragmented MP4, encoded by ffmpeg
	GIF               // an animated GIF, looping forever
	PNG               // numbered PNG files, one per frame
)

func (f Format) String() string {
	switch f {
	case MP4:
		return "MP4"
	case GIF:
		return "GIF"
	case PNG:
		return "PNG"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// FormatOf tells the format from the path's extension, ignoring case: .mp4, .gif or .png.
func FormatOf(path string) (Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".mp4":
		return MP4, nil
	case ".gif":
		return GIF, nil
	case ".png":
		return PNG, nil
	}
	return 0, fmt.Errorf("recording %s: not a video format slosh writes: the name must end in .mp4, .gif or .png", path)
}

// Quality trades file size and encoding time against fidelity.
//
//   - MP4: libx264's constant rate factor, 18 (High), 23 (Medium) or 28 (Low).
//   - GIF: High keeps up to 50 frames per second with 256 colours per frame and Floyd–Steinberg dithering;
//     Medium the same at up to 25 frames per second; Low up to 25 frames per second with 128 colours and no
//     dithering (much smaller files, banding in gradients).
//   - PNG: lossless at every quality.
type Quality int

const (
	High Quality = iota
	Medium
	Low
)

func (q Quality) String() string {
	switch q {
	case High:
		return "high"
	case Medium:
		return "medium"
	case Low:
		return "low"
	}
	return fmt.Sprintf("Quality(%d)", int(q))
}

// Options describe a recording.
type Options struct {
	Width, Height int     // the frames' size in pixels
	FPS           float64 // frames per second of the output (MP4 and GIF), e.g. 60
	Quality       Quality
	FFmpeg        string // the ffmpeg program for MP4; "" looks up "ffmpeg" in PATH
}

// check says what is wrong with o for format f.
func (o Options) check(f Format) error {
	if o.Width <= 0 || o.Height <= 0 {
		return fmt.Errorf("frame size %d×%d: both sides must be positive", o.Width, o.Height)
	}
	switch f {
	case MP4:
		if o.Width < 2 || o.Height < 2 {
			return fmt.Errorf("frame size %d×%d: an MP4 needs at least 2×2 pixels", o.Width, o.Height)
		}
	case GIF:
		if o.Width > math.MaxUint16 || o.Height > math.MaxUint16 {
			return fmt.Errorf("frame size %d×%d: a GIF is at most 65535 pixels on a side", o.Width, o.Height)
		}
	}
	if f != PNG && (!(o.FPS > 0) || o.FPS > 1000 || math.IsInf(o.FPS, 0)) {
		return fmt.Errorf("frame rate %g: it must be more than 0 and at most 1000 frames per second", o.FPS)
	}
	if o.Quality < High || o.Quality > Low {
		return fmt.Errorf("unknown quality %d: use High, Medium or Low", int(o.Quality))
	}
	return nil
}

// Writer takes a recording's frames, in order.
type Writer interface {
	// WriteFrame adds img, which must be Width × Height; the caller may reuse img once it returns. A frame of
	// the wrong size is refused and the recording goes on. After an error of the encoder (ffmpeg exited, the
	// disk is full) the recording takes no more frames, but Close still finishes what was written.
	WriteFrame(img *image.RGBA) error
	// Close finishes the file: it waits for the encoder, writes the GIF, lets ffmpeg write the end of the MP4.
	// It is safe to call twice; the second call returns what the first did. An error of the encoder or of
	// finishing says what the output keeps, or that nothing was saved (and then it names no file that is not
	// there); a recording with no frames returns ErrNoFrames.
	Close() error
	// Frames is the number of frames WriteFrame has taken.
	Frames() int
	// Saved is the number of frames the output holds once Close has returned, as found on disk: all of them
	// after a Close without error; after a failure, those written before it (an MP4's complete fragments,
	// the PNG files written, the frames of a GIF that was written); 0 when nothing was saved.
	Saved() int
	// Path is the file being written; for a PNG sequence, its first file.
	Path() string
}

// Create starts a recording at path in the format its extension names (see FormatOf). It checks at once that the
// folder exists and takes new files, so that a bad folder shows before the first frame. For .png, path names the
// sequence: clip.png records clip_000001.png, clip_000002.png, … beside it (see NewPNGSequence). An MP4 without a
// usable ffmpeg returns an error wrapping ErrNoFFmpeg; record a PNG sequence instead and show FallbackHint.
//
// Nothing is written through a symbolic link: a link, a folder, a device or a pipe at path (or, for .png, at the
// sequence's first file) is refused by Create, naming it, as every writer of slosh refuses it (atomicfile). A GIF
// and each PNG file are written to a temporary file and renamed into place.
//
// An MP4 is written as it is recorded, by an ffmpeg that opens no file: it writes a file opened here, which is
// path itself when nothing is there, and otherwise a temporary file beside it that takes the place of the file
// there once it holds a frame (until then, and if the recording gets none, that file stays as it was). A GIF is held in memory until Close, at a byte a pixel for the part of each
// kept frame that changed (a 640×360 scene that changes everywhere, at High quality: about 7 MB a second, 30
// kept frames of 230 KB), so keep GIFs short and small.
func Create(path string, o Options) (Writer, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	if err := o.check(f); err != nil {
		return nil, fmt.Errorf("recording %s: %w", path, err)
	}
	switch f {
	case MP4:
		w, err := createMP4(path, o)
		if err != nil {
			return nil, err
		}
		return w, nil
	case GIF:
		w, err := createGIF(path, o)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
	base := filepath.Base(path)
	s, err := NewPNGSequence(filepath.Dir(path), strings.TrimSuffix(base, filepath.Ext(base))+"_", o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// checkTarget makes sure that path can be written before a recording starts: its folder exists and takes a new
// file, and nothing but a regular file is at path. A symbolic link, a folder, a device or a pipe there is refused
// as every writer of slosh refuses it (atomicfile.Check), so that a link planted in an output folder cannot
// redirect a recording elsewhere. It returns what is at path, nil when nothing is; the error names the path and
// says what to do.
func checkTarget(path string) (fs.FileInfo, error) {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, atomicfile.Explain(path, err)
	}
	if !fi.IsDir() {
		return nil, atomicfile.Explain(path, &os.PathError{Op: "stat", Path: dir, Err: syscall.ENOTDIR})
	}
	probe, err := os.CreateTemp(dir, ".slosh-probe-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) { // name the folder, not the probe
			err = &os.PathError{Op: "create a file in", Path: dir, Err: pe.Err}
		}
		return nil, atomicfile.Explain(path, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return atomicfile.Check(path)
}

// checkFrame says what is wrong with a frame for a w × h recording.
func checkFrame(img *image.RGBA, w, h int) error {
	if img == nil {
		return errors.New("the frame is nil")
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		return fmt.Errorf("the frame is %d×%d, the recording %d×%d", b.Dx(), b.Dy(), w, h)
	}
	if img.Stride < 4*w || len(img.Pix) < (h-1)*img.Stride+4*w {
		return fmt.Errorf("the frame's pixels (%d bytes, stride %d) do not cover %d×%d", len(img.Pix), img.Stride, w, h)
	}
	return nil
}
