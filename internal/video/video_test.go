package video

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/testdir"
)

func TestFormatOf(t *testing.T) {
	for _, c := range []struct {
		path string
		want Format
		ok   bool
	}{
		{"a.mp4", MP4, true}, {"dir.x/A.MP4", MP4, true}, {"a.gif", GIF, true}, {"a.Gif", GIF, true},
		{"a.png", PNG, true}, {"a.webm", 0, false}, {"mp4", 0, false}, {"a.mp4/", 0, false},
	} {
		f, err := FormatOf(c.path)
		if c.ok && (err != nil || f != c.want) {
			t.Errorf("FormatOf(%q) = %v, %v; want %v", c.path, f, err, c.want)
		}
		if !c.ok && (err == nil || !strings.Contains(err.Error(), ".mp4, .gif or .png")) {
			t.Errorf("FormatOf(%q): %v, want an error naming the formats", c.path, err)
		}
	}
}

func TestCreateRefusesBadOptions(t *testing.T) {
	dir := t.TempDir()
	good := Options{Width: 16, Height: 16, FPS: 30}
	for _, c := range []struct {
		name string
		o    func(o *Options)
		want string
	}{
		{"a.gif", func(o *Options) { o.Width = 0 }, "positive"},
		{"a.mp4", func(o *Options) { o.Height = 1 }, "2×2"},
		{"a.gif", func(o *Options) { o.Width = 70000 }, "65535"},
		{"a.gif", func(o *Options) { o.FPS = 0 }, "frame rate"},
		{"a.mp4", func(o *Options) { o.FPS = -1 }, "frame rate"},
		{"a.gif", func(o *Options) { o.Quality = 7 }, "quality"},
		{"a.png", func(o *Options) { o.Height = -3 }, "positive"},
	} {
		o := good
		c.o(&o)
		if _, err := Create(filepath.Join(dir, c.name), o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s with %+v: %v, want %q", c.name, o, err, c.want)
		}
	}
	if _, err := Create(filepath.Join(dir, "b.png"), Options{Width: 4, Height: 4}); err != nil {
		t.Errorf("a PNG sequence needs no frame rate: %v", err)
	}
}

// TestCreateChecksTheFolder: a missing folder, a file where the folder should be, a folder where the file should
// be and a read-only folder are reported by Create, naming the path, for every format.
func TestCreateChecksTheFolder(t *testing.T) {
	requireTool(t, "ffmpeg")
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "taken.gif"), 0o755); err != nil {
		t.Fatal(err)
	}
	o := Options{Width: 16, Height: 16, FPS: 30}
	for _, ext := range []string{".mp4", ".gif", ".png"} {
		for _, c := range []struct{ path, want string }{
			{filepath.Join(dir, "missing", "a"+ext), "does not exist"},
			{filepath.Join(file, "a"+ext), "not a folder"},
		} {
			w, err := Create(c.path, o)
			if err == nil {
				w.Close()
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Dir(c.path)) {
				t.Errorf("Create(%s): %v, want an error naming the path and saying %q", c.path, err, c.want)
			} else if ext == ".mp4" {
				t.Log(err)
			}
		}
	}
	if _, err := Create(filepath.Join(dir, "taken.gif"), o); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Errorf("a GIF over a folder: %v", err)
	}
}

func TestCreateRefusesAReadOnlyFolder(t *testing.T) {
	requireTool(t, "ffmpeg")
	o := Options{Width: 16, Height: 16, FPS: 30}
	ro := testdir.Unwritable(t)
	for _, ext := range []string{".mp4", ".gif", ".png"} {
		path := filepath.Join(ro, "a"+ext)
		w, err := Create(path, o)
		if err == nil {
			w.Close()
		}
		if err == nil || !strings.Contains(err.Error(), "permission denied") || !strings.Contains(err.Error(), ro) {
			t.Errorf("Create(%s) in a read-only folder: %v, want an error naming it", path, err)
		} else {
			t.Log(err)
		}
	}
}

func TestWritersRefuseWrongFrames(t *testing.T) {
	requireTool(t, "ffmpeg")
	dir := t.TempDir()
	for _, name := range []string{"a.mp4", "a.gif", "a.png"} {
		w, err := Create(filepath.Join(dir, name), Options{Width: 32, Height: 24, FPS: 30})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFrame(pattern(24, 32, 0)); err == nil || !strings.Contains(err.Error(), "24×32") {
			t.Errorf("%s: a 24×32 frame: %v", name, err)
		}
		if err := w.WriteFrame(nil); err == nil {
			t.Errorf("%s: a nil frame was taken", name)
		}
		short := pattern(32, 24, 0)
		short.Pix = short.Pix[:100]
		if err := w.WriteFrame(short); err == nil {
			t.Errorf("%s: a frame with too few pixels was taken", name)
		}
		// the recording goes on after a refused frame
		if err := w.WriteFrame(pattern(32, 24, 1)); err != nil {
			t.Errorf("%s: a good frame after a bad one: %v", name, err)
		}
		if err := w.Close(); err != nil || w.Frames() != 1 {
			t.Errorf("%s: Close %v with %d frames, want 1", name, err, w.Frames())
		}
	}
	for _, name := range []string{"b.gif", "b.png"} {
		w, err := Create(filepath.Join(dir, name), Options{Width: 8, Height: 8, FPS: 30})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); !errors.Is(err, ErrNoFrames) {
			t.Errorf("%s: Close with no frames: %v, want ErrNoFrames", name, err)
		}
		if _, err := os.Stat(w.Path()); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a recording with no frames left %s", name, w.Path())
		}
	}
}
