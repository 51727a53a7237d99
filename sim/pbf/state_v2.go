package pbf

import (
	"bufio"
	"encoding/binary"
	"fmt"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/shell"
)

// The PBF state file before the shell's frame, versions 1 and 2, read and converted into a State (new saves are
// version 3): after the magic and the version,
//
//	spacing float64, time float64, steps int64, particles int64, bodies int64, bodies flag int64, emitters int64,
//	positions, velocities, ids, with the bodies flag the body indices, rest offsets and inverse masses,
//	the bodies (bodyWire), the emitters' travel, and from version 2 the frame measurements (int64 and values),
//
// little-endian. It held no pouring tool's travel: a converted state's is 0.

const (
	// the sizes of the old form's parts, bytes
	v2HeadBytes     = 16 + 4 + 8*7 // magic, version, spacing, time, steps, four counts
	v2ParticleBytes = 16 + 16 + 4  // position, velocity, id
	v2BodyPartBytes = 4 + 16 + 4   // body index, rest offset, inverse mass
)

// decodeV2 reads the rest of a state of version 1 or 2 after its version, from br, where r held left bytes (−1
// when not known).
func decodeV2(br *bufio.Reader, left int64, version uint32) (*State, error) {
	le := binary.LittleEndian
	var steps, n, nb, hasBodies, ne int64
	st := &State{Rounded: true} // these versions wrote the float32 spacing the run held
	for _, v := range []any{&st.Spacing, &st.Time, &steps, &n, &nb, &hasBodies, &ne} {
		if err := binary.Read(br, le, v); err != nil {
			return nil, fmt.Errorf("pbf state: truncated header: %w", err)
		}
	}
	switch {
	case n < 0 || n > shell.MaxParticles:
		return nil, fmt.Errorf("pbf state: particle count %d is outside [0, %d]", n, shell.MaxParticles)
	case hasBodies != 0 && hasBodies != 1:
		return nil, fmt.Errorf("pbf state: the bodies flag is %d, not 0 or 1: the state is damaged", hasBodies)
	case nb < 0 || nb > n || nb > 0 && hasBodies == 0:
		return nil, fmt.Errorf("pbf state: body count %d is outside [0, %d] (the particle count, and 0 without the bodies flag)", nb, n)
	case ne < 0 || ne > shell.MaxEmitters:
		return nil, fmt.Errorf("pbf state: emitter count %d is outside [0, %d]", ne, shell.MaxEmitters)
	case steps < 0 || steps > shell.MaxSteps:
		return nil, fmt.Errorf("pbf state: steps: %d is outside [0, %d]", steps, int64(shell.MaxSteps))
	}
	need := int64(v2HeadBytes) + n*(v2ParticleBytes+hasBodies*v2BodyPartBytes) + nb*bodyWireBytes + ne*4
	if left >= 0 && need > left {
		return nil, fmt.Errorf("pbf state: it declares %d particles, %d bodies and %d emitters, %d bytes, but holds %d bytes: it is truncated or damaged",
			n, nb, ne, need, left)
	}
	st.Steps = int(steps)
	fail := func(what string, err error) (*State, error) {
		return nil, fmt.Errorf("pbf state: truncated %s (%d particles, %d bodies declared): %w", what, n, nb, err)
	}
	var err error
	if st.Pos, st.Vel, st.ID, err = binio.ReadParticles(br, n); err != nil {
		return nil, fmt.Errorf("pbf state: %w (%d particles declared)", err, n)
	}
	if hasBodies != 0 {
		if st.Body, err = binio.ReadArray[int32](br, n); err != nil {
			return fail("body indices", err)
		}
		if st.Rest, err = binio.ReadArray[[4]float32](br, n); err != nil {
			return fail("rest offsets", err)
		}
		if st.WInv, err = binio.ReadArray[float32](br, n); err != nil {
			return fail("inverse masses", err)
		}
		wire, err := binio.ReadArray[bodyWire](br, nb)
		if err != nil {
			return fail("bodies", err)
		}
		if st.Bodies, err = fromWire(wire, n); err != nil {
			return nil, fmt.Errorf("pbf state: %w", err)
		}
	}
	if st.Emitted, err = binio.ReadArray[float32](br, ne); err != nil {
		return fail("emitters", err)
	}
	if version >= 2 {
		if st.Reach, err = readReach(br); err != nil {
			return nil, fmt.Errorf("pbf state: %w", err)
		}
	}
	if err := binio.End(br, "pbf"); err != nil {
		return nil, err
	}
	if st.Spacing > 0 { // the spacing is checked with the rest (Validate)
		// as the frame checks it, so that a converted state is one the frame reads back
		if err := emit.CheckTravel(st.Emitted, 0, float32(st.Spacing)); err != nil {
			return nil, fmt.Errorf("pbf state: %w", err)
		}
	}
	return st, nil
}
