package pbf

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/shell"
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

// frameAt is where the shell's frame keeps the particle count and the first position, in a state with ne
// emitters: after the magic, version, spacing, time, steps, emitters and the tool, the particles' version, and
// (for the positions) the count and the table of the bodies' columns and the material column.
func frameAt(ne int) (count, pos int) {
	count = len(Format.Magic) + 4 + 8*4 + 4*ne + 4 + 4
	pos = count + 8 + 4
	for _, name := range []string{colBody, colRest, colWInv, shell.MaterialColumn} {
		pos += 2 + len(name) + 4
	}
	return count, pos
}

// encodings are st in the form of this slosh and in the old one its converter reads.
func encodings(t *testing.T, st *State) []struct {
	name    string
	data    []byte
	countAt int
} {
	count, _ := frameAt(len(st.Emitted))
	return []struct {
		name    string
		data    []byte
		countAt int
	}{{"version 3", encoded(t, st), count}, {"version 2", encodeV2(t, st, 2), v2CountAt}}
}

// A short input claiming many particles is refused before anything is allocated for them: the declared size
// against what a bytes.Reader holds, and for a reader that cannot say, arrays that grow only as data arrives.
// (A 1.9 KB save claiming 2e28 particles was refused only after a 4 GiB allocation, and died under an
// address-space limit.) The converter of the old form refuses as the frame does.
func TestDecodeStateChecksCountsBeforeAllocating(t *testing.T) {
	_, st := savedState(t)
	for _, f := range encodings(t, st) {
		claim := func(n int64) []byte {
			b := bytes.Clone(f.data[:2048])
			binary.LittleEndian.PutUint64(b[f.countAt:], uint64(n))
			return b
		}
		holds := "30000000 particles and 4 columns take"
		if f.countAt == v2CountAt {
			holds = "it declares 30000000 particles"
		}
		for _, c := range []struct {
			name string
			r    io.Reader
			want string
		}{
			{"2^62 particles", bytes.NewReader(claim(1 << 62)), "count 4611686018427387904 is outside [0, 33554432]"},
			{"negative", bytes.NewReader(claim(-1)), "count -1 is outside"},
			{"more than it holds", bytes.NewReader(claim(30_000_000)), holds},
			{"more than it holds, streamed", io.MultiReader(bytes.NewReader(claim(30_000_000))), "truncated positions"},
		} {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := DecodeState(c.r)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s, %s: %v, want an error containing %q", f.name, c.name, err, c.want)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
				t.Errorf("%s, %s: decoding 2 KB allocated %d bytes", f.name, c.name, got)
			}
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
		{func(st *State) { st.Steps = 1 << 60 }, "is outside [0, 1125899906842624]"},
	} {
		bad := *st
		c.edit(&bad)
		for _, f := range encodings(t, &bad) {
			if _, err := DecodeState(bytes.NewReader(f.data)); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want an error containing %q", f.name, err, c.want)
			}
		}
	}
}

// A state of this slosh with a column it does not keep (a newer slosh's), one of another size, or damaged counts
// is refused with a message that says which.
func TestStateRefusesUnknownColumnsAndDamagedCounts(t *testing.T) {
	_, st := savedState(t)
	good := encoded(t, st)
	count, _ := frameAt(len(st.Emitted))
	table := count + 8 + 4 // the first column's name length
	edit := func(change func(b []byte)) []byte {
		b := bytes.Clone(good)
		change(b)
		return b
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"unknown column", bytes.Replace(good, []byte(colRest), []byte("rest offsex"), 1), `column "rest offsex" is not one this slosh keeps`},
		{"column size", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[table+2+len(colBody):], 8) }), "column body holds values of 8 bytes"},
		{"column count", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[count+8:], 1000) }), "1000 columns, at most 64"},
		{"particle count", edit(func(b []byte) { binary.LittleEndian.PutUint64(b[count:], uint64(2*st.N())) }), "particles and 4 columns take"},
		{"emitter count", edit(func(b []byte) { binary.LittleEndian.PutUint64(b[len(Format.Magic)+4+8*3:], 1<<40) }), "emitter count 1099511627776 is outside"},
		{"body count", edit(func(b []byte) {
			// the bodies' count opens the mode's own part, after its length
			own := len(good) - len(encodeOwn(st.Bodies, st.Reach))
			binary.LittleEndian.PutUint64(b[own:], 1000)
		}), "1000 bodies; at most 256"},
		{"version", edit(func(b []byte) { binary.LittleEndian.PutUint32(b[len(Format.Magic):], 9) }), "pbf state version 9; this slosh reads versions 1 to 3"},
	} {
		if _, err := DecodeState(bytes.NewReader(c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// A state without bodies keeps the fluid's values in the bodies' columns of its file, and reads back without
// them; a body index there is refused.
func TestStateWithoutBodies(t *testing.T) {
	s := newReset(t, parseScene(t, poolScene))
	stepN(t, s, 3)
	var st State
	s.SaveState(&st)
	good := encoded(t, &st)
	back, err := DecodeState(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if back.Body != nil || back.Rest != nil || back.WInv != nil || !sameBits(back, &st) {
		t.Fatalf("a state without bodies reads back with body arrays of %d/%d/%d or changed", len(back.Body), len(back.Rest), len(back.WInv))
	}
	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil || !bytes.Equal(buf.Bytes(), good) {
		t.Fatalf("the solver writes its state otherwise than the State does (%v)", err)
	}
	_, pos := frameAt(0)
	bad := bytes.Clone(good)
	binary.LittleEndian.PutUint32(bad[pos+36*st.N()+4*5:], 2) // particle 5's body
	if _, err := DecodeState(bytes.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "particle 5 belongs to body 2 of 0") {
		t.Fatalf("a body index without bodies: %v", err)
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
