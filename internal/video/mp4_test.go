package video

import (
	"bytes"
	"encoding/binary"
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

	"github.com/slosh/slosh/internal/testenv"
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
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: an H.264 encode and decode through ffmpeg; make test runs it")
	}
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
			if w.Frames() != 30 || w.Saved() != 30 || w.Path() != path {
				t.Errorf("Frames %d, Saved %d, Path %s; want 30, 30, %s", w.Frames(), w.Saved(), w.Path(), path)
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

// hangGuard bounds the waits on ffmpeg in these tests. It only turns a hang into a failure: nothing here depends
// on how fast ffmpeg is, and a test that reaches it has failed whatever the machine.
const hangGuard = 5 * time.Minute

// waitFor polls ok until it holds, failing the test if it has not after hangGuard.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); !ok(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v", what, hangGuard)
		}
	}
}

// playable is how many frames PlayableFrames finds at path, failing the test on an error.
func playable(t *testing.T, path string) int {
	t.Helper()
	n, err := PlayableFrames(path)
	if err != nil {
		t.Fatal(err)
	}
	return n
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
	// a dead ffmpeg must be noticed by its exit, never by waiting out a timer: with these, a writer that waited
	// for one would hang the test until go test's own timeout fails it
	m.exitWait, m.finishWait = time.Hour, time.Hour
	for f := range 90 {
		if err := m.WriteFrame(pattern(wd, ht, f)); err != nil {
			t.Fatalf("frame %d: %v", f, err)
		}
	}
	// ffmpeg holds 90 frames, a keyframe every 30: it writes the first fragments without more input; wait for
	// them on the file itself, however long ffmpeg takes, then kill it
	waitFor(t, "a complete fragment in the file", func() bool { n, _ := PlayableFrames(path); return n >= 30 })
	if err := m.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
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
	// the error's count is the file's: what PlayableFrames reads, and frames a decoder gets back
	n := playable(t, path)
	if n < 30 || m.Saved() != n || !strings.Contains(cerr.Error(), fmt.Sprintf("keeps its first %d frames", n)) {
		t.Errorf("the killed recording's file holds %d frames in complete fragments, Saved says %d, Close %v; want ≥ 30, all three alike",
			n, m.Saved(), cerr)
	}
	if d := probe(t, path).frames(t); d < n {
		t.Errorf("ffprobe decodes %d frames of the killed recording, the error promised %d", d, n)
	} else {
		t.Logf("the killed recording's file holds %d of the 90+ frames sent (%d decodable)", n, d)
	}
}

