package voronoi

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
)

// State is the whole state of a Voronoi run: everything a step reads that it does not compute, so that a loaded
// run continues bit for bit. The diagram, the clipped cells and the neighbourhoods are rebuilt by every step.
type State struct {
	Spacing float64 // particle spacing, m
	Time    float64 // simulated time, s
	Steps   int
	Pos     [][4]float32
	Vel     [][4]float32
	ID      []uint32
	// Pres is each particle's last pressure (velocity potential, m²/s): where the next solve starts with
	// voronoi.warm_start.
	Pres []float64
	// Emitted is how far each of the scene's emitters' streams has moved since it last added a layer, m; ToolAcc
	// the same for the pouring tool.
	Emitted []float32
	ToolAcc float32
	// Bodies are the rigid bodies as rigid.WriteSolids writes them, read against the solver's scene when the state
	// is loaded; empty is none.
	Bodies []byte
}

// N is the particle count.
func (st *State) N() int { return len(st.Pos) }

// The binary form: a magic line, a version, the scalars and counts, then the arrays, little-endian.
const (
	stateMagic        = "slosh voronoi state\n"
	stateVersion      = 1
	maxStateParticles = 2 * scene.MaxParticles
	maxStateEmitters  = 1 << 16
	// MaxStateTime bounds the simulated time a state may hold, s; maxStateSteps the steps.
	MaxStateTime  = 1e9
	maxStateSteps = 1 << 50
	// maxStatePressure bounds a stored pressure (a velocity potential, m²/s): a speed of sim.MaxStateSpeed over the
	// largest domain.
	maxStatePressure  = 1e12
	headBytes         = len(stateMagic) + 4 + 6*8 // magic, version, spacing, time, steps, two counts, tool
	particleBytes     = 16 + 16 + 4 + 8           // position, velocity, id, pressure
	maxStateBodyBytes = 16 + scene.MaxFileBytes + scene.MaxBodies*256
)

// Encode writes the state in its binary form.
func (st *State) Encode(w io.Writer) error {
	return binio.Write(w, "voronoi",
		[]byte(stateMagic), uint32(stateVersion), st.Spacing, st.Time, int64(st.Steps),
		int64(len(st.Pos)), int64(len(st.Emitted)),
		st.Pos, st.Vel, st.ID, st.Pres, st.Emitted, st.ToolAcc, int64(len(st.Bodies)), st.Bodies)
}

// DecodeState reads a state Encode wrote and validates it. The counts it declares are checked before anything is
// allocated for them: against fixed limits, and against the bytes left in r when r says how many.
func DecodeState(r io.Reader) (*State, error) {
	br, left, err := binio.Open(r, stateMagic, "voronoi")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	var version uint32
	var steps, n, ne int64
	st := &State{}
	for _, v := range []any{&version, &st.Spacing, &st.Time, &steps, &n, &ne} {
		if err := binary.Read(br, le, v); err != nil {
			return nil, fmt.Errorf("voronoi state: truncated header: %w", err)
		}
	}
	switch {
	case version != stateVersion:
		return nil, fmt.Errorf("voronoi state version %d; this slosh reads version %d", version, stateVersion)
	case n < 0 || n > maxStateParticles:
		return nil, fmt.Errorf("voronoi state: particle count %d is outside [0, %d]", n, maxStateParticles)
	case ne < 0 || ne > maxStateEmitters:
		return nil, fmt.Errorf("voronoi state: emitter count %d is outside [0, %d]", ne, maxStateEmitters)
	case steps < 0 || steps > maxStateSteps:
		return nil, fmt.Errorf("voronoi state: steps: %d is outside [0, %d]", steps, int64(maxStateSteps))
	}
	need := int64(headBytes) + n*particleBytes + ne*4
	if left >= 0 && need > left {
		return nil, fmt.Errorf("voronoi state: it declares %d particles and %d emitters, %d bytes, but holds %d bytes: it is truncated or damaged", n, ne, need, left)
	}
	st.Steps = int(steps)
	fail := func(what string, err error) (*State, error) {
		return nil, fmt.Errorf("voronoi state: truncated %s (%d particles declared): %w", what, n, err)
	}
	if st.Pos, st.Vel, st.ID, err = binio.ReadParticles(br, n); err != nil {
		return nil, fmt.Errorf("voronoi state: %w (%d particles declared)", err, n)
	}
	if st.Pres, err = binio.ReadArray[float64](br, n); err != nil {
		return fail("pressures", err)
	}
	if st.Emitted, err = binio.ReadArray[float32](br, ne); err != nil {
		return fail("emitters", err)
	}
	if err := binary.Read(br, le, &st.ToolAcc); err != nil {
		return fail("pouring tool", err)
	}
	var nb int64
	if err := binary.Read(br, le, &nb); err != nil {
		return fail("bodies' length", err)
	}
	if nb < 0 || nb > maxStateBodyBytes || (left >= 0 && need+nb > left) {
		return nil, fmt.Errorf("voronoi state: the bodies take %d bytes, outside [0, %d] or more than the state holds: it is truncated or damaged", nb, maxStateBodyBytes)
	}
	if st.Bodies, err = binio.ReadArray[byte](br, nb); err != nil {
		return fail("bodies", err)
	}
	if err := binio.End(br, "voronoi"); err != nil {
		return nil, err
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("voronoi state: %w", err)
	}
	return st, nil
}

