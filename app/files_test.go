package app

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/slosh/slosh/internal/testdir"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/scene"
)

// A path to save to that names a folder, a device or a link is refused with what it is, instead of a name made
// up from it: --save adir wrote adir.slosh, --save /dev/null created /dev/null.slosh, --save newdir/ wrote
// newdir/.slosh.
func TestSavePathsMustNameFiles(t *testing.T) {
	dir := t.TempDir()
	adir := filepath.Join(dir, "adir")
	if err := os.Mkdir(adir, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.slosh")
	if err := os.Symlink(filepath.Join(t.TempDir(), "elsewhere.slosh"), link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe")
	testdir.FIFO(t, fifo)
	for _, c := range []struct{ path, want string }{
		{adir, adir + " is a folder, not a file: name a file in it, e.g. " + filepath.Join(adir, "run.slosh")},
		{"/dev/null", "/dev/null is a character device, not a regular file"},
		{fifo, "is a named pipe (FIFO), not a regular file"},
		{filepath.Join(dir, "newdir") + "/", "names a folder, not a file"},
		{filepath.Join(dir, "."), "is a folder"},
		{link, "symbolic link"},
		{"", "no file name"},
	} {
		if got, err := withExt(c.path, ".slosh"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("withExt(%q) = %q, %v; want an error containing %q", c.path, got, err, c.want)
		}
	}
	for _, p := range []string{"/dev/null.slosh", filepath.Join(dir, "adir.slosh"), filepath.Join(dir, "newdir")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	// a plain name gets the extension and its folder
	want := filepath.Join(dir, "new", "run.slosh")
	if got, err := withExt(filepath.Join(dir, "new", "run"), ".slosh"); err != nil || got != want {
		t.Errorf("withExt(new/run) = %q, %v; want %q", got, err, want)
	}
	if fi, err := os.Stat(filepath.Join(dir, "new")); err != nil || !fi.IsDir() {
		t.Errorf("the folder was not made: %v", err)
	}
}

// `slosh export` into a folder holding links named like its files refuses to write through them: the files they
// point at, outside the folder, keep their content.
func TestExportDoesNotWriteThroughLinks(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, "frame_000001.ply")); err != nil {
		t.Fatal(err)
	}
	o := ExportOptions{Options: Options{Scene: "pool", Mode: "pbf-cpu", Particles: 500, Stderr: io.Discard}, Frames: 1, Out: dir, Stdout: io.Discard}
	err := Export(o)
	if err == nil || !strings.Contains(err.Error(), "frame_000001.ply: it is a symbolic link") {
		t.Errorf("exporting over a link: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("the link's target now holds %d bytes", len(b))
	}
	// and a link named like the sidecar: the frames are written, the sidecar is refused
	dir2 := t.TempDir()
	if err := os.Symlink(victim, filepath.Join(dir2, SidecarName)); err != nil {
		t.Fatal(err)
	}
	o.Out = dir2
	if err := Export(o); err == nil || !strings.Contains(err.Error(), SidecarName+": it is a symbolic link") {
		t.Errorf("exporting over a sidecar link: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine" {
		t.Errorf("the sidecar link's target now holds %d bytes", len(b))
	}
	// and links named like a USD stage's layer and its root
	o.USD = true
	for _, name := range []string{"usd.000001.usda", "slosh.usda", "usd_manifest.usda"} {
		o.Out = t.TempDir()
		if err := os.Symlink(victim, filepath.Join(o.Out, name)); err != nil {
			t.Fatal(err)
		}
		if err := Export(o); err == nil || !strings.Contains(err.Error(), name+": it is a symbolic link") {
			t.Errorf("exporting over a link named %s: %v", name, err)
		}
		if b, _ := os.ReadFile(victim); string(b) != "mine" {
			t.Errorf("the %s link's target now holds %d bytes", name, len(b))
		}
	}
}

// A killed export's temporary files (a frame's, a USD layer's) are removed by the next export into the folder, once
// they are old.
func TestExportRemovesStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, ".frame_000007.ply.123456.tmp")
	staleUSD := filepath.Join(dir, ".usd.000007.usda.123456.tmp")
	old := time.Now().Add(-time.Hour)
	for _, f := range []string{stale, staleUSD} {
		if err := os.WriteFile(f, []byte("half a frame"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f, old, old); err != nil {
			t.Fatal(err)
		}
	}
	o := ExportOptions{Options: Options{Scene: "pool", Mode: "pbf-cpu", Particles: 500, Stderr: io.Discard}, Frames: 1, Out: dir, Stdout: io.Discard}
	if err := Export(o); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{stale, staleUSD} {
		if _, err := os.Lstat(f); err == nil {
			t.Errorf("the stale temporary file %s is still there", filepath.Base(f))
		}
	}
}

// The time left is never a duration that overflowed: a replay of 2^63 steps showed "-2562047h47m16.85s left".
func TestETA(t *testing.T) {
	for _, c := range []struct {
		elapsed     time.Duration
		done, total int
		want        string
	}{
		{10 * time.Second, 10, 40, "30s"},
		{time.Second, 0, 10, "?"},
		{time.Second, 10, 10, "0s"},
		{time.Second, 1, 1 << 20, "12 days"},
		{time.Second, 1, math.MaxInt64, "1.1e+14 days"},
		{time.Duration(math.MaxInt64), 1, math.MaxInt64, "9.8e+23 days"},
		{time.Second, 5, 2, "0s"},
	} {
		if got := eta(c.elapsed, c.done, c.total); got != c.want {
			t.Errorf("eta(%v, %d, %d) = %q, want %q", c.elapsed, c.done, c.total, got, c.want)
		}
	}
}

// The replay's progress counts steps and says so (it counted steps and called them frames).
func TestReplayProgressCountsSteps(t *testing.T) {
	got := replayProgress(3, 40, 160, 2*time.Second)
	if !strings.Contains(got, "[#######.......................] replayed 40/160 steps (frame 3), 6s left") {
		t.Errorf("%q", got)
	}
	if got := replayProgress(1, 1, math.MaxInt64, time.Second); strings.Contains(got, "-") || !strings.Contains(got, "days left") {
		t.Errorf("2^63 steps: %q", got)
	}
}

// Times print in fixed digits, or in a few significant ones when they are too large (a damaged file's 1e300).
func TestSimTime(t *testing.T) {
	for _, c := range []struct {
		t    float64
		want string
	}{{2.5, "2.50s"}, {0, "0.00s"}, {123456.789, "123456.79s"}, {1e300, "1e+300s"}, {-1e7, "-1e+07s"}} {
		if got := simTime(c.t, 2); got != c.want {
			t.Errorf("simTime(%g) = %q, want %q", c.t, got, c.want)
		}
	}
}

// A save file that cannot be loaded in the mode asked for says why the same way from the command line and the
// window, naming the file and the modes that load it; only a wrong --mode is a usage error (exit status 2), a
// file of a mode this slosh lacks, or a damaged one, is a failure of the file.
func TestSaveFilesOfOtherModes(t *testing.T) {
	modes := []Mode{{Name: "pbf", StateKind: "pbf"}, {Name: "pbf-cpu", StateKind: "pbf"}, {Name: "toy"}}
	var ue *UsageError
	f := &savefile.File{Mode: "flip", Kind: "flip", Path: "run.slosh"}
	_, err := savedMode(modes, f)
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), `run.slosh was saved in mode "flip" (state kind "flip"), which this slosh does not have (its modes are pbf, pbf-cpu, toy): no mode of this slosh loads it`) {
		t.Errorf("a mode this slosh lacks: %v", err)
	}
	f = &savefile.File{Mode: "pbf-cpu", Kind: "flip", Path: "run.slosh"}
	if _, err := savedMode(modes, f); err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), `its state is of kind "flip" and mode pbf-cpu saves "pbf": the file is damaged`) {
		t.Errorf("a mode and kind that disagree: %v", err)
	}
	f = &savefile.File{Mode: "pbf", Kind: "pbf", Path: "run.slosh"}
	if m, err := savedMode(modes, f); err != nil || m.Name != "pbf" {
		t.Errorf("a good file: %v, %v", m, err)
	}
	err = checkLoad(modes, modes[2], f)
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), `run.slosh was saved in mode pbf (state kind "pbf"); mode toy cannot save or load states: load it in mode pbf or pbf-cpu (--mode pbf, or no --mode)`) {
		t.Errorf("--mode toy: %v", err)
	}
	if err := checkLoad(modes, modes[1], f); err != nil {
		t.Errorf("--mode pbf-cpu: %v", err)
	}
}

