package voronoi

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// fuzzScene is a tiny scene with an emitter, a moving obstacle and a floating body: every part of a state in a
// few kilobytes.
const fuzzScene = `{
  "name": "fuzz", "domain": {"min": [0, 0, 0], "max": [0.2, 0.2, 0.1]},
  "particles": {"spacing": 0.03},
  "fluid": [{"shape": "box", "center": [0.1, 0.04, 0.05], "size": [0.2, 0.08, 0.1]}],
  "obstacles": [{"shape": "sphere", "center": [0.03, 0.1, 0.05], "radius": 0.02,
    "motion": {"axis": [1, 0, 0], "amplitude": 0.01, "period": 0.5}}],
  "bodies": [{"shape": "sphere", "center": [0.14, 0.12, 0.05], "radius": 0.025, "density": 500}],
  "emitters": [{"center": [0.1, 0.17, 0.05], "direction": [0, -1, 0], "radius": 0.02, "speed": 1}]
}`

// FuzzDecodeState feeds arbitrary bytes to the state decoder and what it accepts to a solver: nothing panics or
// allocates what the input does not hold, an accepted state encodes back to the same bytes, and a state the scene
// accepts loads and steps (a step may fail, but with an error). The seeds are a real state (particles, an
// emitter's stream, a body) and edits of its header, its first particle and its bodies' part.
func FuzzDecodeState(f *testing.F) {
	sc := simtest.Parse(f, fuzzScene)
	s := New()
	if err := s.Reset(sc); err != nil {
		f.Fatal(err)
	}
	s.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.05, 0.17, 0.05}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.015, Speed: 0.5}})
	runFrames(f, s, 3, nil)
	good := encoded(f, s)
	if s.BodyCount() != 1 || s.hands.Emitted[0] == 0 || s.hands.ToolAcc == 0 {
		f.Fatalf("the seed has %d bodies, emitter travel %g and pouring travel %g: want a body and streams between layers", s.BodyCount(), s.hands.Emitted[0], s.hands.ToolAcc)
	}
	if st, err := DecodeState(bytes.NewReader(good)); err != nil {
		f.Fatalf("the seed does not decode: %v", err)
	} else if err := New().LoadState(st); err == nil {
		f.Fatal("a state loaded into a solver never reset")
	} else if err := newSolver(f, fuzzScene).LoadState(st); err != nil {
		f.Fatalf("the seed does not load: %v", err)
	}
	at := layout(len(s.x), len(s.hands.Emitted))
	edit := func(at int, v uint64) []byte {
		b := bytes.Clone(good)
		binary.LittleEndian.PutUint64(b[at:], v)
		return b
	}
	var v1 State
	s.SaveState(&v1)
	var bodies bytes.Buffer
	if err := s.bodies.Write(&bodies, s.sc, "voronoi state"); err != nil {
		f.Fatal(err)
	}
	v1.Bodies = bodies.Bytes()
	f.Add(good)
	f.Add(encodeVersion1(f, &v1))                             // the same state in version 1
	f.Add(edit(at.count, 2e18))                               // 2e18 particles in a few kilobytes
	f.Add(edit(at.count, 30_000_000))                         // more than the bytes hold, within the limit
	f.Add(edit(at.emitters, 300))                             // 300 emitters
	f.Add(edit(at.spacing, math.Float64bits(1e-300)))         // a spacing of 1e-300
	f.Add(edit(at.spacing+8, math.Float64bits(1e300)))        // time 1e300
	f.Add(edit(at.spacing+16, 1<<62))                         // steps 2⁶²
	f.Add(edit(at.pressures, math.Float64bits(math.Inf(-1)))) // the first pressure −∞
	f.Add(edit(at.positions, uint64(math.Float32bits(7e25)))) // first position (7e25, 0, …)
	f.Add(edit(at.columns, 0))                                // no columns: the pressures read as positions
	f.Add(edit(at.extra, 1<<40))                              // the bodies' length 2⁴⁰
	f.Add(edit(at.extra+8, 40))                               // 40 bodies
	f.Add(good[:len(good)/2])                                 // truncated
	f.Add(good[:at.extra+28])                                 // truncated in the bodies
	f.Add([]byte(stateFormat.Magic + "\x01\x00\x00\x00"))     // a version 1 header and nothing else
	f.Add([]byte(stateFormat.Magic + "\x02\x00\x00\x00"))     // a version 2 header and nothing else
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
		if binary.LittleEndian.Uint32(data[len(stateFormat.Magic):]) == stateFormat.Version && !bytes.Equal(again.Bytes(), data) {
			t.Fatal("an accepted state encodes to other bytes")
		}
		if st2, err := DecodeState(bytes.NewReader(again.Bytes())); err != nil || !sameArrays(st, st2) {
			t.Fatalf("an accepted state, encoded, decodes to another (%v)", err)
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

// FuzzLoadState moves one particle of a real state anywhere and gives it any velocity and pressure: a state the
// checks accept loads, and its steps end or fail with an error (a panic or a hang fails), leaving finite
// particles. Seeds: a particle on another, inside the moving obstacle, inside the body, on a wall, in a corner.
func FuzzLoadState(f *testing.F) {
	sc := simtest.Parse(f, fuzzScene)
	s := New()
	if err := s.Reset(sc); err != nil {
		f.Fatal(err)
	}
	runFrames(f, s, 2, nil)
	var base State
	s.SaveState(&base)
	var bodies bytes.Buffer
	if err := s.bodies.Write(&bodies, s.sc, "voronoi state"); err != nil {
		f.Fatal(err)
	}
	base.Bodies = bodies.Bytes()
	on := base.Pos[3]
	f.Add(uint16(7), on[0], on[1], on[2], float32(0), 0.0)                        // on particle 3
	f.Add(uint16(7), float32(0.03), float32(0.1), float32(0.05), float32(1), 0.0) // inside the obstacle
	bc, _ := s.Body(0)
	f.Add(uint16(9), float32(bc.C[0]), float32(bc.C[1]), float32(bc.C[2]), float32(-2), 1.0) // inside the body
	f.Add(uint16(2), float32(0), float32(0.05), float32(0.05), float32(-5), -3.0)            // on a wall
	f.Add(uint16(11), float32(0.2), float32(0.2), float32(0.1), float32(40), 1e6)            // in a corner, fast
	f.Fuzz(func(t *testing.T, k uint16, x, y, z, vx float32, p float64) {
		st := base
		n := len(base.Pos)
		st.Pos = append([][4]float32(nil), base.Pos...)
		st.Vel = append([][4]float32(nil), base.Vel...)
		st.Pres = append([]float64(nil), base.Pres...)
		i := int(k) % n
		st.Pos[i] = [4]float32{x, y, z, 0}
		st.Vel[i][0] = vx
		st.Pres[i] = p
		s := New()
		if err := s.Reset(sc); err != nil {
			t.Fatal(err)
		}
		if err := s.LoadState(&st); err != nil {
			return
		}
		for range 2 {
			if err := s.Step(1.0 / 240); err != nil {
				break
			}
		}
		for j, q := range s.x {
			if !finite(q[0]) || !finite(q[1]) || !finite(q[2]) {
				t.Fatalf("particle %d is at %v after the steps", j, q)
			}
		}
	})
}
