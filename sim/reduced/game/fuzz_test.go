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
		one(`{"shape":"polygon","center":[1,0.6],"points":[[-0.5,0],[0.5,0],[0,0.0005]],"density":100000,"velocity":[50,0],"spin":100}`, current),
		one(`{"shape":"polygon","center":[1,0.6],"points":[[-0.5,0],[0.5,0],[0,0.0005]],"density":1,"velocity":[100,0],"spin":10000}`, current),
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
	if testing.Short() {
		f.Skip("about 4 s on 2 cores: a seed corpus that steps whole scenes; make test runs it")
	}
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
	f.Fuzz(func(t *testing.T, data []byte) { fuzzFlat(t, data, 4) })
}

// fuzzFlat parses data as a scene and, when it validates as a 2D one, resets a solver from it with its reduced.*
// parameters (as the app applies them), steps up to steps substeps of a frame, and loads back the state it saves:
// refusals are errors with messages, never panics.
func fuzzFlat(t *testing.T, data []byte, steps int) {
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
	for k := 0; k < min(n, steps); k++ {
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
}

// FuzzFlatBody builds a 2D scene from numbers (a rectangle, two bodies of any shape, size, pose, density and
// motion, a current) so that nearly every input reaches Box2D, the panels and the coupling, which FuzzFlatScene's
// byte mutations of JSON seldom do. On a small basis and grid, to try many.
func FuzzFlatBody(f *testing.F) {
	add := func(w, h float64, shape uint8, x, y, a, b, c, d, angle, density, vx, vy, spin float64, static bool, pressure uint8) {
		f.Add(w, h, shape, x, y, a, b, c, d, angle, density, vx, vy, spin, static, pressure)
	}
	add(2, 1.2, 0, 1, 0.6, 0.12, 0.12, 0, 0, 10, 600, 0, 0, 0, false, 0)    // a crate
	add(2, 1.2, 0, 1, 0.6, 0.5, 1e-5, 0, 0, 0, 600, 0, 0, 0, false, 0)      // a crate 0.5 m × 10 µm
	add(2, 1.2, 0, 1, 0.6, 1, 1e-5, 0, 0, 0, 0, 0, 0, 0, true, 0)           // a pier 1 m × 10 µm
	add(2, 1.2, 0, 1, 0.6, 1e-6, 1e-6, 0, 0, 0, 600, 0, 0, 0, false, 0)     // a tiny box
	add(2, 1.2, 2, 1, 0.6, 1e-5, 0, 0, 1e-5, 0, 600, 0, 0, 0, false, 0)     // a tiny triangle
	add(2, 1.2, 2, 1, 0.6, 1, 0, 0.5, 2e-5, 0, 600, 0, 0, 0, false, 1)      // a 1 m × 20 µm sliver
	add(2, 1.2, 2, 1, 0.6, 1, 0, 0.5, 0.0005, 30, 1, 50, 0, 50, false, 2)   // the thinnest, lightest and fastest allowed
	add(2, 1.2, 2, 1, 0.6, 1, 0, 0.5, 0.0005, 30, 1, 100, 0, 1e4, false, 2) // tips at 10 km/s (found by fuzzing)
	add(2, 1.2, 0, 0.5, 0.6, 0.12, 0.12, 0, 0, 0, 1, 0, 0, 0, false, 1)     // a crate of 1 kg/m²
	add(2, 1.2, 1, 0.5, 0.6, 0.00025, 0, 0, 0, 0, 1, 0, 0, 0, false, 2)     // the smallest disc
	add(1000, 600, 1, 500, 300, 5, 0, 0, 0, 0, 1e5, 100, 0, 0, false, 0)    // a kilometre tank
	f.Fuzz(func(t *testing.T, w, h float64, shape uint8, x, y, a, b, c, d, angle, density, vx, vy, spin float64, static bool, pressure uint8) {
		num := func(v float64) string { // JSON has no NaN or infinities: the scene reader never sees them
			if v != v || v > 1e300 || v < -1e300 {
				return "0"
			}
			return fmt.Sprint(v)
		}
		var body string
		switch shape % 3 {
		case 0:
			body = fmt.Sprintf(`"shape":"box","size":[%s,%s]`, num(a), num(b))
		case 1:
			body = fmt.Sprintf(`"shape":"circle","radius":%s`, num(a))
		default: // a triangle from the origin along (a, b) and to (c, d)
			body = fmt.Sprintf(`"shape":"polygon","points":[[0,0],[%s,%s],[%s,%s]]`, num(a), num(b), num(c), num(d))
		}
		body += fmt.Sprintf(`,"center":[%s,%s],"angle":%s`, num(x), num(y), num(angle))
		if static {
			body += `,"static":true`
		} else {
			body += fmt.Sprintf(`,"density":%s,"velocity":[%s,%s],"spin":%s`, num(density), num(vx), num(vy), num(spin))
		}
		readings := []string{"impact", "bernoulli", "off"}
		js := fmt.Sprintf(`{"name":"f","params":{"reduced.modes":12,"reduced.grid":24,"reduced.tracers":50,"reduced.dynamic_pressure":%q},
			"flat":{"size":[%s,%s],"bodies":[{%s},{"shape":"circle","center":[%s,%s],"radius":%s,"density":1000}],
			"currents":[{"points":[[%s,%s],[%s,%s]],"speed":0.5,"width":%s}]}}`,
			readings[int(pressure)%3], num(w), num(h), body, num(w/3), num(h/2), num(max(w, h)/20),
			num(w/10), num(h/2), num(w*0.9), num(h/2), num(h/4))
		fuzzFlat(t, []byte(js), 8)
	})
}