// fakeFFmpeg writes a shell script that answers `-encoders` as an ffmpeg with libx264 does and, asked to record,
// runs body, which writes its output to stdout as ffmpeg's pipe:1 does; it returns the script's path.
func fakeFFmpeg(t *testing.T, body string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		if testenv.Required() {
			t.Fatal("the fake ffmpeg is a POSIX shell script, and this test may not skip here (SLOSH_REQUIRE_GL=1 or CI)")
		}
		t.Skip("the fake ffmpeg is a POSIX shell script")
	}
	p := filepath.Join(t.TempDir(), "ffmpeg")
	script := "#!/bin/sh\ncase \"$*\" in *-encoders*) echo ' V....D libx264              libx264 H.264'; exit 0;; esac\n" +
		body + "\n"
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// An ffmpeg that dies before it has written a complete fragment — at once, after a header, before it opened a
// file already at the path — leaves nothing of the recording: every error says that nothing was saved and names
// no file, a file it began is removed, an earlier file it never opened stays as it was, and Saved is 0.
func TestMP4FFmpegDiesBeforeWritingAnything(t *testing.T) {
	requireTool(t, "ffmpeg")
	earlier := filepath.Join(t.TempDir(), "earlier.mp4")
	w, err := Create(earlier, Options{Width: 64, Height: 48, FPS: 30})
	if err != nil {
		t.Fatal(err)
	}
	for f := range 40 {
		w.WriteFrame(pattern(64, 48, f))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(earlier)
	if err != nil || playable(t, earlier) != 40 {
		t.Fatalf("the earlier recording: %v, %d frames", err, playable(t, earlier))
	}
	header := `printf '\000\000\000\030ftypisom\000\000\002\000isomiso2\000\000\000\100moof'`
	for _, c := range []struct {
		name, body string
		there      bool // a file is at the path before
	}{
		{"killed at once", "kill -9 $$", false},
		{"exits at once", "exit 1", false},
		{"killed after a header and part of a fragment", header + "; kill -9 $$", false},
		{"killed before opening a file already there", "kill -9 $$", true},
		{"killed after a header, over a file already there", header + "; kill -9 $$", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "clip.mp4")
			if c.there {
				if err := os.WriteFile(path, old, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w, err := Create(path, Options{Width: 160, Height: 90, FPS: 30, FFmpeg: fakeFFmpeg(t, c.body)})
			if err != nil {
				t.Fatal(err)
			}
			m := w.(*mp4Writer)
			m.exitWait, m.finishWait = time.Hour, time.Hour
			var werr error
			for f := 0; f < 100 && werr == nil; f++ { // the pipe holds about one frame; its reader is gone
				werr = w.WriteFrame(pattern(160, 90, f))
			}
			cerr := w.Close()
			for _, err := range []error{werr, cerr} {
				if err == nil || !strings.Contains(err.Error(), "nothing was saved") || strings.Contains(err.Error(), ".mp4") {
					t.Errorf("%v: want an error saying that nothing was saved, naming no file", err)
				}
			}
			t.Log(cerr)
			if w.Saved() != 0 {
				t.Errorf("Saved %d, want 0", w.Saved())
			}
			b, err := os.ReadFile(path)
			switch {
			case c.there && !bytes.Equal(b, old):
				t.Errorf("the file already at the path changed (%v)", err)
			case !c.there && !errors.Is(err, os.ErrNotExist):
				t.Errorf("the dead recording left a file of %d bytes (%v)", len(b), err)
			}
			if entries, _ := os.ReadDir(filepath.Dir(path)); c.there && len(entries) != 1 || !c.there && len(entries) != 0 {
				t.Errorf("the dead recording left %d entries in its folder (a temporary file?)", len(entries))
			}
		})
	}
}

// PlayableFrames counts the frames of the complete fragments of a file cut anywhere, as a killed ffmpeg or a
// full disk leaves it: a fragment counts once its moof and its mdat are whole.
func TestPlayableFramesOfACutFile(t *testing.T) {
	requireTool(t, "ffmpeg")
	dir := t.TempDir()
	path := filepath.Join(dir, "whole.mp4")
	w, err := Create(path, Options{Width: 64, Height: 48, FPS: 30})
	if err != nil {
		t.Fatal(err)
	}
	for f := range 75 { // fragments of 30, 30 and 15 frames
		w.WriteFrame(pattern(64, 48, f))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := playable(t, path); n != 75 || w.Saved() != 75 || probe(t, path).frames(t) != 75 {
		t.Fatalf("the whole file: %d playable frames, Saved %d, want 75 as ffprobe", n, w.Saved())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// the top-level boxes, and the frames complete by the end of each
	type top struct {
		typ      string
		end, got int
	}
	var tops []top
	frames, pending := 0, 0
	for off := 0; off < len(b); {
		size, typ := int(binary.BigEndian.Uint32(b[off:])), string(b[off+4:off+8])
		switch typ {
		case "moof":
			pending, err = moofSamples(b[off+8 : off+size])
			if err != nil {
				t.Fatal(err)
			}
		case "mdat":
			frames += pending
		}
		off += size
		tops = append(tops, top{typ, off, frames})
	}
	if tops[0].typ != "ftyp" || tops[1].typ != "moov" || frames != 75 {
		t.Fatalf("boxes %v: not the fragmented layout", tops)
	}
	cut := filepath.Join(dir, "cut.mp4")
	for k, bx := range tops {
		for _, at := range []int{bx.end - 1, bx.end} {
			want := bx.got // cut at its end: every fragment so far is whole
			if at < bx.end && k > 0 {
				want = tops[k-1].got // cut inside it
			} else if at < bx.end {
				want = 0
			}
			if err := os.WriteFile(cut, b[:at], 0o644); err != nil {
				t.Fatal(err)
			}
			if n := playable(t, cut); n != want {
				t.Errorf("cut at byte %d (in %s ending at %d): %d frames, want %d", at, bx.typ, bx.end, n, want)
			}
		}
	}
	for _, c := range []struct {
		data []byte
		want int
		err  bool
	}{{nil, 0, false}, {[]byte("ftyp"), 0, false}, {[]byte{0, 0, 0, 3, 'f', 't', 'y', 'p'}, 0, true}} {
		os.WriteFile(cut, c.data, 0o644)
		if n, err := PlayableFrames(cut); n != c.want || (err != nil) != c.err {
			t.Errorf("%q: %d frames, error %v", c.data, n, err)
		}
	}
	if _, err := PlayableFrames(filepath.Join(dir, "missing.mp4")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
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
	args := strings.Join(ffmpegArgs(Options{Width: 161, Height: 90, FPS: 59.94, Quality: Low}), " ")
	for _, want := range []string{"-f rawvideo -pix_fmt rgba -s 161x90 -framerate 59.94 -i pipe:0", "crop=160:90:0:0,",
		"-c:v libx264 -preset veryfast -crf 28 -pix_fmt yuv420p -g 60", "+frag_keyframe+empty_moov+default_base_moof",
		"-f mp4 pipe:1"} {
		if !strings.Contains(args, want) {
			t.Errorf("ffmpeg's arguments %q lack %q", args, want)
		}
	}
	// ffmpeg is given no path to open: it writes the file its stdout is, which slosh opened
	if strings.Contains(args, "file:") || strings.Contains(args, " -y") || !strings.HasSuffix(args, " pipe:1") {
		t.Errorf("ffmpeg's arguments %q name an output other than its stdout", args)
	}
	if strings.Contains(strings.Join(ffmpegArgs(Options{Width: 160, Height: 90, FPS: 30}), " "), "crop") {
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
