//go:build unix

package mesh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/testdir"
)

// A named pipe or a device named as a mesh is refused at once: a pipe used to block forever (before the fix this
// test hangs until go test's -timeout).
func TestLoadFileRefusesPipesAndDevices(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe.obj")
	testdir.FIFO(t, pipe)
	if _, err := LoadFile(pipe); err == nil || !strings.Contains(err.Error(), pipe+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("pipe: %v", err)
	}
	if _, err := Load(os.DirFS(dir), "pipe.obj"); err == nil || !strings.Contains(err.Error(), "named pipe") {
		t.Errorf("pipe in an fs.FS: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := LoadFile("/dev/zero"); err == nil || !strings.Contains(err.Error(), "character device") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	if _, err := LoadFile(dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("a folder: %v", err)
	}
}
