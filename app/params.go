package app

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/scene"
)

// renderPrefix is the prefix of the renderer's parameters (render.color, ...).
const renderPrefix = "render"

// setup is a command line resolved against its scene: the scene opened, the mode picked, and the assignments
// split between the solver and the renderer and checked against the mode's parameters.
type setup struct {
	sc          *scene.Scene
	mode        Mode           // the mode asked for (a Compute mode may still fall back when it is built)
	solverSets  []string       // "name=value", in order: --particles first, then the solver's --set
	renderSets  []string       // render.* assignments
	surfaceSets []string       // surface.* assignments
	load        *savefile.File // the save file to start from (--load), or nil
}

// prepare opens the scene and checks the options against the mode's parameters, before anything heavy (a window,
// a solver) is made. Scene errors are plain errors; errors in the options are *UsageError.
func prepare(modes []Mode, o *Options) (*setup, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	var load *savefile.File
	var sc *scene.Scene
	if o.Load != "" {
		f, err := savefile.Load(o.Load)
		if err != nil {
			return nil, err
		}
		load, sc = f, f.Scene
	} else {
		name := o.Scene
		if name == "" {
			name = DefaultScene
		}
		var err error
		if sc, err = scene.Open(name); err != nil {
			return nil, err
		}
	}
	modeName := o.Mode
	if modeName == "" && load != nil {
		m, err := savedMode(modes, load)
		if err != nil {
			return nil, err
		}
		modeName = m.Name
	}
	if modeName == "" {
		modeName = sc.Mode
		if modeName != "" {
			if _, ok := findMode(modes, modeName); !ok {
				return nil, fmt.Errorf("%s: mode: unknown mode %q; the modes are %s", sc.Source, modeName, strings.Join(ModeNames(modes), ", "))
			}
		}
	}
	if modeName == "" {
		modeName = DefaultMode
	}
	m, err := lookupMode(modes, modeName)
	if err != nil {
		return nil, err
	}
	if load != nil {
		if err := checkLoad(modes, m, load); err != nil {
			return nil, err
		}
		if err := checkParticles(m, load); err != nil {
			return nil, err
		}
	}
	st := &setup{sc: sc, mode: m, load: load}

	check := m.Params()
	if o.Particles > 0 {
		p, ok := sim.ParamNamed(check, "particles")
		if !ok {
			return nil, usagef("--particles: mode %s has no particle-count parameter", m.Name)
		}
		st.solverSets = append(st.solverSets, p.Name+"="+strconv.Itoa(o.Particles))
	}
	for _, a := range o.Sets {
		name, _, ok := strings.Cut(a, "=")
		if !ok {
			return nil, usagef("--set %q: want name=value, e.g. --set pbf.iterations=6", a)
		}
		if !st.addViewSet(name, a) {
			st.solverSets = append(st.solverSets, a)
		}
	}
	// Check everything on a throwaway set now, so a typo fails before a window opens or a long run starts.
	if _, err := applyModeParams(check, sc, m); err != nil {
		return nil, err
	}
	if err := assignAll(check, st.solverSets, m.Name); err != nil {
		return nil, err
	}
	if err := st.configureRender(render.NewParams()); err != nil {
		return nil, err
	}
	if err := st.configureSurface(SurfaceParams()); err != nil {
		return nil, err
	}
	return st, nil
}

// addViewSet keeps a --set of parameter name for the renderer or the surface (its kernels, meshes and upsampling),
// and says whether it was one.
func (st *setup) addViewSet(name, assignment string) bool {
	switch prefixOf(strings.TrimSpace(name)) {
	case renderPrefix:
		st.renderSets = append(st.renderSets, assignment)
	case surfacePrefix, meshPrefix, upsamplePrefix:
		st.surfaceSets = append(st.surfaceSets, assignment)
	default:
		return false
	}
	return true
}

// configure applies the scene's overrides for the parameters of mode m's solver (applyModeParams; or a save file's
// parameters), then the command line's assignments. It returns notes about scene overrides meant for other modes,
// which are skipped.
func (st *setup) configure(set *param.Set, m Mode) ([]string, error) {
	var notes []string
	var err error
	if st.load != nil {
		err = set.ApplyPreset(st.load.Params, "")
	} else {
		notes, err = applyModeParams(set, st.sc, m)
	}
	if err != nil {
		return nil, err
	}
	if err := assignAll(set, st.solverSets, m.Name); err != nil {
		return nil, err
	}
	return notes, nil
}

// configureRender applies the scene's render.* overrides, then the command line's render.* assignments.
func (st *setup) configureRender(set *param.Set) error {
	if _, err := applySceneParams(set, st.sc, "the renderer"); err != nil {
		return err
	}
	return assignAll(set, st.renderSets, "the renderer")
}

// configureSurface applies the scene's surface.* overrides, then the command line's surface.* assignments.
func (st *setup) configureSurface(set *param.Set) error {
	if _, err := applySceneParams(set, st.sc, "the surface"); err != nil {
		return err
	}
	if err := assignAll(set, st.surfaceSets, "the surface"); err != nil {
		return err
	}
	if err := set.Check(); err != nil {
		return usagef("--set: %v", err) // before anything is simulated
	}
	return nil
}

