package app

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/export/usd"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// ExportOptions configure `slosh export`.
type ExportOptions struct {
	Options
	Frames int    // simulated frames of 1/60 s, one PLY file each
	Out    string // the folder for the frames and the sidecar
	// Mesh, when set (export.MeshOBJ or export.MeshPLY), also writes each frame's fluid surface as a mesh (each
	// granular material's surface apart from the liquid's: an OBJ object, or a PLY file, of its own) and each rigid
	// body's shape at its pose, beside the particles.
	Mesh string
	// VDB also writes each frame's fluid surface as an OpenVDB level set (surface_000001.vdb on, sim/export/vdb)
	// from the implicit surface the meshes are made from, its voxel size mesh.cell × the particle spacing;
	// VDBDensity adds a fog volume named density to each file (1 inside the fluid, 0 outside the band).
	VDB, VDBDensity bool
	VDBVelocity     bool // adds a vector grid named velocity on the level set's band (the particles' velocities)
	// USD also writes the run as one USD stage (slosh.usda, sim/export/usd): the particles, the liquid's and each
	// granular material's surface meshed as Mesh does, the rigid bodies moving and the scene's camera, each frame
	// a layer of its own (usd.000001.usda on) that the stage plays as value clips.
	USD    bool
	Stdout io.Writer
}

// SidecarName is the sidecar's file name in an export folder.
const SidecarName = "slosh-export.json"

// Export simulates o.Frames frames and writes each as a particle cache, o.Out/frame_000001.ply on (sim/export:
// binary little-endian PLY with positions, velocities, density, id, body, material and phase, its header naming
// the materials), with a JSON sidecar describing the run and its materials. Every file is written under a temporary name and renamed, so a failure (a full disk, say) leaves the frames
// written so far valid, and the sidecar lists them.
func Export(o ExportOptions) error {
	modes := Modes()
	if o.Frames <= 0 {
		return usagef("--frames %d: must be at least 1", o.Frames)
	}
	if o.Out == "" {
		return usagef("--out: name the folder for the frames")
	}
	if o.Mesh != "" && !slices.Contains(export.MeshFormats, o.Mesh) {
		return usagef("--mesh %q: want one of %s", o.Mesh, strings.Join(export.MeshFormats, ", "))
	}
	stderr := o.stderr()
	st, err := prepare(modes, &o.Options)
	if err != nil {
		return err
	}
	var meshes *meshExport
	var vdbs *vdbExport
	if o.Mesh != "" && (st.mode.Flat || st.sc.IsFlat()) {
		return usagef("--mesh: mode %s plays a 2D scene, whose tracers mark the flow and are no fluid to mesh: export without --mesh", st.mode.Name)
	}
	if o.VDBDensity && !o.VDB {
		return usagef("--vdb-density adds a fog volume to the VDB files: add --vdb")
	}
	if o.VDBVelocity && !o.VDB {
		return usagef("--vdb-velocity adds a velocity grid to the VDB files: add --vdb")
	}
	if o.VDB && (st.mode.Flat || st.sc.IsFlat()) {
		return usagef("--vdb: mode %s plays a 2D scene, whose tracers mark the flow and are no fluid surface: export without --vdb", st.mode.Name)
	}
	if o.USD && o.Frames > usd.MaxFrames {
		return usagef("--usd: %d frames, but a USD stage numbers its frames' layers with six digits: at most %d frames", o.Frames, usd.MaxFrames)
	}
	if o.USD && (st.mode.Flat || st.sc.IsFlat()) {
		return usagef("--usd: mode %s plays a 2D scene, whose tracers mark the flow and are no fluid to mesh: export without --usd", st.mode.Name)
	}
	var stage *usdExport
	if o.Mesh != "" || o.VDB || o.USD {
		vs := defaultViewSettings()
		set := param.NewSet()
		vs.register(set)
		if err := st.configureSurface(set); err != nil {
			return err
		}
		if o.Mesh != "" {
			meshes = newMeshExport(o.Mesh, vs.mesh, set)
		}
		if o.VDB {
			vdbs = newVDBExport(vs.mesh, o.VDBDensity, o.VDBVelocity)
		}
		if o.USD {
			stage = newUSDExport(vs.mesh, st.sc, usdCamera(st.sc), fmt.Sprintf("slosh %s, mode %s, scene %s", softwareVersion(), st.mode.Name, st.sc.Name))
		}
	}
	ss, _, err := openHeadless(modes, st, o.GLCap, stderr)
	if err != nil {
		return err
	}
	defer ss.CloseAll()
	cw, err := newCacheWriter(o.Out, ss.mode.Name, st.sc, ss.solver.Params())
	if err != nil {
		return err
	}
	cw.setMeshes(meshes, bodyShapes(st.sc))
	cw.setVDB(vdbs)
	cw.setUSD(stage)
	if cw.note != "" {
		fmt.Fprintln(stderr, "slosh: note: "+cw.note)
	}
	start := time.Now()
	prog := newProgress(stderr)
	var steps []sim.Stats
	var frame sim.Frame
	for f := 1; f <= o.Frames; f++ {
		if steps, err = ss.frame(steps[:0]); err != nil {
			cw.finish()
			return fmt.Errorf("frame %d: %w (frames 1–%d are in %s)", f, err, f-1, o.Out)
		}
		ss.solver.Frame(&frame)
		if err := cw.write(&frame); err != nil {
			cw.finish()
			return err
		}
		prog.show(f, o.Frames, fmt.Sprintf("slosh: exported %d/%d frames, %d particles%s, %s left   ", f, o.Frames, frame.N,
			cw.meshNote(), eta(time.Since(start), f, o.Frames)))
	}
	prog.end()
	if err := cw.finish(); err != nil {
		return err
	}
	what := "frames"
	if meshes != nil {
		what = "frames, " + strings.ToUpper(o.Mesh) + " meshes"
	}
	if vdbs != nil {
		what += ", VDB level sets"
	}
	if stage != nil {
		what += ", the USD stage " + usd.RootName + " with its frame layers"
	}
	fmt.Fprintf(orStdout(o.Stdout), "wrote %d %s and %s to %s\n", o.Frames, what, SidecarName, o.Out)
	return nil
}

