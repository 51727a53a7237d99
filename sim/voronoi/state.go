package voronoi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/shell"
)

// The state file is the shell's frame (sim/shell): the header, the emitters' travel, the particles with their
// pressure column (declare), and as the mode's own part the rigid bodies (rigid.WriteSolids). Everything a step
// reads that it does not compute is there, so a loaded run continues bit for bit; the diagram, the clipped cells
// and the neighbourhoods are rebuilt by every step. Version 1, written before the particle store, is converted
// (readVersion1).
var stateFormat = shell.Format{Magic: "slosh voronoi state\n", Kind: Name, Version: 2, MaxExtra: maxStateBodyBytes}

// maxStateBodyBytes bounds the bodies' part of a state.
const maxStateBodyBytes = 16 + scene.MaxFileBytes + scene.MaxBodies*256

// State is a Voronoi state as plain arrays, for tests and tools that look inside a state file.
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
	// Material is each particle's material number (scene.Particle.Material); nil is material 0 for every one.
	Material []uint8
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

// detached is a shell holding particle slices of its own, declared as a run's: for encoding and decoding states
// that are not the solver's.
func detached() *shell.Shell {
	h := &shell.Shell{Mode: Name}
	var x, v [][4]float32
	var id []uint32
	var p []float64
	var mat []uint8
	declare(h, &x, &v, &id, &p, &mat, anyMaterial)
	return h
}

// saved is st as the shell keeps a state.
func (st *State) saved() (*shell.Saved, error) {
	if len(st.Pres) != len(st.Pos) {
		return nil, fmt.Errorf("voronoi state: %d particles but %d pressures", len(st.Pos), len(st.Pres))
	}
	mat := st.Material
	if mat == nil {
		mat = make([]uint8, len(st.Pos))
	}
	if len(mat) != len(st.Pos) {
		return nil, fmt.Errorf("voronoi state: %d particles but %d materials", len(st.Pos), len(mat))
	}
	sv := &shell.Saved{Header: shell.Header{Spacing: st.Spacing, Time: st.Time, Steps: st.Steps},
		Particles: particles.Snapshot{Pos: st.Pos, Vel: st.Vel, ID: st.ID},
		Emitted:   st.Emitted, ToolAcc: st.ToolAcc, Extra: st.Bodies}
	particles.Put(&sv.Particles, "pressure", st.Pres)
	particles.Put(&sv.Particles, shell.MaterialColumn, mat)
	return sv, nil
}

// stateOf is a decoded state as plain arrays.
func stateOf(sv *shell.Saved) *State {
	p := &sv.Particles
	return &State{Spacing: sv.Spacing, Time: sv.Time, Steps: sv.Steps, Pos: p.Pos, Vel: p.Vel, ID: p.ID,
		Pres: particles.Get[float64](p, "pressure"), Material: particles.Get[uint8](p, shell.MaterialColumn), Emitted: sv.Emitted, ToolAcc: sv.ToolAcc, Bodies: sv.Extra}
}

// Encode writes the state in the current format, as it is: a damaged state makes a file the decoder refuses.
func (st *State) Encode(w io.Writer) error {
	sv, err := st.saved()
	if err != nil {
		return err
	}
	return encodeSaved(w, sv)
}

// encodeSaved writes a state in the current format.
func encodeSaved(w io.Writer, sv *shell.Saved) error {
	h := detached()
	if err := h.Restore(sv); err != nil {
		return fmt.Errorf("voronoi state: %w", err)
	}
	return h.Encode(w, stateFormat, sv.Header, sv.Extra)
}

// DecodeState reads a state of either version and checks what does not depend on the scene (shell.Decode).
func DecodeState(r io.Reader) (*State, error) {
	sv, err := decodeSaved(r)
	if err != nil {
		return nil, err
	}
	return stateOf(sv), nil
}

