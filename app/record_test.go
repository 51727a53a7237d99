package app

import (
	"bytes"
	"encoding/json"
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
// rate), with the indicator on while it records; ffmpeg dying mid-recording stops it with an error and keeps the
// frames so far; without ffmpeg it records PNG frames; an unwritable folder is an error; the simulation runs on.
func TestViewerRecording(t *testing.T) {
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

	// ffmpeg dies: the recording stops with an error, the frames so far stay, the simulation goes on
	press(v, glfw.KeyF9)
	killed := v.rec.path
	frames(t, v, "a few recorded frames", func() bool { return v.rec.emitted > 8 })
	pids := ffmpegChildren(t)
	if len(pids) != 1 {
		t.Fatalf("ffmpeg processes %v", pids)
	}
	syscall.Kill(pids[0], syscall.SIGKILL)
	frames(t, v, "the recording to stop", func() bool { return v.rec == nil && len(v.finishing) == 0 })
	if !v.status.isErr || !strings.Contains(v.status.msg, "recording stopped") {
		t.Errorf("after ffmpeg died: status %q", v.status.msg)
	}
	if fi, err := os.Stat(killed); err != nil || fi.Size() == 0 {
		t.Errorf("the interrupted recording: %v", err)
	}
	steps := v.drv.Stats().Steps
	frames(t, v, "running after ffmpeg died", func() bool { return v.drv.Stats().Steps > steps })

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
	var car export.Sidecar
	b, err := os.ReadFile(filepath.Join(dir, SidecarName))
	if err != nil || json.Unmarshal(b, &car) != nil {
		t.Fatalf("sidecar: %v", err)
	}
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
