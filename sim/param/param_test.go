package param

import (
	"encoding/json"
	"strings"
	"testing"
)

type values struct {
	f     float32
	i     int32
	b     bool
	c     int32
	v     [3]float32
	calls int
}

func newSet(t testing.TB) (*Set, *values) {
	t.Helper()
	v := &values{f: 0.05, i: 4, b: true, c: 1, v: [3]float32{0, -9.81, 0}}
	s := NewSet()
	s.Float(&v.f, Spec{Name: "x.eps", Group: "X|Solver", Min: 1e-6, Max: 10, SoftMin: 0.001, SoftMax: 1, Desc: "relaxation"})
	s.Int(&v.i, Spec{Name: "x.iterations", Group: "X|Solver", Min: 1, Max: 100})
	s.Bool(&v.b, Spec{Name: "x.push_only", Group: "X|Solver"})
	s.Choice(&v.c, Spec{Name: "x.color", Group: "X|Look", Items: []string{"water", "speed", "density"}})
	s.Vec3(&v.v, Spec{Name: "x.gravity", Group: "X|Fluid", Min: -100, Max: 100, OnReset: true})
	p, _ := s.Lookup("x.iterations")
	p.OnChange = func() { v.calls++ }
	return s, v
}

func TestAssignParsesEveryKind(t *testing.T) {
	s, v := newSet(t)
	for _, a := range []string{"x.eps=0.5", "x.iterations=7", "x.push_only=false", "x.color=Density", "x.gravity=1, -2,3"} {
		if err := s.Assign(a); err != nil {
			t.Fatalf("%s: %v", a, err)
		}
	}
	if v.f != 0.5 || v.i != 7 || v.b || v.c != 2 || v.v != [3]float32{1, -2, 3} {
		t.Errorf("values after assignment: %+v", *v)
	}
	if v.calls != 1 {
		t.Errorf("OnChange ran %d times for one change", v.calls)
	}
	if err := s.Assign("x.iterations=7"); err != nil || v.calls != 1 {
		t.Errorf("assigning the same value ran OnChange (%d) or failed (%v)", v.calls, err)
	}
	if err := s.Assign("x.color=1"); err != nil || v.c != 1 {
		t.Errorf("choice by index: %v, value %d", err, v.c)
	}
}

func TestBadAssignmentsNameTheProblemAndChangeNothing(t *testing.T) {
	s, v := newSet(t)
	before := *v
	cases := map[string]string{
		"x.iterations=1000": "x.iterations=1000: out of range [1, 100]",
		"x.iterations=2.5":  "must be a whole number",
		"x.eps=abc":         "not a number",
		"x.eps=NaN":         "out of range",
		"x.push_only=maybe": "want true or false",
		"x.color=blue":      "choose one of water, speed, density",
		"x.gravity=1,2":     "three comma-separated numbers",
		"x.gravity=0,500,0": "x.gravity[1]=500: out of range",
		"x.iteratons=3":     "did you mean x.iterations",
		"iterations=3":      "did you mean x.iterations",
		"x.iterations":      "want name=value",
		"zzz=1":             "`slosh params` lists them",
	}
	for a, want := range cases {
		err := s.Assign(a)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to mention %q", a, err, want)
		}
	}
	if *v != before {
		t.Errorf("failed assignments changed values: %+v, was %+v", *v, before)
	}
}

func TestFormatUsesFloat32Digits(t *testing.T) {
	s, _ := newSet(t)
	p, _ := s.Lookup("x.eps")
	if got := p.String(); got != "0.05" {
		t.Errorf("0.05 in a float32 formats as %q", got)
	}
	g, _ := s.Lookup("x.gravity")
	if got := g.String(); got != "0,-9.81,0" {
		t.Errorf("gravity formats as %q", got)
	}
	// what Format writes, Parse reads back to the same live value
	for _, p := range s.All() {
		want := p.Get()
		v, err := p.Parse(p.String())
		if err == nil {
			err = p.Set(v)
		}
		if err != nil || p.Get() != want {
			t.Errorf("%s: %q reads back as %+v (%v), want %+v", p.Name, p.String(), p.Get(), err, want)
		}
	}
}

