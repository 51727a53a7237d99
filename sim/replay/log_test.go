package replay

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

func startedLog(t *testing.T, s *fakeSolver) *Log {
	t.Helper()
	var l Log
	if err := l.Start(s.Name(), pool(t), s.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	return &l
}

func TestSnapshotBeforeStartFails(t *testing.T) {
	var l Log
	if _, err := l.Snapshot(0); err == nil || !strings.Contains(err.Error(), "nothing recorded") {
		t.Fatalf("Snapshot of a log never started: %v", err)
	}
	// and the Hands work, recording nothing
	s := newFake()
	h, ok := l.Hands(s)
	if !ok {
		t.Fatal("no Hands")
	}
	h.DriveBody(0, [3]float32{1, 2, 3}, true)
	l.Params(s)
	if len(s.calls) != 1 || len(l.actions) != 0 {
		t.Fatalf("calls %v, actions %v", s.calls, l.actions)
	}
}

func TestHandsOfASolverWithoutThem(t *testing.T) {
	var l Log
	if h, ok := l.Hands(bareSolver{newFake()}); ok || h != nil {
		t.Fatal("a solver without Hands got some")
	}
}

func TestStartRecordsSceneAndParams(t *testing.T) {
	s := newFake()
	s.v.eps = 0.25
	l := startedLog(t, s)
	l.SoftwareVersion = "v9"
	s.stepN(7)
	f, err := l.Snapshot(7)
	if err != nil {
		t.Fatal(err)
	}
	if f.Mode != "fake" || f.Steps != 7 || f.FrameDt != frameDt || len(f.Actions) != 0 || f.Software != Software || f.SoftwareVersion != "v9" {
		t.Fatalf("%+v", f)
	}
	want := s.Params().Preset("fake").Params
	if !reflect.DeepEqual(f.Params, want) {
		t.Fatalf("params %v, want %v", f.Params, want)
	}
	sc, err := f.OpenScene()
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "pool" || sc.Particles.Spacing != 0.025 {
		t.Fatalf("scene %+v", sc)
	}
	if _, err := l.Snapshot(-1); err == nil {
		t.Fatal("negative steps accepted")
	}
}

// Params logs what changed since it last logged, once, at the solver's step; the Hands log pending changes before
// their own call.
func TestParamsLogsChangesOnly(t *testing.T) {
	s := newFake()
	l := startedLog(t, s)
	h, _ := l.Hands(s)
	l.Params(s) // nothing changed
	s.stepN(3)
	s.v.eps = 0.75
	s.v.color = 2
	l.Params(s)
	l.Params(s) // logged already
	s.stepN(2)
	s.v.gravity[1] = -1.5
	h.SetTools(sim.Tools{}) // logs the gravity change first
	s.stepN(1)
	f, err := l.Snapshot(s.steps)
	if err != nil {
		t.Fatal(err)
	}
	want := []Action{
		{Step: 3, Op: OpParams, Params: map[string]json.RawMessage{"fake.eps": json.RawMessage("0.75"), "fake.color": json.RawMessage(`"density"`)}},
		{Step: 5, Op: OpParams, Params: map[string]json.RawMessage{"fake.gravity": json.RawMessage("[0,-1.5,0]")}},
		{Step: 5, Op: OpSetTools, Tools: &sim.Tools{}},
	}
	if !reflect.DeepEqual(f.Actions, want) {
		t.Fatalf("actions\n%+v\nwant\n%+v", f.Actions, want)
	}
}

// Each Hands call reaches the solver and is logged with its arguments at the solver's step; failed calls are not
// logged; the logged arguments are copies.
func TestHandsForwardAndLog(t *testing.T) {
	s := newFake()
	l := startedLog(t, s)
	h, _ := l.Hands(s)
	if h.Budget() != 1000 {
		t.Fatal("Budget not forwarded")
	}
	pos, vel := [][3]float32{{1, 2, 3}}, [][3]float32{{4, 5, 6}}
	h.AddFluid(pos, vel)
	pos[0][0] = 99 // the caller reuses its buffers
	s.stepN(1)
	if _, err := h.Drain([3]float32{0.1, 0.2, 0.3}, 0.05); err != nil {
		t.Fatal(err)
	}
	body := scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.2, 0.2, 0.1}, Radius: 0.03}, Density: 700}
	if _, _, err := h.AddBody(body); err != nil {
		t.Fatal(err)
	}
	s.stepN(2)
	h.DriveBody(0, [3]float32{1, 0, 0}, true)
	h.DriveBody(-1, [3]float32{1, 0, 0}, true) // no body: not logged
	h.DriveBody(1, [3]float32{1, 0, 0}, true)  // nor here: the pool has none, one was dropped
	paddle := &sim.Paddle{Center: [3]float32{0.1, 0.1, 0.1}, Radius: 0.02}
	h.SetTools(sim.Tools{Paddle: paddle})
	paddle.Radius = 7 // the app's next frame
	s.failAt = 3
	if _, err := h.Drain([3]float32{}, 1); err == nil {
		t.Fatal("no failure")
	}
	if _, _, err := h.AddBody(body); err == nil {
		t.Fatal("no failure")
	}
	if err := h.RemoveBody(0); err == nil {
		t.Fatal("no failure")
	}
	s.failAt = -1
	if err := h.RemoveBody(0); err != nil {
		t.Fatal(err)
	}
	f, err := l.Snapshot(3)
	if err != nil {
		t.Fatal(err)
	}
	want := []Action{
		{Step: 0, Op: OpAddFluid, Fluid: &Fluid{Pos: [][3]float32{{1, 2, 3}}, Vel: [][3]float32{{4, 5, 6}}}},
		{Step: 1, Op: OpDrain, Drain: &Drain{Center: [3]float32{0.1, 0.2, 0.3}, Radius: 0.05}},
		{Step: 1, Op: OpAddBody, Body: &body},
		{Step: 3, Op: OpDriveBody, Drive: &Drive{Index: 0, Velocity: [3]float32{1, 0, 0}, On: true}},
		{Step: 3, Op: OpSetTools, Tools: &sim.Tools{Paddle: &sim.Paddle{Center: [3]float32{0.1, 0.1, 0.1}, Radius: 0.02}}},
		{Step: 3, Op: OpRemoveBody, Index: 0},
	}
	if !reflect.DeepEqual(f.Actions, want) {
		t.Fatalf("actions\n%+v\nwant\n%+v", f.Actions, want)
	}
	if len(s.calls) != 3+8 { // three steps, eight successful calls (the drive of no body reaches the solver)
		t.Fatalf("the solver saw %d calls: %v", len(s.calls), s.calls)
	}
	if _, err := l.Snapshot(2); err == nil || !strings.Contains(err.Error(), "before the last action") {
		t.Fatalf("a snapshot ending before the last action: %v", err)
	}
}