// From the command line: a save file of a mode this slosh lacks is a failure naming the file (it said "unknown
// mode" with exit status 2), and its parameters name it when they are out of range (it said "preset:").
func TestLoadOptionsNameTheFile(t *testing.T) {
	sc, err := scene.Builtin("pool")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	save := func(name, mode string, params map[string]json.RawMessage) string {
		f := &savefile.File{Mode: mode, Kind: "pbf", Scene: sc, State: []byte("x"), Particles: 1, Params: param.Preset{Mode: mode, Params: params}}
		path := filepath.Join(dir, name)
		if err := savefile.Save(path, f); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var ue *UsageError
	lbm := save("lbm.slosh", "lbm", nil)
	_, err = prepare(Modes(), &Options{Load: lbm})
	if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), lbm+` was saved in mode "lbm"`) {
		t.Errorf("a save of a mode this slosh lacks: %v", err)
	}
	iters := save("iters.slosh", "pbf-cpu", map[string]json.RawMessage{"pbf.iterations": json.RawMessage("1000")})
	st, err := prepare(Modes(), &Options{Load: iters})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.configure(st.mode.Params(), st.mode)
	if err == nil || !strings.Contains(err.Error(), iters+": slosh.json: params: pbf.iterations=1000: out of range") {
		t.Errorf("a save with 1000 iterations: %v", err)
	}
}
