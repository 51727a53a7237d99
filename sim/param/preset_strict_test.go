package param

import (
	"strings"
	"testing"
)

// A preset is read as strictly as a scene: a key given twice is refused with its path (encoding/json kept the
// last, and matched "Mode" to mode), a UTF-8 byte-order mark is skipped, and null is a value of no parameter.
// Nothing is applied from a refused preset.
func TestPresetStrictness(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{`{"mode": "flip", "mode": "pbf", "params": {}}`, "mode: given twice (line 1, column 18)"},
		{`{"Mode": "flip", "mode": "pbf", "params": {}}`, `mode: given twice, as "Mode" and "mode"`},
		{`{"params": {"x.eps": 0.5, "x.eps": 0.7}}`, "params.x.eps: given twice"},
		{`{"params": {}, "params": {"x.eps": 0.7}}`, "params: given twice"},
		{`{"params": {"x.eps": null}}`, "x.eps: want a number, got null"},
		{`{"params": {"x.iterations": null}}`, "x.iterations: want a number, got null"},
		{`{"params": {"x.push_only": null}}`, "x.push_only: want true or false, got null"},
		{`{"params": {"x.gravity": null}}`, "x.gravity: want an array of three numbers, got null"},
		{`{"mode": null, "params": {}}`, "mode: null; want a string"},
		{`{"params": null}`, "params: null; want an object"},
		// long text from the file is cut
		{`{"params": {"x.eps": "` + strings.Repeat("9", 5000) + `"}}`, "x.eps"},
		{`{"params": {"x.eps": [` + strings.Repeat("1,", 5000) + `1]}}`, "x.eps: want a number, got [1,1,1"},
		{`{"params": {"` + strings.Repeat("y", 5000) + `": 1}}`, "unknown parameter"},
		{`{"mode": "` + strings.Repeat("m", 5000) + `", "params": {}}`, "preset is for mode"},
	} {
		s, v := newSet(t)
		before := *v
		err := s.LoadPreset([]byte(c.doc), "pbf")
		if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 400 {
			t.Errorf("%.60s: %.300v (%d bytes), want %q", c.doc, err, len(errString(err)), c.want)
		}
		if *v != before {
			t.Errorf("%.60s: a refused preset changed the values", c.doc)
		}
	}
	s, v := newSet(t)
	if err := s.LoadPreset([]byte("\xEF\xBB\xBF{\"mode\": \"pbf\", \"params\": {\"x.eps\": 0.5}}"), "pbf"); err != nil || v.f != 0.5 {
		t.Errorf("a preset with a byte-order mark: %v", err)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
