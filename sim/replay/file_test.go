package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/slosh/slosh/assets"
	"github.com/slosh/slosh/internal/testdir"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

func nan() float64 { return math.NaN() }

// sample is a small valid file with one action of every op and each tool: 0 params, 1 add_fluid, 2 drain,
// 3 add_body, 4 drive_body, 5–7 set_tools (the paddle, a stream, none), 8 remove_body, 9 set_tools (the heat tool).
func sample(t testing.TB) *File {
	t.Helper()
	s := newFake()
	var l Log
	if err := l.Start(s.Name(), pool(t), s.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	h, _ := l.Hands(s)
	s.stepN(2)
	s.v.eps = 0.125
	l.Params(s)
	h.AddFluid([][3]float32{{0.1, 0.2, 0.1}, {0.2, 0.2, 0.1}}, [][3]float32{{0, -1, 0}, {0, -1, 0}})
	h.Drain([3]float32{0.3, 0.05, 0.1}, 0.06)
	s.stepN(2)
	h.AddBody(scene.Body{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{0.2, 0.3, 0.1}, Size: scene.Vec3{0.05, 0.05, 0.05},
		Rotation: scene.Vec3{0, 30, 0}}, Density: 500, Velocity: scene.Vec3{0, -1, 0}})
	h.DriveBody(0, [3]float32{1, 0.5, 0}, true)
	h.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: [3]float32{0.1, 0.1, 0.1}, Radius: 0.04}})
	h.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.2, 0.3, 0.1}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.02, Speed: 1.5}})
	h.SetTools(sim.Tools{})
	h.RemoveBody(0)
	h.SetTools(sim.Tools{Heat: &sim.HeatTool{Center: [3]float32{0.2, 0.1, 0.1}, Radius: 0.05, Temperature: 100, Rate: 5}})
	f, err := l.Snapshot(6)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// bitsEqual reports whether a and b hold the same values, floats compared by their bits (so 0 and −0 differ).
