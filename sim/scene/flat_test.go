package scene

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const flatLevel = `{"name":"flat","mode":"reduced","flat":{"size":[2,1.2],
	"bodies":[{"shape":"box","center":[0.3,0.6],"size":[0.12,0.12],"density":600,"crate":true,"angle":10},
	{"shape":"circle","center":[1,0.6],"radius":0.1,"static":true},
	{"shape":"polygon","center":[1.5,0.3],"points":[[-0.1,-0.1],[0.1,-0.1],[0,0.1]],"density":300,"friction":0.5,"restitution":0.2,"velocity":[0.1,0],"spin":1}],
	"currents":[{"points":[[0.2,0.3],[1,0.5],[1.8,0.3]],"speed":0.4,"width":0.15,"key":1}],
	"goal":{"zone":{"min":[1.6,0.1],"max":[1.95,0.5]},"crates":1,"time":60,"next":"reduced-2"}}}`

// A 2D scene reads, writes back to the same scene, and clones deeply.
func TestFlatSceneRoundTrip(t *testing.T) {
	sc, err := Parse([]byte(flatLevel), "flat.json")
	if err != nil {
		t.Fatal(err)
	}
	if !sc.IsFlat() || len(sc.Flat.Bodies) != 3 || sc.Flat.Goal.Next != "reduced-2" || sc.Flat.Bodies[2].Points[2] != (Vec2{0, 0.1}) {
		t.Fatalf("read %+v", sc.Flat)
	}
	out, err := sc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(out, "flat.json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(back.Flat, sc.Flat) {
		t.Fatalf("written back as %+v, was %+v", back.Flat, sc.Flat)
	}
	c := sc.Clone()
	c.Flat.Bodies[2].Points[0][0] = 5
	c.Flat.Currents[0].Points[0][0] = 5
	c.Flat.Goal.Crates = 7
	if sc.Flat.Bodies[2].Points[0][0] == 5 || sc.Flat.Currents[0].Points[0][0] == 5 || sc.Flat.Goal.Crates == 7 {
		t.Fatal("Clone shares the 2D scene's slices or goal")
	}
}

