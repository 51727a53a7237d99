package video

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// victims makes, outside the recording's folder, a read-only file with known content and the name a dangling link
// points to; it returns them and the content.
func victims(t *testing.T) (victim, missing, content string) {
	t.Helper()
	outside := t.TempDir()
	victim, missing, content = filepath.Join(outside, "victim.txt"), filepath.Join(outside, "new.bin"), "not yours to overwrite"
	if err := os.WriteFile(victim, []byte(content), 0o444); err != nil {
		t.Fatal(err)
	}
	return victim, missing, content
}

// checkVictims fails the test when the file a link named changed or the dangling link's target was made.
func checkVictims(t *testing.T, victim, missing, content string) {
	t.Helper()
	if b, err := os.ReadFile(victim); err != nil || string(b) != content {
		t.Errorf("the link's target holds %d bytes (%v): written through the link", len(b), err)
	}
	if _, err := os.Lstat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the dangling link's target was made (%v): written through the link", err)
	}
}

// record starts a recording at path and, if that succeeds, gives it 40 frames and closes it; it returns the first
// error.
func record(path string, o Options) error {
	w, err := Create(path, o)
	if err != nil {
		return err
	}
	for f := range 40 {
		if err := w.WriteFrame(pattern(o.Width, o.Height, f)); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// A recording never writes through a symbolic link at its path, for every format: neither into the file a link
// names (read-only or not) nor by making the file a dangling link names. Create refuses the link at once, naming
// it, as the other writers do (atomicfile.Check).
func TestCreateRefusesLinks(t *testing.T) {
	requireTool(t, "ffmpeg")
	o := Options{Width: 32, Height: 24, FPS: 30}
	for _, ext := range []string{".mp4", ".gif", ".png"} {
		for _, dangling := range []bool{false, true} {
			name := ext[1:] + "/to a read-only file"
			if dangling {
				name = ext[1:] + "/dangling"
			}
			t.Run(name, func(t *testing.T) {
				victim, missing, content := victims(t)
				dir := t.TempDir()
				path := filepath.Join(dir, "clip"+ext)
				link := path
				if ext == ".png" {
					link = filepath.Join(dir, "clip_000001.png")
				}
				target := victim
				if dangling {
					target = missing
				}
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				_, cerr := Create(path, o)
				err := record(path, o)
				if cerr == nil || !strings.Contains(cerr.Error(), link) || !strings.Contains(cerr.Error(), "symbolic link") {
					t.Errorf("Create over a link: %v (then %v), want an error naming the link", cerr, err)
				} else {
					t.Log(cerr)
				}
				checkVictims(t, victim, missing, content)
				if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("the link was replaced (%v)", err)
				}
			})
		}
	}
}

// A link planted among a PNG sequence's later frames is refused when that frame comes, and the frames before it
// stay.
func TestPNGSequenceRefusesALinkAtALaterFrame(t *testing.T) {
	victim, missing, content := victims(t)
	dir := t.TempDir()
	for _, c := range []struct{ frame, target string }{{"clip_000003.png", victim}, {"clip_000005.png", missing}} {
		if err := os.Symlink(c.target, filepath.Join(dir, c.frame)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := Create(filepath.Join(dir, "clip.png"), Options{Width: 8, Height: 8})
	if err != nil {
		t.Fatal(err)
	}
	for f := range 6 {
		if w.WriteFrame(pattern(8, 8, f)) != nil {
			break
		}
	}
	err = w.Close()
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "clip_000003.png")) || !strings.Contains(err.Error(), "symbolic link") ||
		w.Saved() != 2 {
		t.Errorf("a link at the third frame: Close %v, %d frames saved; want an error naming it, 2 frames", err, w.Saved())
	}
	checkVictims(t, victim, missing, content)
}

// A recording over a file already there replaces it once it has frames, keeping the file's permissions, and
// leaves no temporary file beside it.
func TestMP4ReplacesTheFileThere(t *testing.T) {
	requireTool(t, "ffmpeg")
	dir := t.TempDir()
	path := filepath.Join(dir, "clip.mp4")
	if err := os.WriteFile(path, []byte("an earlier recording"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil { // whatever the umask
		t.Fatal(err)
	}
	o := Options{Width: 32, Height: 24, FPS: 30}
	if err := record(path, o); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 {
		t.Fatalf("the recording over a file: %v, %v; want a regular file with mode 0640", fi, err)
	}
	if n := playable(t, path); n != 40 || probe(t, path).frames(t) != 40 {
		t.Errorf("the new recording holds %d frames, want 40", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the folder, want only the recording", len(entries))
	}
}
