package flip

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
)

// The save files (sim.Stateful) and the last good state. A state file is the shell's frame (shell.Format, version
// 2): the header, the emitters, the particles' table of columns, and flip's own part — the bodies (rigid.WriteSolids)
// and the power iteration's vector, int64 count and float64s. Version 1, flip's own layout before the particle
// store, is read by a converter (decodeV1), so that an old save continues bit for bit.

// State is the whole state of a FLIP run: particles (in their sorted order), bodies, emitters, and the power
// iteration's vector that estimates the next solve's spectral bound, so that a loaded run continues bit for bit.
// The solves themselves start from zero every step (on the dam break, warm starts from the last step's pressures
// cost MPRGP more expansion steps than they saved: 530 against 350 ms a step at 128×64×64).
type State struct {
	shell.Header                 // Spacing is the particle spacing, half the grid's cell size (Cell)
	particles.Snapshot           // the particles
	Emitted            []float32 // per scene emitter: how far its stream moved since its last layer
	ToolAcc            float32
	Bodies             []rigid.Solid
	// Eig is the power iteration's vector, one value per cell; empty until the first LCP solve
	Eig []float64
}

// Cell is the grid's cell size of the run st comes from, m.
func (st *State) Cell() float64 { return 2 * st.Spacing }

// saved is st's part that the shell keeps and checks, sharing st's slices.
func (st *State) saved() *shell.Saved {
	return &shell.Saved{Header: st.Header, Particles: st.Snapshot, Emitted: st.Emitted, ToolAcc: st.ToolAcc}
}

// setSaved takes the shell's part of st from sv.
func (st *State) setSaved(sv *shell.Saved) {
	st.Header, st.Snapshot, st.Emitted, st.ToolAcc = sv.Header, sv.Particles, sv.Emitted, sv.ToolAcc
}

// stateVersion1 is flip's own layout before the particle store: read by decodeV1, never written.
const stateVersion1 = 1

// format is flip's state file; its own part holds at most MaxBodies bodies and a vector of MaxCells values.
var format = shell.Format{Magic: "slosh flip state", Kind: Name, Version: 2,
	MaxExtra: 16 + scene.MaxFileBytes + scene.MaxBodies*int64(binary.Size(rigid.Motion{})) + 8 + 8*MaxCells}

// StateKind implements sim.Stateful.
func (s *Solver) StateKind() string { return Name }

// header is the shell's header of the run now.
func (s *Solver) header() shell.Header {
	return shell.Header{Spacing: s.spacing, Time: s.time, Steps: s.steps}
}

// eig is the power iteration's vector when a solve has made one for this grid.
func (s *Solver) eig() []float64 {
	if len(s.ps.Eigen) == len(s.p) {
		return s.ps.Eigen
	}
	return nil
}

// SaveState copies the whole state into dst, reusing its slices.
func (s *Solver) SaveState(dst *State) {
	sv := dst.saved()
	s.sh.Keep(sv, s.header())
	dst.setSaved(sv)
	dst.Bodies = dst.Bodies[:0]
	for i := range s.bodies {
		dst.Bodies = append(dst.Bodies, s.bodies[i].Solid)
	}
	dst.Eig = append(dst.Eig[:0], s.eig()...)
}

// save keeps the state as the last good one: at the shell's cadence (shell.Due), after a reset or a load, and after
// every edit of the hands.
func (s *Solver) save() { s.SaveState(&s.good) }

// load sets the state from a consistent st (the last good one, or a checked state of this grid).
func (s *Solver) load(st *State) error {
	if err := s.sh.Restore(st.saved()); err != nil {
		return err
	}
	s.bodies = make([]body, len(st.Bodies))
	for i := range st.Bodies {
		s.bodies[i] = body{Solid: st.Bodies[i]} // measured at this cell size: the same to the bit as newBody's
	}
	s.time, s.steps = st.Time, st.Steps
	s.ps.Eigen = s.ps.Eigen[:0]
	if len(st.Eig) == len(s.p) {
		s.ps.Eigen = append(s.ps.Eigen, st.Eig...)
	}
	s.stats.Particles = len(s.x)
	s.haveRho = false
	return nil
}

// WriteState implements sim.Stateful: the current format.
func (s *Solver) WriteState(w io.Writer) error {
	var own bytes.Buffer
	list := make([]*rigid.Solid, len(s.bodies))
	for i := range s.bodies {
		list[i] = &s.bodies[i].Solid
	}
	if err := rigid.WriteSolids(&own, s.sc, list, "flip state"); err != nil {
		return err
	}
	eig := s.eig()
	if err := binio.Write(&own, Name, int64(len(eig)), eig); err != nil {
		return err
	}
	return s.sh.Encode(w, format, s.header(), own.Bytes())
}

