package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/internal/testdir"
	"github.com/slosh/slosh/internal/video"
	"github.com/slosh/slosh/sim/export"
)

// probe is what ffprobe says of a video's first stream.
type probe struct {
	Codec, PixFmt string
	W, H, Frames  int
	Rate          string
}

// ffprobe reads a video's stream, counting its frames by decoding them. ffmpeg is a test dependency (make deps
// installs it), so a missing ffprobe fails.
func ffprobe(t *testing.T, path string) probe {
	t.Helper()
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
		"stream=codec_name,pix_fmt,width,height,nb_read_frames,r_frame_rate", "-of", "json", path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v (ffmpeg's tools are needed: make deps installs them)", path, err)
	}
	var r struct {
		Streams []struct {
			Codec  string `json:"codec_name"`
			PixFmt string `json:"pix_fmt"`
			W      int    `json:"width"`
			H      int    `json:"height"`
			Frames string `json:"nb_read_frames"`
			Rate   string `json:"r_frame_rate"`
		} `json:"streams"`
	}
	if err := json.Unmarshal(out, &r); err != nil || len(r.Streams) != 1 {
		t.Fatalf("ffprobe %s: %s (%v)", path, out, err)
	}
	s := r.Streams[0]
	n, _ := strconv.Atoi(s.Frames)
	return probe{Codec: s.Codec, PixFmt: s.PixFmt, W: s.W, H: s.H, Frames: n, Rate: s.Rate}
}

// pngFiles lists the PNG files in dir.
func pngFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// noFFmpegPath puts PATH on an empty folder, so ffmpeg cannot be found.
func noFFmpegPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		t.Fatal("ffmpeg is still found")
	}
}

