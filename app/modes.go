package app

import (
	"fmt"
	"strings"

	"github.com/slosh/slosh/gpu/glh"
	gpupbf "github.com/slosh/slosh/gpu/pbf"
	"github.com/slosh/slosh/gpu/render"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/flip"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/reduced/game"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/sph"
	"github.com/slosh/slosh/sim/voronoi"
)

// DefaultMode is the mode used when neither the command line nor the scene names one.
const DefaultMode = gpupbf.Name

// DefaultScene is the scene opened when none is given.
const DefaultScene = "dambreak"

// Mode is one entry of the mode table: how to build a solver and what it needs.
type Mode struct {
	Name  string // the short name given to --mode
	Title string // what it simulates, for messages: "PBF"
	Desc  string // one line for `slosh params` and the README

	// Compute says the solver dispatches OpenGL 4.3 compute shaders and is stepped on the GL thread. Where the
	// context has none (or the solver cannot start), Fallback — a CPU mode with the same parameters — runs instead.
	Compute  bool
	Fallback string

	// StateKind is the kind of state the solver saves and loads (sim.Stateful); "" when it cannot. Modes of one
	// kind load each other's save files.
	StateKind string

	// ParticleBytes is the least memory the solver holds per particle, at any setting: a save file declaring more
	// particles than a simulation's memory budget holds at this rate is refused before its state is read
	// (checkParticles); 0 for no such check.
	ParticleBytes int64

	// Flat says the mode plays 2D scenes (scene.Scene.Flat) and its solver is a sim.Flat: the window draws its
	// FlatFrame instead of particles in 3D, and its hands are sim.FlatHands.
	Flat bool

	// Params returns a parameter set with the solver's names, bounds and defaults without building the solver (no
	// GL needed): for `slosh params`, for checking --set before a window opens, and as the panel's mirror of a
	// solver that runs on another goroutine.
	Params func() *param.Set

	// New builds the solver. Compute modes need ctx (nil when there is none) current on the calling thread; CPU
	// modes ignore it.
	New func(ctx *glh.Context) (sim.Solver, error)

	// SceneParams, when set, is what the mode's parameters are as a scene describes its materials, by full name
	// (flip: the sand parameters of the scene's granular materials): wherever a scene's params are applied to the
	// mode's set they are applied under them, so the scene's own params win (applyModeParams).
	SceneParams func(*scene.Scene) scene.ParamValues

	// AB is the comparison `b` starts before anything else is picked, "name=value": one of the mode's parameters
	// and B's value of it, a change that shows within a second of a dam break; "" for none (the first parameter).
	AB string
}

// gpuSolver is what a Compute mode's solver offers beyond sim.Solver: its particle buffers, drawn in place, and
// an explicit end of life for its GL objects.
type gpuSolver interface {
	sim.Solver
	Particles() render.Particles
	Delete()
}

// Modes returns the mode table. New modes (reduced, voronoi) are one entry each.
func Modes() []Mode {
	pbfParams := func() *param.Set {
		c := pbf.DefaultConfig()
		s := param.NewSet()
		c.Register(s)
		return s
	}
	return []Mode{
		{
			Name:      gpupbf.Name,
			Title:     "PBF",
			Desc:      "Position Based Fluids on the GPU (OpenGL 4.3 compute shaders); the sandbox's main mode",
			Compute:   true,
			Fallback:  pbf.Name,
			StateKind: "pbf",
			// the CPU solver's arrays: the GPU's buffers are as many, and a load reads the state on the CPU
			ParticleBytes: pbf.BytesPerParticle(0),
			Params:        pbfParams,
			AB:            abPBF,
			New: func(ctx *glh.Context) (sim.Solver, error) {
				s, err := gpupbf.New(ctx)
				if err != nil {
					return nil, err // not a typed nil in an interface
				}
				return s, nil
			},
		},
		{
			Name:          pbf.Name,
			Title:         "PBF",
			StateKind:     "pbf",
			ParticleBytes: pbf.BytesPerParticle(0),
			Desc:          "Position Based Fluids on the CPU: the GPU solver's reference, and its fallback without compute shaders",
			Params:        func() *param.Set { return pbf.New().Params() },
			AB:            abPBF,
			New:           func(*glh.Context) (sim.Solver, error) { return pbf.New(), nil },
		},
		{
			Name:          flip.Name,
			Title:         "FLIP",
			StateKind:     flip.Name,
			ParticleBytes: flip.LeastBytesPerParticle,
			Desc:          "mass-full FLIP on a MAC grid with unilateral incompressibility and blurred obstacles, or classic incompressible FLIP (flip.pressure), on the CPU",
			Params:        func() *param.Set { return flip.New().Params() },
			AB:            "flip.flip_ratio=0", // PIC beside FLIP: damped against lively
			SceneParams:   flip.SceneParams,
			New:           func(*glh.Context) (sim.Solver, error) { return flip.New(), nil },
		},
		{
			Name:          sph.Name,
			Title:         "SPH",
			StateKind:     sph.Name,
			ParticleBytes: sph.BytesPerParticle(0),
			Desc:          "Smoothed Particle Hydrodynamics on the CPU: PCISPH or WCSPH (sph.pressure), several fluids at real density ratios from the scene's materials, and elastic, plastic and rigid solids that melt and solidify",
			Params:        func() *param.Set { return sph.New().Params() },
			AB:            "sph.viscosity=0.1", // 20 times the default: syrup beside water
			New:           func(*glh.Context) (sim.Solver, error) { return sph.New(), nil },
		},
		{
			Name:          voronoi.Name,
			Title:         "Voronoi fluid",
			StateKind:     voronoi.Name,
			ParticleBytes: voronoi.BytesPerParticle,
			Desc:          "incompressible liquid made divergence free on the particles' Voronoi diagram clipped by the solids and the free surface (Sin, Bargteil & Hodgins 2009), on the CPU: no pressure constant to tune",
			Params:        func() *param.Set { return voronoi.New().Params() },
			AB:            "voronoi.gravity=0,-1.62,0", // the Moon's gravity: the same solver, a slower splash
			New:           func(*glh.Context) (sim.Solver, error) { return voronoi.New(), nil },
		},
		{
			Name:      game.Name,
			Title:     "reduced fluid",
			StateKind: game.Name,
			Desc:      "the 2D game: a model-reduced fluid (Laplacian eigenfunctions and currents you draw) carrying Box2D crates through vortex panels, on the CPU; plays the reduced-* levels",
			Flat:      true,
			Params:    func() *param.Set { return game.New().Params() },
			New:       func(*glh.Context) (sim.Solver, error) { return game.New(), nil },
		},
	}
}

