package game

import (
	"bytes"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// A sitting with a drawn current, a spawned body and a body held, saved and loaded into a fresh solver of the
// same scene: the state reads back to the same bytes, and the two continue bit for bit (the bodies float free of
// each other and of the walls, so Box2D's contact cache does not enter).
func TestStateRoundTrip(t *testing.T) {
	js := `{"name":"s","flat":{"size":[2,1.2],
	"bodies":[{"shape":"box","center":[0.5,0.6],"size":[0.12,0.12],"density":1000,"crate":true},
	{"shape":"circle","center":[1.4,0.5],"radius":0.06,"density":1000}],
	"currents":[{"points":[[0.2,0.4],[1.8,0.8]],"speed":0.4,"width":0.25,"key":3}],
	"goal":{"zone":{"min":[1.6,0.1],"max":[1.95,0.5]},"crates":1}}}`
	a := newGame(t, js)
	frames(t, a, 10)
	if _, err := a.Draw([][2]float32{{0.3, 1}, {1, 0.9}, {1.7, 1}}, 0.5, 0.2); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Spawn(scene.FlatBody{Shape: scene.FlatPolygon, Center: scene.Vec2{1, 0.3}, Points: []scene.Vec2{{-0.05, -0.05}, {0.05, -0.05}, {0, 0.06}}, Density: 1000}); err != nil {
		t.Fatal(err)
	}
	if i := a.Grab([2]float32{1.4, 0.5}); i != 1 {
		t.Fatalf("grabbed body %d, want the circle", i)
	}
	a.MoveGrab([2]float32{1.3, 0.7})
	frames(t, a, 10)
	var saved bytes.Buffer
	if err := a.WriteState(&saved); err != nil {
		t.Fatal(err)
	}
	b := newGame(t, js)
	if err := b.ReadState(bytes.NewReader(saved.Bytes())); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := b.WriteState(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(saved.Bytes(), again.Bytes()) {
		t.Fatalf("the loaded state writes back differently (%d and %d bytes)", saved.Len(), again.Len())
	}
	frames(t, a, 20)
	frames(t, b, 20)
	ra, rb := a.model.Coefficients(), b.model.Coefficients()
	for k := range ra {
		if ra[k] != rb[k] {
			t.Fatalf("20 frames after the load, coefficient %d is %v against %v", k, rb[k], ra[k])
		}
	}
	for i := range a.world.bodies {
		pa, aa, _, _ := a.world.pose(i)
		pb, ab, _, _ := b.world.pose(i)
		if pa != pb || aa != ab {
			t.Errorf("body %d at %v, %v after the load; %v, %v without", i, pb, ab, pa, aa)
		}
	}
	if a.tracers[17] != b.tracers[17] || a.dye.c[1234] != b.dye.c[1234] || a.time != b.time || a.steps != b.steps {
		t.Error("tracers, dye or clock differ after the load")
	}
}

// Damaged states are refused with a message and leave the solver as it was: every truncation, and bytes flipped.
func TestStateDamaged(t *testing.T) {
	if testing.Short() {
		t.Skip("about 8 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	s := newGame(t, level1)
	frames(t, s, 5)
	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	before := s.model.Coefficients()
	step := max(1, len(data)/40)
	for cut := 0; cut < len(data); cut += step {
		if err := s.ReadState(bytes.NewReader(data[:cut])); err == nil {
			t.Fatalf("a state cut at %d of %d bytes was accepted", cut, len(data))
		}
	}
	if got := s.model.Coefficients(); got[0] != before[0] || s.steps != 5 {
		t.Fatal("a refused state changed the solver")
	}
	if err := s.ReadState(bytes.NewReader(append(append([]byte(nil), data...), 0))); err == nil {
		t.Error("a state with a byte after its end was accepted")
	}
	other := newGame(t, `{"name":"o","flat":{"size":[1,1]}}`)
	if err := other.ReadState(bytes.NewReader(data)); err == nil {
		t.Error("a state of another rectangle was accepted")
	}
}

// fuzzStateSets make FuzzState's game small (a coarse grid, few modes and tracers), so that its states are a few
// kilobytes rather than hundreds and each input is tried in milliseconds.
var fuzzStateSets = []string{"reduced.modes=12", "reduced.grid=24", "reduced.tracers=50"}

// FuzzState feeds ReadState arbitrary bytes: it refuses them or loads a state that steps and writes back.
func FuzzState(f *testing.F) {
	s := newGame(f, level1, fuzzStateSets...)
	frames(f, s, 3)
	var buf bytes.Buffer
	if err := s.WriteState(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(stateMagic))
	// issue 24: states whose body is a sliver Box2D cannot take, moves at 9999 m/s, spins at 1e6 rad/s or lies
	// outside the tank
	for _, spoil := range []func(s *Solver){
		func(s *Solver) { s.world.bodies[0].spec.Size = scene.Vec2{0.5, 1e-5} },
		func(s *Solver) { s.world.bodies[0].b.SetLinearVelocity(s.world.vec([2]float64{9999, 0})) },
		func(s *Solver) { s.world.bodies[0].b.SetAngularVelocity(1e6) },
		func(s *Solver) { s.world.bodies[0].b.SetTransform(s.world.vec([2]float64{-0.5, 0.6}), 0) },
	} {
		g := newGame(f, level1, fuzzStateSets...)
		frames(f, g, 1)
		spoil(g)
		var b bytes.Buffer
		if err := g.WriteState(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := newGame(t, level1, fuzzStateSets...)
		if err := g.ReadState(bytes.NewReader(data)); err != nil {
			return
		}
		frames(t, g, 1)
		var out bytes.Buffer
		if err := g.WriteState(&out); err != nil {
			t.Fatal(err)
		}
	})
}