// `slosh record` writes a 30-frame H.264 MP4 at the simulation's rate; without ffmpeg, 30 PNG frames and the
// command that makes the video; a GIF; a single PNG; and a clear error for a folder it cannot write.
func TestRecordCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s on 2 cores: a headless run of the app; make test runs it")
	}
	gltest.Acquire(t) // the context is the test's: Record opens its own hidden window
	dir := t.TempDir()
	base := RecordOptions{Options: Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Sets: []string{"render.mode=particles"}},
		Frames: 30, Width: 160, Height: 90, Stdout: io.Discard}
	var stderr bytes.Buffer
	o := base
	o.Stderr, o.Out = &stderr, filepath.Join(dir, "clip.mp4")
	if err := Record(o); err != nil {
		t.Fatal(err)
	}
	if p := ffprobe(t, o.Out); p.Codec != "h264" || p.PixFmt != "yuv420p" || p.Frames != 30 || p.Rate != "60/1" || p.W != 160 || p.H != 90 {
		t.Errorf("the MP4: %+v, want h264 yuv420p 160×90, 30 frames at 60/1", p)
	}
	if !strings.Contains(stderr.String(), "30/30 frames") {
		t.Errorf("no progress on stderr: %q", stderr.String())
	}

	// a GIF and a single PNG
	o = base
	o.Stderr, o.Out, o.Frames = io.Discard, filepath.Join(dir, "clip.gif"), 12
	if err := Record(o); err != nil {
		t.Fatal(err)
	}
	if p := ffprobe(t, o.Out); p.Codec != "gif" || p.Frames != 6 || p.Rate != "30/1" { // at most 50 fps: every other frame
		t.Errorf("the GIF: %+v", p)
	}
	o.Out, o.Frames = filepath.Join(dir, "one.png"), 1
	if err := Record(o); err != nil {
		t.Fatal(err)
	}
	if img := decodePNG(t, o.Out); img.Bounds().Dx() != 160 {
		t.Errorf("one frame: %v", img.Bounds())
	}

	// failures are errors, not panics
	o.Out = filepath.Join(dir, "missing", "clip.mp4")
	if err := Record(o); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("a missing folder: %v", err)
	}
	o.Out, o.Frames = filepath.Join(testdir.Unwritable(t), "clip.mp4"), 5
	if err := Record(o); err == nil || !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("recording into a read-only folder: %v", err)
	}
	o.Out = filepath.Join(dir, "clip.avi")
	if err := Record(o); err == nil || !strings.Contains(err.Error(), ".mp4") {
		t.Errorf("an .avi: %v", err)
	}

	// the same without ffmpeg (last: PATH stays changed until the test ends): PNG frames, and how to make the video
	noFFmpegPath(t)
	out := t.TempDir()
	var msg bytes.Buffer
	o = base
	o.Stderr, o.Out = &msg, filepath.Join(out, "clip.mp4")
	if err := Record(o); err != nil {
		t.Fatal(err)
	}
	files := pngFiles(t, out)
	if len(files) != 30 || !strings.Contains(msg.String(), "ffmpeg") || !strings.Contains(msg.String(), "-framerate 60") {
		t.Fatalf("%d PNG files; stderr %q", len(files), msg.String())
	}
	img := decodePNG(t, files[0])
	if img.Bounds().Dx() != 160 || img.Bounds().Dy() != 90 {
		t.Errorf("frame of %v", img.Bounds())
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// ffmpegChildren are the ffmpeg processes this test process started.
func ffmpegChildren(t *testing.T) []int {
	t.Helper()
	var pids []int
	tasks, _ := filepath.Glob("/proc/self/task/*/children")
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			pid, _ := strconv.Atoi(s)
			comm, _ := os.ReadFile("/proc/" + s + "/comm")
			if strings.TrimSpace(string(comm)) == "ffmpeg" {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

// F9 records the window into an MP4 whose length follows the simulated time at capture.fps (not the display's
// rate), with the indicator on while it records; ffmpeg dying mid-recording stops it with an error that says what
// the file keeps (or that nothing was saved, when it died before writing); without ffmpeg it records PNG frames;
// an unwritable folder is an error; the simulation runs on.
func TestViewerRecording(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	v := openViewer(t, gltest.Acquire(t), Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Sets: []string{"render.mode=particles"}})
	v.captures = t.TempDir()
	if err := v.capSet.SetString("capture.fps", "30"); err != nil {
		t.Fatal(err)
	}
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 4 })
	press(v, glfw.KeyF9)
	if v.rec == nil {
		t.Fatalf("F9 did not start a recording: %q", v.status.msg)
	}
	path := v.rec.path
	t0 := v.drv.Stats().Time
	frames(t, v, "half a simulated second", func() bool {
		v.fillModel()
		if v.model.Recording == "" {
			t.Fatal("no indicator while recording")
		}
		return v.drv.Stats().Time > t0+0.5
	})
	// the clip starts at the first picture captured after F9 (starting ffmpeg takes a moment) and ends at the last
	t1, first, emitted := v.drv.Stats().Time, v.rec.t0, v.rec.emitted
	press(v, glfw.KeyF9)
	frames(t, v, "the file", func() bool { return v.rec == nil && len(v.finishing) == 0 })
	if v.status.isErr || !strings.Contains(v.status.msg, "recorded") {
		t.Fatalf("status %q", v.status.msg)
	}
	p := ffprobe(t, path)
	fw, fh := v.win.GetFramebufferSize()
	want := int(math.Floor((t1-first)*30+1e-6)) + 1 // frames at first, first + 1/30, … up to the last time shown
	if first < t0 || p.Codec != "h264" || p.PixFmt != "yuv420p" || p.Rate != "30/1" || p.W != fw&^1 || p.H != fh&^1 || emitted != want || p.Frames != want {
		t.Errorf("recording from t=%.3f (F9 at %.3f) to %.3f: %d frames handed over, file %+v, want h264 yuv420p %d×%d, %d frames at 30/1",
			first, t0, t1, emitted, p, fw&^1, fh&^1, want)
	}

	// ffmpeg dies once it has written a fragment: the recording stops with an error saying how many frames the
	// file keeps, which a decoder finds there, and the simulation goes on. The kill waits on the file itself, not
	// on a clock: ffmpeg writes a fragment once it has the next keyframe's frame and its lookahead, however
	// long that takes on this machine.
	press(v, glfw.KeyF9)
	killed := v.rec.path
	frames(t, v, "a complete fragment in the recording", func() bool { n, _ := video.PlayableFrames(killed); return n > 0 })
	pids := ffmpegChildren(t)
	if len(pids) != 1 {
		t.Fatalf("ffmpeg processes %v", pids)
	}
	syscall.Kill(pids[0], syscall.SIGKILL)
	frames(t, v, "the recording to stop", func() bool { return v.rec == nil && len(v.finishing) == 0 })
	kept, err := video.PlayableFrames(killed)
	if err != nil || kept == 0 {
		t.Fatalf("the interrupted recording: %d frames (%v)", kept, err)
	}
	if !v.status.isErr || !strings.Contains(v.status.msg, "recording stopped") || !strings.Contains(v.status.msg, killed) ||
		!strings.Contains(v.status.msg, fmt.Sprintf("keeps its first %d frames", kept)) || strings.Count(v.status.msg, " frames") != 1 {
		t.Errorf("after ffmpeg died: status %q, want it to say that %s keeps %d frames, and no other count", v.status.msg, killed, kept)
	}
	t.Logf("ffmpeg killed: %s", v.status.msg)
	if p := ffprobe(t, killed); p.Frames < kept {
		t.Errorf("the interrupted recording: ffprobe decodes %d frames, the status line promised %d", p.Frames, kept)
	}
	steps := v.drv.Stats().Steps
	frames(t, v, "running after ffmpeg died", func() bool { return v.drv.Stats().Steps > steps })

	// ffmpeg dies before it has written anything (a stand-in that kills itself at once): the status line says
	// that nothing was saved and names no file, and there is none
	fake := t.TempDir()
	script := "#!/bin/sh\ncase \"$*\" in *-encoders*) echo ' V....D libx264   libx264 H.264'; exit 0;; esac\nkill -9 $$\n"
	if err := os.WriteFile(filepath.Join(fake, "ffmpeg"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	press(v, glfw.KeyF9)
	if v.rec == nil {
		t.Fatalf("F9 with the stand-in ffmpeg did not start a recording: %q", v.status.msg)
	}
	dead := v.rec.path
	frames(t, v, "the recording with the dying ffmpeg to stop", func() bool { return v.rec == nil && len(v.finishing) == 0 })
	if !v.status.isErr || !strings.Contains(v.status.msg, "nothing was saved") || strings.Contains(v.status.msg, ".mp4") {
		t.Errorf("ffmpeg dead before writing: status %q, want it to say that nothing was saved, naming no file", v.status.msg)
	}
	t.Logf("ffmpeg dead before writing: %s", v.status.msg)
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ffmpeg dead before writing: %s: %v, want no file", dead, err)
	}

	// an unwritable folder
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	v.captures = filepath.Join(blocker, "clips")
	press(v, glfw.KeyF9)
	if v.rec != nil || !v.status.isErr || !strings.Contains(v.status.msg, "recording not started") {
		t.Errorf("recording into a folder under a file: status %q", v.status.msg)
	}
	steps = v.drv.Stats().Steps
	frames(t, v, "running after the failed start", func() bool { return v.drv.Stats().Steps > steps })

	// no ffmpeg: PNG frames (last: PATH stays changed until the test ends)
	noFFmpegPath(t)
	v.captures = t.TempDir()
	press(v, glfw.KeyF9)
	if v.rec == nil || !strings.Contains(v.status.msg, "ffmpeg") {
		t.Fatalf("status %q", v.status.msg)
	}
	frames(t, v, "a few frames", func() bool { return v.rec.emitted >= 5 })
	press(v, glfw.KeyF9)
	frames(t, v, "the frames", func() bool { return len(v.finishing) == 0 })
	if n := len(pngFiles(t, v.captures)); n < 5 || !strings.Contains(v.status.msg, "ffmpeg -framerate") {
		t.Errorf("%d PNG frames; status %q", n, v.status.msg)
	}
}

// stubWriter is a video.Writer whose WriteFrame fails with writeErr from frame failAt on (when it is set), whose
// Close fails with closeErr, or ErrNoFrames for no frames, and whose file holds saved frames.
type stubWriter struct {
	n, saved, failAt   int
	writeErr, closeErr error
}

func (w *stubWriter) WriteFrame(*image.RGBA) error {
	if w.writeErr != nil && w.n+1 >= w.failAt {
		return w.writeErr
	}
	w.n++
	return nil
}
func (w *stubWriter) Frames() int  { return w.n }
func (w *stubWriter) Saved() int   { return w.saved }
func (w *stubWriter) Path() string { return "/captures/clip.mp4" }
func (w *stubWriter) Close() error {
	if w.closeErr == nil && w.n == 0 {
		return fmt.Errorf("recording %s: %w", w.Path(), video.ErrNoFrames)
	}
	return w.closeErr
}

// The status line after a recording says what the writer found in the file, never what the recorder handed it:
// a failing writer's own error (which says what the file keeps), or, when the recording was stopped from outside,
// the frames saved and the file only when there are some. No wall clock and no GL: the encoder runs on a stub.
func TestRecorderSummarySaysWhatTheFileHolds(t *testing.T) {
	died := errors.New("recording the MP4: ffmpeg stopped at frame 4 (signal: killed); nothing was saved (ffmpeg had written no complete fragment)")
	gl := errors.New("reading the picture back: GL error")
	disk := errors.New("recording /captures/clip_000004.png: no space left on device")
	for _, c := range []struct {
		name        string
		w           *stubWriter
		cause       error // stops the recording from outside the writer, before it gets the frames
		isErr       bool
		want, avoid []string
	}{
		{"recorded", &stubWriter{saved: 9}, nil, false, []string{"recorded 9 frames (0.3 s at 30 fps) to /captures/clip.mp4"}, nil},
		{"ffmpeg died before writing", &stubWriter{saved: 0, failAt: 4, writeErr: died, closeErr: died}, nil, true,
			[]string{"recording stopped: " + died.Error()}, []string{"/captures", "frames ("}},
		{"ffmpeg died after a fragment", &stubWriter{saved: 30, closeErr: errors.New("recording /captures/clip.mp4: ffmpeg stopped at frame 40 (signal: killed); the file keeps its first 30 frames (1.0 s)")},
			nil, true, []string{"keeps its first 30 frames"}, []string{"9 frames", "before it are in"}},
		{"a PNG frame failed", &stubWriter{saved: 3, failAt: 4, writeErr: disk, closeErr: fmt.Errorf("%w; the 3 frames before it are in /captures/clip_000001.png to clip_000003.png", disk)},
			nil, true, []string{"recording stopped: " + disk.Error() + "; the 3 frames before it are in /captures/clip_000001.png to"},
			[]string{"; then", "9 frames"}},
		{"stopped from outside, frames saved", &stubWriter{saved: 6}, gl, true,
			[]string{"recording stopped: " + gl.Error() + "; the 6 frames (0.2 s) before it are in /captures/clip.mp4"}, nil},
		{"stopped from outside, nothing saved", &stubWriter{saved: 0}, gl, true,
			[]string{"recording stopped: " + gl.Error() + "; nothing was saved"}, []string{"/captures"}},
		{"stopped from outside, then the file failed", &stubWriter{closeErr: died}, gl, true,
			[]string{gl.Error() + "; then " + died.Error()}, []string{"/captures"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{path: c.w.Path(), fps: 30, jobs: make(chan recJob, 9), free: make(chan *image.RGBA, 9), done: make(chan struct{})}
			r.fail(c.cause)
			for range 3 {
				r.jobs <- recJob{img: image.NewRGBA(image.Rect(0, 0, 2, 2)), repeat: 3} // 9 frames handed over
			}
			close(r.jobs)
			r.encode(c.w)
			msg, isErr := r.summary()
			if isErr != c.isErr {
				t.Errorf("%q: isErr %v", msg, isErr)
			}
			for _, s := range c.want {
				if !strings.Contains(msg, s) {
					t.Errorf("%q lacks %q", msg, s)
				}
			}
			for _, s := range c.avoid {
				if strings.Contains(msg, s) {
					t.Errorf("%q says %q", msg, s)
				}
			}
		})
	}
}

// A transparent screenshot has alpha 0 over the sky and 255 over the water, with the window's picture unchanged.
func TestViewerTransparentScreenshot(t *testing.T) {
	v := openViewer(t, gltest.Acquire(t), Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Sets: []string{"render.mode=particles"}})
	v.captures = t.TempDir()
	v.capSet.SetString("capture.transparent", "true")
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 4 })
	press(v, glfw.KeyF12)
	settle(v, 30*time.Millisecond)
	img := decodePNG(t, v.lastShot).(*image.NRGBA)
	var clear, opaque, waterOpaque int
	for i := 0; i < len(img.Pix); i += 4 {
		switch img.Pix[i+3] {
		case 0:
			clear++
		case 255:
			opaque++
			if water([3]float64{float64(img.Pix[i]), float64(img.Pix[i+1]), float64(img.Pix[i+2])}) {
				waterOpaque++
			}
		}
	}
	n := len(img.Pix) / 4
	if clear < n/10 || waterOpaque < n/100 || img.Pix[3] != 0 || !strings.Contains(v.status.msg, "transparent") {
		t.Errorf("%d transparent and %d opaque pixels (%d water) of %d; top-left alpha %d; status %q", clear, opaque, waterOpaque, n, img.Pix[3], v.status.msg)
	}
}

