package video

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// requireTool fails the test when a program the MP4 tests need is missing: they check real files with the real
// tools, and a skip would pass for a check that never ran.
func requireTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s is not installed, and the MP4 tests need it (`make deps` installs ffmpeg, which has it): %v", name, err)
	}
	return p
}

// streamInfo is what ffprobe says about a file's video stream, with every frame decoded and counted.
type streamInfo struct {
	CodecName    string `json:"codec_name"`
	PixFmt       string `json:"pix_fmt"`
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	NbReadFrames string `json:"nb_read_frames"`
	RFrameRate   string `json:"r_frame_rate"`
	ColorSpace   string `json:"color_space"`
}

func probe(t *testing.T, path string) streamInfo {
	t.Helper()
	out, err := exec.Command(requireTool(t, "ffprobe"), "-v", "error", "-select_streams", "v:0", "-count_frames",
		"-show_entries", "stream=codec_name,pix_fmt,width,height,nb_read_frames,r_frame_rate,color_space", "-of", "json",
		path).Output()
	if err != nil {
		t.Fatalf("ffprobe %s: %v %s", path, err, stderrOf(err))
	}
	var p struct{ Streams []streamInfo }
	if err := json.Unmarshal(out, &p); err != nil || len(p.Streams) != 1 {
		t.Fatalf("ffprobe %s: %v, output %s", path, err, out)
	}
	return p.Streams[0]
}

