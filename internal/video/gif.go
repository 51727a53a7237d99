package video

import (
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"io"
	"math"

	"github.com/slosh/slosh/internal/atomicfile"
)

// gifDepth is how many frames may wait for the quantiser before WriteFrame waits.
const gifDepth = 2

// gifQuality is what a Quality means for a GIF.
type gifQuality struct {
	maxFPS  float64 // frames are dropped to stay at or below this rate
	colours int     // per frame, at most 256
	dither  bool    // Floyd–Steinberg
	samples int     // pixels a frame's palette is built from, at most
}

var gifQualities = [...]gifQuality{
	High:   {maxFPS: 50, colours: 256, dither: true, samples: 1 << 15},
	Medium: {maxFPS: 25, colours: 256, dither: true, samples: 1 << 14},
	Low:    {maxFPS: 25, colours: 128, dither: false, samples: 1 << 13},
}

// maxGIFDelay is the longest a GIF frame is shown, in 1/100 s, before a frame that changes nothing is stored to
// end it (a frame's delay is 16 bits).
const maxGIFDelay = 60000

// gifWriter quantises each frame as it comes, with a palette of its own, and keeps it paletted (a byte a pixel):
// only the rectangle that changed since the previous frame, with the unchanged pixels in it transparent, and a
// frame that changes nothing lengthens the previous one. Close encodes the GIF, looping forever.
//
// GIF delays are in 1/100 s and browsers show delays under 2/100 s slower, so at more than the quality's rate
// (50 frames per second at most) only every step-th frame is kept; delays are rounded from each frame's time, so
// they add up to the recording's length (30 fps: 3, 3, 4, 3, 3, 4, … /100 s).
type gifWriter struct {
	path string
	w, h int
	fps  float64
	q    gifQuality
	step int // keep every step-th frame
	n    int // frames taken, kept or not
	pipe *pipeline

	// the encoding goroutine's, until Close
	prev    []byte            // the last kept frame, RGBA
	frames  []*image.Paletted // the stored frames
	starts  []int             // the number of the frame each stored frame starts at
	match   matcher
	dith    ditherer
	samples []rgb
	pal     []rgb
	rnd     rng

	upto  int // the encoding goroutine's: frames taken up to the last one it quantised
	saved int // frames the written GIF shows

	closed   bool
	closeErr error
}

func createGIF(path string, o Options) (*gifWriter, error) {
	if _, err := checkTarget(path); err != nil {
		return nil, err
	}
	q := gifQualities[o.Quality]
	g := &gifWriter{path: path, w: o.Width, h: o.Height, fps: o.FPS, q: q, rnd: 0x9e3779b97f4a7c15}
	g.step = max(1, int(math.Ceil(o.FPS/q.maxFPS-1e-9)))
	g.pipe = newPipeline(o.Width, o.Height, gifDepth, g.encode)
	return g, nil
}

func (g *gifWriter) WriteFrame(img *image.RGBA) error {
	if g.closed {
		return fmt.Errorf("recording %s: WriteFrame after Close", g.path)
	}
	if err := checkFrame(img, g.w, g.h); err != nil {
		return fmt.Errorf("recording %s: %w", g.path, err)
	}
	if g.n%g.step != 0 { // dropped to keep the rate
		if err := g.pipe.failed(); err != nil {
			return err
		}
		g.n++
		return nil
	}
	if err := g.pipe.put(img); err != nil {
		return err
	}
	g.n++
	return nil
}

// encode quantises the i-th kept frame.
func (g *gifWriter) encode(i int, pix []byte) error {
	start := i * g.step
	g.upto = start + g.step
	r, count := changed(pix, g.prev, g.w, g.h)
	if count == 0 {
		last := g.starts[len(g.starts)-1]
		if float64(start-last)*100/g.fps < maxGIFDelay {
			return nil // the previous frame stays up longer
		}
		g.store(start, &image.Paletted{Pix: []byte{0}, Stride: 1, Rect: image.Rect(0, 0, 1, 1),
			Palette: color.Palette{color.RGBA{}, color.RGBA{A: 255}}})
		return nil
	}
	transparent := count < r.Dx()*r.Dy()
	colours := g.q.colours
	if transparent {
		colours-- // the last index is for the pixels that did not change
	}
	g.samples = sample(g.samples, pix, g.prev, g.w, r, count, g.q.samples, &g.rnd)
	g.pal = medianCut(g.pal, g.samples, colours)
	g.match.reset(g.pal)
	pal := make(color.Palette, len(g.pal), len(g.pal)+1)
	for k, c := range g.pal {
		pal[k] = color.RGBA{c.r, c.g, c.b, 255}
	}
	tr := byte(len(pal))
	if transparent {
		pal = append(pal, color.RGBA{})
	}
	pm := &image.Paletted{Pix: make([]byte, r.Dx()*r.Dy()), Stride: r.Dx(), Rect: r, Palette: pal}
	prev := g.prev
	if prev == nil {
		g.prev = make([]byte, len(pix))
	}
	g.dith.remap(pm.Pix, pix, prev, g.w, r, &g.match, g.q.dither, tr)
	copy(g.prev, pix)
	g.store(start, pm)
	return nil
}

func (g *gifWriter) store(start int, pm *image.Paletted) {
	g.frames = append(g.frames, pm)
	g.starts = append(g.starts, start)
}

// delays are the stored frames' delays in 1/100 s: each frame lasts from its time to the next one's, rounded down
// to 1/100 s, so the total is the recording's length; the last lasts at least 2/100 s.
func (g *gifWriter) delays() []int {
	d := make([]int, len(g.starts))
	cs := func(frame int) int { return int(math.Floor(float64(frame)*100/g.fps + 1e-9)) }
	for k, s := range g.starts {
		end := g.n
		if k+1 < len(g.starts) {
			end = g.starts[k+1]
		}
		d[k] = min(math.MaxUint16, max(2, cs(end)-cs(s)))
	}
	return d
}

// Close quantises the frames still queued and writes the GIF atomically.
func (g *gifWriter) Close() error {
	if g.closed {
		return g.closeErr
	}
	g.closed = true
	g.pipe.close()
	g.pipe.wait(0)
	encErr := g.pipe.failed()
	if len(g.frames) == 0 {
		g.closeErr = fmt.Errorf("recording %s: %w; nothing was written", g.path, ErrNoFrames)
		if encErr != nil {
			g.closeErr = fmt.Errorf("%w; nothing was saved", encErr)
		}
		return g.closeErr
	}
	disposal := make([]byte, len(g.frames))
	for k := range disposal {
		disposal[k] = gif.DisposalNone // the next frame draws over this one
	}
	anim := &gif.GIF{Image: g.frames, Delay: g.delays(), Disposal: disposal, LoopCount: 0,
		Config: image.Config{Width: g.w, Height: g.h}}
	err := atomicfile.Write(g.path, func(w io.Writer) error { return gif.EncodeAll(w, anim) })
	g.frames, g.prev = nil, nil
	switch {
	case err != nil:
		g.closeErr = fmt.Errorf("%w; nothing was saved", err)
		if encErr != nil {
			g.closeErr = fmt.Errorf("%w, and then %w", encErr, g.closeErr)
		}
	case encErr != nil:
		g.saved = min(g.upto, g.n)
		g.closeErr = fmt.Errorf("%w; %s shows the first %d frames", encErr, g.path, g.saved)
	default:
		g.saved = g.n
	}
	return g.closeErr
}

func (g *gifWriter) Saved() int   { return g.saved }
func (g *gifWriter) Frames() int  { return g.n }
func (g *gifWriter) Path() string { return g.path }