// cacheWriter writes a particle cache: one PLY per frame into a folder, and the sidecar describing them; with
// meshes, each frame's fluid surface and bodies as meshes too.
type cacheWriter struct {
	dir    string
	scene  string
	car    export.Sidecar
	note   string // temporary files of an earlier export that could not be removed; "" when none
	meshes *meshExport
	vdb    *vdbExport    // the fluid's level sets; nil without
	usd    *usdExport    // the USD stage; nil without
	shapes []scene.Shape // the rigid bodies' shapes, for their meshes
	// matComments name each material number in the header of a frame with a material column
	matComments []string
}

// setMeshes makes the writer mesh every frame with m (nil: no meshes), the granular materials apart from the
// liquid, the rigid bodies from their shapes.
func (c *cacheWriter) setMeshes(m *meshExport, shapes []scene.Shape) {
	c.meshes, c.shapes = m, shapes
	if m != nil {
		c.car.MeshFormat, c.car.MeshParams = m.format, m.params
		c.car.BodyMeshes = make([][]string, len(shapes))
		m.setGrains(c.car.Materials)
	}
}

// setVDB makes the writer write every frame's fluid surface as an OpenVDB level set with v (nil: none).
func (c *cacheWriter) setVDB(v *vdbExport) {
	c.vdb = v
	if v != nil {
		v.setGrains(c.car.Materials)
		c.car.VDBGrids = v.grids()
	}
}

// setUSD makes the writer write the run as a USD stage with u (nil: none).
func (c *cacheWriter) setUSD(u *usdExport) {
	c.usd = u
	if u != nil {
		u.setGrains(c.car.Materials)
		c.car.USD = usd.RootName
	}
}

// meshNote is what the last frame's meshes and level set were, for the progress line: "" without either.
func (c *cacheWriter) meshNote() string {
	var s string
	if c.meshes != nil {
		s = fmt.Sprintf(", %d triangles meshed in %s", c.meshes.last.Triangles, c.meshes.took.Round(time.Millisecond))
	}
	if c.vdb != nil && c.vdb.last != nil {
		s += fmt.Sprintf(", %d voxels in the level set (%s)", c.vdb.last.ActiveVoxels(), c.vdb.took.Round(time.Millisecond))
	}
	return s
}

