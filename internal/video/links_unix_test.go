//go:build unix

package video

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/testdir"
)

// A named pipe at an MP4's path is refused at once, without waiting for a reader.
func TestCreateMP4RefusesAPipe(t *testing.T) {
	requireTool(t, "ffmpeg")
	path := testdir.FIFO(t, filepath.Join(t.TempDir(), "clip.mp4"))
	w, err := Create(path, Options{Width: 32, Height: 24, FPS: 30})
	if err == nil {
		w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), path) {
		t.Errorf("Create over a pipe: %v, want an error naming it", err)
	}
}
