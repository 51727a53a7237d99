package pbf

import (
	"bytes"
	"encoding/binary"
	"math"
	"reflect"
	"testing"
)

// fuzzScene is a tiny scene with fluid, a body, an emitter and a moving obstacle: every part of a state, in a
// few hundred bytes.
const fuzzScene = `{
  "name": "fuzz", "domain": {"min": [0, 0, 0], "max": [0.2, 0.2, 0.1]},
  "particles": {"spacing": 0.04},
  "fluid": [{"shape": "box", "center": [0.1, 0.04, 0.05], "size": [0.2, 0.08, 0.1]}],
  "obstacles": [{"shape": "sphere", "center": [0.03, 0.1, 0.05], "radius": 0.02,
    "motion": {"axis": [1, 0, 0], "amplitude": 0.01, "period": 0.5}}],
  "bodies": [{"shape": "sphere", "center": [0.12, 0.13, 0.05], "radius": 0.03, "density": 500}],
  "emitters": [{"center": [0.1, 0.17, 0.05], "direction": [0, -1, 0], "radius": 0.02, "speed": 1}]
}`

// FuzzDecodeState feeds arbitrary bytes to the state decoder and what it accepts to a solver: nothing panics,
// an accepted state encodes and decodes back the same, and a state the scene accepts loads and steps (a step may
// fail, but with an error).
func FuzzDecodeState(f *testing.F) {
	sc := parseScene(f, fuzzScene)
	s := newReset(f, sc)
	stepN(f, s, 3)
	var st State
	s.SaveState(&st)
	var buf bytes.Buffer
	if err := st.Encode(&buf); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	countAt, posAt := frameAt(len(st.Emitted))
	edit := func(b []byte, at int, v uint64) []byte {
		b = bytes.Clone(b)
		binary.LittleEndian.PutUint64(b[at:], v)
		return b
	}
	old := encodeV2(f, &st, 2)
	for _, b := range [][]byte{good, old} {
		f.Add(b)
		f.Add(edit(b, len(Format.Magic)+4+8, math.Float64bits(1e300))) // time 1e300
		f.Add(edit(b, len(Format.Magic)+4+8, math.Float64bits(-1)))    // time −1
		f.Add(b[:len(b)/2])                                            // truncated
	}
	for _, c := range []struct {
		b  []byte
		at int
	}{{good, countAt}, {old, v2CountAt}} {
		f.Add(edit(c.b, c.at, 2e18))       // 2e18 particles in a few hundred bytes
		f.Add(edit(c.b, c.at, 30_000_000)) // more than the bytes hold, within the limit
	}
	f.Add(edit(good, posAt, uint64(math.Float32bits(7e25))|uint64(0x3dcccccd)<<32))        // first position (7e25, 0.1, …)
	f.Add(edit(old, v2CountAt+8*4, uint64(math.Float32bits(7e25))|uint64(0x3dcccccd)<<32)) // the same, old form
	f.Add([]byte(Format.Magic + "\x01\x00\x00\x00"))                                       // a version 1 header and nothing else
	f.Add([]byte(Format.Magic + "\x03\x00\x00\x00"))                                       // a version 3 header and nothing else
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := DecodeState(bytes.NewReader(data))
		if err != nil {
			return
		}
		var again bytes.Buffer
		if err := st.Encode(&again); err != nil {
			t.Fatal(err)
		}
		back, err := DecodeState(bytes.NewReader(again.Bytes()))
		if err != nil {
			t.Fatalf("an accepted state, encoded again, is refused: %v", err)
		}
		if !reflect.DeepEqual(back, st) && !sameBits(back, st) {
			t.Fatal("an accepted state, encoded again, decodes differently")
		}
		if st.CheckFor(sc, 1<<16) != nil {
			return
		}
		s := newReset(t, sc)
		if err := s.LoadState(st); err != nil {
			return // the solver's own checks (a grid too fine for the spacing)
		}
		_ = s.Step(1.0 / 240) // an error is fine; a panic or a hang is not
	})
}

// sameBits compares two states by their encodings (DeepEqual tells nil from empty slices, which encode alike).
func sameBits(a, b *State) bool {
	var x, y bytes.Buffer
	return a.Encode(&x) == nil && b.Encode(&y) == nil && bytes.Equal(x.Bytes(), y.Bytes())
}