// Each mistake in a 2D scene is refused with the path of the field at fault.
func TestFlatSceneErrors(t *testing.T) {
	for _, c := range []struct{ from, to, path string }{
		{`"size":[2,1.2]`, `"size":[2,0]`, "flat.size[1]"},
		{`"size":[2,1.2]`, `"size":[2,1e9]`, "flat.size[1]"},
		{`"center":[0.3,0.6]`, `"center":[3,0.6]`, "flat.bodies[0].center[0]"},
		{`"size":[0.12,0.12]`, `"size":[0.12,-1]`, "flat.bodies[0].size[1]"},
		{`"density":600`, `"density":0`, "flat.bodies[0].density"},
		{`"shape":"box"`, `"shape":"blob"`, "flat.bodies[0].shape"},
		{`"angle":10`, `"angle":1e300`, "flat.bodies[0].angle"},
		{`"radius":0.1,"static":true`, `"radius":0.1,"static":true,"density":5`, "flat.bodies[1]"},
		{`"radius":0.1,"static":true`, `"radius":0.1,"size":[1,1],"static":true`, "flat.bodies[1].size"},
		{`"radius":0.1`, `"radius":-0.1`, "flat.bodies[1].radius"},
		{`[[-0.1,-0.1],[0.1,-0.1],[0,0.1]]`, `[[-0.1,-0.1],[0,0.1],[0.1,-0.1]]`, "flat.bodies[2].points[1]"},
		{`[[-0.1,-0.1],[0.1,-0.1],[0,0.1]]`, `[[-0.1,-0.1],[0.1,-0.1]]`, "flat.bodies[2].points"},
		{`[[-0.1,-0.1],[0.1,-0.1],[0,0.1]]`, `[[-0.1,-0.1],[0.1,-0.1],[0,1e300]]`, "flat.bodies[2].points[2][1]"},
		{`"friction":0.5`, `"friction":50`, "flat.bodies[2].friction"},
		{`"restitution":0.2`, `"restitution":2`, "flat.bodies[2].restitution"},
		{`"velocity":[0.1,0]`, `"velocity":[1e300,0]`, "flat.bodies[2].velocity"},
		{`"spin":1`, `"spin":1e300`, "flat.bodies[2].spin"},
		{`[[0.2,0.3],[1,0.5],[1.8,0.3]]`, `[[0.2,0.3]]`, "flat.currents[0].points"},
		{`[[0.2,0.3],[1,0.5],[1.8,0.3]]`, `[[0.2,0.3],[0.2,0.3]]`, "flat.currents[0].points"},
		{`[[0.2,0.3],[1,0.5],[1.8,0.3]]`, `[[0.2,0.3],[1,5]]`, "flat.currents[0].points[1][1]"},
		{`"speed":0.4`, `"speed":0`, "flat.currents[0].speed"},
		{`"width":0.15`, `"width":50`, "flat.currents[0].width"},
		{`"key":1`, `"key":12`, "flat.currents[0].key"},
		{`"crates":1`, `"crates":2`, "flat.goal.crates"},
		{`"crates":1`, `"crates":0`, "flat.goal.crates"},
		{`"time":60`, `"time":-1`, "flat.goal.time"},
		{`"min":[1.6,0.1],"max":[1.95,0.5]`, `"min":[1.6,0.1],"max":[1.5,0.5]`, "flat.goal.zone.max[0]"},
		{`"crate":true`, `"crate":true,"bogus":1`, "flat.bodies[0].bogus"},
		{`"mode":"reduced",`, `"mode":"reduced","fluid":[{"shape":"sphere","center":[0,0,0],"radius":1}],`, "fluid"},
		{`"mode":"reduced",`, `"mode":"reduced","domain":{"min":[0,0,0],"max":[1,1,1]},`, "domain"},
		// finer than the rigid-body engine resolves (issue 24): Box2D welded these corners and asserted
		{`"size":[0.12,0.12]`, `"size":[0.5,1e-5]`, "flat.bodies[0].size[1]"},
		{`"size":[0.12,0.12]`, `"size":[1e-6,1e-6]`, "flat.bodies[0].size[0]"},
		{`"radius":0.1,"static":true`, `"radius":1e-9,"static":true`, "flat.bodies[1].radius"},
		{`[[-0.1,-0.1],[0.1,-0.1],[0,0.1]]`, `[[0,0],[1e-5,0],[0,1e-5]]`, "flat.bodies[2].points[1]"},
		{`[[-0.1,-0.1],[0.1,-0.1],[0,0.1]]`, `[[-0.5,0],[0.5,0],[0,2e-5]]`, "flat.bodies[2].points"},
		{`[[-0.1,-0.1],[0.1,-0.1],[0,0.1]]`, `[[-0.5,0],[0,-1e-5],[0.5,0],[0,1e-5]]`, "flat.bodies[2].points[3]"},
	} {
		js := strings.Replace(flatLevel, c.from, c.to, 1)
		if js == flatLevel {
			t.Fatalf("%s is not in the scene", c.from)
		}
		_, err := Parse([]byte(js), "flat.json")
		if err == nil || !strings.Contains(err.Error(), "flat.json: "+c.path+":") {
			t.Errorf("%s → %s: %v, want an error at %s", c.from, c.to, err, c.path)
		}
	}
	if _, err := Parse([]byte(`{"name":"s","flat":{"size":[1,1],"bodies":[{"shape":"box","center":[0.5,0.5],"size":[0.1,0.1],"static":true,"crate":true}]}}`), "f.json"); err == nil ||
		!strings.Contains(err.Error(), "crate") {
		t.Errorf("a static crate: %v", err)
	}
}

// A body is refused for detail finer than MinFlatDetail of the rectangle's longer side, and accepted at it: the
// limit scales with the rectangle, as Box2D's resolution does in the game.
func TestFlatBodyDetail(t *testing.T) {
	for _, c := range []struct {
		size float64 // the rectangle's longer side
		body string
		ok   bool
	}{
		{2, `{"shape":"box","center":[1,0.5],"size":[1,0.0005],"static":true}`, true},
		{2, `{"shape":"box","center":[1,0.5],"size":[1,0.00049],"static":true}`, false},
		{200, `{"shape":"box","center":[1,0.5],"size":[1,0.04],"static":true}`, false},
		{2, `{"shape":"circle","center":[1,0.5],"radius":0.00025,"density":500}`, true},
		{2, `{"shape":"circle","center":[1,0.5],"radius":0.0002,"density":500}`, false},
		{2, `{"shape":"polygon","center":[1,0.5],"points":[[-0.5,0],[0.5,0],[0,0.0005]],"density":500}`, true},
		{2, `{"shape":"polygon","center":[1,0.5],"points":[[-0.5,0],[0.5,0],[0,0.0004]],"density":500}`, false},
		// a thin wedge: long sides, but its tip's corners lie closer than the limit
		{2, `{"shape":"polygon","center":[1,0.5],"points":[[0,0],[1,0],[1,0.1],[0.0003,0.0001]],"density":500}`, false},
	} {
		js := fmt.Sprintf(`{"name":"d","flat":{"size":[%g,1],"bodies":[%s]}}`, c.size, c.body)
		_, err := Parse([]byte(js), "d.json")
		if c.ok && err != nil || !c.ok && (err == nil || !strings.Contains(err.Error(), "flat.bodies[0]") || !strings.Contains(err.Error(), "longer side")) {
			t.Errorf("%s in a %g m rectangle: %v", c.body, c.size, err)
		}
	}
}

