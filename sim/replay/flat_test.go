package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// flatSample is a small valid 2D scene's file with one action of every 2D op, recorded by a Log through its
// FlatHands, with the calls that changed nothing (a failed stroke, a key without a current, a grab of nothing
// and the move and release after it, a release and a move after a release, a removal of no body) left out. Its actions: 0 params, 1 draw, 2 excite,
// 3 grab, 4–5 move_grab, 6 release, 7 spawn, 8 remove_flat_body.
func flatSample(t testing.TB) *File {
	t.Helper()
	s := newFlatFake()
	var l Log
	sc := level(t)
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	if err := l.Start(s.Name(), sc, s.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	h, ok := l.FlatHands(s)
	if !ok {
		t.Fatal("no FlatHands")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	s.stepN(1)
	s.v.eps = 0.25
	_, err := h.Draw([][2]float32{{0.2, 0.3}, {1, 0.5}, {1.8, 0.3}}, 0.4, 0.15)
	must(err)
	if _, err := h.Draw([][2]float32{{0.2, 0.3}}, 0.4, 0.15); err == nil {
		t.Fatal("the fake drew a stroke of one point")
	}
	s.stepN(1)
	must(h.Excite(1))
	if err := h.Excite(4); err == nil {
		t.Fatal("the fake excited key 4")
	}
	if i := h.Grab([2]float32{1.5, 0.5}); i != -1 {
		t.Fatalf("a grab of nothing took body %d", i)
	}
	h.MoveGrab([2]float32{1.4, 0.5})
	h.Release()
	s.stepN(1)
	if i := h.Grab([2]float32{0.3, 0.6}); i != 0 {
		t.Fatalf("the grab took body %d", i)
	}
	h.MoveGrab([2]float32{0.35, 0.7})
	s.stepN(1)
	h.MoveGrab([2]float32{-0.5, 1.5}) // the cursor left the view
	h.Release()
	h.Release() // nothing held any more: these change nothing
	h.MoveGrab([2]float32{1, 1})
	_, err = h.Spawn(scene.FlatBody{Shape: scene.FlatPolygon, Center: scene.Vec2{1.5, 0.8},
		Points: []scene.Vec2{{-0.05, -0.05}, {0.05, -0.05}, {0, 0.07}}, Angle: 15, Density: 450, Friction: 0.3,
		Restitution: 0.1, Velocity: scene.Vec2{0.2, -0.1}, Spin: 0.5})
	must(err)
	s.stepN(1)
	must(h.RemoveFlatBody(2))
	if err := h.RemoveFlatBody(5); err == nil {
		t.Fatal("the fake removed body 5")
	}
	f, err := l.Snapshot(6)
	must(err)
	return f
}

// A 2D sitting's file holds each 2D op in the JSON the package documents.
func TestFlatOpsJSON(t *testing.T) {
	data, err := flatSample(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `  "actions": [
    {"step": 1, "op": "params", "params": {"fake.eps": 0.25}},
    {"step": 1, "op": "draw", "points": [[0.2, 0.3], [1, 0.5], [1.8, 0.3]], "speed": 0.4, "width": 0.15},
    {"step": 2, "op": "excite", "key": 1},
    {"step": 3, "op": "grab", "at": [0.3, 0.6]},
    {"step": 3, "op": "move_grab", "at": [0.35, 0.7]},
    {"step": 4, "op": "move_grab", "at": [-0.5, 1.5]},
    {"step": 4, "op": "release"},
    {"step": 4, "op": "spawn", "flat_body": {"shape": "polygon", "center": [1.5, 0.8], "points": [[-0.05, -0.05], [0.05, -0.05], [0, 0.07]], "angle": 15, "density": 450, "friction": 0.3, "restitution": 0.1, "velocity": [0.2, -0.1], "spin": 0.5}},
    {"step": 5, "op": "remove_flat_body", "index": 2}
  ]
}
`
	if !strings.HasSuffix(string(data), want) {
		t.Fatalf("the file:\n%s\nwant its actions:\n%s", data, want)
	}
}

// A 2D sitting recorded by a Log, written, read back and played by Run onto a fresh solver gives the solver the
// same calls at the same steps with bit-identical arguments: random bit patterns in every float32 of the strokes
// and the grabs (negative zero and subnormals among them), random low bits in every float64 of the spawned
// bodies.
func TestFlatSittingReplaysBitForBit(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	in := func(lo, hi float32) float32 { // every mantissa bit random
		return lo + (hi-lo)*math.Float32frombits(0x3f800000|rng.Uint32()>>9) - (hi - lo)
	}
	near := func(x float64) float64 { return x * (1 + (rng.Float64()-0.5)*1e-3) }
	s := newFlatFake()
	sc := level(t)
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	var l Log
	if err := l.Start(s.Name(), sc, s.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	h, _ := l.FlatHands(s)
	shapes := []scene.FlatBody{
		{Shape: scene.FlatBox, Size: scene.Vec2{near(0.1), near(0.08)}},
		{Shape: scene.FlatCircle, Radius: near(0.05)},
		{Shape: scene.FlatPolygon, Points: []scene.Vec2{{near(-0.05), near(-0.05)}, {near(0.05), near(-0.05)}, {near(0.01), near(0.06)}}},
	}
	for frame := 0; frame < 60; frame++ {
		switch frame % 6 {
		case 0:
			var pts [][2]float32
			for k := 0; k < 2+rng.IntN(20); k++ {
				pts = append(pts, [2]float32{in(0, 2), in(0, 1.2)})
			}
			if _, err := h.Draw(pts, in(0.01, 100), in(0.01, 2)); err != nil {
				t.Fatal(err)
			}
		case 1:
			if err := h.Excite(1 + rng.IntN(min(s.drawn, 9))); err != nil {
				t.Fatal(err)
			}
		case 2:
			if h.Grab([2]float32{in(0, 0.99), in(0, 1.2)}) < 0 {
				t.Fatal("no grab")
			}
			h.MoveGrab([2]float32{float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32})
		case 3:
			h.MoveGrab([2]float32{in(-5, 5), in(-5, 5)})
			if frame%4 == 3 {
				h.Release()
			}
		case 4:
			b := shapes[rng.IntN(len(shapes))]
			b.Center = scene.Vec2{near(1), near(0.6)}
			b.Angle, b.Density, b.Friction, b.Restitution = near(30), near(500), near(0.5), near(0.5)
			b.Velocity, b.Spin = scene.Vec2{near(0.3), near(-0.2)}, near(1)
			if _, err := h.Spawn(b); err != nil {
				t.Fatal(err)
			}
		case 5:
			if err := h.RemoveFlatBody(rng.IntN(s.bodies)); err != nil {
				t.Fatal(err)
			}
			s.v.eps = in(-1, 1) // logged before the next call
		}
		s.stepN(1 + rng.IntN(3))
	}
	h.Release() // after the last step
	f, err := l.Snapshot(s.steps)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "game.replay")
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	g, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	replayed := newFlatFake()
	if err := Run(replayed, g, nil); err != nil {
		t.Fatal(err)
	}
	if len(s.flat) < 60 {
		t.Fatalf("the sitting made only %d calls", len(s.flat))
	}
	if len(replayed.flat) != len(s.flat) {
		t.Fatalf("the replay made %d calls, the sitting %d", len(replayed.flat), len(s.flat))
	}
	for i := range s.flat {
		if !bitsEqual(reflect.ValueOf(s.flat[i]), reflect.ValueOf(replayed.flat[i])) {
			t.Fatalf("call %d: the sitting's\n%+v\nthe replay's\n%+v", i, s.flat[i], replayed.flat[i])
		}
	}
	if math.Float32bits(replayed.v.eps) != math.Float32bits(s.v.eps) || replayed.steps != s.steps {
		t.Fatalf("eps %v at step %d, the sitting's %v at step %d", replayed.v.eps, replayed.steps, s.v.eps, s.steps)
	}
}

// The Log's FlatHands forward every call, log only those that changed the game with copies of their arguments,
// and break the log on what a file cannot hold.
func TestFlatHandsLog(t *testing.T) {
	if h, ok := new(Log).FlatHands(newFake()); ok || h != nil {
		t.Fatal("a solver without FlatHands got some")
	}
	f := flatSample(t)
	ops := make([]Op, len(f.Actions))
	for i, a := range f.Actions {
		ops[i] = a.Op
	}
	if want := []Op{OpParams, OpDraw, OpExcite, OpGrab, OpMoveGrab, OpMoveGrab, OpRelease, OpSpawn, OpRemoveFlatBody}; !reflect.DeepEqual(ops, want) {
		t.Fatalf("logged %v, want %v", ops, want)
	}

	// the caller's buffers are copied
	s := newFlatFake()
	sc := level(t)
	_ = s.Reset(sc)
	var l Log
	if err := l.Start(s.Name(), sc, s.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	h, _ := l.FlatHands(s)
	pts := [][2]float32{{0.1, 0.1}, {0.5, 0.5}}
	body := scene.FlatBody{Shape: scene.FlatPolygon, Center: scene.Vec2{1, 1}, Points: []scene.Vec2{{0, 0}, {0.1, 0}, {0, 0.1}}, Density: 300}
	if _, err := h.Draw(pts, 1, 0.1); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Spawn(body); err != nil {
		t.Fatal(err)
	}
	pts[0][0], body.Points[0][0] = 9, 9
	g, err := l.Snapshot(0)
	if err != nil {
		t.Fatal(err)
	}
	if g.Actions[0].Stroke.Points[0][0] != 0.1 || g.Actions[1].FlatBody.Points[0][0] != 0 {
		t.Fatalf("the log shares the caller's slices: %v, %v", g.Actions[0].Stroke.Points, g.Actions[1].FlatBody.Points)
	}

	// what a file cannot hold breaks the log, with the reason
	for _, c := range []struct {
		name string
		do   func(s *flatFake, l *Log)
		want string
	}{
		{"a stroke far outside", func(s *flatFake, l *Log) {
			h, _ := l.FlatHands(s)
			_, _ = h.Draw([][2]float32{{0.1, 0.1}, {9, 0.1}}, 1, 0.1)
		}, "a draw that a replay cannot hold: points[1]: (9, 0.1) lies more than 0.2 m outside the scene's rectangle"},
		{"a removal of no body", func(s *flatFake, l *Log) {
			s.lenient = true
			h, _ := l.FlatHands(s)
			_ = h.RemoveFlatBody(2)
		}, "a remove_flat_body that a replay cannot hold: index: there is no body 2"},
		{"a 3D tool", func(s *flatFake, l *Log) {
			h, _ := l.Hands(s)
			h.SetTools(sim.Tools{})
		}, "a 3D tool (set_tools) was used in a 2D scene"},
	} {
		s := newFlatFake()
		sc := level(t)
		_ = s.Reset(sc)
		var l Log
		if err := l.Start(s.Name(), sc, s.Params(), frameDt); err != nil {
			t.Fatal(err)
		}
		c.do(s, &l)
		if len(s.flat)+len(s.calls) != 1 {
			t.Errorf("%s: the call did not reach the solver", c.name)
		}
		if _, err := l.Snapshot(0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant an error containing %q", c.name, err, c.want)
		}
	}
	// and the 2D hands in a 3D scene
	s3 := newFlatFake()
	l3 := Log{}
	if err := l3.Start(s3.Name(), pool(t), s3.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	s3.bodies = 1
	h3, _ := l3.FlatHands(s3)
	h3.Grab([2]float32{0.1, 0.1})
	if _, err := l3.Snapshot(0); err == nil || !strings.Contains(err.Error(), "the 2D game's grab was used in a 3D scene") {
		t.Fatalf("a grab in a 3D scene: %v", err)
	}
}

// The Player applies the 2D ops through the solver's FlatHands, and says so when it has none, when a call fails
// and when a grab takes hold of nothing.
func TestFlatPlayerErrors(t *testing.T) {
	f := flatSample(t)
	g := *f
	g.Actions = []Action{{Step: 0, Op: OpExcite, Key: 1}}
	if _, err := NewPlayer(&g).ApplyDue(newFake()); err == nil || !strings.Contains(err.Error(), "mode fake has no 2D game's hands (sim.FlatHands) for op excite") {
		t.Fatalf("FlatHands missing: %v", err)
	}
	if _, err := NewPlayer(&g).ApplyDue(newFlatFake()); err == nil || !strings.Contains(err.Error(), "actions[0] (excite at step 0): no current on key 1") {
		t.Fatalf("a failing excite: %v", err)
	}
	g.Actions = []Action{{Step: 0, Op: OpGrab, At: &[2]float32{1.5, 0.5}}}
	s := newFlatFake()
	s.bodies = 2
	if _, err := NewPlayer(&g).ApplyDue(s); err == nil || !strings.Contains(err.Error(), "at (1.5, 0.5) there was a body to take hold of, and now there is none") {
		t.Fatalf("a grab of nothing: %v", err)
	}
	g.Actions = []Action{{Step: 0, Op: OpDrain, Drain: &Drain{Radius: 1}}}
	if _, err := NewPlayer(&g).ApplyDue(bareSolver{newFake()}); err == nil || !strings.Contains(err.Error(), "mode fake has no tools") {
		t.Fatalf("a 3D tool without Hands: %v", err)
	}
}

// Marshal refuses a 2D action that Decode would refuse, naming the field.
func TestFlatWriteRefusesInvalidFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		change func(f *File)
		want   string
	}{
		{"NaN point", func(f *File) { f.Actions[1].Stroke.Points[2][1] = float32(nan()) }, "actions[1] (draw at step 1): points[2]: NaN is not a finite number"},
		{"infinite width", func(f *File) { f.Actions[1].Stroke.Width = float32(math.Inf(1)) }, "width: +Inf is not a finite number"},
		{"NaN grab", func(f *File) { f.Actions[3].At[0] = float32(nan()) }, "actions[3] (grab at step 3): at: NaN"},
		{"NaN body", func(f *File) { f.Actions[7].FlatBody.Points[1][0] = nan() }, "actions[7] (spawn at step 4): flat_body.points[1]: NaN is not a finite number"},
		{"infinite spin", func(f *File) { f.Actions[7].FlatBody.Spin = math.Inf(-1) }, "actions[7] (spawn at step 4): flat_body.spin: -Inf is not a finite number"},
		{"key 0", func(f *File) { f.Actions[2].Key = 0 }, "key: 0 is not a digit key 1–9"},
		{"negative index", func(f *File) { f.Actions[8].Index = -1 }, "index: -1 is negative"},
		{"a grab's point on a draw", func(f *File) { f.Actions[1].At = &[2]float32{} }, "at: not used by op draw (it belongs to ops grab and move_grab)"},
		{"a key on a release", func(f *File) { f.Actions[6].Key = 3 }, "key: not used by op release (it belongs to op excite)"},
		{"a spawn without its body", func(f *File) { f.Actions[7].FlatBody = nil }, "flat_body: missing: op spawn needs it"},
		{"a move without its point", func(f *File) { f.Actions[4].At = nil }, "at: missing: op move_grab needs it"},
	} {
		f := flatSample(t)
		c.change(f)
		path := filepath.Join(dir, "x.replay")
		if err := Write(path, f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("%s: a refused file was written", c.name)
		}
	}
}

// Decode refuses a 2D sitting's file with a mistake in an action, naming the field at fault.
func TestFlatDecodeRejects(t *testing.T) {
	good, err := flatSample(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(bytes.NewReader(good)); err != nil {
		t.Fatal(err)
	}
	edit := func(data []byte, change func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	action := func(m map[string]any, i int) map[string]any { return m["actions"].([]any)[i].(map[string]any) }
	body := func(m map[string]any) map[string]any { return action(m, 7)["flat_body"].(map[string]any) }
	points := func(n int) []any {
		var out []any
		for i := 0; i < n; i++ {
			out = append(out, []any{0.1 + 1.5*float64(i)/float64(n), 0.5})
		}
		return out
	}
	spawns := func(n int) func(m map[string]any) { // n more bodies spawned at the spawn's step
		return func(m map[string]any) {
			as := m["actions"].([]any)
			var more []any
			for i := 0; i < n; i++ {
				more = append(more, map[string]any{"step": 4, "op": "spawn",
					"flat_body": map[string]any{"shape": "circle", "center": []any{1, 0.6}, "radius": 0.01, "density": 500}})
			}
			m["actions"] = append(append(append([]any{}, as[:8]...), more...), as[8:]...)
		}
	}
	good3D, err := sample(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// actions of the sample: 0 params, 1 draw, 2 excite, 3 grab, 4–5 move_grab, 6 release, 7 spawn, 8 remove_flat_body
	for _, c := range []struct {
		name, data, want string
	}{
		{"unknown field", edit(good, func(m map[string]any) { action(m, 1)["colour"] = "red" }), "actions[1].colour: unknown field"},
		{"a grab's point on a draw", edit(good, func(m map[string]any) { action(m, 1)["at"] = []any{0.1, 0.1} }),
			"actions[1]: at: not used by op draw (it belongs to ops grab and move_grab)"},
		{"a stroke's points on a grab", edit(good, func(m map[string]any) { action(m, 3)["points"] = points(2) }),
			"actions[3]: points: not used by op grab (it belongs to op draw)"},
		{"a speed on an excite", edit(good, func(m map[string]any) { action(m, 2)["speed"] = 1 }), "actions[2]: speed: not used by op excite (it belongs to op draw)"},
		{"a key on a draw", edit(good, func(m map[string]any) { action(m, 1)["key"] = 1 }), "actions[1]: key: not used by op draw (it belongs to op excite)"},
		{"an index on a release", edit(good, func(m map[string]any) { action(m, 6)["index"] = 0 }),
			"actions[6]: index: not used by op release (it belongs to ops remove_body and remove_flat_body)"},
		{"a body on a spawn", edit(good, func(m map[string]any) { action(m, 7)["body"] = body(m); delete(action(m, 7), "flat_body") }),
			"actions[7].body.angle: unknown field"},
		{"a 2D body on an add_body", edit(good3D, func(m map[string]any) { action(m, 3)["flat_body"] = action(m, 3)["body"] }),
			"actions[3].flat_body.center: want an array of 2 numbers, got an array of 3"},
		{"draw without speed", edit(good, func(m map[string]any) { delete(action(m, 1), "speed") }), "actions[1]: speed: missing: op draw needs it"},
		{"draw without points", edit(good, func(m map[string]any) { delete(action(m, 1), "points") }), "actions[1]: points: missing: op draw needs it"},
		{"excite without key", edit(good, func(m map[string]any) { delete(action(m, 2), "key") }), "actions[2]: key: missing: op excite needs it"},
		{"grab without at", edit(good, func(m map[string]any) { delete(action(m, 3), "at") }), "actions[3]: at: missing: op grab needs it"},
		{"move without at", edit(good, func(m map[string]any) { delete(action(m, 5), "at") }), "actions[5]: at: missing: op move_grab needs it"},
		{"spawn without body", edit(good, func(m map[string]any) { delete(action(m, 7), "flat_body") }), "actions[7] (spawn at step 4): flat_body: missing: op spawn needs it"},
		{"remove without index", edit(good, func(m map[string]any) { delete(action(m, 8), "index") }), "actions[8]: index: missing: op remove_flat_body needs it"},
		{"short point", edit(good, func(m map[string]any) { action(m, 3)["at"] = []any{0.3} }), "actions[3].at: want an array of 2 numbers, got an array of 1"},
		{"3D point in a stroke", edit(good, func(m map[string]any) { action(m, 1)["points"].([]any)[1] = []any{1, 0.5, 0} }),
			"actions[1].points[1]: want an array of 2 numbers, got an array of 3"},
		{"key not whole", edit(good, func(m map[string]any) { action(m, 2)["key"] = 1.5 }), "actions[2].key: want a whole number, got 1.5"},
		{"speed a string", edit(good, func(m map[string]any) { action(m, 1)["speed"] = "fast" }), `actions[1].speed: want a number, got "fast"`},
		{"speed not finite", strings.Replace(string(good), `"speed": 0.4`, `"speed": 1e999`, 1), "actions[1].speed: 1e999 is out of range for a float32"},
		{"grab beyond float32", strings.Replace(string(good), `"at": [0.3, 0.6]`, `"at": [0.3, 1e39]`, 1), "actions[3].at[1]: 1e39 is out of range for a float32"},
		{"stroke of one point", edit(good, func(m map[string]any) { action(m, 1)["points"] = points(1) }),
			"actions[1] (draw at step 1): points: 1 points; a drawn current is a stroke of 2 to 1024"},
		{"stroke too long", edit(good, func(m map[string]any) { action(m, 1)["points"] = points(scene.MaxCurrentPoints + 1) }),
			"actions[1] (draw at step 1): points: 1025 points; a drawn current is a stroke of 2 to 1024"},
		{"stroke outside", edit(good, func(m map[string]any) { action(m, 1)["points"].([]any)[2] = []any{2.5, 0.3} }),
			"actions[1] (draw at step 1): points[2]: (2.5, 0.3) lies more than 0.2 m outside the scene's rectangle [0, 2]×[0, 1.2]"},
		{"stroke still", edit(good, func(m map[string]any) { action(m, 1)["speed"] = 0 }), "actions[1] (draw at step 1): speed: 0 m/s is outside (0, 100]"},
		{"stroke fast", edit(good, func(m map[string]any) { action(m, 1)["speed"] = 1e5 }), "speed: 100000 m/s is outside (0, 100]"},
		{"stroke thin", edit(good, func(m map[string]any) { action(m, 1)["width"] = -0.1 }), "actions[1] (draw at step 1): width: -0.1 m is not positive"},
		{"stroke wide", edit(good, func(m map[string]any) { action(m, 1)["width"] = 3 }), "actions[1] (draw at step 1): width: 3 m is over 2 m, the rectangle's longer side"},
		{"key 0", edit(good, func(m map[string]any) { action(m, 2)["key"] = 0 }), "actions[2] (excite at step 2): key: 0 is not a digit key 1–9"},
		{"key 10", edit(good, func(m map[string]any) { action(m, 2)["key"] = 10 }), "key: 10 is not a digit key 1–9"},
		{"grab outside", edit(good, func(m map[string]any) { action(m, 3)["at"] = []any{0.3, -0.5} }),
			"actions[3] (grab at step 3): at: (0.3, -0.5) lies more than 0.2 m outside the scene's rectangle"},
		{"move far", edit(good, func(m map[string]any) { action(m, 5)["at"] = []any{1e6, 0} }),
			"actions[5] (move_grab at step 4): at: (1e+06, 0) lies more than 20 m outside the scene's rectangle"},
		{"remove no body", edit(good, func(m map[string]any) { action(m, 8)["index"] = 3 }),
			"actions[8] (remove_flat_body at step 5): index: there is no body 3: there are 3 then, 0..2 (the scene has 2)"},
		{"remove a body gone", edit(good, func(m map[string]any) {
			m["actions"] = append(m["actions"].([]any), map[string]any{"step": 6, "op": "remove_flat_body", "index": 2})
		}), "actions[9] (remove_flat_body at step 6): index: there is no body 2: there are 2 then, 0..1 (the scene has 2)"},
		{"remove negative", edit(good, func(m map[string]any) { action(m, 8)["index"] = -1 }), "actions[8] (remove_flat_body at step 5): index: -1 is negative"},
		{"spawn unknown field", edit(good, func(m map[string]any) { body(m)["mass"] = 1 }), "actions[7].flat_body.mass: unknown field; known fields here are shape, center"},
		{"spawn without center", edit(good, func(m map[string]any) { delete(body(m), "center") }), "actions[7].flat_body.center: missing"},
		{"spawn shape", edit(good, func(m map[string]any) { body(m)["shape"] = "blob" }), `actions[7] (spawn at step 4): flat_body.shape: unknown shape "blob"`},
		{"spawn outside", edit(good, func(m map[string]any) { body(m)["center"] = []any{1.5, 3} }),
			"actions[7] (spawn at step 4): flat_body.center[1]: 3 m lies outside the rectangle [0, 1.2]"},
		{"spawn clockwise", edit(good, func(m map[string]any) {
			body(m)["points"] = []any{[]any{-0.05, -0.05}, []any{0, 0.07}, []any{0.05, -0.05}}
		}),
			"actions[7] (spawn at step 4): flat_body.points[1]: the polygon turns the wrong way"},
		{"spawn light", edit(good, func(m map[string]any) { body(m)["density"] = 0 }), "actions[7] (spawn at step 4): flat_body.density: 0 kg/m² is outside"},
		{"spawn static with density", edit(good, func(m map[string]any) { body(m)["static"] = true }), "actions[7] (spawn at step 4): flat_body: a static body has no density"},
		{"spawn radius on a polygon", edit(good, func(m map[string]any) { body(m)["radius"] = 0.1 }), "flat_body.radius: a polygon has no radius"},
		{"spawn too many", edit(good, spawns(scene.MaxBodies-2)),
			fmt.Sprintf("actions[%d] (spawn at step 4): flat_body: there are %d bodies then, the most a scene may have", 8+scene.MaxBodies-3, scene.MaxBodies)},
		{"a 3D tool in a 2D scene", edit(good, func(m map[string]any) {
			action(m, 6)["op"], action(m, 6)["drain"] = "drain", map[string]any{"center": []any{0.1, 0.1, 0}, "radius": 0.1}
		}), `actions[6] (drain at step 4): op drain is a 3D tool, and this replay's scene is a 2D one (it has "flat")`},
		{"a 2D hand in a 3D scene", edit(good3D, func(m map[string]any) {
			action(m, 4)["op"], action(m, 4)["key"] = "excite", 1
			delete(action(m, 4), "drive")
		}),
			`actions[4] (excite at step 4): op excite is one of the 2D game's hands, and this replay's scene is a 3D one (it has no "flat")`},
		{"a spawn in a 3D scene", edit(good3D, func(m map[string]any) {
			action(m, 3)["op"], action(m, 3)["flat_body"] = "spawn", body(mustMap(t, good))
			delete(action(m, 3), "body")
		}),
			"actions[3] (spawn at step 4): op spawn is one of the 2D game's hands, and this replay's scene is a 3D one"},
		{"unknown op", edit(good, func(m map[string]any) { action(m, 6)["op"] = "throw" }), `unknown op "throw"; one of params, add_fluid, drain, add_body, remove_body, drive_body, set_tools, draw, excite, grab, move_grab, release, spawn, remove_flat_body`},
	} {
		_, err := Decode(strings.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant an error containing %q", c.name, err, c.want)
		}
	}
	// at the limits: the most bodies, a stroke of the most points, a move at the edge of the reach
	for _, ok := range []string{
		edit(good, spawns(scene.MaxBodies-3)),
		edit(good, func(m map[string]any) { action(m, 1)["points"] = points(scene.MaxCurrentPoints) }),
		edit(good, func(m map[string]any) { action(m, 5)["at"] = []any{-20, 21} }),
		edit(good, func(m map[string]any) { action(m, 1)["width"] = 2 }),
	} {
		if _, err := Decode(strings.NewReader(ok)); err != nil {
			t.Errorf("refused at the limit: %v", err)
		}
	}
}

func mustMap(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Every float32 of a stroke and a grab, and every float64 of a spawned body, comes back from a file bit for bit:
// random bit patterns, subnormals, the extremes and negative zero (through an action's own encoding, which has no
// ranges).
func TestFlatNumbersRoundTripExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	f32 := func() float32 {
		for {
			if x := math.Float32frombits(rng.Uint32()); !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) {
				return x
			}
		}
	}
	f64 := func() float64 {
		for {
			if x := math.Float64frombits(rng.Uint64()); !math.IsNaN(x) && !math.IsInf(x, 0) {
				return x
			}
		}
	}
	v2 := func() scene.Vec2 { return scene.Vec2{f64(), f64()} }
	var actions []Action
	for i := 0; i < 300; i++ {
		st := &Stroke{Speed: f32(), Width: f32()}
		for k := 0; k < 2+rng.IntN(5); k++ {
			st.Points = append(st.Points, [2]float32{f32(), f32()})
		}
		actions = append(actions,
			Action{Op: OpDraw, Stroke: st},
			Action{Op: OpGrab, At: &[2]float32{f32(), f32()}},
			Action{Op: OpMoveGrab, At: &[2]float32{f32(), f32()}},
			Action{Op: OpSpawn, FlatBody: &scene.FlatBody{Shape: scene.FlatPolygon, Center: v2(), Points: []scene.Vec2{v2(), v2(), v2()},
				Angle: f64(), Density: f64(), Friction: f64(), Restitution: f64(), Velocity: v2(), Spin: f64()}},
			Action{Op: OpSpawn, FlatBody: &scene.FlatBody{Shape: scene.FlatBox, Center: v2(), Size: v2(), Static: true, Crate: true}},
			Action{Op: OpExcite, Key: 1 + rng.IntN(9)},
			Action{Op: OpRemoveFlatBody, Index: rng.IntN(100)},
			Action{Op: OpRelease},
		)
	}
	special := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.MaxFloat32, math.MaxFloat32, math.Float32frombits(0x007fffff)}
	actions = append(actions, Action{Op: OpDraw, Stroke: &Stroke{Points: [][2]float32{{special[0], special[1]}, {special[2], special[3]}, {special[4], special[5]}},
		Speed: math.SmallestNonzeroFloat32, Width: float32(math.Copysign(0, -1))}})
	for i := range actions {
		a, b := &actions[i], &Action{}
		raw, err := a.marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeAction(raw, fmt.Sprintf("actions[%d]", i), b); err != nil {
			t.Fatalf("%v\n%s", err, raw)
		}
		if !bitsEqual(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()) {
			jb, _ := b.marshal()
			t.Fatalf("actions[%d] changed on the way through the file:\n%s\n%s", i, raw, jb)
		}
	}
}