// newCacheWriter makes the folder (with its parents) for an export of mode's frames of sc with params, and
// removes the temporary files an export into it that was killed left behind (atomicfile.RemoveStaleOf): those of
// the names an export writes, and no others, since the folder may hold the user's own files. Files in
// the folder are replaced, never written through: a symbolic link named like a frame or the sidecar is refused
// (atomicfile), so an export cannot write outside its folder.
func newCacheWriter(dir, mode string, sc *scene.Scene, params *param.Set) (*cacheWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("export: cannot make the folder %s: %w (choose a writable folder)", dir, err)
	}
	var note string
	ours := func(base string) bool { // not a user's .notes.1.tmp
		return base == SidecarName || export.IsFileName(base) || usd.IsFileName(base)
	}
	if _, err := atomicfile.RemoveStaleOf(dir, ours, time.Now()); err != nil {
		note = err.Error() // names them (another user's, in a shared folder): the export goes on beside them
	}
	sceneJSON, err := sc.Marshal()
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	mats := export.SceneMaterials(sc)
	return &cacheWriter{dir: dir, scene: sc.Name, note: note, matComments: export.MaterialComments(mats), car: export.Sidecar{
		Software: "slosh", Version: softwareVersion(), Mode: mode, Scene: sc.Source,
		SceneJSON: json.RawMessage(sceneJSON), Params: params.Preset(mode).Params,
		FrameDt: FrameDt, TimeStep: timeStepping(params), Materials: mats,
	}}, nil
}

// write writes f as the next frame. Each file is written under a temporary name and renamed, so a failure (a full
// disk, say) leaves the frames written so far valid.
func (c *cacheWriter) write(f *sim.Frame) error {
	n := c.car.Frames + 1
	cols := export.FrameColumns(f)
	path := export.FrameName(c.dir, n)
	comment := fmt.Sprintf("slosh %s, scene %s, frame %d, t=%.6f s", c.car.Mode, c.scene, n, f.Time)
	comments := []string{comment}
	if slices.Contains(export.Names(cols), "material") {
		comments = append(comments, c.matComments...)
	}
	if err := writePLYFile(path, f.N, cols, comments...); err != nil {
		return fmt.Errorf("export: %w (frames 1–%d are in %s)", err, n-1, c.dir)
	}
	var made *surfaces
	if c.meshes != nil {
		files, err := c.meshes.write(c.dir, n, f, c.shapes, comment)
		if err != nil {
			return fmt.Errorf("export: frame %d: %w (frames 1–%d are in %s)", n, err, n-1, c.dir)
		}
		c.car.Meshes = append(c.car.Meshes, files.surface)
		for k, name := range files.grains {
			m := &c.car.Materials[c.meshes.grains[k].number]
			m.Meshes = append(m.Meshes, name)
		}
		for b, name := range files.bodies {
			c.car.BodyMeshes[b] = append(c.car.BodyMeshes[b], name)
		}
		made = &files.made
	}
	if c.vdb != nil {
		name, err := c.vdb.write(c.dir, n, f)
		if err != nil {
			return fmt.Errorf("export: frame %d: %w (frames 1–%d are in %s)", n, err, n-1, c.dir)
		}
		c.car.VDB = append(c.car.VDB, name)
		c.car.VDBVoxelSize = c.vdb.last.Voxel
	}
	if c.usd != nil {
		name, err := c.usd.write(c.dir, n, f, cols, made)
		if err != nil {
			return fmt.Errorf("export: frame %d: %w (frames 1–%d are in %s)", n, err, n-1, c.dir)
		}
		c.car.USDFrames = append(c.car.USDFrames, name)
	}
	c.car.Files = append(c.car.Files, filepath.Base(path))
	c.car.ParticleRadius = float64(f.Radius)
	c.car.Columns = export.Names(cols)
	c.car.Frames = n
	c.car.Steps = append(c.car.Steps, f.Steps)
	return nil
}

// finish writes the sidecar listing the frames written.
func (c *cacheWriter) finish() error {
	return export.WriteSidecar(filepath.Join(c.dir, SidecarName), &c.car)
}

