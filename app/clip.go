package app

import (
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/internal/video"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// RecordOptions configure `slosh record`.
type RecordOptions struct {
	Options
	Frames        int    // simulated frames of 1/60 s, one video frame each
	Out           string // clip.mp4, clip.gif or clip.png (one frame: that file; more: clip_000001.png, …)
	Width, Height int    // picture size in pixels; 0 is 1280×720
	Quality       string // high, medium or low; "" is high
	// AB, "name=value", records an A/B comparison: the run copied at the start with that parameter changed (or,
	// "mode=M,name=value,...", mode M reset from the same scene), beside it; each side is Width×Height and the
	// clip twice as wide.
	AB     string
	Stdout io.Writer
}

// clipCheck validates what a clip's options say before anything is opened.
func clipCheck(out string, w, h *int, quality string) (video.Quality, error) {
	if *w == 0 && *h == 0 {
		*w, *h = 1280, 720
	}
	if *w < 2 || *h < 2 || *w > 16384 || *h > 16384 {
		return 0, usagef("--width %d --height %d: the picture must be between 2 and 16384 pixels each way", *w, *h)
	}
	q := video.High
	switch quality {
	case "", "high":
	case "medium":
		q = video.Medium
	case "low":
		q = video.Low
	default:
		return 0, usagef("--quality %q: want high, medium or low", quality)
	}
	if _, err := video.FormatOf(out); err != nil {
		return 0, usagef("--out %s: %v", out, err)
	}
	dir := filepath.Dir(out)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return 0, fmt.Errorf("--out %s: the folder %s does not exist", out, dir)
	}
	return q, nil
}

// clip renders a session's frames offscreen and writes them as a video (or PNG frames). Frames are read back
// through a ring of pixel buffers, so the GPU renders frame k+1 while frame k is copied and encoded.
type clip struct {
	ctx  *glh.Context // for a flat mode's 2D view
	off  *offscreen
	surf *surfacer
	rb   *glh.Readback
	vw   video.Writer
	img  *image.RGBA
	sc   *scene.Scene
	cam  *render.OrbitCamera
	note string // a fallback's note (PNG frames instead of an MP4)

	single string // a one-frame .png: the file, written directly
	frame  sim.Frame
	added  int
	bodies []scene.Shape // the bodies the renderer has

	// an A/B clip: both sides drawn into off in turn and copied into wide, which is read back
	wide      *glh.Framebuffer
	twinSurf  *surfacer
	twinBufs  render.FrameBuffers
	twinFrame sim.Frame
}

// newSceneView makes a w×h offscreen target whose renderer draws st's scene, and a surfacer for the particles'
// kernels, both configured with st's render.* and surface.* assignments. It needs g's context current.
func newSceneView(st *setup, g glInfo, w, h int) (*offscreen, *surfacer, error) {
	off, err := newOffscreen(w, h)
	if err != nil {
		return nil, nil, err
	}
	if err := st.configureRender(off.rend.Params()); err != nil {
		off.Delete()
		return nil, nil, err
	}
	surf, err := newSurfacer(g.ctx)
	if err != nil {
		off.Delete()
		return nil, nil, err
	}
	if err := st.configureSurface(surf.Params()); err != nil {
		surf.Delete()
		off.Delete()
		return nil, nil, err
	}
	off.rend.SetScene(st.sc)
	return off, surf, nil
}

