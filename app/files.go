package app

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/internal/machine"
	"github.com/slosh/slosh/internal/safeio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/scene"
)

// Saving and loading from the window and the command line: whole states (sim/savefile: parameters, the scene as
// set up, and the solver's state), scenes written from the current setup, and parameter presets. A file that
// cannot be read or does not fit never touches the running simulation: the new state is built beside it and only
// replaces it once everything worked.

// SaveDir is where the window saves when the path box names no folder.
const SaveDir = "saves"

// defaultSavePath names a new file for the scene: saves/<scene>-<time><ext>.
func defaultSavePath(sc *scene.Scene, ext string) string {
	return filepath.Join(SaveDir, fmt.Sprintf("%s-%s%s", fileLabel(sc), time.Now().Format("20060102-150405"), ext))
}

// fileLabel is the scene's name made safe for a file name.
func fileLabel(sc *scene.Scene) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' {
			return '-'
		}
		return r
	}, filepath.Base(sceneLabel(sc)))
}

// withExt checks a path given to save to, gives it the extension ext when it has none, and makes its folder. A
// path that names a folder (one that exists, or one ending in a separator), a device or anything else that is not
// a regular file is refused rather than turned into a name slosh made up: "--save adir" wrote adir.slosh, "--save
// /dev/null" created /dev/null.slosh and "--save newdir/" wrote newdir/.slosh. So is a symbolic link
// (atomicfile.Check), which a save would not write through.
func withExt(path, ext string) (string, error) {
	example := "run" + ext
	switch base := filepath.Base(path); {
	case path == "":
		return "", fmt.Errorf("no file name: name the file to save to, e.g. %s", example)
	case strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator)) || base == "." || base == "..":
		return "", fmt.Errorf("%s names a folder, not a file: name a file in it, e.g. %s", path, filepath.Join(path, example))
	}
	if fi, err := os.Stat(path); err == nil {
		switch {
		case fi.IsDir():
			return "", fmt.Errorf("%s is a folder, not a file: name a file in it, e.g. %s", path, filepath.Join(path, example))
		case !fi.Mode().IsRegular():
			return "", fmt.Errorf("%s is %s, not a regular file: name a file to save to", path, safeio.Kind(fi.Mode()))
		}
	}
	if filepath.Ext(path) == "" {
		path += ext
	}
	if _, err := atomicfile.Check(path); err != nil {
		return "", err
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("cannot make the folder for %s: %w (choose a writable folder)", path, err)
		}
	}
	return path, nil
}

// simTime writes a simulated time for messages: "2.50s"; a time too large for fixed digits (a damaged file's)
// in a few significant ones, never hundreds of digits.
func simTime(t float64, digits int) string {
	if math.Abs(t) < 1e6 {
		return fmt.Sprintf("%.*fs", digits, t)
	}
	return fmt.Sprintf("%.4gs", t)
}

// liveScene is the scene as set up now: the opened scene with the bodies dropped since, in the solver's order.
func liveScene(sc *scene.Scene, bodies []scene.Body) *scene.Scene {
	out := sc.Clone()
	out.Bodies = append([]scene.Body(nil), bodies...)
	return out
}

// saveStateFile writes the solver's whole state with its parameters and the live scene. It runs where the solver
// lives (the runner's goroutine for CPU modes).
func saveStateFile(path, mode string, s sim.Solver, live *scene.Scene) (string, error) {
	st, ok := s.(sim.Stateful)
	if !ok {
		return "", fmt.Errorf("mode %s cannot save its state", mode)
	}
	var f sim.Frame
	s.Frame(&f)
	file, err := savefile.Capture(mode, s.Params(), live, st, f.Time, f.Steps, f.N)
	if err != nil {
		return "", err
	}
	if err := savefile.Save(path, file); err != nil {
		return "", err
	}
	return fmt.Sprintf("saved %d particles at t=%s to %s", f.N, simTime(f.Time, 2), path), nil
}

// restoreSession builds a solver of mode m from a save file: parameters, reset with the file's scene, then its
// state. On error nothing is left behind.
func restoreSession(modes []Mode, m Mode, g glInfo, f *savefile.File) (sim.Solver, Mode, string, error) {
	if err := checkParticles(m, f); err != nil {
		return nil, m, "", err
	}
	s, run, note, err := openSolver(modes, m, g)
	if err != nil {
		return nil, run, "", err
	}
	fail := func(err error) (sim.Solver, Mode, string, error) {
		deleteSolver(s)
		return nil, run, "", fmt.Errorf("%s: %w", f.Path, err)
	}
	if run.StateKind != f.Kind {
		deleteSolver(s)
		return nil, run, "", cannotLoad(modes, run, f)
	}
	if err := s.Params().ApplyPreset(f.Params, ""); err != nil {
		deleteSolver(s)
		return nil, run, "", err // the preset's source names the file
	}
	if err := sim.Reset(s, f.Scene); err != nil {
		return fail(err)
	}
	if err := readState(s, run, f); err != nil {
		deleteSolver(s)
		return nil, run, "", err
	}
	return s, run, note, nil
}