// A body that moves has its centre of mass inside the rectangle, clear of the walls by Box2D's resolution, where
// the walls keep it and where a saved state's bodies must lie: a polygon whose corners all lie off to one side of
// its centre may not put it outside, nor may a body sit centred on a wall. A fixed body may (a rock set into a
// wall).
func TestFlatBodyCentroidInside(t *testing.T) {
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"shape":"polygon","center":[0.1,0.5],"points":[[0.2,0],[0.4,0],[0.3,0.2]],"density":500}`, true},
		{`{"shape":"polygon","center":[0.1,0.5],"points":[[-0.4,0],[-0.2,0],[-0.3,0.2]],"density":500}`, false},
		{`{"shape":"polygon","center":[0.1,0.5],"points":[[0.2,0],[0.4,0],[0.3,0.2]],"angle":180,"density":500}`, false},
		{`{"shape":"polygon","center":[0.1,0.5],"points":[[-0.4,0],[-0.2,0],[-0.3,0.2]],"static":true}`, true},
		// a body centred on a wall: Box2D may push it out through the wall (found by FuzzFlatBody)
		{`{"shape":"box","center":[2,0.5],"size":[0.12,0.12],"density":1}`, false},
		{`{"shape":"circle","center":[1,0],"radius":0.1,"density":1}`, false},
		{`{"shape":"box","center":[1.999,0.5],"size":[0.12,0.12],"density":1}`, true},
		{`{"shape":"box","center":[2,0.5],"size":[0.12,0.12],"static":true}`, true},
	} {
		js := fmt.Sprintf(`{"name":"d","flat":{"size":[2,1],"bodies":[%s]}}`, c.body)
		_, err := Parse([]byte(js), "d.json")
		if c.ok && err != nil || !c.ok && (err == nil || !strings.Contains(err.Error(), "flat.bodies[0].") || !strings.Contains(err.Error(), "centre of mass")) {
			t.Errorf("%s: %v", c.body, err)
		}
	}
}

// A body's far point moves no faster than MaxFlatSpeed: its spin times its reach from its centre, with its
// velocity. A 1 m body may not spin at MaxSpin (its tips would move at 5 km/s, and the flow the game gives it was
// faster still), a small one may.
func TestFlatBodyRimSpeed(t *testing.T) {
	for _, c := range []struct {
		body, path string
	}{
		{`{"shape":"box","center":[1,0.5],"size":[1,0.1],"density":500,"spin":10000}`, "flat.bodies[0].spin"},
		{`{"shape":"polygon","center":[1,0.5],"points":[[0,0],[1,0],[0.5,0.01]],"density":500,"spin":150}`, "flat.bodies[0].spin"},
		{`{"shape":"circle","center":[1,0.5],"radius":0.1,"density":500,"velocity":[90,0],"spin":150}`, "flat.bodies[0].spin"},
		{`{"shape":"circle","center":[1,0.5],"radius":0.001,"density":500,"spin":10000}`, ""},
		{`{"shape":"circle","center":[1,0.5],"radius":0.1,"density":500,"velocity":[90,0],"spin":99}`, ""},
	} {
		js := fmt.Sprintf(`{"name":"d","flat":{"size":[2,1.2],"bodies":[%s]}}`, c.body)
		_, err := Parse([]byte(js), "d.json")
		if c.path == "" && err != nil || c.path != "" && (err == nil || !strings.Contains(err.Error(), c.path+": ")) {
			t.Errorf("%s: %v", c.body, err)
		}
	}
}

// A body that moves fits in the rectangle whichever way it turns: it is no wider, at its widest, than the
// rectangle's shorter side (a disc of 3.6 m in a 1.2 m tall tank was pushed out through its floor, found by
// FuzzFlatBody). A fixed body may be as large as the rectangle.
func TestFlatBodyFits(t *testing.T) {
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`{"shape":"circle","center":[1,0.6],"radius":0.6,"density":500}`, true},
		{`{"shape":"circle","center":[1,0.6],"radius":0.61,"density":500}`, false},
		{`{"shape":"box","center":[1,0.6],"size":[1.2,0.1],"density":500}`, false},
		{`{"shape":"box","center":[1,0.6],"size":[1.19,0.1],"density":500}`, true},
		{`{"shape":"polygon","center":[1,0.6],"points":[[0,0],[1.1,0],[1.1,0.1]],"density":500}`, true},
		{`{"shape":"box","center":[1,0.6],"size":[1.9,0.1],"static":true}`, true},
	} {
		js := fmt.Sprintf(`{"name":"d","flat":{"size":[2,1.2],"bodies":[%s]}}`, c.body)
		_, err := Parse([]byte(js), "d.json")
		if c.ok && err != nil || !c.ok && (err == nil || !strings.Contains(err.Error(), "flat.bodies[0]") || !strings.Contains(err.Error(), "shorter side")) {
			t.Errorf("%s: %v", c.body, err)
		}
	}
}
