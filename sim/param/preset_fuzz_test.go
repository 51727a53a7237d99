package param

import (
	"encoding/json"
	"testing"
)

// FuzzPreset feeds arbitrary bytes to the preset reader and applies what it accepts: nothing panics, a refused
// preset changes nothing, and an applied one leaves every value inside its bounds and writes back as a preset
// that applies to the same values.
func FuzzPreset(f *testing.F) {
	for _, seed := range []string{
		`{"mode": "pbf", "params": {"x.eps": 0.5, "x.iterations": 7, "x.push_only": false, "x.color": "density", "x.gravity": [0, -9.81, 0]}}`,
		`{"params": {"x.iterations": 1000}}`, // out of range
		`{"params": {"x.eps": 1e-300}}`,      // a number that rounds to 0 as a float32
		`{"params": {"x.gravity": [1e300, 0, 0]}}`,
		`{"params": {"x.color": "ultra"}}`,
		`{"params": {"x.iteratons": 3}}`,
		`{"mode": "flip", "params": {}}`,
		`{"params": {"x.eps": "0.5"}} {}`,
		"\xef\xbb\xbf{\"params\": {}}", // a byte-order mark
		// a key given twice, once in another case; null (issue 24)
		`{"mode": "flip", "Mode": "pbf", "params": {"x.eps": 0.5, "x.eps": 0.7}}`,
		`{"mode": null, "params": {"x.eps": null, "x.push_only": null, "x.gravity": null}}`,
		`{"params": null}`,
		``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _ := newSet(t)
		before := s.Snapshot()
		err := s.LoadPreset(data, "pbf")
		after := s.Snapshot()
		if err != nil {
			if len(s.Changed(before, after)) > 0 {
				t.Fatalf("a refused preset changed %v: %v", s.Changed(before, after), err)
			}
			return
		}
		for _, p := range s.All() {
			if err := p.check(after[p.Name]); err != nil {
				t.Fatalf("an applied preset left %v", err)
			}
		}
		out, err := s.MarshalPreset("pbf")
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := newSet(t)
		if err := fresh.LoadPreset(out, "pbf"); err != nil {
			t.Fatalf("the preset written back does not load: %v\n%s", err, out)
		}
		if ch := fresh.Changed(after, fresh.Snapshot()); len(ch) > 0 {
			var names []string
			for _, p := range ch {
				names = append(names, p.Name)
			}
			b, _ := json.Marshal(names)
			t.Fatalf("the preset written back loads different values for %s", b)
		}
	})
}
