package app

import (
	"fmt"
	"math"
	"strings"

	"github.com/go-gl/glfw/v3.3/glfw"

	gflat "github.com/slosh/slosh/gpu/flat"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// The window's 2D view, for flat modes (the reduced game): the solver's FlatFrame drawn by gpu/flat in place of the
// 3D scene, its status line and banner over it, and the mouse and keys as the game's hands (sim.FlatHands):
//
//	left drag on a body     grab it, drag it, let go to throw it
//	left drag in the water  draw a current along the stroke (reduced.stroke_speed, reduced.stroke_width)
//	right click             spawn a box in the water, or remove the body under the cursor
//	1–9                     excite the current drawn on that key again
//	N                       the level's next level
//
// The level's clock starts at the first of these (the solver's), and until then the status line carries the
// level's goal and its description under it.

// flatView is the 2D view's renderer and the gesture in progress.
type flatView struct {
	r      *gflat.Renderer
	failed bool // the renderer could not start; said once in the status line

	drawing  bool
	stroke   [][2]float32
	grabbing bool
	lastGrab [2]float32
	preview  sim.FlatLine
}

// strokeStep is the least distance between a stroke's points, as a fraction of the rectangle's longer side.
const strokeStep = 0.004

// spawnSide is the side of a spawned box, as a fraction of the rectangle's longer side; its density is the
// fluid's, so that it drifts with the currents.
const spawnSide = 0.05

// flatMode says whether the running mode draws a FlatFrame.
func (v *viewer) flatMode() bool { return v.drv.Mode().Flat }

// flatFrame is the newest FlatFrame, or nil.
func (v *viewer) flatFrame() *sim.FlatFrame { return v.drv.Flat() }

// drawFlat draws the 2D view into the bound framebuffer of fw×fh pixels, with the stroke being drawn.
func (v *viewer) drawFlat(fw, fh int) {
	f := v.flatFrame()
	if f == nil {
		return
	}
	fv := &v.flat
	if fv.r == nil && !fv.failed {
		r, err := gflat.New(v.ctx)
		if err != nil {
			fv.failed = true
			v.status.set(fmt.Sprintf("the 2D view cannot start: %v", err), true)
			return
		}
		fv.r = r
	}
	if fv.r == nil {
		return
	}
	n := len(f.Lines)
	if fv.drawing && len(fv.stroke) > 1 {
		fv.preview = sim.FlatLine{Points: fv.stroke, Color: [4]float32{1, 1, 1, 0.8}, Width: 3}
		f.Lines = append(f.Lines, fv.preview)
	}
	fv.r.Draw(f, fw, fh)
	f.Lines = f.Lines[:n]
}

// flatHint is the panel's hint for the 2D game, in place of the 3D tools' (fillModel shows it, and flatKeys as
// the keys, while flatMode): how to play, in a sentence.
func (v *viewer) flatHint() string {
	return "Draw a current from a crate toward the green zone, then press its key (1–9) to push it again; throw boxes at what is in the way"
}

// flatKeys are the game's shortcuts, for the panel's list in place of the 3D sandbox's.
var flatKeys = []string{
	"left drag in the water: draw a current · 1–9: push that current again",
	"left drag on a box: throw it · right click: spawn a box, or remove the one under the cursor",
	"N next level · r play again · space pause · h hide panels · Esc quit",
}

// flatCaptionChars is how many characters a line of the status caption holds before it wraps, at most.
const flatCaptionChars = 110

// flatCaptions puts the game's status line at the top of the view (with the level's goal and description
// under it until the player's first move, which the solver writes into the status as further lines) and its
// banner in the middle.
func (v *viewer) flatCaptions() {
	f := v.flatFrame()
	r := v.viewRect()
	if f == nil || r.W() <= 0 || r.H() <= 0 {
		return
	}
	if f.Status != "" {
		// a caption's lines stack upwards from its bottom: the bottom moves down a line for each line below the first
		text := wrapCaption(f.Status, min(flatCaptionChars, max(int(r.W())/8, 20)))
		lines := strings.Count(text, "\n")
		v.ui.Caption(r.X0, r.X1, r.Y0+float32(3+lines)*imguiLine, text)
	}
	if f.Message != "" {
		v.ui.Caption(r.X0, r.X1, (r.Y0+r.Y1)/2, f.Message)
	}
}

// flatPoint maps the cursor into the rectangle.
func (v *viewer) flatPoint() ([2]float32, bool) {
	fv := &v.flat
	if fv.r == nil {
		return [2]float32{}, false
	}
	px, py, w, h := v.viewPoint()
	x, y, inside := fv.r.ToWorld(px, py, int(math.Round(w)), int(math.Round(h)))
	return [2]float32{x, y}, inside
}

// flatPick returns the shape of the body under p in the newest frame, or nil.
func (v *viewer) flatPick(p [2]float32) *sim.FlatShape {
	f := v.flatFrame()
	if f == nil {
		return nil
	}
	for i := len(f.Shapes) - 1; i >= 0; i-- {
		s := &f.Shapes[i]
		if s.Body >= 0 && sim.InConvex(s.Points, p) {
			return s
		}
	}
	return nil
}

// withFlatHands runs f with the solver's 2D hands through the replay log, or says the mode has none.
func (v *viewer) withFlatHands(f func(h sim.FlatHands) (string, error)) func(sim.Solver) (string, error) {
	log := v.log
	return func(s sim.Solver) (string, error) {
		h, ok := log.FlatHands(s)
		if !ok {
			return "", fmt.Errorf("mode %s has no 2D hands", s.Name())
		}
		return f(h)
	}
}

// flatMouse is MouseButton in the 2D view.
func (v *viewer) flatMouse(b glfw.MouseButton, a glfw.Action) {
	fv := &v.flat
	if a == glfw.Release {
		if b == glfw.MouseButtonLeft {
			v.endFlatGesture()
		}
		return
	}
	p, inside := v.flatPoint()
	if !inside {
		return
	}
	picked := v.flatPick(p)
	switch b {
	case glfw.MouseButtonLeft:
		if picked != nil && picked.Grabbable {
			fv.grabbing, fv.lastGrab = true, p
			v.drv.Do(v.withFlatHands(func(h sim.FlatHands) (string, error) {
				if i := h.Grab(p); i >= 0 {
					return fmt.Sprintf("holding body %d: let go to throw it", i), nil
				}
				return "", nil
			}), nil)
			return
		}
		fv.drawing, fv.stroke = true, append(fv.stroke[:0], p)
	case glfw.MouseButtonRight:
		if picked != nil {
			if !picked.Removable {
				v.status.set("that is part of the level: it stays", false)
				return
			}
			body := picked.Body
			v.drv.Do(v.withFlatHands(func(h sim.FlatHands) (string, error) {
				if err := h.RemoveFlatBody(body); err != nil {
					return "", err
				}
				return fmt.Sprintf("removed body %d", body), nil
			}), nil)
			return
		}
		f := v.flatFrame()
		side := spawnSide * float64(max(f.Size[0], f.Size[1]))
		density := float64(paramFloat(v.drv.Params(), "reduced.fluid_density", 1000))
		spec := scene.FlatBody{Shape: scene.FlatBox, Center: scene.Vec2{float64(p[0]), float64(p[1])}, Size: scene.Vec2{side, side},
			Density: density, Friction: 0.4, Restitution: 0.1}
		v.drv.Do(v.withFlatHands(func(h sim.FlatHands) (string, error) {
			i, err := h.Spawn(spec)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("spawned body %d", i), nil
		}), nil)
	}
}

// flatCursor follows the cursor in the 2D view: the stroke grows, the held body's target moves (each frame, in
// updateFlatGesture).
func (v *viewer) flatCursor() {
	fv := &v.flat
	if !fv.drawing {
		return
	}
	p, _ := v.flatPoint()
	f := v.flatFrame()
	if f == nil {
		return
	}
	p = [2]float32{min(max(p[0], 0), f.Size[0]), min(max(p[1], 0), f.Size[1])}
	last := fv.stroke[len(fv.stroke)-1]
	if math.Hypot(float64(p[0]-last[0]), float64(p[1]-last[1])) >= strokeStep*float64(max(f.Size[0], f.Size[1])) &&
		len(fv.stroke) < scene.MaxCurrentPoints {
		fv.stroke = append(fv.stroke, p)
	}
}

// updateFlatGesture moves the held body's target to the cursor, once a frame.
func (v *viewer) updateFlatGesture() {
	fv := &v.flat
	if !fv.grabbing {
		return
	}
	p, _ := v.flatPoint()
	if p == fv.lastGrab {
		return
	}
	fv.lastGrab = p
	v.drv.Do(v.withFlatHands(func(h sim.FlatHands) (string, error) {
		h.MoveGrab(p)
		return "", nil
	}), nil)
}

// endFlatGesture lets go of the held body or draws the stroke as a current.
func (v *viewer) endFlatGesture() {
	fv := &v.flat
	switch {
	case fv.grabbing:
		fv.grabbing = false
		v.drv.Do(v.withFlatHands(func(h sim.FlatHands) (string, error) {
			h.Release()
			return "", nil
		}), nil)
	case fv.drawing:
		fv.drawing = false
		f := v.flatFrame()
		if len(fv.stroke) < 2 || f == nil {
			return
		}
		pts := append([][2]float32(nil), fv.stroke...)
		set := v.drv.Params()
		grid := paramFloat(set, "reduced.grid", 65)
		speed := paramFloat(set, "reduced.stroke_speed", 0.6)
		width := paramFloat(set, "reduced.stroke_width", 4) * max(f.Size[0], f.Size[1]) / max(grid, 1)
		v.drv.Do(v.withFlatHands(func(h sim.FlatHands) (string, error) { return h.Draw(pts, speed, width) }), nil)
	}
}

// flatKey handles the 2D view's keys; it returns false for keys it leaves to the window.
func (v *viewer) flatKey(k glfw.Key) bool {
	switch {
	case k >= glfw.Key1 && k <= glfw.Key9:
		key := int(k-glfw.Key1) + 1
		v.drv.Do(v.withFlatHands(func(h sim.FlatHands) (string, error) {
			if err := h.Excite(key); err != nil {
				return "", err
			}
			return fmt.Sprintf("current %d again", key), nil
		}), nil)
		return true
	case k == glfw.KeyN:
		if g := v.sc.Flat.Goal; g != nil && g.Next != "" {
			v.switchScene(g.Next)
		} else {
			v.status.set("this level has no next level", false)
		}
		return true
	}
	return false
}

// paramValue is a float parameter's value from set, or def when the set has no such parameter.
func paramFloat(set *param.Set, name string, def float32) float32 {
	if p, ok := set.Lookup(name); ok {
		return float32(p.Get().F)
	}
	return def
}

// FirstLevel is the scene a flat mode opens when the scene in hand is a 3D one.
const FirstLevel = "reduced-1"

// sceneFor returns sc when mode m can play it, else the scene m opens instead: the first level for a flat mode,
// the default scene for a 3D one.
func sceneFor(m Mode, sc *scene.Scene) (*scene.Scene, error) {
	if sc != nil && sc.IsFlat() == m.Flat {
		return sc, nil
	}
	if m.Flat {
		return scene.Open(FirstLevel)
	}
	return scene.Open(DefaultScene)
}

// wrapCaption breaks each line of text longer than n characters at spaces, so that a long level description
// fits the window.
func wrapCaption(text string, n int) string {
	var b strings.Builder
	for k, line := range strings.Split(text, "\n") {
		if k > 0 {
			b.WriteByte('\n')
		}
		col := 0
		for i, word := range strings.Fields(line) {
			wl := len([]rune(word))
			if i > 0 && col+1+wl > n {
				b.WriteByte('\n')
				col = 0
			} else if i > 0 {
				b.WriteByte(' ')
				col++
			}
			b.WriteString(word)
			col += wl
		}
	}
	return b.String()
}