// abPBF is the PBF modes' first comparison: XSPH viscosity 30 times the default, syrup beside water.
const abPBF = "pbf.xsph_c=0.3"

// ModeNames lists the names of the modes, in table order.
func ModeNames(modes []Mode) []string {
	out := make([]string, len(modes))
	for i, m := range modes {
		out[i] = m.Name
	}
	return out
}

// defaultModeFor is the mode a scene that names none opens in: DefaultMode for a 3D scene, the table's first 2D
// mode for a flat one.
func defaultModeFor(modes []Mode, flat bool) string {
	if !flat {
		return DefaultMode
	}
	for _, m := range modes {
		if m.Flat {
			return m.Name
		}
	}
	return DefaultMode
}

// findMode looks a mode up by name.
func findMode(modes []Mode, name string) (Mode, bool) {
	for _, m := range modes {
		if m.Name == name {
			return m, true
		}
	}
	return Mode{}, false
}

// lookupMode finds a mode by name or returns a usage error listing the modes.
func lookupMode(modes []Mode, name string) (Mode, error) {
	if m, ok := findMode(modes, name); ok {
		return m, nil
	}
	return Mode{}, usagef("unknown mode %q; the modes are %s", name, strings.Join(ModeNames(modes), ", "))
}

// glInfo is what mode selection needs to know about the OpenGL context.
type glInfo struct {
	ctx *glh.Context // nil: no context could be had
	err error        // why there is no context
	cap string       // the --gl cap the context was opened with ("" or "4.1")
}

// selectMode picks the mode that will run when m is asked for: m itself, or, when m needs compute shaders the
// context lacks, its fallback. note says why it fell back, in one sentence for the user; it is empty when m runs.
func selectMode(modes []Mode, m Mode, g glInfo) (Mode, string) {
	if !m.Compute || g.ctx != nil && g.ctx.Compute {
		return m, ""
	}
	fb, ok := findMode(modes, m.Fallback)
	if !ok {
		return m, "" // nothing to fall back to: building m reports the problem
	}
	var why string
	switch {
	case g.ctx == nil && g.err != nil:
		why = fmt.Sprintf("there is no OpenGL context (%v)", g.err)
	case g.ctx == nil:
		why = "there is no OpenGL context"
	case g.cap == "4.1":
		why = fmt.Sprintf("OpenGL 4.3 compute shaders are not available (capped at OpenGL 4.1 by --gl 4.1; the context is OpenGL %s on %s)",
			g.ctx.Version, g.ctx.Renderer)
	default:
		why = fmt.Sprintf("OpenGL 4.3 compute shaders are not available (OpenGL %s on %s)", g.ctx.Version, g.ctx.Renderer)
	}
	return fb, fmt.Sprintf("%s; running %s on the CPU (%s)", why, fb.Title, fb.Name)
}

// openSolver builds the solver for m, or for its fallback when m cannot run here (see selectMode) or its
// constructor fails. It returns the solver, the mode that actually runs, and a note saying why it fell back ("" when
// it did not). A Compute mode's solver must be deleted by the caller (deleteSolver).
func openSolver(modes []Mode, m Mode, g glInfo) (sim.Solver, Mode, string, error) {
	run, note := selectMode(modes, m, g)
	s, err := run.New(g.ctx)
	if err == nil {
		return s, run, note, nil
	}
	fb, ok := findMode(modes, run.Fallback)
	if !run.Compute || !ok {
		return nil, run, note, fmt.Errorf("starting mode %s: %w", run.Name, err)
	}
	s, ferr := fb.New(g.ctx)
	if ferr != nil {
		return nil, fb, note, fmt.Errorf("starting mode %s: %w (and its fallback %s: %v)", run.Name, err, fb.Name, ferr)
	}
	note = fmt.Sprintf("the GPU %s solver could not start (%v); running %s on the CPU (%s)", run.Title, err, fb.Title, fb.Name)
	return s, fb, note, nil
}

// deleteSolver frees a GPU solver's GL objects; CPU solvers need nothing.
func deleteSolver(s sim.Solver) {
	if g, ok := s.(gpuSolver); ok {
		g.Delete()
	}
}
