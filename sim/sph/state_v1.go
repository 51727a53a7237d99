package sph

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/slosh/slosh/internal/binio"
	"github.com/slosh/slosh/sim/particles"
	"github.com/slosh/slosh/sim/shell"
)

// Version 1 of the state, written before the particle store, after the magic and the version:
//
//	spacing float64, time float64, steps int64, amax float64, flags int64 (1: material 0 follows the
//	parameters), particle count int64, material count int64, emitter count int64,
//	positions, velocities, ids, materials (uint8), pressures (float32),
//	the materials (rest density and viscosity, float32 each), the emitters' travel (float32 each), the pouring
//	tool's float32, the bodies' length int64 and bytes,
//
// little-endian. decodeV1 converts it into the current State: the same particles, columns, materials and bodies,
// so that an old save file loads and continues bit for bit.
const (
	v1HeadBytes     = len(stateMagic) + 4 + 8*8 // magic, version, spacing, time, steps, amax, flags, three counts
	v1ParticleBytes = 16 + 16 + 4 + 1 + 4       // position, velocity, id, material, pressure
	v1MaterialBytes = 8
)

// readOne reads one value little-endian.
func readOne[T any](r io.Reader) (T, error) {
	var v T
	err := binary.Read(r, binary.LittleEndian, &v)
	return v, err
}

// decodeV1 reads the rest of a version 1 state after its version; left is the bytes the whole state held (−1 when
// not known). Its counts are checked before anything is allocated for them.
func decodeV1(br *bufio.Reader, left int64) (*State, error) {
	var steps, flags, n, nm, ne int64
	st := &State{}
	if err := readAll(br, "header", &st.Spacing, &st.Time, &steps, &st.Amax, &flags, &n, &nm, &ne); err != nil {
		return nil, fmt.Errorf("sph state: %w", err)
	}
	switch {
	case flags != 0 && flags != 1:
		return nil, fmt.Errorf("sph state: the flags are %d, not 0 or 1: the state is damaged", flags)
	case n < 0 || n > shell.MaxParticles:
		return nil, fmt.Errorf("sph state: particle count %d is outside [0, %d]", n, shell.MaxParticles)
	case nm < 1 || nm > MaxMaterials:
		return nil, fmt.Errorf("sph state: material count %d is outside [1, %d]", nm, MaxMaterials)
	case ne < 0 || ne > shell.MaxEmitters:
		return nil, fmt.Errorf("sph state: emitter count %d is outside [0, %d]", ne, shell.MaxEmitters)
	case steps < 0 || steps > shell.MaxSteps:
		return nil, fmt.Errorf("sph state: steps: %d is outside [0, %d]", steps, int64(shell.MaxSteps))
	}
	need := int64(v1HeadBytes) + n*v1ParticleBytes + nm*v1MaterialBytes + ne*4 + 4 + 8
	if left >= 0 && need > left {
		return nil, fmt.Errorf("sph state: it declares %d particles, %d materials and %d emitters, %d bytes, but holds %d bytes: it is truncated or damaged",
			n, nm, ne, need, left)
	}
	st.Steps, st.ConfigMaterial = int(steps), flags == 1
	fail := func(what string, err error) (*State, error) {
		return nil, fmt.Errorf("sph state: truncated %s (%d particles declared): %w", what, n, err)
	}
	pos, vel, id, err := binio.ReadParticles(br, n)
	if err != nil {
		return nil, fmt.Errorf("sph state: %w (%d particles declared)", err, n)
	}
	mat, err := binio.ReadArray[uint8](br, n)
	if err != nil {
		return fail("materials", err)
	}
	pres, err := binio.ReadArray[float32](br, n)
	if err != nil {
		return fail("pressures", err)
	}
	// the material table as version 1 wrote Material, field by field
	raw, err := binio.ReadArray[[2]float32](br, nm)
	if err != nil {
		return fail("material table", err)
	}
	if st.Emitted, err = binio.ReadArray[float32](br, ne); err != nil {
		return fail("emitters", err)
	}
	if st.ToolAcc, err = readOne[float32](br); err != nil {
		return fail("pouring tool", err)
	}
	nb, err := readOne[int64](br)
	if err != nil {
		return fail("bodies' length", err)
	}
	if nb < 0 || nb > maxStateBodyBytes || (left >= 0 && need+nb > left) {
		return nil, fmt.Errorf("sph state: the bodies take %d bytes, outside [0, %d] or more than the state holds: it is truncated or damaged", nb, maxStateBodyBytes)
	}
	if st.Bodies, err = binio.ReadArray[byte](br, nb); err != nil {
		return fail("bodies", err)
	}
	if err := binio.End(br, "sph"); err != nil {
		return nil, err
	}
	st.Particles = particles.Snapshot{Pos: pos, Vel: vel, ID: id}
	particles.Put(&st.Particles, colMaterial, mat)
	particles.Put(&st.Particles, colPressure, pres)
	noSlot := make([]int32, len(pos)) // version 1 had no solids or heat
	for i := range noSlot {
		noSlot[i] = -1
	}
	particles.Put(&st.Particles, colSlot, noSlot)
	particles.Put(&st.Particles, colTemperature, make([]float32, len(pos)))
	undeformed := make([][9]float32, len(pos)) // nor the elastoplastic material
	for i := range undeformed {
		undeformed[i] = identity9
	}
	particles.Put(&st.Particles, colDeformation, undeformed)
	particles.Put(&st.Particles, colPlasticStrain, make([]float32, len(pos)))
	st.Materials = make([]Material, nm)
	for k, m := range raw {
		st.Materials[k] = Material{RestDensity: m[0], Viscosity: m[1]}
	}
	return st, nil
}