// decodeSaved reads a state of either version: the counts it declares are checked before anything is allocated
// for them, against fixed limits and against the bytes left in r when r says how many, and its values as
// shell.Decode checks them.
func decodeSaved(r io.Reader) (*shell.Saved, error) {
	version, br, left, err := shell.ReadVersion(r, stateFormat)
	if err != nil {
		return nil, err
	}
	switch version {
	case stateFormat.Version:
		return detached().Decode(br, left, stateFormat)
	case 1:
		return readVersion1(br, left)
	}
	return nil, fmt.Errorf("voronoi state version %d; this slosh reads versions 1 and %d", version, stateFormat.Version)
}

// Version 1: the magic, the version, then spacing float64, time float64, steps, particle count and emitter count
// int64, positions, velocities, ids, pressures float64, each emitter's travel float32, the pouring tool's float32,
// the bodies' length int64 and their bytes; little-endian.
const (
	v1HeadBytes     = 4 + 5*8 // after the magic: version, spacing, time, steps, two counts
	v1ParticleBytes = 16 + 16 + 4 + 8
	v1MaxParticles  = 2 * scene.MaxParticles
	v1MaxEmitters   = 1 << 16
)

// readVersion1 reads the rest of a version 1 state after its version and converts it: the same state written in
// the current format and decoded from it, so that it is checked as a current one is.
func readVersion1(br *bufio.Reader, left int64) (*shell.Saved, error) {
	le := binary.LittleEndian
	sv := &shell.Saved{}
	var steps, n, ne int64
	for _, v := range []any{&sv.Spacing, &sv.Time, &steps, &n, &ne} {
		if err := binary.Read(br, le, v); err != nil {
			return nil, fmt.Errorf("voronoi state: truncated header: %w", err)
		}
	}
	switch {
	case n < 0 || n > v1MaxParticles:
		return nil, fmt.Errorf("voronoi state: particle count %d is outside [0, %d]", n, v1MaxParticles)
	case ne < 0 || ne > v1MaxEmitters:
		return nil, fmt.Errorf("voronoi state: emitter count %d is outside [0, %d]", ne, v1MaxEmitters)
	case steps < 0 || steps > shell.MaxSteps:
		return nil, fmt.Errorf("voronoi state: steps: %d is outside [0, %d]", steps, int64(shell.MaxSteps))
	}
	need := int64(len(stateFormat.Magic)+v1HeadBytes) + n*v1ParticleBytes + ne*4 + 4 + 8
	if left >= 0 && need > left {
		return nil, fmt.Errorf("voronoi state: it declares %d particles and %d emitters, %d bytes, but holds %d bytes: it is truncated or damaged", n, ne, need, left)
	}
	sv.Steps = int(steps)
	fail := func(what string, err error) (*shell.Saved, error) {
		return nil, fmt.Errorf("voronoi state: truncated %s (%d particles declared): %w", what, n, err)
	}
	p := &sv.Particles
	var err error
	if p.Pos, p.Vel, p.ID, err = binio.ReadParticles(br, n); err != nil {
		return nil, fmt.Errorf("voronoi state: %w (%d particles declared)", err, n)
	}
	pres, err := binio.ReadArray[float64](br, n)
	if err != nil {
		return fail("pressures", err)
	}
	particles.Put(p, "pressure", pres)
	particles.Put(p, shell.MaterialColumn, make([]uint8, n)) // version 1 knew one material
	if sv.Emitted, err = binio.ReadArray[float32](br, ne); err != nil {
		return fail("emitters", err)
	}
	if err := binary.Read(br, le, &sv.ToolAcc); err != nil {
		return fail("pouring tool", err)
	}
	var nb int64
	if err := binary.Read(br, le, &nb); err != nil {
		return fail("bodies' length", err)
	}
	if nb < 0 || nb > maxStateBodyBytes || (left >= 0 && need+nb > left) {
		return nil, fmt.Errorf("voronoi state: the bodies take %d bytes, outside [0, %d] or more than the state holds: it is truncated or damaged", nb, maxStateBodyBytes)
	}
	if sv.Extra, err = binio.ReadArray[byte](br, nb); err != nil {
		return fail("bodies", err)
	}
	if err := binio.End(br, "voronoi"); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := encodeSaved(&b, sv); err != nil {
		return nil, err
	}
	return decodeSaved(bytes.NewReader(b.Bytes()))
}

