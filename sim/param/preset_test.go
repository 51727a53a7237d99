package param

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/testdir"
)

func TestLoadPresetFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, doc string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	s, v := newSet(t)
	good := write("good.json", `{"mode": "pbf", "params": {"x.eps": 0.5, "x.color": "density", "x.iterations": 7}}`)
	if err := s.LoadPresetFile(good, "pbf"); err != nil {
		t.Fatal(err)
	}
	if v.f != 0.5 || v.c != 2 || v.i != 7 || v.calls != 1 {
		t.Fatalf("applied %+v", *v)
	}
	// a preset without a mode fits any mode with these parameters
	if err := s.LoadPresetFile(write("any.json", `{"params": {"x.iterations": 8}}`), "pbf"); err != nil || v.i != 8 {
		t.Fatalf("mode-less preset: %v, iterations %d", err, v.i)
	}

	before := *v
	for _, tc := range []struct {
		name, doc string
		want      []string // substrings of the error
	}{
		{"other-mode.json", `{"mode": "flip", "params": {"x.eps": 0.1}}`, []string{"other-mode.json", `"flip"`, `"pbf"`, "--mode flip"}},
		{"typo.json", `{"params": {"x.eps": 0.1, "x.iteratons": 3}}`, []string{"typo.json", `"x.iteratons"`, "did you mean x.iterations"}},
		{"range.json", `{"params": {"x.eps": 0.1, "x.iterations": 1000}}`, []string{"range.json", "x.iterations", "out of range"}},
		{"empty.json", ``, []string{"empty.json", "empty file"}},
		{"trailing.json", `{"params": {}} {}`, []string{"trailing.json", "unexpected data"}},
		{"field.json", `{"mode": "pbf", "parameters": {}}`, []string{"field.json", "parameters"}},
		{"syntax.json", "{\"params\": {\n  \"x.eps\": 0.1,\n}}", []string{"syntax.json", "line 3"}},
		{"type.json", `{"params": []}`, []string{"type.json", "params", "want"}},
	} {
		err := s.LoadPresetFile(write(tc.name, tc.doc), "pbf")
		if err == nil {
			t.Errorf("%s: loaded without error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, w)
			}
		}
	}
	if err := s.LoadPresetFile(filepath.Join(dir, "missing.json"), "pbf"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("missing file: %v", err)
	}
	// a named pipe is refused at once (it blocked until something wrote to it), and so is a huge file
	fifo := filepath.Join(dir, "pipe.json")
	testdir.FIFO(t, fifo)
	if err := s.LoadPresetFile(fifo, "pbf"); err == nil || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), fifo) {
		t.Errorf("a named pipe: %v", err)
	}
	huge := write("huge.json", `{"params": {}}`+strings.Repeat(" ", MaxPresetSize))
	if err := s.LoadPresetFile(huge, "pbf"); err == nil || !strings.Contains(err.Error(), "over the 1.0 MiB a preset may hold") {
		t.Errorf("a huge preset: %v", err)
	}
	if *v != before {
		t.Errorf("rejected presets changed values: %+v, was %+v", *v, before)
	}
}

// A preset's Source names it in the errors of ApplyPreset: a save file's parameters said only "preset".
func TestApplyPresetNamesItsSource(t *testing.T) {
	s, _ := newSet(t)
	pr := Preset{Params: map[string]json.RawMessage{"x.iterations": json.RawMessage("1000")}, Source: "run.slosh: slosh.json: params"}
	if err := s.ApplyPreset(pr, ""); err == nil || !strings.HasPrefix(err.Error(), "run.slosh: slosh.json: params: x.iterations=1000: out of range") {
		t.Errorf("%v", err)
	}
	pr.Source = ""
	if err := s.ApplyPreset(pr, ""); err == nil || !strings.HasPrefix(err.Error(), "preset: x.iterations=1000") {
		t.Errorf("%v", err)
	}
	// Source is not part of the file
	if b, _ := json.Marshal(Preset{Source: "x"}); strings.Contains(string(b), "x") {
		t.Errorf("marshalled %s", b)
	}
}

func TestApplyPresetIsAllOrNothing(t *testing.T) {
	s, v := newSet(t)
	before := *v
	pr := s.Preset("pbf")
	pr.Params["x.eps"] = []byte(`0.9`)
	pr.Params["x.gravity"] = []byte(`[0, -500, 0]`) // out of range: nothing may change, eps included
	if err := s.ApplyPreset(pr, "pbf"); err == nil || !strings.Contains(err.Error(), "x.gravity") {
		t.Fatalf("out-of-range preset: %v", err)
	}
	if *v != before {
		t.Fatalf("a rejected preset changed values: %+v, was %+v", *v, before)
	}
	pr.Params["x.gravity"] = []byte(`[0, -5, 0]`)
	if err := s.ApplyPreset(pr, ""); err != nil || v.f != 0.9 || v.v[1] != -5 {
		t.Fatalf("valid preset: %v, %+v", err, *v)
	}
}
