package sph

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// damBreak is a small dam break: a column 0.2 × 0.3 × 0.2 m in the corner of a 0.6 × 0.5 × 0.2 m tank.
const damBreak = `{
  "name": "small-dambreak", "domain": {"min": [0, 0, 0], "max": [0.6, 0.5, 0.2]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.1, 0.15, 0.1], "size": [0.2, 0.3, 0.2]}]
}`

// tank is a resting layer 0.2 m deep filling a 0.3 × 0.4 × 0.2 m tank.
const tank = `{
  "name": "tank", "domain": {"min": [0, 0, 0], "max": [0.3, 0.4, 0.2]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.15, 0.1, 0.1], "size": [0.3, 0.2, 0.2]}]
}`

// newSolver resets a solver on a scene given as JSON with some parameters assigned.
func newSolver(t testing.TB, js string, sets ...string) *Solver {
	t.Helper()
	s := New()
	for _, a := range sets {
		if err := s.Params().Assign(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Reset(simtest.Parse(t, js)); err != nil {
		t.Fatal(err)
	}
	return s
}

// runFrames advances n frames of sim.FrameDt, each in the substeps BeginFrame asks for, calling each after every
// step; a step's error fails the test.
func runFrames(t testing.TB, s *Solver, frames int, each func(dt float64)) {
	t.Helper()
	for f := 0; f < frames; f++ {
		n := s.BeginFrame(sim.FrameDt)
		dt := sim.FrameDt / float64(n)
		for k := 0; k < n; k++ {
			if err := s.Step(dt); err != nil {
				var nf *sim.NonFiniteError
				if errors.As(err, &nf) {
					t.Fatalf("frame %d: %v", f, err)
				}
				t.Fatal(err)
			}
			if each != nil {
				each(dt)
			}
		}
	}
}

// runFixed takes steps of dt until the simulated time reaches end.
func runFixed(t testing.TB, s *Solver, dt, end float64, each func()) {
	t.Helper()
	for s.time < end-dt/2 {
		if err := s.Step(dt); err != nil {
			t.Fatal(err)
		}
		if each != nil {
			each()
		}
	}
}

func figure(st sim.Stats, name string) float64 {
	f, ok := st.Figure(name)
	if !ok {
		panic(fmt.Sprintf("no figure %q", name))
	}
	return f.Value
}

func sceneDambreak() (*scene.Scene, error) { return scene.Builtin("dambreak") }

// reencodeState is the state file good decoded, changed by edit and encoded again: a damaged state for a reader's
// checks to find.
func reencodeState(t *testing.T, good []byte, edit func(st *State)) []byte {
	t.Helper()
	c, err := DecodeState(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	edit(c)
	var b bytes.Buffer
	if err := c.Encode(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// savedTwin runs a solver on the scene js for some frames and returns it with a second solver that loaded its
// state then: two runs that should go on bit for bit alike.
func savedTwin(t *testing.T, js string, frames int) (a, b *Solver) {
	t.Helper()
	a = newSolver(t, js)
	runFrames(t, a, frames, nil)
	var buf bytes.Buffer
	if err := a.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	b = newSolver(t, js)
	if err := b.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	return a, b
}