func bitsEqual(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Float32, reflect.Float64:
		return math.Float64bits(a.Float()) == math.Float64bits(b.Float()) ||
			a.Kind() == reflect.Float32 && math.Float32bits(float32(a.Float())) == math.Float32bits(float32(b.Float()))
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return bitsEqual(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if a.Type().Field(i).IsExported() && !bitsEqual(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := 0; i < a.Len(); i++ {
			if !bitsEqual(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		return reflect.DeepEqual(a.Interface(), b.Interface())
	}
	return a.Equal(b)
}

func TestWriteReadRoundTrip(t *testing.T) {
	f := sample(t)
	path := filepath.Join(t.TempDir(), "a.replay")
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	g, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if g.Path != path {
		t.Fatalf("Path %q", g.Path)
	}
	g.Path, g.parsed, g.parsedFrom = "", nil, nil
	if !bitsEqual(reflect.ValueOf(f).Elem(), reflect.ValueOf(g).Elem()) {
		t.Fatalf("read back differently:\n%+v\n%+v", f, g)
	}
	// writing what was read gives the same bytes
	a, _ := f.Marshal()
	b, err := g.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatalf("written again differently:\n%s\n%s", a, b)
	}
	if !strings.Contains(string(a), `{"step": 4, "op": "add_body", "body": {"shape": "box", "center": [0.2, 0.3, 0.1], "size": [0.05, 0.05, 0.05], "rotation": [0, 30, 0], "density": 500, "velocity": [0, -1, 0]}}`) {
		t.Fatalf("the body is not written as a scene writes it:\n%s", a)
	}
	if !strings.Contains(string(a), `{"step": 4, "op": "set_tools", "tools": {"heat": {"center": [0.2, 0.1, 0.1], "radius": 0.05, "temperature": 100, "rate": 5}}}`) {
		t.Fatalf("the heat tool is not written:\n%s", a)
	}
	// Decode reads the same
	d, err := Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if d.Path != "" || len(d.Actions) != len(f.Actions) {
		t.Fatalf("%+v", d)
	}
}

// Every float32 and float64 an action holds, and the frame time, come back from a file bit for bit: random bit
// patterns, subnormals, the extremes and negative zero. Values a replay may not hold (a position of 1e30, a
// speed of -3e200) go through an action's own encoding, which has no ranges; the frame time, which has one,
// through a file with random low bits.
func TestNumbersRoundTripExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	f32 := func() float32 {
		for {
			x := math.Float32frombits(rng.Uint32())
			if !math.IsNaN(float64(x)) && !math.IsInf(float64(x), 0) {
				return x
			}
		}
	}
	f64 := func() float64 {
		for {
			x := math.Float64frombits(rng.Uint64())
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				return x
			}
		}
	}
	near := func(x float64) float64 { return x * (1 + (rng.Float64()-0.5)*1e-3) } // every mantissa bit random
	v3 := func() [3]float32 { return [3]float32{f32(), f32(), f32()} }
	special32 := []float32{0, float32(math.Copysign(0, -1)), math.SmallestNonzeroFloat32, -math.MaxFloat32, math.MaxFloat32,
		math.Float32frombits(0x007fffff), 0.1, 1.0 / 3, 16777217}

	f := &File{Mode: "fake", Scene: json.RawMessage(poolScene), Params: map[string]json.RawMessage{}, FrameDt: near(1.0 / 60), Steps: 1000}
	step := 0
	add := func(a Action) {
		step += rng.IntN(3)
		a.Step = step
		f.Actions = append(f.Actions, a)
	}
	for i := 0; i < 200; i++ {
		fl := &Fluid{}
		for k := 0; k < 5; k++ {
			fl.Pos, fl.Vel = append(fl.Pos, v3()), append(fl.Vel, v3())
			if i%2 == 1 { // fluid put back with its materials (an undone drain)
				fl.Material = append(fl.Material, uint8(rng.IntN(scene.MaxMaterials+1)))
			}
		}
		add(Action{Op: OpAddFluid, Fluid: fl})
		add(Action{Op: OpDrain, Drain: &Drain{Center: v3(), Radius: float32(math.Abs(float64(f32())))}})
		add(Action{Op: OpDriveBody, Drive: &Drive{Index: rng.IntN(5), Velocity: v3(), On: rng.IntN(2) == 0}})
		add(Action{Op: OpSetTools, Tools: &sim.Tools{
			Paddle: &sim.Paddle{Center: v3(), Radius: float32(math.Abs(float64(f32())))},
			Emitter: &scene.Emitter{Center: scene.Vec3{f64(), f64(), f64()}, Direction: scene.Vec3{f64(), f64(), f64()},
				Radius: math.Abs(f64()), Speed: f64(), Start: f64(), Stop: f64()},
		}})
		// the heat tool's temperature and rate have ranges: random low bits in them
		add(Action{Op: OpSetTools, Tools: &sim.Tools{Heat: &sim.HeatTool{Center: v3(), Radius: float32(math.Abs(float64(f32()))),
			Temperature: float32(near(80)), Rate: float32(near(4))}}})
		// a body must be valid: random low bits in sensible values
		add(Action{Op: OpAddBody, Body: &scene.Body{
			Shape:    scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{near(0.2), near(0.2), near(0.1)}, Radius: near(0.03)},
			Density:  near(800),
			Velocity: scene.Vec3{f64(), f64(), f64()},
			Spin:     scene.Vec3{f64(), f64(), f64()},
		}})
	}
	add(Action{Op: OpAddFluid, Fluid: &Fluid{Pos: [][3]float32{{special32[0], special32[1], special32[2]}, {special32[3], special32[4], special32[5]},
		{special32[6], special32[7], special32[8]}}, Vel: make([][3]float32, 3)}})
	add(Action{Op: OpAddFluid, Fluid: &Fluid{}}) // nothing: [] and [], not null
	f.Steps = step
	if err := f.check(); err != nil { // finite, in order
		t.Fatal(err)
	}
	actions := f.Actions
	f.Actions = nil
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !bitsEqual(reflect.ValueOf(f.FrameDt), reflect.ValueOf(g.FrameDt)) {
		t.Fatalf("frame_dt %v vs %v", f.FrameDt, g.FrameDt)
	}
	for i := range actions {
		a, b := &actions[i], &Action{}
		raw, err := a.marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeAction(raw, fmt.Sprintf("actions[%d]", i), b); err != nil {
			t.Fatal(err)
		}
		if a.Op == OpAddFluid && len(a.Fluid.Pos) == 0 {
			if len(b.Fluid.Pos) != 0 || len(b.Fluid.Vel) != 0 {
				t.Fatalf("actions[%d]: %+v", i, b.Fluid)
			}
			continue
		}
		if !bitsEqual(reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()) {
			ja, _ := a.marshal()
			jb, _ := b.marshal()
			t.Fatalf("actions[%d] changed on the way through the file:\n%s\n%s", i, ja, jb)
		}
	}
}

