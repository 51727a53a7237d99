package app

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/internal/video"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// Recording formats, as the values of capture.format.
var captureFormats = []string{"mp4", "gif", "png"}

// Recording qualities, as the values of capture.quality, best first.
var captureQualities = []string{"high", "medium", "low"}

// captureConfig holds the settings of screenshots and recordings, shown in the panel as the set capture.*.
type captureConfig struct {
	Format      int32
	FPS         int32   // frames per second of a recording; 0: the simulation's (1/FrameDt)
	Scale       float32 // recording size over the window's framebuffer size
	Quality     int32
	Panel       bool  // recordings include the panel
	Transparent bool  // screenshots have a transparent background
	Meshes      int32 // index into captureMeshes: what the particle export and Save mesh write
	VDB         bool  // the particle export also writes the fluid's surface as OpenVDB level sets
	VDBDensity  bool  // and a density fog volume beside each
	VDBVelocity bool  // and a velocity vector grid on each level set's band
	USD         bool  // the particle export also writes the run as a USD stage
}

// What capture.meshes can be: the particle export without meshes, or with them in one of the export formats.
var captureMeshes = []string{"none", export.MeshOBJ, export.MeshPLY}

func defaultCaptureConfig() captureConfig { return captureConfig{Scale: 1, Quality: 1} }

func (c *captureConfig) register(s *param.Set) {
	s.Choice(&c.Format, param.Spec{Name: "capture.format", Label: "Record as", Group: "Capture", Items: captureFormats,
		Desc: "What F9 records: an MP4 video (H.264, needs ffmpeg; without it, PNG frames), a GIF for short clips, or numbered PNG frames"})
	s.Int(&c.FPS, param.Spec{Name: "capture.fps", Label: "Frames per second", Group: "Capture", Unit: "1/s", Min: 0, Max: 120,
		Desc: "Frame rate of recordings, in simulated time, so a clip plays in real time however fast the window ran; 0 records every simulated frame (60 per simulated second)"})
	s.Float(&c.Scale, param.Spec{Name: "capture.scale", Label: "Resolution scale", Group: "Capture", Min: 0.1, Max: 1,
		Desc: "Recording size as a fraction of the window's (rounded down to even numbers of pixels)"})
	s.Choice(&c.Quality, param.Spec{Name: "capture.quality", Label: "Quality", Group: "Capture", Items: captureQualities,
		Desc: "MP4: H.264 constant quality 18, 23 or 28; GIF: dithering for high and medium"})
	s.Bool(&c.Panel, param.Spec{Name: "capture.panel", Label: "Record the panel", Group: "Capture",
		Desc: "Recordings include the panel; off records the 3D view alone (the recording indicator is never recorded)"})
	s.Bool(&c.Transparent, param.Spec{Name: "capture.transparent", Label: "Transparent screenshots", Group: "Capture",
		Desc: "Screenshots (F12) have a transparent background: alpha comes from the fluid and the objects alone"})
	s.Choice(&c.Meshes, param.Spec{Name: "capture.meshes", Label: "Export meshes", Group: "Capture", Items: captureMeshes,
		Desc: "The particle export also writes each frame's fluid surface and rigid bodies as OBJ or PLY meshes (mesh.* settings); Save mesh writes the current frame's in this format (OBJ when none)"})
	s.Bool(&c.VDB, param.Spec{Name: "capture.vdb", Label: "Export VDB level sets", Group: "Capture",
		Desc: "The particle export also writes each frame's fluid surface as an OpenVDB level set named surface (surface_000001.vdb on; mesh.* settings, voxels of mesh.cell spacings) for Blender and Houdini"})
	s.Bool(&c.VDBDensity, param.Spec{Name: "capture.vdb_density", Label: "VDB density fog", Group: "Capture",
		Desc: "With capture.vdb, each VDB file also holds a fog volume named density: 1 inside the fluid, falling to 0 across the level set's band (what Blender and Houdini render as smoke or a volume)"})
	s.Bool(&c.VDBVelocity, param.Spec{Name: "capture.vdb_velocity", Label: "VDB velocity", Group: "Capture",
		Desc: "With capture.vdb, each VDB file also holds a vector grid named velocity on the level set's band: the liquid particles' velocities averaged with the surface's kernel, zero where no particle is within its radius (for motion blur and for driving spray or foam)"})
	s.Bool(&c.USD, param.Spec{Name: "capture.usd", Label: "Export a USD stage", Group: "Capture",
		Desc: "The particle export also writes the run as one USD stage, slosh.usda, for Houdini, Omniverse and usdview: the particles, the liquid's and each granular material's surface (mesh.* settings), the rigid bodies moving and the camera, each frame a layer of its own (usd.000001.usda on)"})
}

