package sph

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/slosh/slosh/sim/simtest"
)

// fuzzScene is a tiny scene with two fluids, an emitter and a moving obstacle: every part of a state in a few
// hundred bytes.
const fuzzScene = `{
  "name": "fuzz", "domain": {"min": [0, 0, 0], "max": [0.2, 0.2, 0.1]},
  "particles": {"spacing": 0.04},
  "materials": [{"name": "oil", "density": 800, "viscosity": 0.05, "color": [0.9, 0.7, 0.1]}],
  "fluid": [{"shape": "box", "center": [0.1, 0.04, 0.05], "size": [0.2, 0.08, 0.1], "material": "oil"}],
  "obstacles": [{"shape": "sphere", "center": [0.03, 0.1, 0.05], "radius": 0.02,
    "motion": {"axis": [1, 0, 0], "amplitude": 0.01, "period": 0.5}}],
  "emitters": [{"center": [0.1, 0.17, 0.05], "direction": [0, -1, 0], "radius": 0.02, "speed": 1}]
}`

// FuzzDecodeState feeds arbitrary bytes to the state decoder and what it accepts to a solver: nothing panics or
// allocates what the input does not hold, an accepted state encodes to what decodes back the same, and a state the
// scene accepts loads and steps (a step may fail, but with an error).
func FuzzDecodeState(f *testing.F) {
	sc := simtest.Parse(f, fuzzScene)
	s := New()
	if err := s.Reset(sc); err != nil {
		f.Fatal(err)
	}
	runFrames(f, s, 3, nil)
	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil {
		f.Fatal(err)
	}
	good := buf.Bytes()
	at := stateLayout(f, good)
	edit64 := func(pos int, v uint64) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint64(b[pos:], v)
		return b
	}
	edit32 := func(pos int, v uint32) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint32(b[pos:], v)
		return b
	}
	f.Add(good)
	f.Add(encodeV1(f, s))                                                   // the same state in version 1
	f.Add(edit64(at.count, 2e18))                                           // 2e18 particles in a few hundred bytes
	f.Add(edit64(at.count, 30_000_000))                                     // more than the bytes hold, within the limit
	f.Add(edit32(at.count+8, 40))                                           // 40 columns
	f.Add(edit32(at.materials, 300))                                        // 300 materials
	f.Add(edit32(at.materials+4, 1))                                        // one material field: the next bytes are no name
	f.Add(edit64(at.spacing, math.Float64bits(1e-300)))                     // a spacing of 1e-300
	f.Add(edit64(at.spacing+8, math.Float64bits(1e300)))                    // time 1e300
	f.Add(edit64(at.own, math.Float64bits(-1)))                             // amax −1
	f.Add(edit32(at.pos, math.Float32bits(7e25)))                           // first position (7e25, …)
	f.Add(edit32(at.own+8, 2))                                              // flags 2
	f.Add(bytes.Replace(good, []byte("viscosity"), []byte("viscositz"), 1)) // an unknown material field
	f.Add(good[:len(good)/2])                                               // truncated
	f.Add([]byte(stateMagic + "\x02\x00\x00\x00"))                          // a version 2 header and nothing else
	f.Add(append(bytes.Clone(good), 0))                                     // a byte after the end
	solids := New()                                                         // a state with a solids' table
	if err := solids.Reset(simtest.Parse(f, meltScene)); err != nil {
		f.Fatal(err)
	}
	runFrames(f, solids, 2, nil)
	var sb bytes.Buffer
	if err := solids.WriteState(&sb); err != nil {
		f.Fatal(err)
	}
	f.Add(sb.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := DecodeState(bytes.NewReader(data))
		if err != nil {
			return
		}
		// what is accepted encodes to what decodes to itself (a file of version 1, or with its tables in
		// another order, is written anew in the current form)
		var again, third bytes.Buffer
		if err := st.Encode(&again); err != nil {
			t.Fatal(err)
		}
		back, err := DecodeState(bytes.NewReader(again.Bytes()))
		if err != nil {
			t.Fatalf("an accepted state, written again, is refused: %v", err)
		}
		if err := back.Encode(&third); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), third.Bytes()) {
			t.Fatal("an accepted state encodes to other bytes after a round trip")
		}
		s := New()
		if err := s.Reset(sc); err != nil {
			t.Fatal(err)
		}
		if err := s.LoadState(st); err != nil {
			return // another scene's, or a spacing the solver cannot take
		}
		_ = s.Step(1.0 / 240) // an error is fine; a panic or a hang is not
	})
}