// writePLYFile writes one frame atomically, so an interrupted export leaves only whole frames.
func writePLYFile(path string, n int, cols []export.Column, comments ...string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		if err := export.WritePLY(bw, n, cols, comments...); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// eta estimates the time left after done of total items took elapsed: "1m30s", or for more than two days
// "12 days" ("3.5e+09 days" for a count no one will wait for), never a duration that overflowed.
func eta(elapsed time.Duration, done, total int) string {
	if done <= 0 {
		return "?"
	}
	left := float64(elapsed) / float64(done) * max(0, float64(total)-float64(done)) // floats: no int overflow
	const day = float64(24 * time.Hour)
	switch {
	case math.IsNaN(left):
		return "?"
	case left < 2*day:
		return time.Duration(left).Round(time.Second).String()
	case left < 1e6*day:
		return fmt.Sprintf("%.0f days", left/day)
	}
	return fmt.Sprintf("%.2g days", left/day)
}

// softwareVersion is the module version and VCS revision slosh was built from, as far as the build recorded them.
func softwareVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

// liveExport writes the frames the window simulates as a particle cache, from Start to Stop, on a goroutine: the
// solver (the runner's goroutine, or the GL thread for GPU modes) copies each frame into a free buffer and queues
// it, and waits only when the writer is behind by a few frames, so no frame is lost.
type liveExport struct {
	dir    string
	meshes string // the mesh format, "" without meshes
	vdb    bool   // with level sets
	usd    bool   // with a USD stage
	jobs   chan *sim.Frame
	free   chan *sim.Frame
	done   chan struct{}

	once  sync.Once
	tally // frames written, and the first error
}

// exportQueue is how many frames may wait for the disk.
const exportQueue = 4

// startLiveExport starts writing frames of mode (with params) of sc into dir; with meshes (nil: none) each frame's
// fluid surface and bodies (of shapes, as the export starts) as meshes too, with vdb (nil: none) the fluid's
// surface as a level set, and with stage (nil: none) the run as a USD stage.
func startLiveExport(dir, mode string, sc *scene.Scene, params *param.Set, meshes *meshExport, vdb *vdbExport, stage *usdExport, shapes []scene.Shape) (*liveExport, error) {
	cw, err := newCacheWriter(dir, mode, sc, params)
	if err != nil {
		return nil, err
	}
	cw.setMeshes(meshes, shapes)
	cw.setVDB(vdb)
	cw.setUSD(stage)
	e := &liveExport{dir: dir, meshes: cw.car.MeshFormat, vdb: vdb != nil, usd: stage != nil, jobs: make(chan *sim.Frame, exportQueue), free: make(chan *sim.Frame, exportQueue+1), done: make(chan struct{})}
	for i := 0; i < exportQueue+1; i++ {
		e.free <- new(sim.Frame)
	}
	go e.write(cw)
	return e, nil
}

// sink is the driver's frame sink: it copies f and queues it.
func (e *liveExport) sink(f *sim.Frame) {
	c := <-e.free
	copyFrame(c, f)
	e.jobs <- c
}

// copyFrame copies what the cache holds of src into dst, reusing dst's slices.
func copyFrame(dst, src *sim.Frame) {
	dst.Resize(src.N)
	copy(dst.Pos, src.Pos[:src.N])
	copy(dst.Vel, src.Vel[:src.N])
	copy(dst.Rho, src.Rho[:src.N])
	copy(dst.ID, src.ID[:src.N])
	dst.Body = append(dst.Body[:0], src.Body...)
	if src.Body == nil {
		dst.Body = nil
	}
	dst.Bodies = append(dst.Bodies[:0], src.Bodies...)
	dst.Material = append(dst.Material[:0], src.Material...)
	if src.Material == nil {
		dst.Material = nil
	}
	dst.Phase = append(dst.Phase[:0], src.Phase...)
	if src.Phase == nil {
		dst.Phase = nil
	}
	dst.Palette = append(dst.Palette[:0], src.Palette...)
	dst.Temperature = append(dst.Temperature[:0], src.Temperature...)
	if src.Temperature == nil {
		dst.Temperature = nil
	}
	dst.Radius, dst.Time, dst.Steps = src.Radius, src.Time, src.Steps
}

func (e *liveExport) write(cw *cacheWriter) {
	defer close(e.done)
	for f := range e.jobs {
		if e.failed() == nil {
			e.wrote(cw.write(f))
		}
		e.free <- f
	}
	if err := cw.finish(); err != nil {
		e.fail(err)
	}
}

// stop closes the queue once the driver no longer calls sink; done closes when the sidecar is written. Safe to call
// twice.
func (e *liveExport) stop() { e.once.Do(func() { close(e.jobs) }) }

// summary says what was written, once done is closed.
func (e *liveExport) summary() (string, bool) {
	if err := e.failed(); err != nil {
		return fmt.Sprintf("export stopped: %v", err), true
	}
	what := "PLY"
	if e.meshes != "" {
		what += " and " + strings.ToUpper(e.meshes) + " meshes"
	}
	if e.vdb {
		what += " and VDB level sets"
	}
	if e.usd {
		what += " and the USD stage " + usd.RootName
	}
	return fmt.Sprintf("exported %d frames to %s (%s, with %s)", e.frames(), e.dir, what, SidecarName), false
}
