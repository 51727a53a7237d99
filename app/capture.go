package app

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim/scene"
)

// CaptureDir is where screenshots go unless --captures names another folder.
const CaptureDir = "captures"

// shot is a screenshot asked for, taken at the end of the frame's drawing.
type shot int

const (
	shotNone  shot = iota
	shotView       // the 3D view alone, before the panel is drawn over it
	shotPanel      // the view with the panel
)

// captureName names a capture of the scene: DIR/<scene>-<date>-<time>.<ms><ext>, so captures sort by time and
// never overwrite each other.
func captureName(dir string, sc *scene.Scene, ext string, now time.Time) string {
	return filepath.Join(dir, fmt.Sprintf("%s-%s%s", fileLabel(sc), now.Format("20060102-150405.000"), ext))
}

// takeShot reads the w × h framebuffer back and saves it as an opaque PNG in the captures folder; the status line
// says where it went, or why it could not be written (the simulation goes on either way).
func (v *viewer) takeShot(w, h int) {
	img := render.Screenshot(0, w, h)
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255 // the window's alpha is whatever blending left; a screenshot is opaque
	}
	dir := v.captures
	if dir == "" {
		dir = CaptureDir
	}
	path := captureName(dir, v.sc, ".png", time.Now())
	err := os.MkdirAll(dir, 0o755)
	if err == nil {
		err = writePNG(path, img)
	}
	if err != nil {
		v.status.set(fmt.Sprintf("screenshot not saved: %v (set another folder with --captures)", err), true)
		return
	}
	v.lastShot = path
	v.status.set(fmt.Sprintf("screenshot %d×%d saved to %s", w, h, path), false)
}