// Parameter values go through a file and back into a parameter set bit for bit, floats and vectors included.
func TestParamValuesRoundTripExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	src, dst := newFake(), newFake()
	var l Log
	if err := l.Start("fake", pool(t), src.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	type values struct {
		eps     float32
		gravity [3]float32
	}
	var want []values
	for i := 0; i < 2000; i++ {
		f := func() float32 {
			for {
				x := math.Float32frombits(rng.Uint32())
				if math.Abs(float64(x)) <= 1e30 { // the parameters' bounds; NaN fails this too
					return x
				}
			}
		}
		src.v.eps, src.v.gravity = f(), [3]float32{f(), f(), f()}
		want = append(want, values{src.v.eps, src.v.gravity})
		l.Params(src)
		src.stepN(1)
	}
	file, err := l.Snapshot(src.steps)
	if err != nil {
		t.Fatal(err)
	}
	data, err := file.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlayer(g)
	for i := range want {
		if _, err := p.ApplyDue(dst); err != nil {
			t.Fatal(err)
		}
		got := values{dst.v.eps, dst.v.gravity}
		if math.Float32bits(got.eps) != math.Float32bits(want[i].eps) || fmt.Sprint(got.gravity) != fmt.Sprint(want[i].gravity) {
			t.Fatalf("step %d: %v, want %v", i, got, want[i])
		}
		for c := 0; c < 3; c++ {
			if math.Float32bits(got.gravity[c]) != math.Float32bits(want[i].gravity[c]) {
				t.Fatalf("step %d: gravity %v, want %v", i, got.gravity, want[i].gravity)
			}
		}
		dst.stepN(1)
	}
}

// A file too large is refused before it is read (a sparse file: no disk used).
func TestReadRefusesHugeFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.replay")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(MaxSize + 1); err != nil {
		t.Fatal("cannot make the sparse file:", err)
	}
	fh.Close()
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), "over the 256 MiB") || !strings.Contains(err.Error(), path) {
		t.Fatalf("%v", err)
	}
}

func TestReadNamesMissingFilesAndFolders(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, "none.replay")); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("%v", err)
	}
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Fatalf("%v", err)
	}
	// a named pipe is refused at once instead of blocking until something writes to it
	fifo := filepath.Join(dir, "pipe.replay")
	testdir.FIFO(t, fifo)
	if _, err := Read(fifo); err == nil || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), fifo) {
		t.Fatalf("a named pipe: %v", err)
	}
}

func TestWriteRefusesInvalidFiles(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name   string
		change func(f *File)
		want   string
	}{
		{"nil", nil, "no replay"},
		{"NaN paddle", func(f *File) { f.Actions[5].Tools.Paddle.Center[1] = float32(nan()) }, "tools.paddle: NaN is not a finite number"},
		{"NaN heat", func(f *File) { f.Actions[9].Tools.Heat.Temperature = float32(nan()) }, "tools.heat.temperature: NaN is not a finite number"},
		{"heat without rate", func(f *File) { f.Actions[9].Tools.Heat.Rate = 0 }, "actions[9] (set_tools at step 4): tools.heat.rate: 0 /s is outside (0, 10000]"},
		{"infinite velocity", func(f *File) { f.Actions[1].Fluid.Vel[1][0] = float32(math.Inf(1)) }, "fluid.vel[1]: +Inf"},
		{"NaN body", func(f *File) { f.Actions[3].Body.Spin[2] = nan() }, "body: NaN"},
		{"no mode", func(f *File) { f.Mode = "" }, "mode: missing"},
		{"out of order", func(f *File) { f.Actions[2].Step = 0 }, "before the previous action"},
		{"past the end", func(f *File) { f.Steps = 3 }, "after the end of the replay (steps 3)"},
		{"mixed groups", func(f *File) { f.Actions[2].Fluid = &Fluid{} }, "fluid: not used by op drain"},
		{"bad param value", func(f *File) { f.Params["fake.eps"] = nil }, "params.fake.eps: no value"},
	} {
		f := sample(t)
		var arg *File
		if c.change != nil {
			c.change(f)
			arg = f
		}
		path := filepath.Join(dir, "x.replay")
		if err := Write(path, arg); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: got %v, want an error naming the file and containing %q", c.name, err, c.want)
		}
		if _, err := os.Stat(path); err == nil {
			t.Fatalf("%s: a refused file was written", c.name)
		}
	}
}