// StateKind implements sim.Stateful.
func (s *Solver) StateKind() string { return Name }

// SaveState copies the whole state but the bodies into dst, reusing its slices.
func (s *Solver) SaveState(dst *State) {
	dst.Spacing, dst.Time, dst.Steps = s.spacing, s.time, s.step
	dst.Pos = append(dst.Pos[:0], s.x...)
	dst.Vel = append(dst.Vel[:0], s.v...)
	dst.ID = append(dst.ID[:0], s.id...)
	dst.Pres = append(dst.Pres[:0], s.p...)
	dst.Material = append(dst.Material[:0], s.material...)
	dst.Emitted = append(dst.Emitted[:0], s.hands.Emitted...)
	dst.ToolAcc = s.hands.ToolAcc
}

// LoadState loads st as ReadState loads it written: checked as a file is, against the scene the solver was reset
// with. On error the solver keeps its state.
func (s *Solver) LoadState(st *State) error {
	var b bytes.Buffer
	if err := st.Encode(&b); err != nil {
		return err
	}
	return s.ReadState(&b)
}

// WriteState implements sim.Stateful.
func (s *Solver) WriteState(w io.Writer) error {
	var b bytes.Buffer
	if err := s.bodies.Write(&b, s.sc, "voronoi state"); err != nil {
		return err
	}
	return s.hands.Encode(w, stateFormat, s.header(), b.Bytes())
}

// ReadState implements sim.Stateful: the state must come from a run of the scene the solver was reset with. On
// error the solver keeps its state.
func (s *Solver) ReadState(r io.Reader) error {
	sv, err := decodeSaved(r)
	if err != nil {
		return err
	}
	return s.load(sv)
}

// load replaces the state with a decoded one after checking it against the scene the solver was reset with, its
// budget and its bodies; a state of another spacing sets the solver's. On error the solver keeps its state.
func (s *Solver) load(sv *shell.Saved) error {
	if s.sc == nil {
		return fmt.Errorf("voronoi: load a state after a reset with its scene")
	}
	if err := sv.CheckFor(s.sc, s.hands.Budget, "voronoi.budget"); err != nil {
		return fmt.Errorf("voronoi: %w", err)
	}
	nm := s.sc.MaterialCount() // the renderer indexes the scene's palette by the materials
	for i, m := range particles.Get[uint8](&sv.Particles, shell.MaterialColumn) {
		if int(m) >= nm {
			return fmt.Errorf("voronoi: particle %d is of material %d, but the scene %q has %d", i, m, s.sc.Name, nm)
		}
	}
	if sv.Spacing != s.spacing {
		if err := s.sc.CheckSpacing(sv.Spacing); err != nil {
			return fmt.Errorf("voronoi: the state's particle spacing does not fit the scene %q: %w", s.sc.Name, err)
		}
	}
	var list []rigid.ShapeBody
	if len(sv.Extra) > 0 {
		br := bytes.NewReader(sv.Extra)
		l, err := s.bodies.Read(br, s.sc, sv.Spacing, "voronoi state")
		if err != nil {
			return err
		}
		if br.Len() != 0 {
			return fmt.Errorf("voronoi state: %d bytes after the bodies: the state is damaged", br.Len())
		}
		list = l
	}
	s.spacing = sv.Spacing
	if err := s.prepare(); err != nil {
		return err
	}
	s.setState(sv)
	s.bodies.List = list
	s.save()
	return nil
}