func (c *captureConfig) fps() float64 {
	if c.FPS <= 0 {
		return 1 / FrameDt
	}
	return float64(c.FPS)
}

// evenSize is w×h scaled, rounded down to even numbers of at least 2 (what H.264 in yuv420p needs).
func evenSize(w, h int, scale float64) (int, int) {
	even := func(n int) int { return max(2, int(float64(n)*scale)&^1) }
	return even(w), even(h)
}

// readbackDepth is how many frames can be in flight between the GPU and the encoder's queue.
const readbackDepth = 3

// encodeQueue is how many read-back frames may wait for the encoder before the window waits for it.
const encodeQueue = 6

// recorder records the window while F9 is on: each display frame that shows a newer simulated time is copied
// into a ring of pixel buffers (glh.Readback) without waiting for the GPU, picked up a frame or two later, and
// handed to an encoder goroutine that writes the video. Video frame k shows the simulation at time t0 + k/fps:
// a window that shows fewer frames than the video needs repeats the frame it showed, so the clip plays in real
// simulated time; a paused simulation records nothing. Everything but the encoder goroutine belongs to the GL
// thread.
type recorder struct {
	path     string // the file or, for PNG frames, the first file
	fallback string // a note when the recording is not what was asked for (PNG frames without ffmpeg)
	fps      float64
	rb       *glh.Readback

	haveT   bool
	t0      float64 // simulated time of video frame 0
	lastT   float64
	emitted int // video frames handed to the readback

	jobs chan recJob
	free chan *image.RGBA
	done chan struct{} // closed when the encoder has closed the file

	tally // what the encoder wrote, and the first error (the encoder's, or why the GL thread stopped it)

	// set by the encoder before done is closed
	closeErr error // the writer's Close error, which says what the file keeps; nil for no frames at all
	saved    int   // frames the file holds, as the writer found them on disk
}

// recJob is a picture to write repeat times.
type recJob struct {
	img    *image.RGBA
	repeat int
}

// startRecording opens the output for pictures of the framebuffer's size w×h scaled by the configuration, in the
// captures folder named after sc. An .mp4 without ffmpeg records PNG frames instead and says so.
func startRecording(dir string, sc *scene.Scene, cfg captureConfig, fw, fh int, now time.Time) (*recorder, error) {
	if dir == "" {
		dir = CaptureDir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("recording not started: cannot make the folder %s: %v (set another folder with --captures)", dir, err)
	}
	w, h := evenSize(fw, fh, float64(cfg.Scale))
	format := captureFormats[min(max(int(cfg.Format), 0), len(captureFormats)-1)]
	path := captureName(dir, sc, "."+format, now)
	opts := video.Options{Width: w, Height: h, FPS: cfg.fps(), Quality: video.Quality(cfg.Quality)}
	vw, note, err := createVideo(path, opts)
	if err != nil {
		return nil, fmt.Errorf("recording not started: %w", err)
	}
	rb, err := glh.NewReadback(w, h, readbackDepth)
	if err != nil {
		vw.Close()
		return nil, fmt.Errorf("recording not started: %w", err)
	}
	r := &recorder{path: vw.Path(), fallback: note, fps: cfg.fps(), rb: rb,
		jobs: make(chan recJob, encodeQueue), free: make(chan *image.RGBA, encodeQueue+1), done: make(chan struct{})}
	for i := 0; i < encodeQueue+1; i++ {
		r.free <- image.NewRGBA(image.Rect(0, 0, w, h))
	}
	go r.encode(vw)
	return r, nil
}

// createVideo opens path for writing, or, when it is an .mp4 and ffmpeg is missing, a PNG sequence beside it with a
// note saying how to make the video later.
func createVideo(path string, opts video.Options) (video.Writer, string, error) {
	vw, err := video.Create(path, opts)
	if err == nil || !errors.Is(err, video.ErrNoFFmpeg) {
		return vw, "", err
	}
	pngPath := strings.TrimSuffix(path, filepath.Ext(path)) + ".png"
	pw, perr := video.Create(pngPath, opts)
	if perr != nil {
		return nil, "", fmt.Errorf("%v; PNG frames instead: %w", err, perr)
	}
	pattern := pw.Path()
	if seq, ok := pw.(*video.PNGSequence); ok {
		pattern = seq.Pattern()
	}
	return pw, fmt.Sprintf("ffmpeg not found, so this records PNG frames (install ffmpeg for MP4); to make the video: %s",
		video.FallbackHint(pattern, opts.FPS, path)), nil
}

