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

func TestClipAndQuote(t *testing.T) {
	short := strings.Repeat("a", MaxQuote)
	if Clip(short) != short || Quote(short) != `"`+short+`"` {
		t.Errorf("a string of MaxQuote characters is cut: %q", Clip(short))
	}
	long := strings.Repeat("é", 5<<20) // 10 MB of two-byte characters
	c := Clip(long)
	if c != strings.Repeat("é", MaxQuote)+"…" {
		t.Errorf("Clip: %d bytes %q…", len(c), c[:min(len(c), 20)])
	}
	if q := Quote(long); q != `"`+strings.Repeat("é", MaxQuote)+`…" (10485760 bytes)` {
		t.Errorf("Quote: %.80q", q)
	}
	if j := Join("fluid[0]", long); len(j) > 200 || !strings.HasPrefix(j, "fluid[0].éé") {
		t.Errorf("Join with a long field: %d bytes", len(j))
	}
	if d := Describe(long); len(d) > 200 {
		t.Errorf("Describe(long string): %d bytes", len(d))
	}
	if d := Describe(json.Number(strings.Repeat("9", 1<<20))); len(d) > 200 {
		t.Errorf("Describe(long number): %d bytes", len(d))
	}
	// encoding/json quotes an unknown field whole
	dec := json.NewDecoder(strings.NewReader(`{"` + strings.Repeat("x", 1<<20) + `": 1}`))
	dec.DisallowUnknownFields()
	var v struct{ A int }
	if msg := Explain(nil, dec.Decode(&v), ""); len(msg) > 300 || !strings.Contains(msg, "unknown field") {
		t.Errorf("Explain(unknown field): %d bytes: %.100s", len(msg), msg)
	}
}

func TestText(t *testing.T) {
	utf16le := []byte{0xFF, 0xFE, '{', 0, '}', 0}
	for _, c := range []struct {
		data []byte
		want string // "" for accepted
	}{
		{[]byte(`{"a": 1}`), ""},
		{[]byte("\xEF\xBB\xBF{}"), ""},
		{[]byte("é"), ""},
		{[]byte{}, ""},
		{utf16le, "UTF-16 (little-endian)"},
		{utf16le[2:], "UTF-16 (little-endian)"}, // no byte-order mark
		{[]byte{0xFE, 0xFF, 0, '{', 0, '}'}, "UTF-16 (big-endian)"},
		{[]byte{0, '{', 0, '}'}, "UTF-16 (big-endian)"},
		{[]byte{0xFF, 0xFE, 0, 0, '{', 0, 0, 0}, "UTF-32 (little-endian)"},
		{[]byte{'{', 0, 0, 0}, "UTF-32 (little-endian)"},
		{[]byte{0, 0, 0xFE, 0xFF}, "UTF-32 (big-endian)"},
	} {
		got, err := Text(c.data)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Text(% x): %v", c.data, err)
		case c.want == "" && strings.HasPrefix(string(got), "\uFEFF"):
			t.Errorf("Text(% x) kept the byte-order mark", c.data)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "save it as UTF-8")):
			t.Errorf("Text(% x): %v, want an error naming %s", c.data, err, c.want)
		}
	}
}
