package pbf

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/rigid"
)

// savedState is the state of the hands scene a few steps in: fluid, a body, an emitter.
func savedState(t *testing.T) (*Solver, *State) {
	t.Helper()
	s := newReset(t, parseScene(t, handsScene))
	stepN(t, s, 5)
	var st State
	s.SaveState(&st)
	return s, &st
}

func encoded(t *testing.T, st *State) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := st.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// A short input claiming many particles is refused before anything is allocated for them: the declared size
// against what a bytes.Reader holds, and for a reader that cannot say, arrays that grow only as data arrives.
// (A 1.9 KB save claiming 2e28 particles was refused only after a 4 GiB allocation, and died under an
// address-space limit.)
func TestDecodeStateChecksCountsBeforeAllocating(t *testing.T) {
	_, st := savedState(t)
	good := encoded(t, st)
	const countAt = len(stateMagic) + 4 + 8*3 // the particle count, after the magic, version, spacing, time, steps
	claim := func(n int64) []byte {
		b := bytes.Clone(good[:2048])
		binary.LittleEndian.PutUint64(b[countAt:], uint64(n))
		return b
	}
	for _, c := range []struct {
		name string
		r    io.Reader
		want string
	}{
		{"2^62 particles", bytes.NewReader(claim(1 << 62)), "particle count 4611686018427387904 is outside [0, 33554432]"},
		{"negative", bytes.NewReader(claim(-1)), "particle count -1 is outside"},
		{"more than it holds", bytes.NewReader(claim(30_000_000)), "it declares 30000000 particles"},
		{"more than it holds, streamed", io.MultiReader(bytes.NewReader(claim(30_000_000))), "truncated positions"},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := DecodeState(c.r)
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Errorf("%s: decoding 2 KB allocated %d bytes", c.name, got)
		}
	}
}

// Times and step counts out of range are refused on reading, naming the field: a saved time of 1e300 printed
// 300 digits, and a negative one was accepted.
func TestStateTimeRange(t *testing.T) {
	_, st := savedState(t)
	for _, c := range []struct {
		edit func(st *State)
		want string
	}{
		{func(st *State) { st.Time = 1e300 }, "time: 1e+300 s is outside [0, 1e+09] s"},
		{func(st *State) { st.Time = -1 }, "time: -1 s is outside"},
		{func(st *State) { st.Steps = 1 << 60 }, "steps: 1152921504606846976 is outside"},
	} {
		bad := *st
		c.edit(&bad)
		if _, err := DecodeState(bytes.NewReader(encoded(t, &bad))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want an error containing %q", err, c.want)
		}
	}
}

// A state that does not fit the scene it is loaded into is refused with what does not fit, and the solver keeps
// its state: particles outside the domain (a position of 7e25, or a smaller domain), speeds no solver follows,
// particles packed for a finer spacing than the state's (a density error of thousands of percent on the first
// step).
func TestCheckForRefusesAStateOfAnotherScene(t *testing.T) {
	s, st := savedState(t)
	clone := func() *State {
		c := *st
		c.Pos, c.Vel, c.Rest = append([][4]float32(nil), st.Pos...), append([][4]float32(nil), st.Vel...), append([][4]float32(nil), st.Rest...)
		c.Bodies = append([]rigid.Body(nil), st.Bodies...)
		return &c
	}
	fluid := 0 // a fluid particle's index
	for st.Body[fluid] >= 0 {
		fluid++
	}
	for _, c := range []struct {
		name string
		edit func(st *State)
		want string
	}{
		{"far away", func(st *State) { st.Pos[fluid][0] = 7e25 }, "at (7e+25"},
		{"just outside", func(st *State) { st.Pos[fluid][1] = -0.1 }, "lies outside the scene \"hands\"'s domain"},
		{"fast", func(st *State) { st.Vel[fluid][2] = 1e30 }, "moves at 1e+30 m/s; at most 10000 m/s"},
		{"body far away", func(st *State) { st.Bodies[0].Center[0] = -50 }, "body 0's centre"},
		{"body driven fast", func(st *State) { st.Bodies[0].Drive = [4]float32{1e20, 0, 0, 1} }, "body 0 is driven at 1e+20 m/s"},
		{"rest offset", func(st *State) { st.Rest[len(st.Rest)-1][0] = 3e9 }, "rest offset"},
		{"packed", func(st *State) {
			// every particle moved 2.5 times closer to the domain's middle: the spacing the state claims is wrong
			for i := range st.Pos {
				for k, m := range []float32{0.2, 0.2, 0.1} {
					st.Pos[i][k] = m + (st.Pos[i][k]-m)/2.5
				}
			}
		}, "particles lie in one 0.05 m cube"},
		{"coincident", func(st *State) {
			for i := range st.Pos {
				if st.Body[i] < 0 {
					st.Pos[i] = [4]float32{0.2, 0.1, 0.1, 0}
				}
			}
		}, "packed for another spacing"},
		{"spacing", func(st *State) { st.Spacing = 1e-7 }, "too fine for the scene's domain"},
	} {
		bad := clone()
		c.edit(bad)
		before := s.Stats().Particles
		err := s.LoadState(bad)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
		if s.Stats().Particles != before || s.x[0] != st.Pos[0] {
			t.Errorf("%s: a refused state changed the solver", c.name)
		}
	}
	// the state itself loads
	if err := s.LoadState(clone()); err != nil {
		t.Fatal(err)
	}
	// into a smaller domain it does not
	small := parseScene(t, strings.Replace(handsScene, `"max": [0.4, 0.4, 0.2]`, `"max": [0.3, 0.4, 0.2]`, 1))
	if err := st.CheckFor(small, 1<<20); err == nil || !strings.Contains(err.Error(), "lies outside") {
		t.Errorf("a state of a 0.4 m wide domain in a 0.3 m one: %v", err)
	}
}
