package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/replay"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/surface/field"
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

// takeShot reads the w × h framebuffer back and saves it as a PNG in the captures folder, opaque unless
// transparent (the picture was drawn with a transparent background); the status line says where it went, or why
// it could not be written (the simulation goes on either way).
// takeShot saves the part r of the window's framebuffer (fw×fh) as a PNG in the captures folder.
func (v *viewer) takeShot(fw, fh int, r pixelRect, transparent bool) {
	img := render.Screenshot(0, fw, fh)
	if !r.full(fw, fh) && r.W > 0 && r.H > 0 {
		img = crop(img, r, fh)
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if !transparent {
		for i := 3; i < len(img.Pix); i += 4 {
			img.Pix[i] = 255 // the window's alpha is whatever blending left (the panel's); a screenshot is opaque
		}
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
	kind := ""
	if transparent {
		kind = " (transparent background)"
	}
	v.status.set(fmt.Sprintf("screenshot %d×%d%s saved to %s", w, h, kind, path), false)
}

// toggleRecording starts a recording of the window, or stops the one in progress.
func (v *viewer) toggleRecording() {
	if v.rec != nil {
		v.stopRecording(nil)
		return
	}
	vr, fw, fh := v.viewPixels()
	if !v.capCfg.Panel {
		fw, fh = vr.W, vr.H // the view alone, at the size it has now
	}
	if fw <= 0 || fh <= 0 {
		v.status.set("recording not started: the window is minimised", true)
		return
	}
	r, err := startRecording(v.captures, v.sc, v.capCfg, fw, fh, time.Now())
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	v.rec = r
	msg := fmt.Sprintf("recording %d×%d at %g fps to %s (F9 stops)", r.rb.W, r.rb.H, r.fps, r.path)
	if r.fallback != "" {
		msg = fmt.Sprintf("recording %d×%d at %g fps: %s", r.rb.W, r.rb.H, r.fps, r.fallback)
	}
	v.status.set(msg, false)
}

// captureFrame gives the recording the picture in the part r of the window's framebuffer (fw×fh); a failure stops
// the recording.
func (v *viewer) captureFrame(fw, fh int, r pixelRect) {
	if v.rec == nil {
		return
	}
	if err := v.rec.capture(r, v.drv.Stats().Time); err != nil {
		v.stopRecording(err)
	}
}

// stopRecording hands what is in flight to the encoder and lets it finish the file in the background; pollCaptures
// reports the result. cause is why it stopped early (nil: the user stopped it).
func (v *viewer) stopRecording(cause error) {
	r := v.rec
	if r == nil {
		return
	}
	v.rec = nil
	if err := r.stop(); err != nil && cause == nil {
		cause = err
	}
	if cause != nil {
		r.fail(cause)
	}
	v.finishing = append(v.finishing, r)
	v.status.set(fmt.Sprintf("finishing the recording %s …", r.path), false)
}

// toggleExport starts writing every simulated frame as a particle cache, or stops.
func (v *viewer) toggleExport() {
	if v.export != nil {
		v.stopExport()
		return
	}
	dir := v.captures
	if dir == "" {
		dir = CaptureDir
	}
	dir = strings.TrimSuffix(captureName(dir, v.sc, "", time.Now()), ".") + "-particles"
	var meshes *meshExport
	what := "PLY"
	if format := captureMeshes[v.capCfg.Meshes]; format != "none" {
		meshes = newMeshExport(format, v.surf.cfg.mesh, v.surf.set)
		what += " and " + strings.ToUpper(format) + " meshes"
	}
	var vdbs *vdbExport
	if v.capCfg.VDB {
		vdbs = newVDBExport(v.surf.cfg.mesh, v.capCfg.VDBDensity, v.capCfg.VDBVelocity)
		what += " and VDB level sets"
	}
	var stage *usdExport
	if v.capCfg.USD && !v.flatMode() {
		stage = newUSDExport(v.surf.cfg.mesh, v.sc, usdCamera(v.sc), fmt.Sprintf("slosh %s, mode %s, scene %s", softwareVersion(), v.drv.Mode().Name, v.sc.Name))
		what += " and a USD stage"
	}
	e, err := startLiveExport(dir, v.drv.Mode().Name, v.sc, v.drv.Params(), meshes, vdbs, stage, v.bodyShapes())
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	v.export = e
	v.drv.SetFrameSink(e.sink)
	v.status.set(fmt.Sprintf("exporting every simulated frame to %s (%s); press the button again to stop", dir, what), false)
}

// saveMesh meshes the current frame — the fluid's surface, each granular material's apart, and the rigid bodies at
// their poses — and writes it into the captures folder on a goroutine (a large frame takes a while to mesh): one OBJ
// with an object for each surface and each body, or with capture.meshes ply a PLY file for each. The status line
// says where it went.
func (v *viewer) saveMesh() {
	if v.flatMode() {
		v.status.set("the 2D game has no 3D surface to mesh", false)
		return
	}
	f := v.drv.PickFrame()
	if f == nil || f.N == 0 {
		v.status.set("no particles to mesh yet", false)
		return
	}
	frame := new(sim.Frame)
	copyFrame(frame, f)
	dir := v.captures
	if dir == "" {
		dir = CaptureDir
	}
	format := captureMeshes[v.capCfg.Meshes]
	if format == "none" {
		format = export.MeshOBJ
	}
	base := strings.TrimSuffix(captureName(dir, v.sc, "", time.Now()), ".")
	settings, shapes, grains := v.surf.cfg.mesh, v.bodyShapes(), grainObjects(export.SceneMaterials(v.sc))
	comment := fmt.Sprintf("slosh %s, scene %s, t=%.6f s", v.drv.Mode().Name, v.sc.Name, frame.Time)
	v.status.set("meshing the frame …", false)
	v.meshing++
	go func() {
		msg, err := writeFrameMeshes(base, format, frame, settings, shapes, grains, comment)
		if err != nil {
			msg = fmt.Sprintf("mesh not saved: %v", err) // the error names the file, or the mesh.* setting at fault
		}
		v.meshDone <- captureResult{msg, err != nil}
	}()
}

// captureResult is a capture's message for the status line.
type captureResult struct {
	msg   string
	isErr bool
}

// writeFrameMeshes meshes f and writes base.obj (the surface, each granular material's and each body as objects) or
// base-surface.ply, base-<material>.ply and base-body<k>.ply, and says what it wrote. The surface is "surface" when
// the scene has no granular material, else the liquid's (liquidObject), as in the export.
func writeFrameMeshes(base, format string, f *sim.Frame, s field.Settings, shapes []scene.Shape, grains []grainObject, comment string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return "", err
	}
	m := newFrameMesher()
	surface, st, err := m.surface(f, s)
	if err != nil {
		return "", err
	}
	objs := []export.Object{{Name: "surface", Mesh: surface}}
	if len(grains) > 0 {
		objs[0].Name = liquidObject
	}
	for _, g := range grains {
		gm, gst, err := m.grains(f, g.number, s)
		if err != nil {
			return "", fmt.Errorf("%s: %w", g.object, err)
		}
		objs = append(objs, export.Object{Name: g.object, Mesh: gm})
		st.Triangles += gst.Triangles
	}
	if len(shapes) != len(f.Bodies) {
		shapes = nil // the tools changed the bodies since this frame: its poses are not theirs
	}
	bodies, err := m.bodies(shapes, f.Bodies[:len(shapes)])
	if err != nil {
		return "", err
	}
	what := fmt.Sprintf("%d triangles of surface", st.Triangles)
	if len(grains) > 0 {
		what += fmt.Sprintf(" (the liquid's and %d granular materials')", len(grains))
	}
	if len(bodies) > 0 {
		what += fmt.Sprintf(" and %d bodies", len(bodies))
	}
	if format == export.MeshOBJ {
		for k, b := range bodies {
			objs = append(objs, export.Object{Name: fmt.Sprintf("body%d", k), Mesh: b})
		}
		path := base + ".obj"
		err := atomicfile.Write(path, func(w io.Writer) error { return export.WriteOBJObjects(w, objs, comment) })
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("saved %s to %s", what, path), nil
	}
	path := base + "-surface." + format
	if err := writeMeshFile(path, surface, format, comment+", fluid surface"); err != nil {
		return "", err
	}
	for k, g := range grains {
		gp := fmt.Sprintf("%s-%s.%s", base, g.object, format)
		if err := writeMeshFile(gp, objs[1+k].Mesh, format, fmt.Sprintf("%s, surface of material %d (%s)", comment, g.number, g.object)); err != nil {
			return "", err
		}
	}
	for k, b := range bodies {
		if err := writeMeshFile(fmt.Sprintf("%s-body%d.%s", base, k, format), b, format, fmt.Sprintf("%s, rigid body %d", comment, k)); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("saved %s to %s (and a file per material and body beside it)", what, path), nil
}

// stopExport detaches the export from the solver and closes its queue after the last frame the solver gave it.
func (v *viewer) stopExport() {
	e := v.export
	if e == nil {
		return
	}
	v.export = nil
	v.drv.SetFrameSink(nil)
	v.drv.Do(func(sim.Solver) (string, error) { e.stop(); return "", nil }, nil) // after the sink is gone
	v.exported = append(v.exported, e)
}

// pollCaptures reports recordings and exports that have finished writing, and stops a recording or an export whose
// writer failed (the simulation goes on).
func (v *viewer) pollCaptures() {
	for v.meshing > 0 {
		select {
		case r := <-v.meshDone:
			v.meshing--
			v.status.set(r.msg, r.isErr)
			continue
		default:
		}
		break
	}
	if v.rec != nil {
		if err := v.rec.failed(); err != nil {
			v.stopRecording(nil)
		}
	}
	if v.export != nil && v.export.failed() != nil {
		v.stopExport()
	}
	v.finishing = slices.DeleteFunc(v.finishing, func(r *recorder) bool {
		select {
		case <-r.done:
			v.status.set(r.summary())
			return true
		default:
			return false
		}
	})
	v.exported = slices.DeleteFunc(v.exported, func(e *liveExport) bool {
		select {
		case <-e.done:
			v.status.set(e.summary())
			return true
		default:
			return false
		}
	})
}

// finishCaptures waits until the files of stopped recordings and exports are complete. The driver is closed, so
// no export's sink is called any more.
func (v *viewer) finishCaptures() {
	for ; v.meshing > 0; v.meshing-- {
		r := <-v.meshDone
		fmt.Fprintln(v.stderr, "slosh: "+r.msg)
	}
	for _, r := range v.finishing {
		<-r.done
		msg, _ := r.summary()
		fmt.Fprintln(v.stderr, "slosh: "+msg)
	}
	v.finishing = nil
	for _, e := range v.exported {
		e.stop()
		<-e.done
		msg, _ := e.summary()
		fmt.Fprintln(v.stderr, "slosh: "+msg)
	}
	v.exported = nil
}

// ReplayExt is the extension of replay files the panel saves.
const ReplayExt = ".replay.json"

// startLog begins a new replay recording from the reset with sc just asked of the driver.
func (v *viewer) startLog(sc *scene.Scene) {
	log := v.log
	v.drv.Do(func(s sim.Solver) (string, error) { return "", log.Start(s.Name(), sc, s.Params(), FrameDt) }, nil)
}

// breakLog marks the sitting as one a replay cannot reproduce until the next reset.
func (v *viewer) breakLog(reason string) {
	log := v.log
	v.drv.Do(func(sim.Solver) (string, error) { log.Break(reason); return "", nil }, nil)
}

// saveReplay writes the sitting since the last reset, up to the step the solver has reached, as a replay file.
func (v *viewer) saveReplay(path string) {
	log := v.log
	v.drv.Do(func(s sim.Solver) (string, error) {
		f, err := log.Snapshot(s.Stats().Steps)
		if err != nil {
			return "", err
		}
		if err := replay.Write(path, f); err != nil {
			return "", err
		}
		return fmt.Sprintf("saved the replay of %d steps (%d actions) to %s; `slosh replay %s --record clip.mp4` renders it",
			f.Steps, len(f.Actions), path, path), nil
	}, nil)
}