// loadModeFor is the mode to load a file in: the running one when it reads the file's kind of state, else the
// mode that saved it (see savedMode).
func loadModeFor(modes []Mode, running Mode, f *savefile.File) (Mode, error) {
	if running.StateKind != "" && running.StateKind == f.Kind {
		return running, nil
	}
	return savedMode(modes, f)
}

// savedMode is the mode that saved f, when this slosh has it and it saves f's kind of state. Errors name the file
// and are failures, not usage errors: the command line was right, the file is what cannot be loaded (saved by a
// slosh with another mode, or damaged).
func savedMode(modes []Mode, f *savefile.File) (Mode, error) {
	m, ok := findMode(modes, f.Mode)
	if !ok {
		return Mode{}, fmt.Errorf("%s was saved in mode %q (state kind %q), which this slosh does not have (its modes are %s): %s",
			f.Path, f.Mode, f.Kind, strings.Join(ModeNames(modes), ", "), loadHint(modes, f.Kind))
	}
	if m.StateKind != f.Kind {
		return Mode{}, fmt.Errorf("%s was saved in mode %s, but its state is of kind %q and mode %s saves %q: the file is damaged or was edited",
			f.Path, f.Mode, f.Kind, m.Name, m.StateKind)
	}
	return m, nil
}

// checkParticles refuses a save file that declares more particles than mode m can hold within the memory a
// simulation may take here (Mode.ParticleBytes), before any of its state is read: the message names the count
// and the limit, rather than whatever a damaged state would have said first.
func checkParticles(m Mode, f *savefile.File) error {
	if m.ParticleBytes <= 0 {
		return nil
	}
	limit := machine.MemoryBudget(8<<30, 0)
	if most := limit / m.ParticleBytes; int64(f.Particles) > most {
		return fmt.Errorf("%s declares %d particles; mode %s holds at most %d within the %s a simulation may take on this machine (at least %s a particle): the file is damaged, or was saved on a machine with more memory",
			f.Path, f.Particles, m.Name, most, machine.Bytes(limit), machine.Bytes(m.ParticleBytes))
	}
	return nil
}

// checkLoad checks that mode m, asked for with --mode, loads f's kind of state; the error is a usage error that
// says which modes do.
func checkLoad(modes []Mode, m Mode, f *savefile.File) error {
	if m.StateKind != "" && m.StateKind == f.Kind {
		return nil
	}
	return &UsageError{Err: cannotLoad(modes, m, f)}
}

// cannotLoad is the error for a mode that does not load f's kind of state, the same from the command line and
// the window.
func cannotLoad(modes []Mode, m Mode, f *savefile.File) error {
	kind := "cannot save or load states"
	if m.StateKind != "" {
		kind = fmt.Sprintf("loads state kind %q", m.StateKind)
	}
	return fmt.Errorf("%s was saved in mode %s (state kind %q); mode %s %s: %s", f.Path, f.Mode, f.Kind, m.Name, kind, loadHint(modes, f.Kind))
}

// loadHint says which modes load a kind of state.
func loadHint(modes []Mode, kind string) string {
	var names []string
	for _, m := range modes {
		if m.StateKind != "" && m.StateKind == kind {
			names = append(names, m.Name)
		}
	}
	if len(names) == 0 {
		return "no mode of this slosh loads it"
	}
	return fmt.Sprintf("load it in mode %s (--mode %s, or no --mode)", strings.Join(names, " or "), names[0])
}

// loadStateFile replaces the running simulation by a save file's, or reports why it cannot and keeps it.
func (v *viewer) loadStateFile(path string) {
	f, err := savefile.Load(path)
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	m, err := loadModeFor(v.modes, v.drv.Mode(), f)
	if err != nil {
		v.status.set(err.Error(), true) // names the file
		return
	}
	s, run, note, err := restoreSession(v.modes, m, v.glInfo(), f)
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	paused := v.drv.Paused()
	v.closeDriver()
	v.panels.ClearHistory()
	cam, same := *v.cam, f.Scene.Name == v.sc.Name && f.Scene.Domain == v.sc.Domain
	v.setScene(f.Scene)
	if same {
		*v.cam = cam // a state of the scene on screen keeps the view the user chose
	}
	v.drv = v.newDriver(run, s, paused)
	v.resetHands(f.Scene)
	v.breakLog("a saved state was loaded")
	msg := fmt.Sprintf("loaded %s: %d particles at t=%s in mode %s", path, f.Particles, simTime(f.Time, 2), run.Name)
	if note != "" {
		msg += " (" + note + ")"
	}
	v.status.set(msg, false)
}