// ReadState implements sim.Stateful: the state must come from a run of the scene the solver was reset with, at the
// same cell size. On error the solver keeps its state.
func (s *Solver) ReadState(r io.Reader) error {
	if s.sc == nil {
		return fmt.Errorf("flip: load a state after a reset with its scene")
	}
	st, err := s.decode(r, s.sc)
	if err != nil {
		return err
	}
	if st.Cell() != s.g.h {
		return fmt.Errorf("flip: the state's cell size is %g m, this run's %g m: set flip.cell=%g and reset before loading", st.Cell(), s.g.h, st.Cell())
	}
	if err := s.checkFor(st); err != nil {
		return fmt.Errorf("flip: %w", err)
	}
	keep := s.good
	if err := s.load(st); err != nil {
		_ = s.load(&keep)
		return fmt.Errorf("flip: %w", err)
	}
	s.save()
	return nil
}

// checkFor checks a state against the solver's scene and grid: the shell's checks (the scene's emitters, the
// budget, the particles placed as a liquid at the state's spacing can be) and a vector of this grid's cells.
func (s *Solver) checkFor(st *State) error {
	if err := st.saved().CheckFor(s.sc, s.sh.Budget, Name+".budget"); err != nil {
		return err
	}
	if cells := s.g.cells(); len(st.Eig) != 0 && len(st.Eig) != cells {
		return fmt.Errorf("the state's grid has %d cells, this one %d: it was saved at another cell size", len(st.Eig), cells)
	}
	return nil
}

// DecodeState reads a state WriteState wrote (or an older version, converted), for a solver reset with scene sc
// (the bodies' shapes are parsed against its source, for their meshes, and measured at the state's cell size).
// Counts are checked against fixed limits, and against the bytes r holds when it says (a bytes.Reader does), before
// anything is allocated for them.
func DecodeState(r io.Reader, sc *scene.Scene) (*State, error) { return New().decode(r, sc) }

// decode is DecodeState against the solver's particle columns.
func (s *Solver) decode(r io.Reader, sc *scene.Scene) (*State, error) {
	version, br, left, err := shell.ReadVersion(r, format)
	if err != nil {
		return nil, err
	}
	var st *State
	switch version {
	case format.Version:
		st, err = s.decodeV2(br, left, sc)
	case stateVersion1:
		st, err = decodeV1(br, left, sc)
	default:
		return nil, fmt.Errorf("flip state version %d; this slosh reads versions %d and %d", version, stateVersion1, format.Version)
	}
	if err != nil {
		return nil, err
	}
	if err := st.Validate(); err != nil {
		return nil, fmt.Errorf("flip state: %w", err)
	}
	return st, nil
}

// decodeV2 reads the shell's frame and flip's own part.
func (s *Solver) decodeV2(br *bufio.Reader, left int64, sc *scene.Scene) (*State, error) {
	sv, err := s.sh.Decode(br, left, format)
	if err != nil {
		return nil, err
	}
	st := &State{}
	st.setSaved(sv)
	own := bytes.NewReader(sv.Extra)
	if st.Bodies, err = rigid.ReadSolids(own, sc, st.Cell(), "flip state"); err != nil {
		return nil, err
	}
	var neig int64
	if err := binary.Read(own, binary.LittleEndian, &neig); err != nil {
		return nil, fmt.Errorf("flip state: truncated power-iteration vector: %w", err)
	}
	if neig < 0 || neig > MaxCells || neig*8 != int64(own.Len()) {
		return nil, fmt.Errorf("flip state: a power-iteration vector of %d cells (at most %d) in %d bytes: the state is damaged", neig, MaxCells, own.Len())
	}
	if st.Eig, err = binio.ReadArray[float64](own, neig); err != nil {
		return nil, fmt.Errorf("flip state: truncated power-iteration vector: %w", err)
	}
	return st, nil
}

// Version 1: after the magic and the version, the cell size, each particle's mass (informative), the time and the
// steps; the counts of particles, emitters, the bodies' description's bytes, bodies and cells (int64 each); then
// positions, velocities, ids, the emitters' travel, the tool's, the description, the bodies' motions and the power
// iteration's vector.
const headBytesV1 = len("slosh flip state") + 4 + 8*9

