package savefile

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// A header that gives a key twice is refused with the key's path, in any case (encoding/json matches the header's
// fields regardless of case, and kept the last one).
func TestHeaderRefusesDuplicateKeys(t *testing.T) {
	good := editHeader(t, func(map[string]any) {})
	for _, c := range []struct{ from, to, want string }{
		{`"particles": `, `"particles": 99, "particles": `, "particles: given twice"},
		{`"particles": `, `"Particles": 99, "particles": `, `particles: given twice, as "Particles" and "particles"`},
		{`"mode": `, `"mode": "flip", "mode": `, "mode: given twice"},
		{`"pbf.iterations": `, `"pbf.iterations": 50, "pbf.iterations": `, "params.params.pbf.iterations: given twice"},
		{`"spacing": `, `"spacing": 1, "spacing": `, "scene.particles.spacing: given twice"},
	} {
		data := bytes.Replace(good, []byte(c.from), []byte(c.to), 1)
		if bytes.Equal(data, good) {
			t.Fatalf("%s: the edit changed nothing", c.to)
		}
		_, err := decodeHeader("x.slosh", data)
		if err == nil || !strings.Contains(err.Error(), "x.slosh: slosh.json: "+c.want) {
			t.Errorf("%s: %v, want %q", c.to, err, c.want)
		}
	}
}

// null is refused for every field of the header, naming it: encoding/json left such a field as it was, so that
// "particles": null read as 0 particles. A missing count is refused too.
func TestHeaderRefusesNull(t *testing.T) {
	for _, c := range []struct{ field, want string }{
		{"particles", "particles: null; want a whole number"},
		{"time", "time: null; want a number"},
		{"steps", "steps: null; want a whole number"},
		{"saved", "saved: null; want a time"},
		{"params", "params: null; want an object"},
		{"mode", "mode: null; want a string"},
		{"kind", "kind: null; want a string"},
		{"scene", "scene: null; want an object"},
	} {
		data := editHeader(t, func(h map[string]any) { h[c.field] = nil })
		_, err := decodeHeader("x.slosh", data)
		if err == nil || !strings.Contains(err.Error(), "x.slosh: slosh.json: "+c.want) {
			t.Errorf("%s: null: %v, want %q", c.field, err, c.want)
		}
	}
	for _, field := range []string{"particles", "time", "steps"} {
		data := editHeader(t, func(h map[string]any) { delete(h, field) })
		if _, err := decodeHeader("x.slosh", data); err == nil || !strings.Contains(err.Error(), field+": missing") {
			t.Errorf("no %s: %v, want it missing", field, err)
		}
	}
	// and through Load, as a file from a stranger arrives
	p := filepath.Join(t.TempDir(), "null.slosh")
	writeZip(t, p, entry{HeaderEntry, editHeader(t, func(h map[string]any) { h["particles"] = nil })}, entry{StateEntry, []byte("s")})
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), "particles: null") {
		t.Errorf("Load of a header with null particles: %v", err)
	}
	if _, err := decodeHeader("x.slosh", editHeader(t, func(map[string]any) {})); err != nil {
		t.Errorf("the valid header: %v", err)
	}
}

// A header saved by an editor that writes a UTF-8 byte-order mark reads as the other JSON files do (scenes, replays,
// presets); one in UTF-16 is refused naming its encoding.
func TestHeaderTakesAByteOrderMark(t *testing.T) {
	good := editHeader(t, func(map[string]any) {})
	f, err := decodeHeader("x.slosh", append([]byte("\xEF\xBB\xBF"), good...))
	if err != nil || f.Particles != 4096 {
		t.Errorf("a header with a byte-order mark: %v", err)
	}
	if _, err := decodeHeader("x.slosh", []byte("\xFF\xFE{\x00}\x00")); err == nil || !strings.Contains(err.Error(), "UTF-16") {
		t.Errorf("a UTF-16 header: %v", err)
	}
}
