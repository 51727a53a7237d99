package game

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/slosh/slosh/assets"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// flatFuzzSeeds are 2D scenes of each bad case met (issue 24), beside the shipped levels FuzzFlatScene adds.
func flatFuzzSeeds() []string {
	// one is a scene of one body in a 2 × 1.2 m tank, with more of the flat section and parameters if given
	one := func(body string, extra ...string) string {
		flat, params := "", ""
		for _, e := range extra {
			if strings.HasPrefix(e, `"params"`) {
				params = e + ","
			} else {
				flat += e
			}
		}
		return fmt.Sprintf(`{"name":"s",%s"flat":{"size":[2,1.2],"bodies":[%s]%s}}`, params, body, flat)
	}
	current := `,"currents":[{"points":[[0.1,0.6],[1.9,0.6]],"speed":0.5,"width":0.3,"key":1}]`
	return []string{
		// what Box2D asserted on: a crate 0.5 m × 10 µm, a pier 1 m × 10 µm, a tiny box, a tiny triangle
		one(`{"shape":"box","center":[1,0.6],"size":[0.5,1e-5],"density":600,"crate":true}`),
		one(`{"shape":"box","center":[1,0.6],"size":[1,1e-5],"static":true}`),
		one(`{"shape":"box","center":[1,0.6],"size":[1e-6,1e-6],"density":600}`),
		one(`{"shape":"polygon","center":[1,0.6],"points":[[0,0],[1e-5,0],[0,1e-5]],"density":600}`),
		// accepted and wrong: a 1 m × 20 µm sliver, a diamond whose tips Box2D welds, a crate of 1 kg/m², and
		// the thinnest and lightest bodies a scene now allows, in each reading of the dynamic pressure
		one(`{"shape":"polygon","center":[1,0.6],"points":[[-0.5,0],[0.5,0],[0,2e-5]],"density":600}`, current),
		one(`{"shape":"polygon","center":[1,0.6],"points":[[-0.5,0],[0,-1e-5],[0.5,0],[0,1e-5]],"density":1000}`, current),
		one(`{"shape":"box","center":[0.5,0.6],"size":[0.12,0.12],"density":1,"crate":true}`, current),
		one(`{"shape":"box","center":[1,0.6],"size":[1,0.0005],"density":1}`, current, `"params":{"reduced.dynamic_pressure":"bernoulli"}`),
		one(`{"shape":"circle","center":[0.5,0.6],"radius":0.00025,"density":1}`, current, `"params":{"reduced.dynamic_pressure":"off"}`),
		one(`{"shape":"polygon","center":[1,0.6],"points":[[-0.5,0],[0.5,0],[0,0.0005]],"density":100000,"velocity":[100,0],"spin":10000}`, current),
		// a polygon whose corners lie off to one side of its centre, and one far from it
		one(`{"shape":"polygon","center":[0.1,0.5],"points":[[-0.4,0],[-0.2,0],[-0.3,0.2]],"density":500}`),
		one(`{"shape":"polygon","center":[1,0.6],"points":[[1.9,1.1],[2,1.1],[2,1.2]],"density":500}`),
		// a kilometre tank, where Box2D's own speed limit is far above a scene's
		`{"name":"big","flat":{"size":[1000,600],"bodies":[{"shape":"circle","center":[500,300],"radius":5,"density":100000,"velocity":[100,0]}]}}`,
		// 256 bodies over the panels' cap, and 64 within it
		strings.Replace(manyBodies(256, 0.2, 0.12), `"flat"`, `"params":{"reduced.panel_length":0.5},"flat"`, 1),
		manyBodies(64, 0.2, 0.12),
		// sixteen 1024-point currents on a 512 grid, and a full-width current
		strings.Replace(heavyScene(16, 1024, 0.3), `"flat"`, `"params":{"reduced.grid":512},"flat"`, 1),
		heavyScene(1, 1024, 2),
	}
}

// FuzzFlatScene feeds the 2D scene path arbitrary bytes past parsing: a scene that validates resets a reduced
// solver (with the scene's reduced.* parameters, as the app applies them) and steps a few times; refusals are
// errors, never panics, and the state a sitting saves loads back.
func FuzzFlatScene(f *testing.F) {
	for _, name := range []string{"reduced-1", "reduced-2", "reduced-3"} {
		data, err := fs.ReadFile(assets.Scenes(), name+".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range flatFuzzSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scene.Parse(data, "fuzz.json")
		if err != nil || !sc.IsFlat() {
			return
		}
		s := New()
		mine := map[string]json.RawMessage{}
		for n, v := range sc.Params {
			if strings.HasPrefix(n, "reduced.") {
				mine[n] = v
			}
		}
		snap, err := s.Params().Decode(mine)
		if err != nil {
			return
		}
		if err := s.Params().Restore(snap); err != nil {
			return
		}
		if err := s.Reset(sc); err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatal("Reset failed with an empty message")
			}
			return
		}
		// a frame's first few steps: enough for Box2D, the panels and the budgets, not a whole game
		n := s.BeginFrame(sim.FrameDt)
		for k := 0; k < min(n, 4); k++ {
			if err := s.Step(sim.FrameDt / float64(n)); err != nil {
				if strings.TrimSpace(err.Error()) == "" {
					t.Fatal("Step failed with an empty message")
				}
				return
			}
		}
		var buf bytes.Buffer
		if err := s.WriteState(&buf); err != nil {
			t.Fatal(err)
		}
		if err := s.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
			t.Fatalf("the state this sitting saved does not load: %v", err)
		}
	})
}
