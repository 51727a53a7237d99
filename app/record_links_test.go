package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/internal/video"
)

// plantLinks makes, in a fresh folder, a link named name to a read-only file outside it and a dangling link
// named dangling to a name outside it; check fails the test when either was written through.
func plantLinks(t *testing.T, name, dangling string) (dir string, check func()) {
	t.Helper()
	dir, outside := t.TempDir(), t.TempDir()
	victim, missing := filepath.Join(outside, "victim.txt"), filepath.Join(outside, "new.bin")
	if err := os.WriteFile(victim, []byte("not yours"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(missing, filepath.Join(dir, dangling)); err != nil {
		t.Fatal(err)
	}
	return dir, func() {
		t.Helper()
		if b, err := os.ReadFile(victim); err != nil || string(b) != "not yours" {
			t.Errorf("the link's target holds %d bytes (%v): written through the link", len(b), err)
		}
		if _, err := os.Lstat(missing); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the dangling link's target was made (%v)", err)
		}
	}
}

// wantLinkError fails the test unless err refuses the link at path, naming it.
func wantLinkError(t *testing.T, what, path string, err error) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("%s over the link %s: %v, want an error naming the link", what, path, err)
	}
}

// The clips of `slosh record --out` and `slosh replay --record` (createVideo) never write through a symbolic
// link at their path, whichever the format, and neither does the PNG fallback without ffmpeg.
func TestCreateVideoRefusesLinks(t *testing.T) {
	opts := video.Options{Width: 32, Height: 24, FPS: 60}
	for _, ext := range []string{".mp4", ".gif", ".png"} {
		first := "clip" + ext
		if ext == ".png" {
			first = "clip_000001.png"
		}
		dir, check := plantLinks(t, first, "other"+strings.Replace(first, "clip", "", 1))
		for _, name := range []string{first, "other" + strings.Replace(first, "clip", "", 1)} {
			out := filepath.Join(dir, strings.Replace(name, "_000001", "", 1))
			vw, _, err := createVideo(out, opts)
			if err == nil {
				vw.Close()
			}
			wantLinkError(t, "createVideo", filepath.Join(dir, name), err)
		}
		check()
	}
	// without ffmpeg an .mp4 becomes PNG frames beside it: a link at the first frame's name is refused too
	noFFmpegPath(t)
	dir, check := plantLinks(t, "clip_000001.png", "x")
	vw, _, err := createVideo(filepath.Join(dir, "clip.mp4"), opts)
	if err == nil {
		vw.Close()
	}
	wantLinkError(t, "the PNG fallback", filepath.Join(dir, "clip_000001.png"), err)
	check()
}

// `slosh record --out LINK` refuses the link before it renders anything, and leaves the file the link names as
// it was.
func TestRecordRefusesALink(t *testing.T) {
	gltest.Acquire(t)
	dir, check := plantLinks(t, "clip.mp4", "dangling.mp4")
	for _, name := range []string{"clip.mp4", "dangling.mp4"} {
		o := RecordOptions{Options: Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Stderr: io.Discard},
			Frames: 5, Width: 64, Height: 48, Out: filepath.Join(dir, name), Stdout: io.Discard}
		wantLinkError(t, "slosh record", o.Out, Record(o))
	}
	check()
}