// encode writes the jobs until the queue closes, then closes the file. After an error it only recycles pictures.
func (r *recorder) encode(vw video.Writer) {
	defer close(r.done)
	for job := range r.jobs {
		for k := 0; k < job.repeat && r.failed() == nil; k++ {
			r.wrote(vw.WriteFrame(job.img))
		}
		r.free <- job.img
	}
	if err := vw.Close(); err != nil && !errors.Is(err, video.ErrNoFrames) {
		r.closeErr = err
		r.fail(err)
	}
	r.saved = vw.Saved()
}

// due is how many video frames the picture of simulated time t stands for: the frames whose times t0 + k/fps have
// been reached since the last. A time that goes back (a reset) continues the clip from its current length.
func (r *recorder) due(t float64) int {
	if !r.haveT || t < r.lastT {
		r.haveT = true
		r.t0 = t - float64(r.emitted)/r.fps
		r.lastT = t
		return 1
	}
	r.lastT = t
	n := int(math.Floor((t-r.t0)*r.fps+1e-6)) + 1
	return max(n-r.emitted, 0)
}

// capture copies the bound framebuffer (the window's, fw×fh) when the frame shows a simulated time the video has
// not reached, t. It waits for the GPU only when every buffer of the ring is still in flight.
func (r *recorder) capture(src pixelRect, t float64) error {
	n := r.due(t)
	if n == 0 {
		return nil
	}
	if d := src.W - r.rb.W; d >= 0 && d <= 1 {
		src.W = r.rb.W // an odd size at full scale: crop the odd pixel rather than resample the picture
	}
	if d := src.H - r.rb.H; d >= 0 && d <= 1 {
		src.Y, src.H = src.Y+d, r.rb.H
	}
	if r.rb.Full() {
		if err := r.collect(true); err != nil {
			return err
		}
	}
	if _, err := r.rb.StartRect(0, src.X, src.Y, src.W, src.H, n); err != nil {
		return err
	}
	r.emitted += n
	return nil
}

// collect hands the finished copies to the encoder (with wait, the oldest one even if unfinished). It waits for
// a free picture when the encoder is behind by encodeQueue frames.
func (r *recorder) collect(wait bool) error {
	for r.rb.Pending() > 0 {
		img := <-r.free
		n, ok, err := r.rb.Next(img, wait)
		if err != nil || !ok {
			r.free <- img
			return err
		}
		r.jobs <- recJob{img: img, repeat: n}
		wait = false
	}
	return nil
}

// elapsed is the length of the clip so far, for the indicator.
func (r *recorder) elapsed() string {
	s := float64(r.emitted) / r.fps
	return fmt.Sprintf("REC %d:%04.1f", int(s)/60, math.Mod(s, 60))
}

// stop hands over what is in flight and closes the queue; done closes when the file is finished.
func (r *recorder) stop() error {
	var err error
	for r.rb.Pending() > 0 && err == nil {
		err = r.collect(true)
	}
	r.rb.Delete()
	close(r.jobs)
	return err
}

// summary says what was written, once done is closed: what the writer found in the file, never what the
// recorder handed it.
func (r *recorder) summary() (string, bool) {
	n := r.saved
	secs := float64(n) / r.fps
	err := r.failed()
	switch {
	case r.closeErr != nil && errors.Is(r.closeErr, err):
		// the writer failed, and its error says what the file keeps
		return "recording stopped: " + r.closeErr.Error(), true
	case r.closeErr != nil:
		return fmt.Sprintf("recording stopped: %v; then %v", err, r.closeErr), true
	case err != nil: // stopped from outside the writer, which then finished the file
		kept := "nothing was saved"
		if n > 0 {
			kept = fmt.Sprintf("the %d frames (%.1f s) before it are in %s", n, secs, r.path)
		}
		return fmt.Sprintf("recording stopped: %v; %s", err, kept), true
	}
	if n == 0 {
		return "nothing recorded: the simulation did not advance while recording (it records simulated time; run it with space)", false
	}
	msg := fmt.Sprintf("recorded %d frames (%.1f s at %g fps) to %s", n, secs, r.fps, r.path)
	if r.fallback != "" {
		msg += "; " + r.fallback
	}
	return msg, false
}

// tally is what a writer goroutine has written and its first error, read by the GL thread.
type tally struct {
	mu  sync.Mutex
	n   int
	err error
}

// wrote counts one item written, or keeps err when it is the first.
func (t *tally) wrote(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err == nil {
		t.n++
	} else if t.err == nil {
		t.err = err
	}
}

// fail keeps err when it is the first error.
func (t *tally) fail(err error) {
	if err != nil {
		t.wrote(err)
	}
}

// failed is the first error.
func (t *tally) failed() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// frames is how many items were written.
func (t *tally) frames() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n
}