// viewPrefix says whether parameters with this prefix belong to the view (renderer, surface) rather than a mode.
func viewPrefix(p string) bool {
	return p == renderPrefix || p == surfacePrefix || p == meshPrefix || p == upsamplePrefix
}

// assignAll applies --set assignments in order; an invalid one is a *UsageError naming it (and, from param, its
// range).
func assignAll(set *param.Set, assignments []string, owner string) error {
	for _, a := range assignments {
		if err := set.Assign(a); err != nil {
			return usagef("invalid --set for %s: %v", owner, err)
		}
	}
	return nil
}

// applySceneParams applies the scene's parameter overrides whose prefix is one of set's (pbf.*, render.*): an
// unknown name or a bad value under such a prefix is an error naming the scene file. Overrides with other prefixes
// belong to other modes (or to the renderer) and are left alone; the notes list those meant for other modes.
func applySceneParams(set *param.Set, sc *scene.Scene, owner string) ([]string, error) {
	if len(sc.Params) == 0 {
		return nil, nil
	}
	own := prefixes(set)
	mine := map[string]json.RawMessage{}
	var notes []string
	names := make([]string, 0, len(sc.Params))
	for n := range sc.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := prefixOf(n)
		switch {
		case own[p]:
			mine[n] = sc.Params[n]
		case !viewPrefix(p) && !viewSet(own):
			notes = append(notes, fmt.Sprintf("%s: params: %s is for another mode; %s skips it", sc.Source, n, owner))
		}
	}
	snap, err := set.Decode(mine)
	if err != nil {
		return nil, fmt.Errorf("%s: params: %w", sc.Source, err)
	}
	if err := set.Restore(snap); err != nil {
		return nil, fmt.Errorf("%s: params: %w", sc.Source, err)
	}
	return notes, nil
}

// applyModeParams applies to mode m's parameter set what scene sc says of it: the values m derives from the scene
// (Mode.SceneParams: flip's sand parameters from its granular materials), then the scene's own params, which win,
// as applySceneParams does. Every place a scene opens in a mode applies its parameters through it: the command
// line's setup and sessions (run, bench, export, record), the window's mode and scene switches and the A/B's B of
// another mode. A reset of the same scene applies nothing, so what the user set since stays.
func applyModeParams(set *param.Set, sc *scene.Scene, m Mode) ([]string, error) {
	return applySceneParams(set, modeScene(m, sc), m.Name)
}

// modeScene is sc with the parameters mode m derives from it under its own params (a shallow copy), or sc itself
// when m derives none.
func modeScene(m Mode, sc *scene.Scene) *scene.Scene {
	if m.SceneParams == nil {
		return sc
	}
	derived := m.SceneParams(sc)
	if len(derived) == 0 {
		return sc
	}
	c := *sc
	c.Params = make(scene.ParamValues, len(derived)+len(sc.Params))
	maps.Copy(c.Params, derived)
	maps.Copy(c.Params, sc.Params)
	return &c
}

// viewSet says whether a set's prefixes are the view's (so overrides for other modes are not its business).
func viewSet(own map[string]bool) bool {
	for p := range own {
		if viewPrefix(p) {
			return true
		}
	}
	return false
}

// carry assigns the values of snap to the parameters of set with the same names (a mode switch keeps what the
// two modes share). Values the new set rejects are left at its own.
func carry(set *param.Set, snap param.Snapshot) {
	for _, p := range set.All() {
		if v, ok := snap[p.Name]; ok {
			_ = p.Set(v) // out of the new mode's bounds: keep its value
		}
	}
}

// particleCount is the set's particle-count parameter (sim.ParamNamed "particles") when it is set, else 0 (the
// scene's resolution): what a mode or scene switch carries over, so that `--particles` or the panel's count
// holds in every mode, not only the first.
func particleCount(set *param.Set) int {
	if p, ok := sim.ParamNamed(set, "particles"); ok {
		return int(p.Get().F)
	}
	return 0
}

// carryCount gives set's particle-count parameter the count n, when n is set and the mode has one.
func carryCount(set *param.Set, n int) error {
	if n <= 0 {
		return nil
	}
	if p, ok := sim.ParamNamed(set, "particles"); ok {
		if err := p.Set(param.Value{F: float64(n)}); err != nil {
			return fmt.Errorf("the particle count %d in %s: %w", n, p.Name, err)
		}
	}
	return nil
}

// prefixes returns the first dotted parts of a set's names: {"pbf"} for PBF.
func prefixes(set *param.Set) map[string]bool {
	out := map[string]bool{}
	for _, p := range set.All() {
		out[prefixOf(p.Name)] = true
	}
	return out
}

func prefixOf(name string) string {
	p, _, _ := strings.Cut(name, ".")
	return p
}

// intParam reads an integer parameter by last name, or def when the set has none.
func intParam(set *param.Set, last string, def int) int {
	if p, ok := sim.ParamNamed(set, last); ok && (p.Kind == param.Int) {
		return int(p.Get().F)
	}
	return def
}

// FrameDt is the simulated time of one frame, seconds.
const FrameDt = sim.FrameDt
