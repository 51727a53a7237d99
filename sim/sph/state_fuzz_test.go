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
// allocates what the input does not hold, an accepted state encodes and decodes back the same, and a state the
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
	const countAt = len(stateMagic) + 4 + 8*5 // the particle count, after spacing, time, steps, amax and flags
	edit := func(at int, v uint64) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint64(b[at:], v)
		return b
	}
	f.Add(good)
	f.Add(edit(countAt, 2e18))                                // 2e18 particles in a few hundred bytes
	f.Add(edit(countAt, 30_000_000))                          // more than the bytes hold, within the limit
	f.Add(edit(countAt+8, 300))                               // 300 materials
	f.Add(edit(len(stateMagic)+4, math.Float64bits(1e-300)))  // a spacing of 1e-300
	f.Add(edit(len(stateMagic)+4+8, math.Float64bits(1e300))) // time 1e300
	f.Add(edit(len(stateMagic)+4+24, math.Float64bits(-1)))   // amax −1
	f.Add(edit(headBytes, uint64(math.Float32bits(7e25))))    // first position (7e25, …)
	f.Add(edit(len(stateMagic)+4+32, 2))                      // flags 2
	f.Add(good[:len(good)/2])                                 // truncated
	f.Add([]byte(stateMagic + "\x01\x00\x00\x00"))            // a version 1 header and nothing else
	f.Add(append(bytes.Clone(good), 0))                       // a byte after the end
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := DecodeState(bytes.NewReader(data))
		if err != nil {
			return
		}
		var again bytes.Buffer
		if err := st.Encode(&again); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), data) {
			t.Fatal("an accepted state encodes to other bytes")
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
