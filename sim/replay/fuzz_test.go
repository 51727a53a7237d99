package replay

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the replay reader: nothing panics, errors name the replay, and what it
// accepts writes and reads back the same, actions bit for bit.
func FuzzDecode(f *testing.F) {
	good, err := sample(f).Marshal()
	if err != nil {
		f.Fatal(err)
	}
	edit := func(change func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			f.Fatal(err)
		}
		change(m)
		b, err := json.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	action := func(m map[string]any, i int) map[string]any { return m["actions"].([]any)[i].(map[string]any) }
	f.Add(good)
	f.Add(edit(func(m map[string]any) { m["frame_dt"] = 1e-300 }))
	f.Add(edit(func(m map[string]any) { m["steps"] = int64(math.MaxInt64) }))
	f.Add(edit(func(m map[string]any) { action(m, 4)["drive"].(map[string]any)["index"] = 5 }))
	f.Add(edit(func(m map[string]any) {
		e := action(m, 6)["tools"].(map[string]any)["emitter"].(map[string]any)
		e["radius"], e["speed"] = 1e10, 1e9
	}))
	f.Add(edit(func(m map[string]any) {
		action(m, 5)["tools"].(map[string]any)["paddle"].(map[string]any)["center"] = []any{1e30, 0, 0}
	}))
	f.Add(edit(func(m map[string]any) {
		h := action(m, 9)["tools"].(map[string]any)["heat"].(map[string]any)
		h["temperature"], h["rate"], h["radius"] = -1e4, 1e30, 1e20
	}))
	f.Add(edit(func(m map[string]any) {
		delete(action(m, 9)["tools"].(map[string]any)["heat"].(map[string]any), "rate")
	}))
	f.Add(edit(func(m map[string]any) {
		var pos, vel []any
		for i := 0; i < 70; i++ {
			pos, vel = append(pos, []any{0.2, 0.2, 0.1}), append(vel, []any{0, 0, 0})
		}
		action(m, 1)["fluid"] = map[string]any{"pos": pos, "vel": vel}
	}))
	f.Add(good[:len(good)/2])
	// a key given twice, at the top and in an action; a byte-order mark; null where a value is required (issue 24)
	f.Add(append([]byte(`{"mode": "other", `), good[1:]...))
	f.Add(bytes.Replace(good, []byte(`"op": "params"`), []byte(`"op": "params", "OP": "drain"`), 1))
	f.Add(append([]byte("\xEF\xBB\xBF"), good...))
	f.Add(edit(func(m map[string]any) { m["steps"] = nil }))
	f.Add(edit(func(m map[string]any) { action(m, 0)["step"] = nil }))
	// a 2D scene's sitting (actions 0 params, 1 draw, 2 excite, 3 grab, 4–5 move_grab, 6 release, 7 spawn,
	// 8 remove_flat_body) and mistakes in it
	flat, err := flatSample(f).Marshal()
	if err != nil {
		f.Fatal(err)
	}
	good = flat
	f.Add(flat)
	f.Add(edit(func(m map[string]any) { action(m, 1)["points"].([]any)[1] = []any{1e30, -3} }))
	f.Add(edit(func(m map[string]any) { action(m, 1)["width"], action(m, 1)["speed"] = 1e10, -1 }))
	f.Add(edit(func(m map[string]any) { action(m, 2)["key"] = 11 }))
	f.Add(edit(func(m map[string]any) { action(m, 5)["at"] = []any{-1e20, 0} }))
	f.Add(edit(func(m map[string]any) { action(m, 6)["index"] = 0 }))
	f.Add(edit(func(m map[string]any) {
		action(m, 7)["flat_body"].(map[string]any)["points"] = []any{[]any{0, 0}, []any{0, 0}, []any{1e300, 0}}
	}))
	f.Add(edit(func(m map[string]any) { action(m, 8)["index"] = 40 }))
	f.Add(edit(func(m map[string]any) { action(m, 4)["op"] = "drive_body" }))
	f.Add(flat[:len(flat)*2/3])
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := Decode(bytes.NewReader(data))
		if err != nil {
			if !strings.Contains(err.Error(), "replay") {
				t.Fatalf("the error does not name the replay: %v", err)
			}
			return
		}
		out, err := g.Marshal()
		if err != nil {
			t.Fatalf("an accepted replay does not write: %v", err)
		}
		h, err := Decode(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("an accepted replay, written again, is refused: %v\n%s", err, out)
		}
		if h.Mode != g.Mode || h.Steps != g.Steps || !bitsEqual(reflect.ValueOf(h.FrameDt), reflect.ValueOf(g.FrameDt)) ||
			!bitsEqual(reflect.ValueOf(h.Actions), reflect.ValueOf(g.Actions)) {
			t.Fatalf("an accepted replay, written again, reads differently")
		}
	})
}
