package replay

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
)

// Run steps frame by frame as the app does: the substeps are read at each frame's start after its actions, the
// actions are applied before their step, and the replay stops at Steps, even inside a frame.
func TestRunStepsFramesAsTheAppDoes(t *testing.T) {
	f := &File{Mode: "fake", Scene: json.RawMessage(poolScene), FrameDt: 0.125, Steps: 7,
		Params: map[string]json.RawMessage{"fake.substeps": json.RawMessage("2"), "fake.eps": json.RawMessage("1")},
		Actions: []Action{
			{Step: 2, Op: OpParams, Params: map[string]json.RawMessage{"fake.substeps": json.RawMessage("4"), "fake.eps": json.RawMessage("2")}},
			{Step: 3, Op: OpParams, Params: map[string]json.RawMessage{"fake.eps": json.RawMessage("3")}}, // inside a frame
			{Step: 7, Op: OpSetTools, Tools: &sim.Tools{}},                                                // after the last step
		}}
	s := newFake()
	s.v.eps = 99 // the file's values replace it
	var frames []int
	if err := Run(s, f, func(frame int) error { frames = append(frames, s.steps); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"0: step dt=0.0625 eps=1", "1: step dt=0.0625 eps=1",
		"2: step dt=0.03125 eps=2", "3: step dt=0.03125 eps=3", "4: step dt=0.03125 eps=3", "5: step dt=0.03125 eps=3",
		"6: step dt=0.03125 eps=3",
		"7: set_tools",
	}
	if strings.Join(s.calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s\nwant:\n%s", strings.Join(s.calls, "\n"), strings.Join(want, "\n"))
	}
	if len(frames) != 3 || frames[0] != 2 || frames[1] != 6 || frames[2] != 7 {
		t.Fatalf("frames ended at steps %v, want [2 6 7]", frames)
	}
}

func TestRunRefusesAnotherMode(t *testing.T) {
	f := sample(t)
	f.Mode = "pbf"
	if err := Run(newFake(), f, nil); err == nil || !strings.Contains(err.Error(), "recorded in mode pbf; mode fake cannot reproduce it") {
		t.Fatalf("%v", err)
	}
}

func TestPlayerErrors(t *testing.T) {
	f := sample(t) // its first action is at step 2

	s := newFake()
	s.stepN(3)
	if _, err := NewPlayer(f).ApplyDue(s); err == nil || !strings.Contains(err.Error(), "actions[0] (params at step 2) was missed: the solver is at step 3") {
		t.Fatalf("a missed action: %v", err)
	}

	g := *f
	g.Actions = []Action{{Step: 0, Op: OpParams, Params: map[string]json.RawMessage{"fake.epsilon": json.RawMessage("1")}}}
	if _, err := NewPlayer(&g).ApplyDue(newFake()); err == nil || !strings.Contains(err.Error(), `unknown parameter "fake.epsilon"`) ||
		!strings.Contains(err.Error(), "fake.eps") {
		t.Fatalf("an unknown parameter: %v", err)
	}
	g.Actions = []Action{{Step: 0, Op: OpParams, Params: map[string]json.RawMessage{"fake.substeps": json.RawMessage("1000")}}}
	if _, err := NewPlayer(&g).ApplyDue(newFake()); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Fatalf("a value out of range: %v", err)
	}

	g.Actions = []Action{{Step: 0, Op: OpDriveBody, Drive: &Drive{Index: 0, On: true}}}
	if _, err := NewPlayer(&g).ApplyDue(bareSolver{newFake()}); err == nil || !strings.Contains(err.Error(), "mode fake has no tools") {
		t.Fatalf("tools without Hands: %v", err)
	}

	s = newFake()
	s.failAt = 0
	g.Actions = []Action{{Step: 0, Op: OpRemoveBody, Index: 1}}
	if _, err := NewPlayer(&g).ApplyDue(s); err == nil || !strings.Contains(err.Error(), "actions[0] (remove_body at step 0): fake failure") {
		t.Fatalf("a failing action: %v", err)
	}
}

func TestApplyParamsIsAllOrNothing(t *testing.T) {
	f := sample(t)
	s := newFake()
	f.Params["fake.eps"] = json.RawMessage("7")
	f.Params["fake.substeps"] = json.RawMessage("0") // below its minimum
	if err := f.ApplyParams(s.Params()); err == nil || !strings.Contains(err.Error(), "fake.substeps") {
		t.Fatalf("%v", err)
	}
	if s.v.eps != 0.5 {
		t.Fatalf("a refused file changed eps to %v", s.v.eps)
	}
	f.Params["fake.substeps"] = json.RawMessage("3")
	f.Params["fake.color"] = json.RawMessage(`"speed"`)
	if err := f.ApplyParams(s.Params()); err != nil {
		t.Fatal(err)
	}
	if s.v.eps != 7 || s.v.substeps != 3 || s.v.color != 1 {
		t.Fatalf("%+v", s.v)
	}
	f.Params["other.eps"] = json.RawMessage("1")
	if err := f.ApplyParams(s.Params()); err == nil || !strings.Contains(err.Error(), `unknown parameter "other.eps"`) {
		t.Fatalf("%v", err)
	}
}

// The player hands the solver the heat tool a file holds, as read: its centre, radius, temperature and rate.
func TestPlayerAppliesTheHeatTool(t *testing.T) {
	data, err := sample(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := newFake()
	if err := Run(s, f, nil); err != nil {
		t.Fatal(err)
	}
	want := "4: set_tools heat {[0.2 0.1 0.1] 0.05 100 5}"
	if !slices.Contains(s.calls, want) {
		t.Fatalf("calls:\n%s\nwant among them %q", strings.Join(s.calls, "\n"), want)
	}
}