// countFrames is how many frames ffprobe finds in the file at path, 0 when it finds none or fails.
func countFrames(path string) int {
	out, err := exec.Command("ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames",
		"-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path).Output()
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

func (s streamInfo) frames(t *testing.T) int {
	n, err := strconv.Atoi(s.NbReadFrames)
	if err != nil {
		t.Fatalf("ffprobe's nb_read_frames %q: %v", s.NbReadFrames, err)
	}
	return n
}

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

// decodeFrame decodes frame n of the video at path back to RGB with ffmpeg.
func decodeFrame(t *testing.T, path string, n, w, h int) *image.RGBA {
	t.Helper()
	out, err := exec.Command(requireTool(t, "ffmpeg"), "-v", "error", "-i", path,
		"-vf", fmt.Sprintf(`select=eq(n\,%d)`, n), "-vframes", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-").Output()
	if err != nil {
		t.Fatalf("decoding frame %d of %s: %v %s", n, path, err, stderrOf(err))
	}
	if len(out) != 3*w*h {
		t.Fatalf("frame %d of %s: %d bytes, want %d×%d×3", n, path, len(out), w, h)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range w * h {
		copy(img.Pix[4*i:4*i+3], out[3*i:3*i+3])
		img.Pix[4*i+3] = 255
	}
	return img
}

func TestMP4EncodesH264ThatDecodesBackToTheFrames(t *testing.T) {
	requireTool(t, "ffmpeg")
	for _, c := range []struct{ w, h int }{{160, 90}, {161, 91}} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "clip.mp4")
			w, err := Create(path, Options{Width: c.w, Height: c.h, FPS: 30, Quality: High})
			if err != nil {
				t.Fatal(err)
			}
			sent := make([]*image.RGBA, 30)
			for f := range sent {
				sent[f] = pattern(c.w, c.h, f)
				if err := w.WriteFrame(sent[f]); err != nil {
					t.Fatalf("frame %d: %v", f, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Errorf("a second Close: %v", err)
			}
			if w.Frames() != 30 || w.Path() != path {
				t.Errorf("Frames %d, Path %s; want 30, %s", w.Frames(), w.Path(), path)
			}
			if err := w.WriteFrame(sent[0]); err == nil {
				t.Error("WriteFrame after Close took the frame")
			}
			s := probe(t, path)
			ew, eh := c.w&^1, c.h&^1
			if s.CodecName != "h264" || s.PixFmt != "yuv420p" || s.Width != ew || s.Height != eh ||
				s.frames(t) != 30 || s.RFrameRate != "30/1" || s.ColorSpace != "bt709" {
				t.Errorf("ffprobe: %+v, want h264 yuv420p %d×%d, 30 frames at 30/1, BT.709", s, ew, eh)
			}
			got := decodeFrame(t, path, 10, ew, eh)
			if e := meanAbsRGB(got, sent[10].SubImage(image.Rect(0, 0, ew, eh))); e > 8 {
				t.Errorf("frame 10 decodes %.2f/255 away from the frame sent, want < 8", e)
			} else {
				t.Logf("frame 10 decodes %.2f/255 away from the frame sent", e)
			}
		})
	}
}

func TestMP4KeepsWhatWasWrittenWhenFFmpegDies(t *testing.T) {
	requireTool(t, "ffmpeg")
	path := filepath.Join(t.TempDir(), "cut.mp4")
	const wd, ht = 160, 90
	wr, err := Create(path, Options{Width: wd, Height: ht, FPS: 30, Quality: Medium})
	if err != nil {
		t.Fatal(err)
	}
	m := wr.(*mp4Writer)
	for f := range 90 {
		if err := m.WriteFrame(pattern(wd, ht, f)); err != nil {
			t.Fatalf("frame %d: %v", f, err)
		}
	}
	// let ffmpeg write its first fragments (a keyframe every 30 frames), then kill it
	for deadline := time.Now().Add(10 * time.Second); countFrames(path) < 30; {
		if time.Now().After(deadline) {
			t.Fatal("ffmpeg wrote no complete fragment in 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := m.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var werr error
	for f := 90; f < 400 && werr == nil; f++ {
		werr = m.WriteFrame(pattern(wd, ht, f))
	}
	if werr == nil || !strings.Contains(werr.Error(), "ffmpeg stopped") || !strings.Contains(werr.Error(), path) {
		t.Fatalf("WriteFrame after ffmpeg died: %v, want an error saying ffmpeg stopped", werr)
	}
	t.Logf("WriteFrame: %v", werr)
	cerr := m.Close()
	if cerr == nil {
		t.Error("Close after ffmpeg died returned no error")
	}
	if d := time.Since(start); d > 8*time.Second {
		t.Errorf("noticing the dead ffmpeg and closing took %v", d)
	}
	if n := probe(t, path).frames(t); n < 30 {
		t.Errorf("the file of a killed recording holds %d frames, want the complete fragments (≥ 30)", n)
	} else {
		t.Logf("the killed recording's file holds %d of the 90+ frames sent", n)
	}
}

func TestMP4WithoutFFmpeg(t *testing.T) {
	dir := t.TempDir()
	o := Options{Width: 32, Height: 32, FPS: 30, FFmpeg: filepath.Join(dir, "no-such-ffmpeg")}
	_, err := Create(filepath.Join(dir, "a.mp4"), o)
	if !errors.Is(err, ErrNoFFmpeg) {
		t.Fatalf("a missing ffmpeg: %v, want ErrNoFFmpeg", err)
	}
	if runtime.GOOS != "windows" {
		// a program that runs but is no ffmpeg, and an ffmpeg without libx264
		fake := filepath.Join(dir, "fake-ffmpeg")
		for _, script := range []string{"#!/bin/sh\nexit 1\n", "#!/bin/sh\necho ' V..... libx265  libx265 H.265'\n"} {
			if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			o.FFmpeg = fake
			if _, err := Create(filepath.Join(dir, "a.mp4"), o); !errors.Is(err, ErrNoFFmpeg) {
				t.Errorf("ffmpeg %q: %v, want ErrNoFFmpeg", script, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "a.mp4")); err == nil {
		t.Error("a failed Create left a file")
	}
}

func TestMP4WithNoFramesLeavesNoFile(t *testing.T) {
	requireTool(t, "ffmpeg")
	dir := t.TempDir()
	fresh, old := filepath.Join(dir, "fresh.mp4"), filepath.Join(dir, "old.mp4")
	if err := os.WriteFile(old, []byte("an earlier recording"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fresh, old} {
		w, err := Create(path, Options{Width: 64, Height: 48, FPS: 60})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); !errors.Is(err, ErrNoFrames) {
			t.Errorf("%s: Close with no frames: %v, want ErrNoFrames", path, err)
		}
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("a recording with no frames left a file")
	}
	if b, _ := os.ReadFile(old); string(b) != "an earlier recording" {
		t.Errorf("a recording with no frames changed the file already there: %q", b)
	}
}

func TestFFmpegArgs(t *testing.T) {
	args := strings.Join(ffmpegArgs("/x/-a:b.mp4", Options{Width: 161, Height: 90, FPS: 59.94, Quality: Low}), " ")
	for _, want := range []string{"-f rawvideo -pix_fmt rgba -s 161x90 -framerate 59.94 -i pipe:0", "crop=160:90:0:0,",
		"-c:v libx264 -preset veryfast -crf 28 -pix_fmt yuv420p -g 60", "+frag_keyframe+empty_moov+default_base_moof",
		"file:/x/-a:b.mp4"} {
		if !strings.Contains(args, want) {
			t.Errorf("ffmpeg's arguments %q lack %q", args, want)
		}
	}
	if strings.Contains(strings.Join(ffmpegArgs("a.mp4", Options{Width: 160, Height: 90, FPS: 30}), " "), "crop") {
		t.Error("an even size is cropped")
	}
}

func TestFallbackHintTurnsThePNGsIntoTheMP4(t *testing.T) {
	requireTool(t, "ffmpeg")
	dir := filepath.Join(t.TempDir(), "my captures")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := NewPNGSequence(dir, "it's_", Options{Width: 33, Height: 17})
	if err != nil {
		t.Fatal(err)
	}
	for f := range 5 {
		if err := s.WriteFrame(pattern(33, 17, f)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "it's.mp4")
	hint := FallbackHint(s.Pattern(), 24, out)
	t.Log(hint)
	var stderr bytes.Buffer
	cmd := exec.Command("sh", "-c", hint+" -loglevel error")
	if runtime.GOOS == "windows" { // the hint is quoted for cmd there
		cmd = exec.Command("cmd", "/C", hint+" -loglevel error")
	}
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("running the hint %s: %v %s", hint, err, stderr.String())
	}
	if s := probe(t, out); s.frames(t) != 5 || s.RFrameRate != "24/1" || s.Width != 32 || s.Height != 16 {
		t.Errorf("the hint's MP4: %+v, want 5 frames at 24/1, 32×16", s)
	}
}

func TestTailBufferKeepsTheLastLines(t *testing.T) {
	b := newTailBuffer(32)
	if b.said() != "" {
		t.Errorf("an empty buffer says %q", b.said())
	}
	for i := range 20 {
		fmt.Fprintf(b, "line %d\n", i)
	}
	if got := b.said(); got != "; ffmpeg said: … line 16 / line 17 / line 18 / line 19" {
		t.Errorf("said %q", got)
	}
	b.Write(bytes.Repeat([]byte("x"), 100))
	if got := b.said(); len(got) > 80 || !strings.HasSuffix(got, "xxxx") {
		t.Errorf("after a long write said %q", got)
	}
}

// BenchmarkMP4Write1280x720 measures frames per second through ffmpeg (libx264 veryfast, crf 23), including
// Close's wait for the last frames, for frames like the sandbox's (a still background, moving water) and for
// frames that change everywhere without a motion x264 can follow (its worst case).
func BenchmarkMP4Write1280x720(b *testing.B) {
	requireTool(b, "ffmpeg")
	for _, c := range benchFrames(1280, 720) {
		b.Run(c.name, func(b *testing.B) {
			w, err := Create(filepath.Join(b.TempDir(), "bench.mp4"), Options{Width: 1280, Height: 720, FPS: 60, Quality: Medium})
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(4 * 1280 * 720)
			b.ResetTimer()
			for i := range b.N {
				if err := w.WriteFrame(c.frames[i%len(c.frames)]); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}

// benchFrames are 16 frames of a scene (consecutive times) and of the pattern (every pixel changes).
func benchFrames(w, h int) []struct {
	name   string
	frames []*image.RGBA
} {
	bg := photo(w, h)
	var sc, pat []*image.RGBA
	for f := range 16 {
		sc = append(sc, scene(w, h, f, bg))
		pat = append(pat, pattern(w, h, 2*f))
	}
	return []struct {
		name   string
		frames []*image.RGBA
	}{{"scene", sc}, {"every-pixel", pat}}
}
