package scene

import (
	"math"
	"strings"
	"testing"
)

// A blast fires in the step that holds its time: t0 ≤ Time < t1, so steps that tile time fire it once.
func TestBlastFires(t *testing.T) {
	b := Blast{Time: 0.5}
	for _, c := range []struct {
		t0, t1 float64
		want   bool
	}{
		{0.4, 0.6, true}, {0.5, 0.6, true}, {0.4, 0.5, false}, {0.6, 0.7, false}, {0, 0.4, false},
	} {
		if got := b.Fires(c.t0, c.t1); got != c.want {
			t.Errorf("Fires(%g, %g) = %v", c.t0, c.t1, got)
		}
	}
	// steps of 1/60 s from 0 to 1 s fire a blast at 0.5 s exactly once, and one at 0 s in the first step
	for _, at := range []float64{0.5, 0, 1.0 / 60} {
		b := Blast{Time: at}
		n, t0 := 0, 0.0
		for k := 1; k <= 60; k++ {
			t1 := float64(k) / 60
			if b.Fires(t0, t1) {
				n++
			}
			t0 = t1
		}
		if n != 1 {
			t.Errorf("a blast at %g s fired %d times", at, n)
		}
	}
}

func TestBlastValidation(t *testing.T) {
	blast := func(b string) string { return baseScene + `,"blasts":[` + b + `]}` }
	sc, err := Parse([]byte(blast(`{"time":0.5,"center":[0.5,0.2,0.5],"radius":0.2,"speed":4}`)), "b.json")
	if err != nil {
		t.Fatal(err)
	}
	if b := sc.Blasts[0]; b != (Blast{Time: 0.5, Center: Vec3{0.5, 0.2, 0.5}, Radius: 0.2, Speed: 4}) {
		t.Errorf("decoded %+v", b)
	}
	// on the domain's floor and at time 0 is allowed
	if _, err := Parse([]byte(blast(`{"center":[0.5,0,0.5],"radius":0.2,"speed":4}`)), "b.json"); err != nil {
		t.Errorf("a blast at time 0 on the floor: %v", err)
	}
	for _, c := range []struct{ b, want string }{
		{`{"time":-1,"center":[0.5,0.2,0.5],"radius":0.2,"speed":4}`, "blasts[0].time: -1 s is outside [0, 86400]"},
		{`{"time":1e6,"center":[0.5,0.2,0.5],"radius":0.2,"speed":4}`, "blasts[0].time: 1e+06 s is outside"},
		{`{"time":1,"center":[0.5,1.2,0.5],"radius":0.2,"speed":4}`, "blasts[0].center: [0.5, 1.2, 0.5] lies outside the domain"},
		{`{"time":1,"center":[0.5,1e300,0.5],"radius":0.2,"speed":4}`, "blasts[0].center[1]: 1e+300 is out of range"},
		{`{"time":1,"center":[0.5,0.2,0.5],"speed":4}`, "blasts[0].radius: 0 m is outside (0, 1]"},
		{`{"time":1,"center":[0.5,0.2,0.5],"radius":2,"speed":4}`, "blasts[0].radius: 2 m is outside (0, 1]"},
		{`{"time":1,"center":[0.5,0.2,0.5],"radius":1e-9,"speed":4}`, "blasts[0].radius: 1e-09 m is out of range"},
		{`{"time":1,"center":[0.5,0.2,0.5],"radius":0.2}`, "blasts[0].speed: 0 m/s is outside (0, 100]"},
		{`{"time":1,"center":[0.5,0.2,0.5],"radius":0.2,"speed":-3}`, "blasts[0].speed: -3 m/s is outside (0, 100]"},
		{`{"time":1,"center":[0.5,0.2,0.5],"radius":0.2,"speed":500}`, "blasts[0].speed: 500 m/s is outside (0, 100]"},
		{`{"time":1,"center":[0.5,0.2,0.5],"radius":0.2,"speed":4,"power":3}`, "blasts[0].power: unknown field; known fields here are time, center, radius, speed"},
		{`{"time":"soon","center":[0.5,0.2,0.5],"radius":0.2,"speed":4}`, `blasts[0].time: want a number, got "soon"`},
		{`{"time":1,"center":[0.5,0.2],"radius":0.2,"speed":4}`, "blasts[0].center: want an array of 3 numbers"},
	} {
		// the bad blast is the second, so the path must name its index
		if _, err := Parse([]byte(blast(`{"time":0.1,"center":[0.5,0.5,0.5],"radius":0.1,"speed":1},`+c.b)), "b.json"); err == nil ||
			!strings.Contains(err.Error(), "b.json: "+strings.Replace(c.want, "blasts[0]", "blasts[1]", 1)) {
			t.Errorf("%s: error %v, want %q", c.b, err, c.want)
		}
	}
	// values no file can hold, set in code
	for _, c := range []struct {
		set  func(b *Blast)
		want string
	}{
		{func(b *Blast) { b.Time = math.NaN() }, "blasts[0].time"},
		{func(b *Blast) { b.Time = math.Inf(1) }, "blasts[0].time"},
		{func(b *Blast) { b.Radius = math.NaN() }, "blasts[0].radius"},
		{func(b *Blast) { b.Speed = math.Inf(1) }, "blasts[0].speed"},
		{func(b *Blast) { b.Center[2] = math.NaN() }, "blasts[0].center[2]"},
	} {
		bad := sc.Clone()
		c.set(&bad.Blasts[0])
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
	// Clone copies the blasts
	c := sc.Clone()
	c.Blasts[0].Speed = 99
	if sc.Blasts[0].Speed == 99 {
		t.Error("Clone shares blasts")
	}
}
