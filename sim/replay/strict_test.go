package replay

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// goodJSON is sample's file as JSON.
func goodJSON(t *testing.T) []byte {
	t.Helper()
	b, err := sample(t).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A key given twice, anywhere in a replay, is refused with its path: encoding/json kept the last one, so a file
// naming "mode" twice ran the second.
func TestDecodeRefusesDuplicateKeys(t *testing.T) {
	good := goodJSON(t)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(good, &top); err != nil {
		t.Fatal(err)
	}
	var actions []map[string]json.RawMessage
	if err := json.Unmarshal(top["actions"], &actions); err != nil {
		t.Fatal(err)
	}
	body := -1
	for i, a := range actions {
		if a["body"] != nil {
			body = i
		}
	}
	if body < 0 {
		t.Fatal("the sample drops no body")
	}
	shape := []byte(`"body": {"shape": "box"`)
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"mode", bytes.Replace(good, []byte(`{`), []byte(`{"mode":"other",`), 1), "mode: given twice"},
		{"mode in another case", bytes.Replace(good, []byte(`{`), []byte(`{"MODE":"other",`), 1), `mode: given twice, as "MODE" and "mode"`},
		{"a body's shape", bytes.Replace(good, shape, append(append([]byte{}, shape...), []byte(`, "shape": "sphere"`)...), 1),
			"actions[" + itoa(body) + "].body.shape: given twice"},
		{"a parameter", bytes.Replace(good, []byte(`"params": {`), []byte(`"params": {"pbf.x": 1, "pbf.x": 2,`), 1), "params.pbf.x: given twice"},
	} {
		if bytes.Equal(c.data, good) {
			t.Fatalf("%s: the edit changed nothing", c.name)
		}
		_, err := Decode(bytes.NewReader(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// A UTF-8 byte-order mark, which editors on Windows write, is read as scenes read it; UTF-16 is refused saying so.
func TestDecodeReadsAByteOrderMark(t *testing.T) {
	good := goodJSON(t)
	f, err := Decode(bytes.NewReader(append([]byte("\xEF\xBB\xBF"), good...)))
	if err != nil {
		t.Fatalf("a replay with a byte-order mark: %v", err)
	}
	if g, _ := Decode(bytes.NewReader(good)); f.Mode != g.Mode || len(f.Actions) != len(g.Actions) {
		t.Error("a replay with a byte-order mark reads differently")
	}
	if _, err := Decode(bytes.NewReader([]byte("\xFF\xFE{\x00"))); err == nil || !strings.Contains(err.Error(), "UTF-16") {
		t.Errorf("UTF-16: %v", err)
	}
}

// null where a value is required is refused with the field's name, never read as a zero.
func TestDecodeRefusesNull(t *testing.T) {
	good := goodJSON(t)
	var top map[string]any
	if err := json.Unmarshal(good, &top); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ field, want string }{
		{"mode", "mode: missing: null where a replay needs a string"},
		{"frame_dt", "frame_dt: missing: null where a replay needs a number"},
		{"steps", "steps: missing: null where a replay needs a whole number"},
		{"params", "params: missing: null where a replay needs an object"},
		{"actions", "actions: missing: null where a replay needs an array"},
		{"scene", "scene: missing: null where a replay needs an object"},
		{"version", "version: missing: null where a replay needs a whole number"},
	} {
		m := map[string]any{}
		for k, v := range top {
			m[k] = v
		}
		m[c.field] = nil
		data, _ := json.Marshal(m)
		if _, err := Decode(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: null: %v, want %q", c.field, err, c.want)
		}
	}
	for _, c := range []struct{ from, to, want string }{
		{`"step": 2, "op": "params"`, `"step": null, "op": "params"`, "actions[0].step: want a whole number, got null"},
		{`"op": "params"`, `"op": null`, "actions[0].op: want a string, got null"},
		{`"op": "drain", "drain": {`, `"op": "drain", "drain": null, "x": {`, "actions[2]"},
	} {
		data := bytes.Replace(good, []byte(c.from), []byte(c.to), 1)
		if _, err := Decode(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.to, err, c.want)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
