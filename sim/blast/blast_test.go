package blast

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/scene"
)

var one = scene.Blast{Time: 0.5, Center: scene.Vec3{0, 0, 0}, Radius: 1, Speed: 4}

// A particle inside the blast moves outward by Speed·(1 − r/Radius); one outside, and one on the rim, are left
// alone; a particle at the centre goes up.
func TestApplyProfile(t *testing.T) {
	pos := [][4]float32{{0.5, 0, 0, 7}, {0, -0.25, 0, 0}, {0, 0, 1, 0}, {1.5, 0, 0, 0}, {0, 0, 0, 0}, {0.3, 0.4, 0, 0}}
	vel := [][4]float32{{0, 0, 0, 9}, {1, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 0}}
	n := Apply(par.Pool{}, []scene.Blast{one}, 0.4, 0.6, pos, vel)
	want := [][4]float32{
		{2, 0, 0, 9},     // r = 0.5: half of 4, along +x; the fourth component is left alone
		{1, -3, 0, 0},    // r = 0.25: 3 m/s down, added to what it had
		{0, 0, 0, 0},     // on the rim (r = 1): nothing
		{0, 0, 0, 0},     // outside
		{0, 4, 0, 0},     // at the centre: straight up at full speed
		{1.2, 1.6, 0, 0}, // r = 0.5 along (0.6, 0.8)
	}
	if n != 4 {
		t.Errorf("touched %d particles, want 4", n)
	}
	for i := range want {
		for c := 0; c < 4; c++ {
			if !(math.Abs(float64(vel[i][c]-want[i][c])) <= 1e-6) { // NaN fails
				t.Errorf("particle %d at %v: velocity %v, want %v", i, pos[i], vel[i], want[i])
				break
			}
		}
	}
	if pos[0] != [4]float32{0.5, 0, 0, 7} {
		t.Errorf("positions changed: %v", pos[0])
	}
}

// A blast fires in the step that holds its time: t0 == time fires, t1 == time does not, and steps of any size
// that straddle it fire it once.
func TestApplyFiresOnce(t *testing.T) {
	for _, c := range []struct {
		t0, t1 float64
		want   int
	}{
		{0.5, 0.6, 1}, {0.4, 0.5, 0}, {0.4, 0.5000001, 1}, {0.6, 0.7, 0}, {0, 0.1, 0},
	} {
		pos, vel := [][4]float32{{0.5, 0, 0, 0}}, [][4]float32{{}}
		if n := Apply(par.Pool{}, []scene.Blast{one}, c.t0, c.t1, pos, vel); n != c.want || (vel[0][0] != 0) != (c.want == 1) {
			t.Errorf("step [%g, %g): touched %d, velocity %v", c.t0, c.t1, n, vel[0])
		}
	}
	for _, dt := range []float64{1.0 / 60, 1.0 / 240, 0.07, 0.5, 1} {
		pos, vel := [][4]float32{{0.5, 0, 0, 0}}, [][4]float32{{}}
		fired := 0
		for t := 0.0; t < 2; t += dt {
			fired += Apply(par.Pool{}, []scene.Blast{one}, t, t+dt, pos, vel)
		}
		if fired != 1 || vel[0][0] != 2 {
			t.Errorf("steps of %g s: fired %d times, velocity %v", dt, fired, vel[0])
		}
	}
}

// Several blasts add up; body particles are left alone; the result is the same on any number of workers.
func TestApplyManyParticles(t *testing.T) {
	const n = 50_000
	blasts := []scene.Blast{
		one,
		{Time: 0.45, Center: scene.Vec3{0.3, 0.2, 0}, Radius: 0.6, Speed: 2},
		{Time: 0.7, Center: scene.Vec3{0, 0, 0}, Radius: 2, Speed: 100}, // another step's
	}
	mk := func() (pos, vel [][4]float32, body []int32) {
		pos, vel, body = make([][4]float32, n), make([][4]float32, n), make([]int32, n)
		for i := range pos {
			a, b := float64(i)*0.618034, float64(i)*0.414214
			r := 1.5 * math.Mod(float64(i)*0.7548777, 1)
			pos[i] = [4]float32{float32(r * math.Cos(a) * math.Sin(b)), float32(r * math.Sin(a) * math.Sin(b)), float32(r * math.Cos(b)), 0}
			vel[i] = [4]float32{0.1, -0.2, 0.3, 0}
			body[i] = -1
			if i%7 == 0 {
				body[i] = int32(i % 3)
			}
		}
		return pos, vel, body
	}
	pos, ref, body := mk()
	// the reference: one particle at a time, both blasts in order
	refN := 0
	for i := range pos {
		if body[i] >= 0 {
			continue
		}
		hit := false
		for k := range 2 {
			if push(&blasts[k], pos[i], &ref[i]) {
				hit = true
			}
		}
		if hit {
			refN++
		}
	}
	if refN < n/10 {
		t.Fatalf("the test's blasts reach only %d particles", refN)
	}
	for _, workers := range []int{1, 2, 3, 8} {
		pos, vel, body := mk()
		got := ApplyFluid(par.Pool{Workers: workers}, blasts, 0.4, 0.6, pos, vel, body)
		if got != refN {
			t.Errorf("%d workers: touched %d, want %d", workers, got, refN)
		}
		for i := range vel {
			if vel[i] != ref[i] {
				t.Fatalf("%d workers: particle %d (body %d) has velocity %v, want %v", workers, i, body[i], vel[i], ref[i])
			}
			if body[i] >= 0 && vel[i] != [4]float32{0.1, -0.2, 0.3, 0} {
				t.Fatalf("body particle %d was pushed", i)
			}
		}
	}
	// every particle counts as fluid with Apply: more are touched
	pos, vel, _ := mk()
	if got := Apply(par.Pool{}, blasts, 0.4, 0.6, pos, vel); got <= refN {
		t.Errorf("Apply touched %d, no more than ApplyFluid's %d", got, refN)
	}
}

// Mismatched lengths are a programmer's error; no blasts, or none firing, touch nothing.
func TestApplyEdges(t *testing.T) {
	pos, vel := [][4]float32{{0.5, 0, 0, 0}}, [][4]float32{{}}
	if Apply(par.Pool{}, nil, 0, 1, pos, vel) != 0 || Apply(par.Pool{}, []scene.Blast{one}, 0, 1, nil, nil) != 0 {
		t.Error("touched particles with nothing to do")
	}
	defer func() {
		if recover() == nil {
			t.Error("mismatched lengths did not panic")
		}
	}()
	Apply(par.Pool{}, []scene.Blast{one}, 0, 1, pos, nil)
}
