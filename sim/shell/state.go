package shell

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/scene"
)

// The frame of every particle mode's state file:
//
//	magic (the mode's), version uint32,
//	spacing float64, time float64, steps int64, emitters int64, each emitter's travel float32, the tool's float32,
//	the particles (particles.Store.Encode: a versioned table of the columns by name),
//	the mode's own state: its length int64 and its bytes (rigid bodies, warm starts),
//
// little-endian. A mode reads the version itself (ReadVersion) and hands the rest to Decode, or, for an older
// version of its own, to the converter it keeps.

// Format names a mode's state file.
type Format struct {
	Magic   string // "slosh flip state\n"
	Kind    string // "flip", in messages
	Version uint32 // the version of this frame the mode writes
	// MaxExtra bounds the mode's own state, bytes.
	MaxExtra int64
}

// Limits on what a state may hold.
const (
	// MaxTime bounds a state's simulated time, s; MaxSteps its steps.
	MaxTime  = 1e9
	MaxSteps = 1 << 50
	// MaxEmitters bounds a state's emitter count.
	MaxEmitters = 1 << 16
	// MaxParticles is the most particles a state may declare.
	MaxParticles = 2 * scene.MaxParticles
	headBytes    = 4 + 5*8 + 4
)

// Header is what a state holds besides its particles and the mode's own part.
type Header struct {
	Spacing float64 // the particle spacing (flip too: half its cell), m
	Time    float64 // simulated time, s
	Steps   int
}

// Saved is a whole decoded or kept state of the shell: the header, the particles and the emitters' travel, and
// the mode's own part as bytes (decoded) — what Decode returns and Load applies.
type Saved struct {
	Header
	Particles particles.Snapshot
	Emitted   []float32
	ToolAcc   float32
	Extra     []byte
}

// Keep copies the shell's particles and emitters into dst (a last good state, or what WriteState encodes).
func (h *Shell) Keep(dst *Saved, hd Header) {
	dst.Header = hd
	h.P.Save(&dst.Particles)
	dst.Emitted = append(dst.Emitted[:0], h.Emitted...)
	dst.ToolAcc = h.ToolAcc
}

// Restore puts a kept or checked state's particles and emitters back.
func (h *Shell) Restore(src *Saved) error {
	if err := h.P.Load(&src.Particles); err != nil {
		return err
	}
	h.Emitted = append(h.Emitted[:0], src.Emitted...)
	h.ToolAcc = src.ToolAcc
	return nil
}

// Encode writes the shell's particles and emitters in the frame, with the header and the mode's own bytes.
func (h *Shell) Encode(w io.Writer, f Format, hd Header, extra []byte) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := binio.Write(bw, f.Kind, []byte(f.Magic), f.Version, hd.Spacing, hd.Time, int64(hd.Steps),
		int64(len(h.Emitted)), h.Emitted, h.ToolAcc); err != nil {
		return err
	}
	if err := h.P.Encode(bw); err != nil {
		return fmt.Errorf("writing the %s state: %w", f.Kind, err)
	}
	if err := binio.Write(bw, f.Kind, int64(len(extra)), extra); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the %s state: %w", f.Kind, err)
	}
	return nil
}

// ReadVersion opens a state of format f: it checks the magic and returns the version, the reader after it and how
// many bytes r held (−1 when unknown), for Decode or the mode's converter of an older version.
func ReadVersion(r io.Reader, f Format) (version uint32, br *bufio.Reader, left int64, err error) {
	br, left, err = binio.Open(r, f.Magic, f.Kind)
	if err != nil {
		return 0, nil, 0, err
	}
	if err := binary.Read(br, binary.LittleEndian, &version); err != nil {
		return 0, nil, 0, fmt.Errorf("%s state: truncated header: %w", f.Kind, err)
	}
	return version, br, left, nil
}