// Validate checks what does not depend on the scene: array lengths, ids a permutation of 0..N−1, every value
// finite and within what a run can reach.
func (st *State) Validate() error {
	n := len(st.Pos)
	switch {
	case !(st.Spacing > 0) || math.IsInf(st.Spacing, 0):
		return fmt.Errorf("particle spacing %g must be a positive number", st.Spacing)
	case !(st.Time >= 0 && st.Time <= MaxStateTime):
		return fmt.Errorf("time: %.6g s is outside [0, %g] s", st.Time, float64(MaxStateTime))
	case st.Steps < 0 || st.Steps > maxStateSteps:
		return fmt.Errorf("steps: %d is outside [0, %d]", st.Steps, int64(maxStateSteps))
	case len(st.Pres) != n:
		return fmt.Errorf("%d particles but %d pressures", n, len(st.Pres))
	}
	if err := sim.CheckParticles(st.Pos, st.Vel, st.ID); err != nil {
		return err
	}
	for i, p := range st.Pres {
		if !(math.Abs(p) <= maxStatePressure) {
			return fmt.Errorf("particle %d has pressure %g m²/s; pressures are finite and within ±%g", i, p, float64(maxStatePressure))
		}
	}
	return emit.CheckTravel(st.Emitted, st.ToolAcc, float32(st.Spacing))
}

// CheckFor validates the state and checks that it fits a solver reset with sc and holding at most budget
// particles: the scene's emitters, every particle inside the scene's domain, speeds a solver can follow and a
// packing no tighter than a fluid at the state's spacing (sim.CheckPlacement).
func (st *State) CheckFor(sc *scene.Scene, budget int) error {
	if err := st.Validate(); err != nil {
		return err
	}
	if len(st.Emitted) != len(sc.Emitters) {
		return fmt.Errorf("the state has %d emitters, the scene %q has %d: it was saved with another scene", len(st.Emitted), sc.Name, len(sc.Emitters))
	}
	if st.N() > budget {
		return fmt.Errorf("the state has %d particles, over the budget of %d (raise voronoi.budget and reset)", st.N(), budget)
	}
	return sim.CheckPlacement(st.Pos, st.Vel, st.ID, sc, st.Spacing)
}

// StateKind implements sim.Stateful.
func (s *Solver) StateKind() string { return Name }

// SaveState copies the whole state into dst, reusing its slices.
func (s *Solver) SaveState(dst *State) {
	dst.Spacing, dst.Time, dst.Steps = s.spacing, s.time, s.step
	dst.Pos = append(dst.Pos[:0], s.x...)
	dst.Vel = append(dst.Vel[:0], s.v...)
	dst.ID = append(dst.ID[:0], s.id...)
	dst.Pres = append(dst.Pres[:0], s.p[:len(s.x)]...)
	dst.Emitted = append(dst.Emitted[:0], s.emitAcc...)
	dst.ToolAcc = s.toolAcc
}

// LoadState replaces the state with st after checking it against the scene the solver was reset with; a state of
// another spacing sets the solver's. On error the solver keeps its state.
func (s *Solver) LoadState(st *State) error {
	if s.sc == nil {
		return fmt.Errorf("voronoi: load a state after a reset with its scene")
	}
	if err := st.CheckFor(s.sc, s.budget); err != nil {
		return fmt.Errorf("voronoi: %w", err)
	}
	if st.Spacing != s.spacing {
		if err := s.sc.CheckSpacing(st.Spacing); err != nil {
			return fmt.Errorf("voronoi: the state's particle spacing does not fit the scene %q: %w", s.sc.Name, err)
		}
	}
	var list []rigid.ShapeBody
	if len(st.Bodies) > 0 {
		br := bytes.NewReader(st.Bodies)
		l, err := s.bodies.Read(br, s.sc, st.Spacing, "voronoi state")
		if err != nil {
			return err
		}
		if br.Len() != 0 {
			return fmt.Errorf("voronoi state: %d bytes after the bodies: the state is damaged", br.Len())
		}
		list = l
	}
	s.spacing = st.Spacing
	if err := s.prepare(); err != nil {
		return err
	}
	s.loadState(st)
	s.bodies.List = list
	s.save()
	return nil
}

// loadState sets the state from a consistent st (the last good one, or a checked state).
func (s *Solver) loadState(st *State) {
	s.x = append(s.x[:0], st.Pos...)
	s.v = append(s.v[:0], st.Vel...)
	s.id = append(s.id[:0], st.ID...)
	s.p = append(s.p[:0], st.Pres...)
	s.emitAcc = append(s.emitAcc[:0], st.Emitted...)
	s.toolAcc = st.ToolAcc
	s.time, s.step = st.Time, st.Steps
	s.proj.state = s.proj.state[:0] // no cells until the next step
	s.stats.Particles, s.stats.Steps, s.stats.Time = len(s.x), s.step, s.time
}

// WriteState implements sim.Stateful.
func (s *Solver) WriteState(w io.Writer) error {
	var st State
	s.SaveState(&st)
	var b bytes.Buffer
	if err := s.bodies.Write(&b, s.sc, "voronoi state"); err != nil {
		return err
	}
	st.Bodies = b.Bytes()
	return st.Encode(w)
}

// ReadState implements sim.Stateful: the state must come from a run of the scene the solver was reset with. On
// error the solver keeps its state.
func (s *Solver) ReadState(r io.Reader) error {
	st, err := DecodeState(r)
	if err != nil {
		return err
	}
	return s.LoadState(st)
}