// The panel's export writes every frame simulated between start and stop as a PLY, and the sidecar lists them.
func TestViewerExport(t *testing.T) {
	v := openViewer(t, gltest.Acquire(t), Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Sets: []string{"render.mode=particles"}})
	v.captures = t.TempDir()
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 4 })
	v.toggleExport()
	if v.export == nil {
		t.Fatalf("export not started: %q", v.status.msg)
	}
	dir := v.export.dir
	frames(t, v, "a few exported frames", func() bool { return v.export.frames() >= 6 })
	v.toggleExport()
	frames(t, v, "the sidecar", func() bool { return len(v.exported) == 0 })
	if v.status.isErr || !strings.Contains(v.status.msg, "exported") {
		t.Fatalf("status %q", v.status.msg)
	}
	car := readSidecar(t, dir)
	if car.Frames < 6 || len(car.Files) != car.Frames {
		t.Fatalf("sidecar: %d frames, %d files", car.Frames, len(car.Files))
	}
	// every simulated frame: the times step by one frame
	prev := -1.0
	for _, name := range car.Files {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		_, _, comments, err := export.ReadPLY(f)
		f.Close()
		if err != nil || len(comments) != 1 {
			t.Fatalf("%s: %v", name, err)
		}
		_, tstr, _ := strings.Cut(comments[0], "t=")
		tm, _ := strconv.ParseFloat(strings.TrimSuffix(tstr, " s"), 64)
		if prev >= 0 && (tm-prev < 0.9*FrameDt || tm-prev > 1.1*FrameDt) {
			t.Errorf("%s at t=%g follows t=%g: a frame was skipped", name, tm, prev)
		}
		prev = tm
	}
}
