package flip

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
)

// State is the whole state of a FLIP run: particles (in their sorted order), bodies, emitters, and the power
// iteration's vector that estimates the next solve's spectral bound, so that a loaded run continues bit for bit.
// The solves themselves start from zero every step (on the dam break, warm starts from the last step's pressures
// cost MPRGP more expansion steps than they saved: 530 against 350 ms a step at 128×64×64).
type State struct {
	Cell    float64 // the grid's cell size, m
	Mass    float64 // each particle's mass when saved, kg (informative: the mass follows flip.density)
	Time    float64
	Steps   int
	Pos     [][4]float32
	Vel     [][4]float32
	ID      []uint32
	Emitted []float32 // per scene emitter: how far its stream moved since its last layer
	ToolAcc float32
	Bodies  []BodyState
	// Eig is the power iteration's vector, one value per cell; empty until the first LCP solve
	Eig []float64
}

// BodyState is a body as placed and where it is.
type BodyState struct {
	Spec    scene.Body
	Origin  [3]float64
	C       [3]float64
	Q       [4]float64
	V, W    [3]float64
	Driving bool
	Drive   [3]float64
}

const (
	stateMagic   = "slosh flip state"
	stateVersion = 1
	// maxStateParticles bounds what a state may claim before anything is allocated for it.
	maxStateParticles = 2 * scene.MaxParticles
	maxStateEmitters  = 1 << 16
	maxStateSteps     = 1 << 50
	maxStateCells     = MaxCells
	// maxBodiesJSON bounds the bodies' description.
	maxBodiesJSON = scene.MaxFileBytes
)

// Encode writes the state. The bodies' shapes travel as a scene's bodies (JSON), read back through the scene
// parser's validation.
func (st *State) Encode(w io.Writer, sc *scene.Scene) error {
	var specs []byte
	if len(st.Bodies) > 0 {
		one := *sc.Portable() // a copy: Portable returns the scene itself for built-in scenes, which must keep its bodies
		one.Bodies = make([]scene.Body, len(st.Bodies))
		for i := range st.Bodies {
			one.Bodies[i] = st.Bodies[i].Spec
		}
		var err error
		if specs, err = one.Marshal(); err != nil {
			return fmt.Errorf("writing the flip state's bodies: %w", err)
		}
	}
	items := []any{
		[]byte(stateMagic), uint32(stateVersion), st.Cell, st.Mass, st.Time, int64(st.Steps),
		int64(len(st.Pos)), int64(len(st.Emitted)), int64(len(specs)), int64(len(st.Bodies)), int64(len(st.Eig)),
		st.Pos, st.Vel, st.ID, st.Emitted, st.ToolAcc, specs,
	}
	for _, b := range st.Bodies {
		wire := rigid.Motion{Origin: b.Origin, C: b.C, Q: b.Q, V: b.V, W: b.W, Drive: b.Drive}
		if b.Driving {
			wire.Driving = 1
		}
		items = append(items, wire)
	}
	items = append(items, st.Eig)
	return binio.Write(w, "flip", items...)
}

const headBytes = len(stateMagic) + 4 + 8*9

// DecodeState reads a state Encode wrote, for a solver reset with scene sc (the bodies' shapes are parsed against
// its source, for their meshes). Counts are checked against fixed limits, and against the bytes r holds when it
// says (a bytes.Reader does), before anything is allocated for them.
func DecodeState(r io.Reader, sc *scene.Scene) (*State, error) {
	br, left, err := binio.Open(r, stateMagic, "flip")
	if err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	var version uint32
	var steps, n, ne, nj, nb, neig int64
	st := &State{}
	for _, v := range []any{&version, &st.Cell, &st.Mass, &st.Time, &steps, &n, &ne, &nj, &nb, &neig} {
		if err := binary.Read(br, le, v); err != nil {
			return nil, fmt.Errorf("flip state: truncated header: %w", err)
		}
	}
	switch {
	case version != stateVersion:
		return nil, fmt.Errorf("flip state version %d; this slosh reads version %d", version, stateVersion)
	case n < 0 || n > maxStateParticles:
		return nil, fmt.Errorf("flip state: particle count %d is outside [0, %d]", n, maxStateParticles)
	case ne < 0 || ne > maxStateEmitters:
		return nil, fmt.Errorf("flip state: emitter count %d is outside [0, %d]", ne, maxStateEmitters)
	case nj < 0 || nj > maxBodiesJSON:
		return nil, fmt.Errorf("flip state: the bodies' description of %d bytes is outside [0, %d]", nj, maxBodiesJSON)
	case nb < 0 || nb > scene.MaxBodies:
		return nil, fmt.Errorf("flip state: body count %d is outside [0, %d]", nb, scene.MaxBodies)
	case neig < 0 || neig > maxStateCells:
		return nil, fmt.Errorf("flip state: cell count %d is outside [0, %d]", neig, maxStateCells)
	case steps < 0 || steps > maxStateSteps:
		return nil, fmt.Errorf("flip state: steps: %d is outside [0, %d]", steps, int64(maxStateSteps))
	case (nb > 0) != (nj > 0):
		return nil, fmt.Errorf("flip state: %d bodies but a description of %d bytes: the state is damaged", nb, nj)
	}
	need := int64(headBytes) + n*36 + ne*4 + 4 + nj + nb*int64(binary.Size(rigid.Motion{})) + neig*8
	if left >= 0 && need > left {
		return nil, fmt.Errorf("flip state: it declares %d particles, %d bodies and %d cells, %d bytes, but holds %d bytes: it is truncated or damaged",
			n, nb, neig, need, left)
	}
	st.Steps = int(steps)
	fail := func(what string, err error) (*State, error) {
		return nil, fmt.Errorf("flip state: truncated %s (%d particles declared): %w", what, n, err)
	}
	if st.Pos, st.Vel, st.ID, err = binio.ReadParticles(br, n); err != nil {
		return nil, fmt.Errorf("flip state: %w (%d particles declared)", err, n)
	}
	if st.Emitted, err = binio.ReadArray[float32](br, ne); err != nil {
		return fail("emitters", err)
	}
	if err := binary.Read(br, le, &st.ToolAcc); err != nil {
		return fail("tool", err)
	}
	specs, err := binio.ReadArray[byte](br, nj)
	if err != nil {
		return fail("bodies", err)
	}
	wires, err := binio.ReadArray[rigid.Motion](br, nb)
	if err != nil {
		return fail("bodies", err)
	}
	if nb > 0 {
		src := "the saved state's bodies"
		if sc != nil && sc.Source != "" {
			src = sc.Source + " (the saved state's bodies)"
		}
		one, err := scene.Parse(specs, src)
		if err != nil {
			return nil, fmt.Errorf("flip state: %w", err)
		}
		if int64(len(one.Bodies)) != nb {
			return nil, fmt.Errorf("flip state: %d bodies described but %d declared", len(one.Bodies), nb)
		}
		for i, w := range wires {
			st.Bodies = append(st.Bodies, BodyState{Spec: one.Bodies[i], Origin: w.Origin, C: w.C, Q: w.Q, V: w.V, W: w.W,
				Driving: w.Driving != 0, Drive: w.Drive})
		}
	}
	if st.Eig, err = binio.ReadArray[float64](br, neig); err != nil {
		return fail("power-iteration vector", err)
	}
	if err := binio.End(br, "flip"); err != nil {
		return nil, err
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("flip state: %w", err)
	}
	return st, nil
}

