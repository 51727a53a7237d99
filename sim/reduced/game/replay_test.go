package game

import (
	"bytes"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/replay"
	"github.com/slosh/slosh/sim/scene"
)

// A sitting at the game — a current drawn, excited, a box spawned, held, dragged and thrown, a parameter changed —
// recorded by the replay log, written and read back, replays onto a fresh solver to the same state, bit for bit.
func TestReplayIsTheSitting(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	sc, err := scene.Builtin("reduced-2")
	if err != nil {
		t.Fatal(err)
	}
	s := New()
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	var log replay.Log
	if err := log.Start(Name, sc, s.Params(), sim.FrameDt); err != nil {
		t.Fatal(err)
	}
	h, ok := log.FlatHands(s)
	if !ok {
		t.Fatal("no 2D hands")
	}
	frame := func(n int) {
		for ; n > 0; n-- {
			log.Params(s)
			k := s.BeginFrame(sim.FrameDt)
			for i := 0; i < k; i++ {
				if err := s.Step(sim.FrameDt / float64(k)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	frame(5)
	if _, err := h.Draw([][2]float32{{0.15, 0.15}, {0.9, 0.6}, {1.75, 0.98}}, 0.8, 0.3); err != nil {
		t.Fatal(err)
	}
	frame(10)
	if err := h.Excite(1); err != nil {
		t.Fatal(err)
	}
	box, err := h.Spawn(scene.FlatBody{Shape: scene.FlatBox, Center: scene.Vec2{1.2, 0.9}, Size: scene.Vec2{0.1, 0.1}, Density: 1000})
	if err != nil {
		t.Fatal(err)
	}
	frame(3)
	if i := h.Grab([2]float32{1.2, 0.9}); i != box {
		t.Fatalf("grabbed %d, want the spawned box %d", i, box)
	}
	for k := 0; k < 5; k++ {
		h.MoveGrab([2]float32{1.2 - 0.05*float32(k), 0.9 - 0.03*float32(k)})
		frame(1)
	}
	h.Release()
	if err := s.Params().Assign("reduced.viscosity=0.001"); err != nil {
		t.Fatal(err)
	}
	frame(20)
	f, err := log.Snapshot(s.Stats().Steps)
	if err != nil {
		t.Fatal(err)
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := replay.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	r := New()
	if err := replay.Run(r, back, nil); err != nil {
		t.Fatal(err)
	}
	var want, got bytes.Buffer
	if err := s.WriteState(&want); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteState(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want.Bytes(), got.Bytes()) {
		t.Fatalf("the replay's state differs from the sitting's (%d actions, %d steps)", len(back.Actions), back.Steps)
	}
}
