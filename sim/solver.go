// Package sim holds what every solver shares with the application: the Solver contract, the Frame a renderer or
// exporter copies out, and the Stats a panel shows. The solvers live in sub-packages (sim/pbf, ...); nothing
// below sim imports GL, the window or the panel.
package sim

import (
	"fmt"
	"time"

	"github.com/slosh/slosh/internal/stage"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// Solver is what every mode, CPU or GPU, looks like to the application.
type Solver interface {
	// Name is the mode's short name: "pbf", "pbf-cpu", ...
	Name() string
	// Params is every tunable, described once.
	Params() *param.Set
	// Reset builds state from a scene, or says clearly what it cannot do.
	Reset(sc *scene.Scene) error
	// BeginFrame is called once at the start of every display frame of frameDt seconds and returns how many
	// steps of frameDt/n the frame takes: time stepping belongs to the solver, which picks n from a CFL condition
	// on its fastest particle or cell. n must be a function of the simulation's state (and of the frames before
	// it since the reset) alone, never of timing, so that replays and loaded states step as the original did.
	BeginFrame(frameDt float64) (n int)
	// Step advances by dt seconds (one sub-step). It returns an error instead of producing non-finite state.
	Step(dt float64) error
	// Frame copies out what a renderer or exporter needs.
	Frame(dst *Frame)
	// Stats reports counts, per-stage timings and the solver residual.
	Stats() Stats
}

// Warner is a Solver that can say, after a Reset, which of the scene's or its parameters' settings lie outside
// what its method was shown to handle or will make it crawl: it runs them, and the application says so once, on
// stderr and in the window's status line, rather than refusing them.
type Warner interface {
	Warnings() []string
}

// Frame is a copy of a solver's particle state. Slices are reused between calls when they are large enough.
type Frame struct {
	N   int
	Pos [][4]float32 // xyz, w unused
	Vel [][4]float32 // xyz, w unused
	Rho []float32    // density relative to rest density, ρ/ρ0
	ID  []uint32     // stable particle identity, 0..N-1 at reset
	// Body says per particle which rigid body it belongs to (−1: fluid); nil when the scene has no bodies.
	Body   []int32
	Bodies []BodyState // the rigid bodies
	Radius float32     // particle radius for drawing, m
	Time   float64     // simulated time, s
	Steps  int

	// Material says per particle what it is made of, as a material number (scene.Particle.Material: 0 the
	// scene's default material, k its Materials[k−1]) indexing Palette; nil when the solver has one fluid.
	// Resize leaves it alone: a solver that has materials sizes it to N itself.
	Material []uint8
	// Palette is each material number's colour, linear RGB in [0, 1] (ScenePalette). With Material set, the
	// renderer tints each particle's fluid with Palette[Material[i]]; without either it draws one water colour.
	Palette [][3]float32
	// Phase says per particle how it is drawn, meshed and exported (its material's kind's phase): liquid particles
	// make the water surface, grains and solids are drawn as shaded particles in their material's colour and
	// left out of the surface. nil when every particle is liquid (or a body's, as Body says). Resize leaves it
	// alone, as Material.
	Phase []scene.Phase
	// Temperature is each particle's temperature, °C, for a solver that has heat (sph with a scene's solids,
	// diffusivities or heaters); nil otherwise. Resize leaves it alone, as Material.
	Temperature []float32
}

// Liquid says whether particle i is part of the liquid: not a rigid body's (Body) and of the liquid phase (Phase).
// The renderer's surface, the mesher, upsampling and the exporters' surfaces take only these.
func (f *Frame) Liquid(i int) bool {
	if i < len(f.Body) && f.Body[i] >= 0 {
		return false
	}
	return i >= len(f.Phase) || f.Phase[i] == scene.PhaseLiquid
}

// AllLiquid says whether every particle is part of the liquid, without looking at each when neither Body nor
// Phase is set.
func (f *Frame) AllLiquid() bool {
	if f.Body == nil && f.Phase == nil {
		return true
	}
	for i := range f.N {
		if !f.Liquid(i) {
			return false
		}
	}
	return true
}

// Kinds is a Solver that says which kinds of material (scene.Kind) it simulates; a solver that does not say
// simulates liquids only.
type Kinds interface {
	Kinds() []scene.Kind
}

// KindsOf is the kinds of material s simulates.
func KindsOf(s Solver) []scene.Kind {
	if k, ok := s.(Kinds); ok {
		return k.Kinds()
	}
	return []scene.Kind{scene.KindLiquid}
}

// Reset resets s with sc after checking that s simulates every kind of material sc has: a scene with sand given to a
// mode without sand is refused with a message naming the material, its kind and the mode, never run as water.
func Reset(s Solver, sc *scene.Scene) error {
	if err := sc.CheckKinds(s.Name(), KindsOf(s)); err != nil {
		return err
	}
	return s.Reset(sc)
}

// BodyState is a rigid body's pose: a point x of the body as the scene placed it is now at
// Center + Rot·(x − Origin).
type BodyState struct {
	Center [3]float32 // centre of mass
	Rot    [4]float32 // orientation, unit quaternion x, y, z, w
	Origin [3]float32 // the centre of mass as the scene placed the body
}

// Resize sets N and grows the slices to hold n particles.
func (f *Frame) Resize(n int) {
	f.N = n
	f.Pos = grow(f.Pos, n)
	f.Vel = grow(f.Vel, n)
	f.Rho = grow(f.Rho, n)
	f.ID = grow(f.ID, n)
}

// ScenePalette is the colour of each of sc's material numbers, for Frame.Palette: DefaultMaterial's at 0, then
// each of sc.Materials.
func ScenePalette(sc *scene.Scene) [][3]float32 {
	out := make([][3]float32, sc.MaterialCount())
	for k := range out {
		c := sc.MaterialOf(k).Color
		out[k] = [3]float32{float32(c[0]), float32(c[1]), float32(c[2])}
	}
	return out
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Pass is the time one stage of a step took (the GL timers' type too: internal/stage).
type Pass = stage.Pass

// Stats is what a solver reports about its last step. Particles, Steps and Time are exact for the newest step
// (replays key tool actions on Steps); a GPU solver's measurements may describe a step or two before it, as their
// records come back from the GPU.
type Stats struct {
	Particles int
	Steps     int     // steps taken since the reset (a loaded state carries its count)
	Time      float64 // simulated time, s

	// StepMs is the wall-clock (CPU) or GPU time of the last step; Passes splits it by stage.
	StepMs float64
	Passes []Pass

	// Substeps is how many steps the frame this step belongs to takes (BeginFrame's choice).
	Substeps int
	// MaxSpeed is the fastest particle's speed after the step, m/s.
	MaxSpeed float64
	// Figures are the mode's own numbers about the step: residuals, iterations, density errors, neighbour
	// counts. The panel lists them and plots those marked Plot; `slosh run` and `slosh bench` print them.
	Figures []Figure

	// Notice is something the step wants the user to know that is not an error: "the particle budget is
	// reached". Empty on most steps.
	Notice string
}

// NonFiniteError reports that a step produced NaN or Inf. Solvers return it from Step after restoring the last
// finite state, so the caller can report it and keep going.
type NonFiniteError struct {
	Mode     string
	Step     int     // the step that failed
	Count    int     // particles (or cells) with non-finite state
	Restored float64 // simulated time of the state that was restored
	// Speed, when positive, says the state was finite but diverging: Count particles moved faster than Speed m/s,
	// more than the most substeps a frame can follow.
	Speed float64
	// Advice is the mode's own word on what to change ("raise pbf.iterations or lower pbf.vorticity"); empty
	// gives a generic hint.
	Advice string
}

func (e *NonFiniteError) Error() string {
	advice := e.Advice
	if advice == "" {
		advice = "lower the CFL number or the forces, or raise the substeps"
	}
	if e.Speed > 0 {
		return fmt.Sprintf("%s: step %d diverged: %d particles moved faster than %.3g m/s; restored the state at t=%.3fs (%s)",
			e.Mode, e.Step, e.Count, e.Speed, e.Restored, advice)
	}
	return fmt.Sprintf("%s: step %d produced non-finite state in %d particles; restored the state at t=%.3fs (%s)",
		e.Mode, e.Step, e.Count, e.Restored, advice)
}

// Timer accumulates wall-clock time per named stage; solvers on the CPU use it to fill Stats.Passes.
type Timer struct {
	passes []Pass
	start  time.Time
}

// Begin starts timing a new step.
func (t *Timer) Begin() { t.passes = t.passes[:0]; t.start = time.Now() }

// Mark ends the current stage, naming it; repeated names accumulate.
func (t *Timer) Mark(name string) {
	now := time.Now()
	ms := float64(now.Sub(t.start).Nanoseconds()) / 1e6
	t.start = now
	for i := range t.passes {
		if t.passes[i].Name == name {
			t.passes[i].Ms += ms
			return
		}
	}
	t.passes = append(t.passes, Pass{Name: name, Ms: ms})
}

// Passes returns a copy of the stages of the last step and their total.
func (t *Timer) Passes() ([]Pass, float64) {
	out := append([]Pass(nil), t.passes...)
	var total float64
	for _, p := range out {
		total += p.Ms
	}
	return out, total
}
