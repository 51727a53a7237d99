package game

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// a level of 2 s with a crate far from its zone
const clockLevel = `{"name":"k","mode":"reduced","description":"Level K: a test.","flat":{"size":[1,1],
	"bodies":[{"shape":"box","center":[0.2,0.5],"size":[0.1,0.1],"density":1000,"crate":true}],
	"goal":{"zone":{"min":[0.8,0.8],"max":[0.95,0.95]},"crates":1,"time":2}}}`

// The level's clock starts at the player's first move, not at the start: a player who waits longer than the time
// limit has not lost, the status line carries the goal and the level's words until the move, and from the move
// the whole time limit is left, and then runs out.
func TestClockStartsAtFirstMove(t *testing.T) {
	s := newGame(t, clockLevel, "reduced.tracers=0", "reduced.grid=24", "reduced.modes=16")
	frames(t, s, 150) // 2.5 s, past the limit
	st := s.lvl.status(s.time)
	if s.lvl.outcome != Playing || !strings.Contains(st, "0:02 left") {
		t.Fatalf("after 2.5 s with no input: %q, %s", st, s.lvl.message())
	}
	if !strings.Contains(st, "\nGoal: bring the crate into the green zone within 0:02") || !strings.Contains(st, "\nLevel K: a test.") {
		t.Errorf("before the first move the status does not say the goal and the level: %q", st)
	}
	if _, err := s.Spawn(spawnBox(0.5, 0.2)); err != nil {
		t.Fatal(err)
	}
	moved := s.time
	frames(t, s, 60)
	if st := s.lvl.status(s.time); s.lvl.outcome != Playing || strings.Contains(st, "\n") || !strings.Contains(st, "0:01 left") {
		t.Errorf("a second after the first move: %q", st)
	}
	frames(t, s, 70)
	if s.lvl.outcome != Lost || s.lvl.endTime < 2 || s.lvl.endTime > 2.05 || s.lvl.start != moved {
		t.Errorf("the clock ran out at level time %.3f s (started at %.3f s, the move at %.3f s): %s", s.lvl.endTime, s.lvl.start, moved, s.lvl.message())
	}
}

// The clock is in the saved state; a state of version 1, which ran the clock from the start, reads as a clock
// started at 0.
func TestClockState(t *testing.T) {
	s := newGame(t, clockLevel, "reduced.tracers=0", "reduced.grid=24", "reduced.modes=16")
	frames(t, s, 30)
	if err := s.Excite(1); err == nil {
		t.Fatal("excited a current the level does not have")
	}
	if s.lvl.started {
		t.Fatal("a refused move started the clock")
	}
	if _, err := s.Spawn(spawnBox(0.5, 0.2)); err != nil {
		t.Fatal(err)
	}
	frames(t, s, 10)
	var b bytes.Buffer
	if err := s.WriteState(&b); err != nil {
		t.Fatal(err)
	}
	r := newGame(t, clockLevel, "reduced.tracers=0", "reduced.grid=24", "reduced.modes=16")
	if err := r.ReadState(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatal(err)
	}
	if !r.lvl.started || r.lvl.start != s.lvl.start {
		t.Errorf("read back the clock as started %v at %g s, want at %g s", r.lvl.started, r.lvl.start, s.lvl.start)
	}
	// version 1: the same bytes without the clock's 9
	data := b.Bytes()
	off := len(stateMagic)
	binary.LittleEndian.PutUint32(data[off:], 1)
	off += 4 + 8 + 8 + 8 + 8 + 4
	src := int(binary.LittleEndian.Uint64(data[off:]))
	off += 8 + src + 4 + 4 + 8
	v1 := append(append([]byte(nil), data[:off]...), data[off+9:]...)
	r = newGame(t, clockLevel, "reduced.tracers=0", "reduced.grid=24", "reduced.modes=16")
	if err := r.ReadState(bytes.NewReader(v1)); err != nil {
		t.Fatal(err)
	}
	if !r.lvl.started || r.lvl.start != 0 {
		t.Errorf("a version 1 state reads as a clock started %v at %g s, want from the start", r.lvl.started, r.lvl.start)
	}
	binary.LittleEndian.PutUint32(v1[len(stateMagic):], 3)
	if err := r.ReadState(bytes.NewReader(v1)); err == nil || !strings.Contains(err.Error(), "version 3") {
		t.Errorf("a version 3 state: %v", err)
	}
}

// spawnBox is the box a right click spawns, at (x, y).
func spawnBox(x, y float64) scene.FlatBody {
	return scene.FlatBody{Shape: scene.FlatBox, Center: scene.Vec2{x, y}, Size: scene.Vec2{0.05, 0.05}, Density: 1000, Friction: 0.4, Restitution: 0.1}
}
