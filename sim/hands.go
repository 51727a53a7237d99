package sim

import (
	"io"
	"math"

	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/scene"
)

// Hands is what the sandbox's tools ask of a solver: add and remove fluid, drop, remove and drag rigid bodies,
// and the kinematic tools (a paddle, a pouring emitter) that act inside its steps. Every call happens between
// steps, on the goroutine (or GL thread) that steps the solver. A mode without Hands gets no tools and the panel
// says so.
type Hands interface {
	// Budget is the most particles the solver holds (the parameter <mode>.budget, fixed at reset): adding fluid,
	// dropping bodies and emitters stop there instead of reallocating while the simulation runs.
	Budget() int
	// AddFluid adds fluid particles at rest positions with velocities and returns how many fitted in the budget.
	AddFluid(pos, vel [][3]float32) int
	// Drain removes the fluid particles within radius of center and returns them, so the action can be undone
	// with AddFluid.
	Drain(center [3]float32, radius float32) ([]Particle, error)
	// AddBody adds a rigid body sampled from its shape on the solver's lattice; fluid particles where it lands
	// are removed (and returned, for undo). It returns the new body's index.
	AddBody(b scene.Body) (index int, displaced []Particle, err error)
	// RemoveBody removes body i; bodies after it move down one index.
	RemoveBody(i int) error
	// DriveBody makes body i move with velocity v, without spinning, from the next step until it is called with
	// on = false, when the body goes on with the velocity it had: how a dragged body is thrown.
	DriveBody(i int, v [3]float32, on bool)
	// SetTools sets the tools that act inside the steps from the next one on.
	SetTools(t Tools)
}

// Particle is one particle's position and velocity, for tools that add or remove fluid, and its material
// (scene.Particle's numbering) where the mode keeps several fluids.
type Particle struct {
	Pos, Vel [3]float32
	Material uint8
}

// Refiller is a Hands that puts particles back as they were, material included: a mode with several fluids.
type Refiller interface {
	Refill(ps []Particle) int
}

// Refill puts removed particles back through h — undoing a drain — with their materials where h keeps them
// (Refiller), else as h's own fluid (AddFluid). It returns how many fitted in the budget.
func Refill(h Hands, ps []Particle) int {
	if r, ok := h.(Refiller); ok {
		return r.Refill(ps)
	}
	pos, vel := make([][3]float32, len(ps)), make([][3]float32, len(ps))
	for i, p := range ps {
		pos[i], vel[i] = p.Pos, p.Vel
	}
	return h.AddFluid(pos, vel)
}

// Tools are the kinematic tools acting inside the steps.
type Tools struct {
	// Paddle is a sphere that pushes fluid and bodies out of its way, moving as the app moves it; nil is none.
	Paddle *Paddle
	// Emitter pours a stream like a scene's emitters; nil is none.
	Emitter *scene.Emitter
	// Heat warms or cools the particles it reaches; nil is none. Modes without temperatures ignore it.
	Heat *HeatTool
}

// HeatTool is the heat tool held in the fluid: the particles within Radius of Center relax towards Temperature at
// Rate as inside a scene's heater (scene.Heater.Relax): a hot one melts solids, a cold one freezes what can freeze.
type HeatTool struct {
	Center      [3]float32
	Radius      float32 // m
	Temperature float32 // °C
	Rate        float32 // 1/s
}

// Heater is the tool as a scene heater: a sphere acting from now on.
func (h *HeatTool) Heater() *scene.Heater {
	return &scene.Heater{
		Shape:       scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{float64(h.Center[0]), float64(h.Center[1]), float64(h.Center[2])}, Radius: float64(h.Radius)},
		Temperature: float64(h.Temperature), Rate: float64(h.Rate),
	}
}

// Copy returns tools whose paddle, emitter and heat tool are copies of t's, so the caller may change its own.
func (t Tools) Copy() Tools {
	if t.Paddle != nil {
		p := *t.Paddle
		t.Paddle = &p
	}
	if t.Emitter != nil {
		e := *t.Emitter
		t.Emitter = &e
	}
	if t.Heat != nil {
		h := *t.Heat
		t.Heat = &h
	}
	return t
}

// Paddle is a kinematic sphere.
type Paddle struct {
	Center [3]float32
	Radius float32
}

// PaddleLimit is the largest paddle a scene takes, m: a sphere of an eighth of the domain's volume. A paddle that
// fills the tank leaves the water no room (a 1 m paddle in a 20 cm tank: Voronoi cells pressed to nothing, 1517 of
// 1521 particles removed as too close), so the window's paddle is held to it and a replay's refused beyond it.
func PaddleLimit(dom scene.Box) float32 {
	sz := dom.Size()
	return float32(math.Cbrt(sz[0] * sz[1] * sz[2] / 8 * 3 / (4 * math.Pi)))
}

// Stateful solvers save their whole state and load it back, so that a run continues as if never interrupted:
// the steps after a load match the steps the saved solver would have taken (bit for bit on the same solver).
type Stateful interface {
	// StateKind names the state's format ("pbf"); a state loads into any solver of the same kind.
	StateKind() string
	// WriteState writes the state.
	WriteState(w io.Writer) error
	// ReadState replaces the state with one WriteState wrote. On error the solver keeps the state it had.
	ReadState(r io.Reader) error
}

// ResolveBudget is a mode's particle budget for a reset with n particles: the budget parameter (never less than
// n), or when it is 0, room to pour as much again and at least 65536.
func ResolveBudget(budget int32, n int) int {
	if budget > 0 {
		return max(int(budget), n)
	}
	return max(2*n, 1<<16)
}

// CheckExpected runs check, before anything of sc is sampled, with the spacing and the particle budget that a reset
// at spacing or count (as scene.ResolveSpacing takes them) will have, from scene.Expect and ResolveBudget: a mode's
// memory check, so that a run the machine cannot hold is refused at once rather than after seconds of sampling. A
// scene Expect cannot estimate (no fluid volume) is left to the reset, which says what is wrong.
func CheckExpected(sc *scene.Scene, spacing float64, count int, budget int32, check func(spacing float64, budget int) error) error {
	d, n, err := sc.Expect(spacing, count)
	if err != nil || d == 0 {
		return err
	}
	return check(d, ResolveBudget(budget, n))
}

// Renumber is particles.Renumber, the one renumbering rule, for the modes whose hands are not the store's yet.
func Renumber(id []uint32, gone []bool) { particles.Renumber(id, gone) }