// decodeV1 reads a version-1 state after its version into a State.
func decodeV1(br *bufio.Reader, left int64, sc *scene.Scene) (*State, error) {
	le := binary.LittleEndian
	var cell, mass float64
	var steps, n, ne, nj, nb, neig int64
	st := &State{}
	for _, v := range []any{&cell, &mass, &st.Time, &steps, &n, &ne, &nj, &nb, &neig} {
		if err := binary.Read(br, le, v); err != nil {
			return nil, fmt.Errorf("flip state: truncated header: %w", err)
		}
	}
	motion := int64(binary.Size(rigid.Motion{}))
	switch {
	case n < 0 || n > shell.MaxParticles:
		return nil, fmt.Errorf("flip state: particle count %d is outside [0, %d]", n, shell.MaxParticles)
	case ne < 0 || ne > shell.MaxEmitters:
		return nil, fmt.Errorf("flip state: emitter count %d is outside [0, %d]", ne, shell.MaxEmitters)
	case nj < 0 || nj > scene.MaxFileBytes:
		return nil, fmt.Errorf("flip state: the bodies' description of %d bytes is outside [0, %d]", nj, scene.MaxFileBytes)
	case nb < 0 || nb > scene.MaxBodies:
		return nil, fmt.Errorf("flip state: body count %d is outside [0, %d]", nb, scene.MaxBodies)
	case neig < 0 || neig > MaxCells:
		return nil, fmt.Errorf("flip state: cell count %d is outside [0, %d]", neig, MaxCells)
	case steps < 0 || steps > shell.MaxSteps:
		return nil, fmt.Errorf("flip state: steps: %d is outside [0, %d]", steps, int64(shell.MaxSteps))
	case !(mass > 0) || math.IsInf(mass, 0):
		return nil, fmt.Errorf("flip state: particle mass %g must be positive", mass)
	case !(cell > 0) || math.IsInf(cell, 0):
		return nil, fmt.Errorf("flip state: cell size %g must be positive", cell)
	}
	need := int64(headBytesV1) + n*36 + ne*4 + 4 + nj + nb*motion + neig*8
	if left >= 0 && need > left {
		return nil, fmt.Errorf("flip state: it declares %d particles, %d bodies and %d cells, %d bytes, but holds %d bytes: it is truncated or damaged",
			n, nb, neig, need, left)
	}
	st.Spacing, st.Steps = cell/2, int(steps)
	fail := func(what string, err error) (*State, error) {
		return nil, fmt.Errorf("flip state: truncated %s (%d particles declared): %w", what, n, err)
	}
	var err error
	if st.Pos, st.Vel, st.ID, err = binio.ReadParticles(br, n); err != nil {
		return nil, fmt.Errorf("flip state: %w (%d particles declared)", err, n)
	}
	particles.Put(&st.Snapshot, shell.MaterialColumn, make([]uint8, n)) // version 1 knew one material
	if st.Emitted, err = binio.ReadArray[float32](br, ne); err != nil {
		return fail("emitters", err)
	}
	if err := binary.Read(br, le, &st.ToolAcc); err != nil {
		return fail("tool", err)
	}
	// the description and the motions are rigid.WriteSolids' layout without its two counts in front
	bodies, err := binio.ReadArray[byte](br, nj+nb*motion)
	if err != nil {
		return fail("bodies", err)
	}
	var solids bytes.Buffer
	if err := binio.Write(&solids, Name, nb, nj, bodies); err != nil {
		return nil, err
	}
	if st.Bodies, err = rigid.ReadSolids(&solids, sc, cell, "flip state"); err != nil {
		return nil, err
	}
	if st.Eig, err = binio.ReadArray[float64](br, neig); err != nil {
		return fail("power-iteration vector", err)
	}
	if err := binio.End(br, Name); err != nil {
		return nil, err
	}
	return st, nil
}

// Validate checks what does not depend on the scene: finite values within bounds, ids a permutation (the bodies
// are checked as they are read, by rigid.ReadSolids).
func (st *State) Validate() error {
	if !(st.Spacing > 0) || math.IsInf(st.Spacing, 0) {
		return fmt.Errorf("cell size %g must be positive", st.Cell())
	}
	if !(st.Time >= 0) || st.Time > shell.MaxTime {
		return fmt.Errorf("time %g is outside [0, %g] s", st.Time, float64(shell.MaxTime))
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
	for i, e := range st.Eig {
		if !finite64(e) {
			return fmt.Errorf("the power iteration's value at cell %d is not finite", i)
		}
	}
	return nil
}