// Validate checks what does not depend on the scene: finite values within bounds, ids a permutation.
func (st *State) Validate() error {
	if !(st.Cell > 0) || math.IsInf(st.Cell, 0) {
		return fmt.Errorf("cell size %g must be positive", st.Cell)
	}
	if !(st.Mass > 0) || math.IsInf(st.Mass, 0) {
		return fmt.Errorf("particle mass %g must be positive", st.Mass)
	}
	if !(st.Time >= 0) || st.Time > 1e9 {
		return fmt.Errorf("time %g is outside [0, 1e9] s", st.Time)
	}
	if err := sim.CheckParticles(st.Pos, st.Vel, st.ID); err != nil {
		return err
	}
	for i, e := range st.Emitted {
		if !finite32(e) || e < 0 {
			return fmt.Errorf("emitter %d's travel %g is not a finite distance", i, e)
		}
	}
	if !finite32(st.ToolAcc) || st.ToolAcc < 0 {
		return fmt.Errorf("the pouring tool's travel %g is not a finite distance", st.ToolAcc)
	}
	for i := range st.Bodies {
		b := &st.Bodies[i]
		vals := []float64{b.Q[0], b.Q[1], b.Q[2], b.Q[3]}
		vals = append(vals, b.Origin[:]...)
		vals = append(vals, b.C[:]...)
		vals = append(vals, b.V[:]...)
		vals = append(vals, b.W[:]...)
		vals = append(vals, b.Drive[:]...)
		for _, x := range vals {
			if !finite64(x) || math.Abs(x) > 1e6 {
				return fmt.Errorf("body %d is not finite or out of range", i)
			}
		}
		for _, v := range [][3]float64{b.V, b.Drive} {
			if sp := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]); sp > sim.MaxStateSpeed {
				return fmt.Errorf("body %d moves at %.3g m/s; at most %g m/s", i, sp, float64(sim.MaxStateSpeed))
			}
		}
		if l := b.Q[0]*b.Q[0] + b.Q[1]*b.Q[1] + b.Q[2]*b.Q[2] + b.Q[3]*b.Q[3]; math.Abs(l-1) > 1e-3 {
			return fmt.Errorf("body %d's orientation is not a unit quaternion (|q|² = %g)", i, l)
		}
	}
	for i, e := range st.Eig {
		if !finite64(e) {
			return fmt.Errorf("the power iteration's value at cell %d is not finite", i)
		}
	}
	return nil
}

// checkFor checks a state against the solver's scene and grid: the emitters the scene has, a grid of the same
// cells, within the budget, and its particles placed as a liquid in the scene can be (sim.CheckPlacement).
func (st *State) checkFor(sc *scene.Scene, cells, budget int) error {
	if len(st.Pos) > budget {
		return fmt.Errorf("%d particles exceed the particle budget of %d: raise flip.budget and reset", len(st.Pos), budget)
	}
	if len(st.Emitted) != len(sc.Emitters) {
		return fmt.Errorf("the state has %d emitters, the scene %d: it was saved with another scene", len(st.Emitted), len(sc.Emitters))
	}
	if len(st.Eig) != 0 && len(st.Eig) != cells {
		return fmt.Errorf("the state's grid has %d cells, this one %d: it was saved at another cell size", len(st.Eig), cells)
	}
	// inside the domain, at speeds a solver can follow, and no denser than a liquid seeded at half a cell
	return sim.CheckPlacement(st.Pos, st.Vel, st.ID, sc, st.Cell/2)
}