// Break stops the recording until the next Start, and Snapshot gives its reason; Start forgets everything before.
func TestBreakAndStart(t *testing.T) {
	s := newFake()
	l := startedLog(t, s)
	h, _ := l.Hands(s)
	h.DriveBody(0, [3]float32{}, false)
	s.stepN(4)
	l.Break("a saved state was loaded")
	h.DriveBody(0, [3]float32{}, false)
	s.v.eps = 3
	l.Params(s)
	if _, err := l.Snapshot(4); err == nil || !strings.Contains(err.Error(), "a saved state was loaded") {
		t.Fatalf("Snapshot of a broken log: %v", err)
	}
	l.Break("another reason") // the first reason stands
	if _, err := l.Snapshot(4); err == nil || !strings.Contains(err.Error(), "a saved state was loaded") {
		t.Fatalf("Snapshot of a broken log: %v", err)
	}

	_ = s.Reset(nil)
	if err := l.Start(s.Name(), pool(t), s.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	s.stepN(2)
	h.SetTools(sim.Tools{})
	f, err := l.Snapshot(2)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Actions) != 1 || f.Actions[0].Op != OpSetTools || f.Actions[0].Step != 2 {
		t.Fatalf("after a new Start: %+v", f.Actions)
	}
	if got := string(f.Params["fake.eps"]); got != "3" {
		t.Fatalf("the new recording starts from eps %s, want the value at its reset, 3", got)
	}
}

// A solver whose step count goes back (a restored state the app did not report) breaks the log rather than
// recording actions out of order.
func TestStepGoingBackBreaks(t *testing.T) {
	s := newFake()
	l := startedLog(t, s)
	h, _ := l.Hands(s)
	s.stepN(30)
	h.SetTools(sim.Tools{})
	s.steps = 10
	h.SetTools(sim.Tools{})
	if _, err := l.Snapshot(31); err == nil || !strings.Contains(err.Error(), "went back from step 30 to step 10") {
		t.Fatalf("%v", err)
	}
}

func TestStartRefusesAnUnwritableScene(t *testing.T) {
	s := newFake()
	var l Log
	if err := l.Start("fake", nil, s.Params(), frameDt); err == nil {
		t.Fatal("no scene accepted")
	}
	sc := pool(t)
	sc.Fluid[0].Velocity[0] = nan()
	if err := l.Start("fake", sc, s.Params(), frameDt); err == nil || !strings.Contains(err.Error(), "fluid[0].velocity[0]") {
		t.Fatalf("a scene with NaN: %v", err)
	}
	if _, err := l.Snapshot(0); err == nil {
		t.Fatal("a failed Start records")
	}
}
