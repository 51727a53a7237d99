package pbf

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/slosh/slosh/internal/binio"
)

// encodeV2 writes st in the form before the shell's frame, as the code before it did: version 1 without the frame
// measurements, version 2 with them. It is the converter's input.
func encodeV2(t testing.TB, st *State, version uint32) []byte {
	t.Helper()
	hasBodies := int64(0)
	if len(st.Bodies) > 0 {
		hasBodies = 1
	}
	head := []any{
		[]byte(Format.Magic), version, st.Spacing, st.Time, int64(st.Steps),
		int64(len(st.Pos)), int64(len(st.Bodies)), hasBodies, int64(len(st.Emitted)),
		st.Pos, st.Vel, st.ID,
	}
	if hasBodies != 0 {
		head = append(head, st.Body, st.Rest, st.WInv)
		for _, b := range st.Bodies {
			head = append(head, bodyWire{First: int64(b.First), Count: int64(b.Count), InvMass: b.InvMass, Center: b.Center,
				Origin: b.Origin, Rot: b.Rot, Density: b.Density, Drive: b.Drive})
		}
	}
	head = append(head, st.Emitted)
	if version >= 2 {
		head = append(head, int64(len(st.Reach)), st.Reach)
	}
	var buf bytes.Buffer
	if err := binio.Write(&buf, "pbf", head...); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// v2CountAt is where the old form keeps the particle count: after the magic, version, spacing, time and steps.
const v2CountAt = 16 + 4 + 8*3

// A state saved by the code before the shell's frame, version 1 or 2, converts into the state that was saved,
// loads, and continues bit for bit as the run that saved it; saved again, it is of the new version.
func TestOldStateConverts(t *testing.T) {
	sc := parseScene(t, handsScene)
	a := newReset(t, sc)
	stepN(t, a, 37) // fluid, a body, emitted particles
	var st State
	a.SaveState(&st)
	if len(st.Bodies) == 0 || len(st.Emitted) == 0 {
		t.Fatal("the hands scene lost its body or emitter")
	}
	var loaded []*Solver
	for _, version := range []uint32{1, 2} {
		old := encodeV2(t, &st, version)
		got, err := DecodeState(bytes.NewReader(old))
		if err != nil {
			t.Fatalf("version %d: %v", version, err)
		}
		if !sameBits(got, &st) {
			t.Fatalf("version %d converts into another state", version)
		}
		b := newReset(t, sc)
		if err := b.ReadState(bytes.NewReader(old)); err != nil {
			t.Fatalf("version %d: %v", version, err)
		}
		sameFrames(t, "after loading the old state", a, b)
		var again bytes.Buffer
		if err := b.WriteState(&again); err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(again.Bytes()[len(Format.Magic):]); v != Format.Version {
			t.Fatalf("a converted state is saved as version %d, want %d", v, Format.Version)
		}
		loaded = append(loaded, b)
	}
	stepN(t, a, 25)
	for _, b := range loaded {
		stepN(t, b, 25)
		sameFrames(t, "25 steps after loading the old state", a, b)
	}
}