// Decode refuses what is not a valid replay with a message naming what is wrong.
func TestDecodeRejects(t *testing.T) {
	good, err := sample(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// edit applies a change to the decoded JSON tree of the good file
	edit := func(change func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
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
	// actions of the sample: 0 params, 1 add_fluid, 2 drain, 3 add_body, 4 drive_body, 5–7 set_tools, 8 remove_body,
	// 9 set_tools (heat)
	heat := func(m map[string]any) map[string]any {
		return action(m, 9)["tools"].(map[string]any)["heat"].(map[string]any)
	}
	for _, c := range []struct {
		name, data, want string
	}{
		{"empty", "  \n", "empty file"},
		{"not JSON", "slosh replay v1", "invalid JSON"},
		{"truncated", string(good[:len(good)/2]), "truncated"},
		{"an array", "[1, 2]", "not a slosh replay: a replay is a JSON object"},
		{"a scene", poolScene, `not a slosh replay: it has no "format"`},
		{"another format", edit(func(m map[string]any) { m["format"] = "slosh-save" }), `not a slosh replay (format "slosh-save"`},
		{"newer version", edit(func(m map[string]any) { m["version"] = 2 }), "version 2 is newer than this slosh reads (1)"},
		{"version 0", edit(func(m map[string]any) { m["version"] = 0 }), "unknown version 0"},
		{"no version", edit(func(m map[string]any) { delete(m, "version") }), "version: missing"},
		{"trailing data", string(good) + "{}", "unexpected data after the replay object"},
		{"trailing brace", string(good) + "}", "unexpected data after the replay object"},
		{"unknown field", edit(func(m map[string]any) { m["speed"] = 2 }), "speed: unknown field"},
		{"no mode", edit(func(m map[string]any) { delete(m, "mode") }), "mode: missing"},
		{"no actions", edit(func(m map[string]any) { delete(m, "actions") }), "actions: missing"},
		{"steps not a number", edit(func(m map[string]any) { m["steps"] = "6" }), "steps: want a whole number"},
		{"fractional steps", edit(func(m map[string]any) { m["steps"] = 6.5 }), "steps: want a whole number"},
		{"negative steps", edit(func(m map[string]any) { m["steps"] = -1 }), "steps: -1 is negative"},
		{"zero frame time", edit(func(m map[string]any) { m["frame_dt"] = 0 }), "frame_dt: 0 s is outside [0.0001, 0.1] s"},
		{"tiny frame time", edit(func(m map[string]any) { m["frame_dt"] = 1e-300 }), "frame_dt: 1e-300 s is outside"},
		{"2^63 steps", edit(func(m map[string]any) { m["steps"] = int64(math.MaxInt64) }), "steps: 9223372036854775807 is over the 1099511627776 a replay may hold"},
		{"drive no body", edit(func(m map[string]any) { action(m, 4)["drive"].(map[string]any)["index"] = 5 }),
			"actions[4] (drive_body at step 4): drive.index: there is no body 5: there is one then, body 0 (the scene has 0)"},
		{"drive fast", edit(func(m map[string]any) { action(m, 4)["drive"].(map[string]any)["velocity"] = []any{0, 1e9, 0} }), "drive.velocity: 1e+09 m/s is over 100 m/s"},
		{"remove no body", edit(func(m map[string]any) { action(m, 8)["index"] = 3 }), "actions[8] (remove_body at step 4): index: there is no body 3"},
		{"emitter fast", edit(func(m map[string]any) {
			action(m, 6)["tools"].(map[string]any)["emitter"].(map[string]any)["speed"] = 1e9
		}),
			"actions[6] (set_tools at step 4): tools.emitter.speed: 1e+09 m/s is outside (0, 100]"},
		{"emitter outside", edit(func(m map[string]any) {
			action(m, 6)["tools"].(map[string]any)["emitter"].(map[string]any)["center"] = []any{0.2, 30, 0.1}
		}), "tools.emitter.center: [0.2, 30, 0.1] lies outside the domain"},
		{"emitter huge", edit(func(m map[string]any) {
			action(m, 6)["tools"].(map[string]any)["emitter"].(map[string]any)["radius"] = 1e10
		}),
			"tools.emitter.radius: 1e+10 m is outside"},
		{"paddle far", edit(func(m map[string]any) {
			action(m, 5)["tools"].(map[string]any)["paddle"].(map[string]any)["center"] = []any{1e30, 0, 0}
		}), "tools.paddle.center: (1e+30, 0, 0) lies more than 4 m outside the scene's domain"},
		{"paddle huge", edit(func(m map[string]any) {
			action(m, 5)["tools"].(map[string]any)["paddle"].(map[string]any)["radius"] = 1e6
		}),
			"tools.paddle.radius: 1e+06 m is over 1 m"},
		{"paddle over the tank", edit(func(m map[string]any) {
			action(m, 5)["tools"].(map[string]any)["paddle"].(map[string]any)["radius"] = 1
		}), "tools.paddle.radius: 1 m is over the"},
		{"heat far", edit(func(m map[string]any) { heat(m)["center"] = []any{0.2, -1e30, 0.1} }),
			"actions[9] (set_tools at step 4): tools.heat.center: (0.2, -1e+30, 0.1) lies more than 4 m outside the scene's domain"},
		{"heat huge", edit(func(m map[string]any) { heat(m)["radius"] = 50 }), "actions[9] (set_tools at step 4): tools.heat.radius: 50 m is over 1 m"},
		{"heat negative radius", edit(func(m map[string]any) { heat(m)["radius"] = -0.05 }), "tools.heat.radius: -0.05 is negative"},
		{"heat hotter than the sun", edit(func(m map[string]any) { heat(m)["temperature"] = 20000 }),
			"actions[9] (set_tools at step 4): tools.heat.temperature: 20000 °C is outside [-273.15, 10000]"},
		{"heat below absolute zero", edit(func(m map[string]any) { heat(m)["temperature"] = -300 }), "tools.heat.temperature: -300 °C is outside [-273.15, 10000]"},
		{"heat rate zero", edit(func(m map[string]any) { heat(m)["rate"] = 0 }), "tools.heat.rate: 0 /s is outside (0, 10000]"},
		{"heat rate negative", edit(func(m map[string]any) { heat(m)["rate"] = -2 }), "tools.heat.rate: -2 /s is outside (0, 10000]"},
		{"heat rate huge", edit(func(m map[string]any) { heat(m)["rate"] = 1e6 }), "tools.heat.rate: 1e+06 /s is outside (0, 10000]"},
		{"heat without rate", edit(func(m map[string]any) { delete(heat(m), "rate") }), "actions[9].tools.heat.rate: missing"},
		{"heat unknown field", edit(func(m map[string]any) { heat(m)["power"] = 3 }), "actions[9].tools.heat.power: unknown field; known fields here are center, radius, temperature, rate"},
		{"heat short center", edit(func(m map[string]any) { heat(m)["center"] = []any{0.2, 0.1} }), "actions[9].tools.heat.center: want an array of 3 numbers"},
		{"drain far", edit(func(m map[string]any) { action(m, 2)["drain"].(map[string]any)["center"] = []any{0, -7e25, 0} }), "drain.center: (0, -7e+25, 0) lies more than"},
		{"drain huge", edit(func(m map[string]any) { action(m, 2)["drain"].(map[string]any)["radius"] = 50 }), "drain.radius: 50 m is over 1 m"},
		{"fluid outside", edit(func(m map[string]any) {
			action(m, 1)["fluid"].(map[string]any)["pos"].([]any)[1] = []any{0.2, 0.2, 5}
		}), "actions[1] (add_fluid at step 2): fluid.pos[1]: (0.2, 0.2, 5) lies more than 0.04 m outside"},
		{"fluid fast", edit(func(m map[string]any) { action(m, 1)["fluid"].(map[string]any)["vel"].([]any)[0] = []any{0, 0, 3e30} }),
			"fluid.vel[0]: 3e+30 m/s is over 10000 m/s"},
		{"fluid piled up", edit(func(m map[string]any) {
			var pos, vel []any
			for i := 0; i < 100; i++ {
				pos, vel = append(pos, []any{0.2, 0.2, 0.1}), append(vel, []any{0, 0, 0})
			}
			action(m, 1)["fluid"] = map[string]any{"pos": pos, "vel": vel}
		}), "fluid.pos[64]: more than 64 of the added particles lie within"},
		{"bad scene", edit(func(m map[string]any) { m["scene"].(map[string]any)["fluid"] = []any{} }), "replay:scene: fluid: a scene needs at least one fluid block"},
		{"scene unknown field", edit(func(m map[string]any) { m["scene"].(map[string]any)["gravity"] = 1 }), "replay:scene: gravity: unknown field"},
		{"no scene", edit(func(m map[string]any) { m["scene"] = nil }), "scene: missing"},
		{"param garbage", edit(func(m map[string]any) { m["params"].(map[string]any)["fake.eps"] = map[string]any{"a": 1} }), `params.fake.eps: {"a":1} is not a parameter value`},
		{"params not an object", edit(func(m map[string]any) { m["params"] = []any{1} }), "params: want an object"},
		{"unknown op", edit(func(m map[string]any) { action(m, 2)["op"] = "explode" }), `actions[2] (explode at step 2): unknown op "explode"; one of params, add_fluid`},
		{"op without its arguments", edit(func(m map[string]any) { delete(action(m, 2), "drain") }), "actions[2] (drain at step 2): drain: missing: op drain needs it"},
		{"another op's arguments", edit(func(m map[string]any) { action(m, 2)["index"] = 1 }), "actions[2]: index: not used by op drain"},
		{"remove without index", edit(func(m map[string]any) { delete(action(m, 8), "index") }), "actions[8]: index: missing: op remove_body needs it"},
		{"no step", edit(func(m map[string]any) { delete(action(m, 1), "step") }), "actions[1].step: missing"},
		{"negative step", edit(func(m map[string]any) { action(m, 0)["step"] = -2 }), "actions[0] (params at step -2): step -2 is negative"},
		{"steps decreasing", edit(func(m map[string]any) { action(m, 4)["step"] = 1 }), "actions[4] (drive_body at step 1): step 1 is before the previous action's step 4"},
		{"action after the end", edit(func(m map[string]any) { m["steps"] = 3 }), "step 4 is after the end of the replay (steps 3)"},
		{"unknown action field", edit(func(m map[string]any) { action(m, 2)["colour"] = "red" }), "actions[2].colour: unknown field; known fields here are step, op, params"},
		{"short vector", edit(func(m map[string]any) { action(m, 2)["drain"].(map[string]any)["center"] = []any{0.1, 0.2} }), "actions[2].drain.center: want an array of 3 numbers, got an array of 2"},
		{"long vector", edit(func(m map[string]any) { action(m, 4)["drive"].(map[string]any)["velocity"] = []any{1, 2, 3, 4} }), "actions[4].drive.velocity: want an array of 3 numbers, got an array of 4"},
		{"not finite", strings.Replace(string(good), `"radius": 0.06`, `"radius": 1e999`, 1), "actions[2].drain.radius: 1e999 is out of range for a float32"},
		{"too large for float32", strings.Replace(string(good), `"radius": 0.06`, `"radius": 1e39`, 1), "actions[2].drain.radius: 1e39 is out of range for a float32"},
		{"negative radius", strings.Replace(string(good), `"radius": 0.06`, `"radius": -0.06`, 1), "drain.radius: -0.06 is negative"},
		{"drive without on", edit(func(m map[string]any) { delete(action(m, 4)["drive"].(map[string]any), "on") }), "actions[4].drive.on: missing"},
		{"on not a bool", edit(func(m map[string]any) { action(m, 4)["drive"].(map[string]any)["on"] = "yes" }), `actions[4].drive.on: want true or false, got "yes"`},
		{"fluid lengths", edit(func(m map[string]any) { action(m, 1)["fluid"].(map[string]any)["vel"] = []any{} }), "fluid: 2 positions but 0 velocities"},
		{"empty params action", edit(func(m map[string]any) { action(m, 0)["params"] = map[string]any{} }), "params: empty: a params action changes at least one parameter"},
		{"body of no shape", edit(func(m map[string]any) { action(m, 3)["body"].(map[string]any)["shape"] = "cone" }), `body.shape: unknown shape "cone"`},
		{"body field of another shape", edit(func(m map[string]any) { action(m, 3)["body"].(map[string]any)["radius"] = 0.1 }), "body.radius: is not used by a box"},
		{"body density", edit(func(m map[string]any) { action(m, 3)["body"].(map[string]any)["density"] = 0 }), "body.density: 0 kg/m³ is outside [1, 100000]"},
		{"body unknown field", edit(func(m map[string]any) { action(m, 3)["body"].(map[string]any)["mass"] = 1 }), "actions[3].body.mass: unknown field; known fields here are shape, center"},
		{"body far away", edit(func(m map[string]any) { action(m, 3)["body"].(map[string]any)["center"] = []any{5000, 0, 0} }), "lies far outside the scene's domain"},
		{"mesh body without a file", edit(func(m map[string]any) {
			action(m, 3)["body"] = map[string]any{"shape": "mesh", "mesh": "teapot.obj", "extent": 0.1, "center": []any{0.2, 0.2, 0.1}, "density": 500}
		}), `body.mesh: `},
		{"paddle without radius", edit(func(m map[string]any) {
			delete(action(m, 5)["tools"].(map[string]any)["paddle"].(map[string]any), "radius")
		}), "actions[5].tools.paddle.radius: missing"},
		{"emitter without speed", edit(func(m map[string]any) {
			delete(action(m, 6)["tools"].(map[string]any)["emitter"].(map[string]any), "speed")
		}), "actions[6].tools.emitter.speed: missing"},
	} {
		_, err := Decode(strings.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant an error containing %q", c.name, err, c.want)
		}
	}
}

// A dropped mesh body is loaded once per file, however many times it is dropped, and arrives with its geometry.
func TestMeshBodiesGetTheirGeometry(t *testing.T) {
	f := sample(t)
	f.Actions = f.Actions[:1]
	for i := 0; i < 3; i++ {
		f.Actions = append(f.Actions, Action{Step: 5, Op: OpAddBody, Body: &scene.Body{
			Shape: scene.Shape{Kind: scene.ShapeMesh, Mesh: "bunny.obj", Extent: 0.1, Center: scene.Vec3{0.1 + 0.05*float64(i), 0.3, 0.1}}, Density: 400}})
	}
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	first := g.Actions[1].Body.MeshData()
	if first == nil {
		t.Fatal("a mesh body without its mesh")
	}
	for _, a := range g.Actions[2:] {
		if a.Body.MeshData() != first {
			t.Fatal("the mesh was loaded again")
		}
	}
}

// A mesh the scene names relative to its own file is written as an absolute path, so that the replay plays from
// any folder.
func TestRelativeMeshPathsBecomeAbsolute(t *testing.T) {
	dir := t.TempDir()
	obj, err := fs.ReadFile(assets.Meshes(), "bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "scenes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenes", "rabbit.obj"), obj, 0o644); err != nil {
		t.Fatal(err)
	}
	js := strings.Replace(poolScene, `"fluid"`, `"obstacles": [{"shape": "mesh", "mesh": "rabbit.obj", "center": [0.3, 0.2, 0.1], "extent": 0.1}], "fluid"`, 1)
	scenePath := filepath.Join(dir, "scenes", "s.json")
	if err := os.WriteFile(scenePath, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scene.LoadFile(scenePath)
	if err != nil {
		t.Fatal(err)
	}
	s := newFake()
	var l Log
	if err := l.Start("fake", sc, s.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	f, err := l.Snapshot(0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "elsewhere.replay")
	if err := Write(path, f); err != nil {
		t.Fatal(err)
	}
	g, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	back, err := g.OpenScene()
	if err != nil {
		t.Fatal(err)
	}
	o := back.Obstacles[0]
	if !filepath.IsAbs(filepath.FromSlash(o.Mesh)) || o.MeshData() == nil {
		t.Fatalf("mesh %q, loaded %v", o.Mesh, o.MeshData() != nil)
	}
	if sc.Obstacles[0].Mesh != "rabbit.obj" {
		t.Fatal("Start changed the running scene")
	}
}