// saveState saves the running simulation.
func (v *viewer) saveState(path string) {
	path, err := withExt(path, ".slosh")
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	live, mode := liveScene(v.sc, v.hands.bodies), v.drv.Mode().Name
	v.drv.Do(func(s sim.Solver) (string, error) { return saveStateFile(path, mode, s, live) }, nil)
	v.savePath = path
}

// sceneFromState is the live setup as a scene: the bodies where they are now (at rest), and the parameters.
func sceneFromState(live *scene.Scene, f *sim.Frame, params *param.Set, mode string) *scene.Scene {
	out := live.Clone()
	for i := range out.Bodies {
		if i >= len(f.Bodies) {
			break
		}
		b := &out.Bodies[i]
		pose := f.Bodies[i]
		b.Shape = b.Shape.Posed(vec64(pose.Origin), vec64(pose.Center), quatMatrix(pose.Rot))
		b.Shape = fitInside(b.Shape, out.Domain)
		b.Velocity, b.Spin = scene.Vec3{}, scene.Vec3{}
	}
	out.Mode = mode
	out.Params = scene.ParamValues(params.Preset(mode).Params)
	return out
}

// fitInside moves a shape into the domain by as much as it sticks out, so that the saved scene validates: a body
// resting on the floor or against a wall reaches it to within half a particle spacing, and a scene's bodies must
// lie inside the domain. Opened again, it settles back into place.
func fitInside(sh scene.Shape, dom scene.Box) scene.Shape {
	const margin = 1e-9 // m: re-posing the shape rounds its bounds, which must end inside, not on the wall
	b := sh.Bounds()
	var d scene.Vec3
	for k := 0; k < 3; k++ {
		if lo := dom.Min[k] - b.Min[k]; lo > 0 {
			d[k] += lo + margin
		}
		if hi := b.Max[k] - dom.Max[k]; hi > 0 {
			d[k] -= hi + margin
		}
	}
	if d == (scene.Vec3{}) {
		return sh
	}
	c := b.Center()
	return sh.Posed(c, c.Add(d), scene.Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
}

func vec64(v [3]float32) scene.Vec3 { return scene.Vec3{float64(v[0]), float64(v[1]), float64(v[2])} }

// quatMatrix is a body's rotation (sim/pbf's quaternion) as a scene matrix.
func quatMatrix(q [4]float32) scene.Mat3 {
	m := rigid.Quat(q).Matrix()
	var out scene.Mat3
	for r := range 3 {
		for c := range 3 {
			out[r][c] = float64(m[r][c])
		}
	}
	return out
}

// saveScene writes the current setup as a scene file that --scene opens.
func (v *viewer) saveScene(path string) {
	path, err := withExt(path, ".json")
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	sc := sceneFromState(liveScene(v.sc, v.hands.bodies), v.drv.PickFrame(), v.drv.Params(), v.drv.Mode().Name)
	sc.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	data, err := sc.Marshal()
	if err == nil {
		err = atomicfile.WriteBytes(path, data)
	}
	if err != nil {
		v.status.set(fmt.Sprintf("save scene: %v", err), true)
		return
	}
	v.status.set(fmt.Sprintf("saved the setup as scene %s (open it with --scene %s)", path, path), false)
}

// savePreset writes the mode's parameters as a preset.
func (v *viewer) savePreset(path string) {
	path, err := withExt(path, ".json")
	if err != nil {
		v.status.set(err.Error(), true)
		return
	}
	data, err := v.drv.Params().MarshalPreset(v.drv.Mode().Name)
	if err == nil {
		err = atomicfile.WriteBytes(path, data)
	}
	if err != nil {
		v.status.set(fmt.Sprintf("save parameters: %v", err), true)
		return
	}
	v.status.set("saved the parameters to "+path, false)
}

// loadPreset applies a parameter preset to the running mode, all or nothing.
func (v *viewer) loadPreset(path string) {
	if err := v.drv.Params().LoadPresetFile(path, v.drv.Mode().Name); err != nil {
		v.status.set(err.Error(), true)
		return
	}
	v.drv.ParamsChanged()
	v.status.set("loaded the parameters from "+path+" (parameters that act on reset need one: r)", false)
}

// readState loads a save file's state into a solver reset with the file's scene.
func readState(s sim.Solver, m Mode, f *savefile.File) error {
	st, ok := s.(sim.Stateful)
	if !ok {
		return fmt.Errorf("%s: mode %s cannot load states", f.Path, m.Name)
	}
	if st.StateKind() != f.Kind {
		return cannotLoad(Modes(), m, f)
	}
	if err := f.ReadInto(st); err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	return nil
}