func TestRestoreIsAllOrNothing(t *testing.T) {
	s, v := newSet(t)
	snap := s.Snapshot()
	if err := s.Assign("x.iterations=9"); err != nil {
		t.Fatal(err)
	}
	bad := Snapshot{"x.eps": {F: 0.2}, "x.iterations": {F: 0}}
	if err := s.Restore(bad); err == nil {
		t.Fatal("a snapshot with an out-of-range value was restored")
	}
	if v.f != 0.05 || v.i != 9 {
		t.Errorf("a failed restore changed values: eps %g iterations %d", v.f, v.i)
	}
	if err := s.Restore(snap); err != nil || v.i != 4 {
		t.Errorf("restore: %v, iterations %d", err, v.i)
	}
	if changed := s.Changed(snap, s.Snapshot()); len(changed) != 0 {
		t.Errorf("Changed after restore: %v", changed)
	}
	s.Assign("x.eps=1")
	s.ResetDefaults()
	if v.f != 0.05 {
		t.Errorf("ResetDefaults left eps at %g", v.f)
	}
}

func TestPresetRoundTripAndRejection(t *testing.T) {
	s, v := newSet(t)
	s.Assign("x.eps=0.3")
	s.Assign("x.color=speed")
	s.Assign("x.gravity=0,-3.5,1")
	data, err := s.MarshalPreset("pbf")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"x.eps": 0.3`, `"x.color": "speed"`, `"x.gravity": [`, `"mode": "pbf"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("preset lacks %s:\n%s", want, data)
		}
	}
	s2, v2 := newSet(t)
	if err := s2.LoadPreset(data, "pbf"); err != nil {
		t.Fatal(err)
	}
	if v2.f != v.f || v2.c != v.c || v2.v != v.v || v2.i != v.i || v2.b != v.b {
		t.Errorf("round trip: %+v, want %+v", *v2, *v)
	}
	before := *v2
	for name, doc := range map[string]string{
		"other mode":  `{"mode": "flip", "params": {"x.eps": 0.1}}`,
		"unknown":     `{"params": {"x.eps": 0.1, "x.nope": 1}}`,
		"range":       `{"params": {"x.eps": 0.1, "x.iterations": 0}}`,
		"type":        `{"params": {"x.push_only": 3}}`,
		"short":       `{"params": {"x.gravity": [1, 2]}}`,
		"bad json":    `{"params": {"x.eps": }`,
		"extra field": `{"parms": {}}`,
	} {
		if err := s2.LoadPreset([]byte(doc), "pbf"); err == nil {
			t.Errorf("%s: preset loaded without error", name)
		}
	}
	if *v2 != before {
		t.Errorf("rejected presets changed values: %+v, was %+v", *v2, before)
	}
	// strings in the command-line form are accepted too
	if err := s2.LoadPreset([]byte(`{"params": {"x.gravity": "0,-1,0", "x.iterations": 12}}`), ""); err != nil || v2.v[1] != -1 || v2.i != 12 {
		t.Errorf("string-valued preset: %v, %+v", err, *v2)
	}
	var pr Preset
	if err := json.Unmarshal(data, &pr); err != nil || len(pr.Params) != len(s.All()) {
		t.Errorf("preset holds %d of %d parameters (%v)", len(pr.Params), len(s.All()), err)
	}
}

func TestRegistrationRejectsMistakes(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	var f float32 = 5
	var i int32
	mustPanic("duplicate", func() {
		s := NewSet()
		s.Float(&f, Spec{Name: "a", Min: 0, Max: 10})
		s.Float(&f, Spec{Name: "a", Min: 0, Max: 10})
	})
	mustPanic("default out of bounds", func() { NewSet().Float(&f, Spec{Name: "a", Min: 0, Max: 1}) })
	mustPanic("empty range", func() { NewSet().Float(&f, Spec{Name: "a", Min: 1, Max: 1}) })
	mustPanic("choice without items", func() { NewSet().Choice(&i, Spec{Name: "a"}) })
	mustPanic("no name", func() { NewSet().Float(&f, Spec{Min: 0, Max: 10}) })
}

func TestGroupsAndDefaults(t *testing.T) {
	s, _ := newSet(t)
	if g := s.Groups(); strings.Join(g, ";") != "X|Solver;X|Look;X|Fluid" {
		t.Errorf("groups %v", g)
	}
	p, _ := s.Lookup("x.gravity")
	if !p.OnReset || p.Default().V != [3]float64{0, float64(float32(-9.81)), 0} {
		t.Errorf("gravity: OnReset %v, default %+v", p.OnReset, p.Default())
	}
	if names := s.Names(); len(names) != 5 || names[0] != "x.color" {
		t.Errorf("names %v", names)
	}
}
