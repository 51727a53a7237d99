package app

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// An export clears the temporary files that earlier exports into its folder left when they were killed, and only
// those: a user's own file named like a temporary one (.notes.123.tmp), however old, stays.
func TestExportRemovesOnlyItsOwnStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * atomicfile.StaleAge)
	mk := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := []string{
		mk(".frame_000001.ply.42.tmp", old),
		mk(".frame_1234567.ply.42.tmp", old), // frame numbers grow past six digits
		mk(".surface_000002.obj.7.tmp", old),
		mk(".surface_000002.ply.8.tmp", old),
		mk(".body3_000004.ply.9.tmp", old),
		mk(".body0_000001.obj.10.tmp", old),
		mk("."+SidecarName+".5.tmp", old),
	}
	keep := []string{
		mk(".notes.123.tmp", old),                 // the user's
		mk(".frame_000001.ply.bak.3.tmp", old),    // not a name an export writes
		mk(".frame_00001.ply.4.tmp", old),         // five digits: not FrameName's
		mk(".frame_000001.obj.5.tmp", old),        // frames are PLY
		mk(".body_000001.ply.6.tmp", old),         // no body number
		mk(".surface_000001.stl.7.tmp", old),      // not a mesh format of an export
		mk(".frame_000003.ply.8.tmp", time.Now()), // an export still writing it
		mk("frame_000001.ply", old),
	}
	sc, err := scene.Builtin("dambreak")
	if err != nil {
		t.Fatal(err)
	}
	cw, err := newCacheWriter(dir, "pbf-cpu", sc, param.NewSet())
	if err != nil || cw.note != "" {
		t.Fatalf("newCacheWriter: %v, note %q", err, cw.note)
	}
	for _, p := range stale {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s, a stale temporary file of an export, was left", filepath.Base(p))
		}
	}
	for _, p := range keep {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: it is not an export's temporary file", filepath.Base(p))
		}
	}
}
