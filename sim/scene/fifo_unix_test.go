//go:build unix

package scene

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/testdir"
)

// A named pipe given as a scene, or named by a scene as a mesh, is refused at once: it used to block forever
// (before the fix this test hangs until go test's -timeout).
func TestFIFOsAreRefused(t *testing.T) {
	dir := writeFiles(t, map[string]string{})
	scenePipe, meshPipe := filepath.Join(dir, "pipe.json"), filepath.Join(dir, "pipe.obj")
	for _, p := range []string{scenePipe, meshPipe} {
		testdir.FIFO(t, p)
	}
	for _, open := range []func(string) (*Scene, error){LoadFile, Open} {
		if _, err := open(scenePipe); err == nil || !strings.Contains(err.Error(), scenePipe+" is a named pipe (FIFO), not a regular file") {
			t.Errorf("scene pipe: %v", err)
		}
	}
	src := `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.05},
		"fluid":[{"shape":"mesh","mesh":"pipe.obj","center":[0.5,0.5,0.5],"extent":0.3}]}`
	if _, err := Parse([]byte(src), filepath.Join(dir, "s.json")); err == nil ||
		!strings.Contains(err.Error(), "fluid[0].mesh: "+meshPipe+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("mesh pipe: %v", err)
	}
}