// Decode reads the rest of a state of f's version after ReadVersion, against the shell's columns, and checks what
// does not depend on the scene: the counts before anything is allocated for them, the ids a permutation, every
// value finite and within what a run reaches. The shell is not changed.
func (h *Shell) Decode(br *bufio.Reader, left int64, f Format) (*Saved, error) {
	le := binary.LittleEndian
	st := &Saved{}
	var steps, ne int64
	for _, v := range []any{&st.Spacing, &st.Time, &steps, &ne} {
		if err := binary.Read(br, le, v); err != nil {
			return nil, fmt.Errorf("%s state: truncated header: %w", f.Kind, err)
		}
	}
	if ne < 0 || ne > MaxEmitters {
		return nil, fmt.Errorf("%s state: emitter count %d is outside [0, %d]", f.Kind, ne, MaxEmitters)
	}
	if left >= 0 {
		left -= int64(len(f.Magic)) + headBytes
		if ne*4 > left {
			return nil, fmt.Errorf("%s state: it declares %d emitters but holds %d bytes after its header: it is truncated or damaged", f.Kind, ne, left)
		}
	}
	var err error
	if st.Emitted, err = binio.ReadArray[float32](br, ne); err != nil {
		return nil, fmt.Errorf("%s state: truncated emitters: %w", f.Kind, err)
	}
	if err := binary.Read(br, le, &st.ToolAcc); err != nil {
		return nil, fmt.Errorf("%s state: truncated pouring tool: %w", f.Kind, err)
	}
	if left >= 0 {
		left -= ne * 4
	}
	st.Steps = int(min(steps, MaxSteps+1))
	if err := st.Header.Check(); err != nil {
		return nil, fmt.Errorf("%s state: %w", f.Kind, err)
	}
	if err := h.P.DecodeSnapshot(br, left, MaxParticles, f.Kind, &st.Particles); err != nil {
		return nil, err
	}
	var nx int64
	if err := binary.Read(br, le, &nx); err != nil {
		return nil, fmt.Errorf("%s state: truncated: the mode's own state is missing: %w", f.Kind, err)
	}
	if nx < 0 || nx > f.MaxExtra || (left >= 0 && nx > left) {
		return nil, fmt.Errorf("%s state: its own part takes %d bytes, outside [0, %d] or more than the state holds: it is truncated or damaged", f.Kind, nx, f.MaxExtra)
	}
	if st.Extra, err = binio.ReadArray[byte](br, nx); err != nil {
		return nil, fmt.Errorf("%s state: truncated own part: %w", f.Kind, err)
	}
	if err := binio.End(br, f.Kind); err != nil {
		return nil, err
	}
	if err := emit.CheckTravel(st.Emitted, st.ToolAcc, float32(st.Spacing)); err != nil {
		return nil, fmt.Errorf("%s state: %w", f.Kind, err)
	}
	return st, nil
}

// Check checks the header's numbers: what Decode checks of a frame it reads, for a state a mode converted from an
// older version or built in memory.
func (h Header) Check() error {
	switch {
	case !(h.Spacing > 0) || math.IsInf(h.Spacing, 0):
		return fmt.Errorf("particle spacing %g must be a positive number", h.Spacing)
	case !(h.Time >= 0 && h.Time <= MaxTime):
		return fmt.Errorf("time: %.6g s is outside [0, %g] s", h.Time, float64(MaxTime))
	case h.Steps < 0 || h.Steps > MaxSteps:
		return fmt.Errorf("steps: %d is outside [0, %d]", h.Steps, int64(MaxSteps))
	}
	return nil
}

// CheckFor checks that a decoded state fits a run of sc holding at most budget particles: the scene's emitters,
// every particle inside the scene's domain, speeds a solver can follow and a packing no tighter than a fluid at the
// state's spacing (sim.CheckPlacement). budgetParam names the parameter to raise ("flip.budget").
func (st *Saved) CheckFor(sc *scene.Scene, budget int, budgetParam string) error {
	if len(st.Emitted) != len(sc.Emitters) {
		return fmt.Errorf("the state has %d emitters, the scene %q has %d: it was saved with another scene", len(st.Emitted), sc.Name, len(sc.Emitters))
	}
	if n := st.Particles.Len(); n > budget {
		return fmt.Errorf("the state has %d particles, over the budget of %d (raise %s and reset)", n, budget, budgetParam)
	}
	p := &st.Particles
	return sim.CheckPlacement(p.Pos, p.Vel, p.ID, sc, st.Spacing)
}
