package jsonmsg

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	var v struct {
		Steps int `json:"steps"`
	}
	for _, c := range []struct{ data, want string }{
		{"", "EMPTY"},
		{"{\n  \"steps\": 1,\n  x", "line 3, column 4: invalid JSON"},
		{`{"steps": "many"}`, `steps: want a whole number, got a JSON string (line 1, column 17)`},
		{`{"steps": 1`, "truncated"},
	} {
		err := json.NewDecoder(strings.NewReader(c.data)).Decode(&v)
		if got := Explain([]byte(c.data), err, "EMPTY"); !strings.Contains(got, c.want) {
			t.Errorf("%q: %q, want %q", c.data, got, c.want)
		}
	}
}

func TestPathsAndValues(t *testing.T) {
	if got := Join(Join("", "fluid[1]"), "size"); got != "fluid[1].size" {
		t.Errorf("Join: %q", got)
	}
	if got := Position([]byte("ab\ncd"), 4); got != "line 2, column 2" {
		t.Errorf("Position: %q", got)
	}
	for tree, want := range map[any]string{nil: "null", "x": `"x"`, json.Number("2.5"): "2.5", true: "true"} {
		if got := Describe(tree); got != want {
			t.Errorf("Describe(%v) = %q, want %q", tree, got, want)
		}
	}
	if got := Describe([]any{1, 2}); got != "an array of 2" {
		t.Errorf("Describe(array) = %q", got)
	}
}