// newClip makes the offscreen target and the output for w×h pictures of st's scene, configured with st's render and
// surface options; with ab, pictures of two w×h views side by side (an A/B pair's). frames is how many will be
// written, 0 when not known: one frame to a .png is that file.
func newClip(st *setup, g glInfo, out string, w, h int, q video.Quality, frames int, ab bool) (*clip, error) {
	c := &clip{sc: st.sc, ctx: g.ctx}
	var err error
	if c.off, c.surf, err = newSceneView(st, g, w, h); err != nil {
		return nil, err
	}
	c.cam = sceneCamera(st.sc)
	if ab {
		if c.wide, err = glh.NewFramebuffer(2*w, h); err != nil {
			c.Close()
			return nil, err
		}
		if c.twinSurf, err = newSurfacer(g.ctx); err == nil {
			err = st.configureSurface(c.twinSurf.Params())
		}
		if err != nil {
			c.Close()
			return nil, err
		}
		w *= 2
	}
	c.img = image.NewRGBA(image.Rect(0, 0, w, h))
	if f, _ := video.FormatOf(out); f == video.PNG && frames == 1 {
		c.single = out
		return c, nil
	}
	if c.rb, err = glh.NewReadback(w, h, readbackDepth); err != nil {
		c.Close()
		return nil, err
	}
	if c.vw, c.note, err = createVideo(out, video.Options{Width: w, Height: h, FPS: 1 / FrameDt, Quality: q}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// add renders the session's current state from the scene's camera (a flat mode's 2D view) and queues the
// picture.
func (c *clip) add(ss *session, bodies []scene.Shape) error {
	if fs, ok := ss.solver.(sim.Flat); ok {
		c.added++
		if err := c.off.drawFlat(c.ctx, fs); err != nil {
			return err
		}
		return c.queue(c.off.fb)
	}
	p, err := ss.particles(&c.off.bufs, &c.frame)
	if err != nil {
		return err
	}
	c.added++
	if p, err = c.surf.once(p, gpuReadBack(ss.solver), &c.frame, uint64(c.added), &c.off.bufs, c.off.rend, c.sc); err != nil {
		return err
	}
	if !slices.Equal(bodies, c.bodies) {
		c.bodies = slices.Clone(bodies)
		c.off.rend.SetBodies(bodies)
	}
	if c.wide != nil {
		return c.addAB(ss, p)
	}
	if c.single != "" {
		img, err := c.off.render(c.sc, c.cam, p)
		if err != nil {
			return err
		}
		return writePNG(c.single, img)
	}
	c.off.fb.Bind()
	c.off.rend.Draw(render.Viewport{W: c.off.fb.W, H: c.off.fb.H}, c.cam.Camera(float32(c.off.fb.W)/float32(c.off.fb.H)), p)
	return c.queue(c.off.fb)
}

// queue reads fb's picture back into the clip: the one-frame PNG at once, a video's frame through the readback
// ring.
func (c *clip) queue(fb *glh.Framebuffer) error {
	if c.single != "" {
		img := render.Screenshot(fb.ID(), fb.W, fb.H)
		gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
		if err := glh.CheckError("rendering the picture"); err != nil {
			return err
		}
		return writePNG(c.single, img)
	}
	if c.rb.Full() {
		if err := c.drain(true); err != nil {
			return err
		}
	}
	if _, err := c.rb.Start(fb.ID(), fb.W, fb.H, 1); err != nil {
		return err
	}
	return c.drain(false)
}

// addAB draws A (particles pa) and then the pair's B into the offscreen target, each copied into its half of
// the wide one, and queues the wide picture.
func (c *clip) addAB(ss *session, pa render.Particles) error {
	pb, err := twinParticles(ss.solver, &c.twinBufs, &c.twinFrame)
	if err != nil {
		return err
	}
	// B's frame is in twinFrame for a CPU pair; a GPU pair's B is drawn from its buffers and read back when needed
	if pb, err = c.twinSurf.once(pb, twinReadBack(ss.solver), &c.twinFrame, uint64(c.added), &c.twinBufs, c.off.rend, c.sc); err != nil {
		return err
	}
	w, h := c.off.fb.W, c.off.fb.H
	for i, p := range []render.Particles{pa, pb} {
		c.off.fb.Bind()
		c.off.rend.Draw(render.Viewport{W: w, H: h}, c.cam.Camera(float32(w)/float32(h)), p)
		gl.BindFramebuffer(gl.READ_FRAMEBUFFER, c.off.fb.ID())
		gl.BindFramebuffer(gl.DRAW_FRAMEBUFFER, c.wide.ID())
		gl.BlitFramebuffer(0, 0, int32(w), int32(h), int32(i*w), 0, int32((i+1)*w), int32(h), gl.COLOR_BUFFER_BIT, gl.NEAREST)
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	return c.queue(c.wide)
}

// drain writes the finished pictures (with wait, at least the oldest).
func (c *clip) drain(wait bool) error {
	for c.rb.Pending() > 0 {
		_, ok, err := c.rb.Next(c.img, wait)
		if err != nil || !ok {
			return err
		}
		if err := c.vw.WriteFrame(c.img); err != nil {
			return err
		}
		wait = false
	}
	return nil
}

// finish writes what is in flight and closes the output.
func (c *clip) finish() error {
	if c.rb != nil {
		for c.rb.Pending() > 0 {
			if err := c.drain(true); err != nil {
				c.vw.Close()
				return err
			}
		}
	}
	if c.vw != nil {
		return c.vw.Close()
	}
	return nil
}

// path is what the clip wrote to.
func (c *clip) path() string {
	if c.single != "" {
		return c.single
	}
	return c.vw.Path()
}

// frames is how many pictures went to the output.
func (c *clip) frames() int {
	if c.single != "" {
		return 1
	}
	return c.vw.Frames()
}

// stopped finishes the clip after err stopped it and says what the output holds, as found on disk: the writer's
// own account when finishing failed too, else how many frames are in which file, or that nothing was saved.
// It never names a file that is not there.
func (c *clip) stopped(err error) error {
	if ferr := c.finish(); ferr != nil {
		return fmt.Errorf("%w; %v", err, ferr)
	}
	n := 0
	if c.single != "" {
		if fi, serr := os.Stat(c.single); serr == nil && fi.Mode().IsRegular() {
			n = 1
		}
	} else {
		n = c.vw.Saved()
	}
	if n == 0 {
		return fmt.Errorf("%w (nothing was saved)", err)
	}
	return fmt.Errorf("%w (%d frames are in %s)", err, n, c.path())
}

func (c *clip) Close() {
	if c.vw != nil {
		c.vw.Close()
	}
	c.rb.Delete()
	c.surf.Delete()
	c.off.Delete()
	c.wide.Delete()
	c.twinSurf.Delete()
	c.twinBufs.Delete()
}

// Record simulates o.Frames frames without a visible window and writes each as a frame of o.Out: an MP4 (H.264,
// through ffmpeg; PNG frames with a note when ffmpeg is missing), a GIF, or PNG frames. Progress and the time
// left go to stderr; any failure is an error (and a non-zero exit), with what was written so far kept.
func Record(o RecordOptions) error {
	modes := Modes()
	if o.Frames <= 0 {
		return usagef("--frames %d: must be at least 1", o.Frames)
	}
	if o.Out == "" {
		return usagef("--out: name the clip, e.g. --out splash.mp4 (or .gif, or .png for frames)")
	}
	q, err := clipCheck(o.Out, &o.Width, &o.Height, o.Quality)
	if err != nil {
		return err
	}
	st, err := prepare(modes, &o.Options)
	if err != nil {
		return err
	}
	var spec abSpec
	if o.AB != "" {
		if o.Width > 16384/2 {
			return usagef("--width %d with --ab: each side must be at most %d pixels wide", o.Width, 16384/2)
		}
		if spec, err = parseABFor(modes, st.mode, o.AB); err != nil {
			return err
		}
	}
	g := glInfo{cap: o.GLCap}
	if g.ctx, g.err = openHidden(o.Width, o.Height, o.GLCap); g.err != nil {
		return fmt.Errorf("record needs OpenGL to render: %w", g.err)
	}
	defer g.ctx.Close()
	stderr := o.stderr()
	ss, err := openSession(modes, st, g, stderr)
	if err != nil {
		return err
	}
	defer ss.Close()
	if o.AB != "" {
		if err := ss.startABIn(modes, spec, stderr); err != nil {
			return err
		}
	}
	c, err := newClip(st, g, o.Out, o.Width, o.Height, q, o.Frames, o.AB != "")
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer c.Close()
	if c.note != "" {
		fmt.Fprintln(stderr, "slosh: "+c.note)
	}
	bodies := bodyShapes(st.sc)
	start := time.Now()
	prog := newProgress(stderr)
	var steps []sim.Stats
	for f := 1; f <= o.Frames; f++ {
		if steps, err = ss.frame(steps[:0]); err != nil {
			return c.stopped(fmt.Errorf("frame %d: %w", f, err))
		}
		if err := c.add(ss, bodies); err != nil {
			return c.stopped(fmt.Errorf("record: frame %d: %w", f, err))
		}
		prog.show(f, o.Frames, progressLine("recorded", f, o.Frames, time.Since(start)))
	}
	prog.end()
	if err := c.finish(); err != nil {
		return fmt.Errorf("record: %w", err) // the writer's error says what the output holds
	}
	if err := c.off.rend.Err(); err != nil {
		fmt.Fprintf(stderr, "slosh: note: the clip leaves out what the renderer cannot draw: %v\n", err)
	}
	fmt.Fprintf(orStdout(o.Stdout), "wrote %d frames (%d×%d, %g fps) to %s\n", c.frames(), c.img.Rect.Dx(), c.img.Rect.Dy(), 1/FrameDt, c.path())
	return nil
}

// progressLine is a terminal progress bar: what, done of total, and the time left.
func progressLine(what string, done, total int, elapsed time.Duration) string {
	const width = 30
	n := width * done / max(total, 1)
	return fmt.Sprintf("slosh: [%s%s] %s %d/%d frames, %s left   ", strings.Repeat("#", n), strings.Repeat(".", width-n),
		what, done, total, eta(elapsed, done, total))
}
