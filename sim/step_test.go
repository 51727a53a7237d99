package sim

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/slosh/slosh/sim/par"
)

// The CFL rule takes the fewest steps that keep the fastest particle within Number spacings a step, between Min
// and Max, and the most for a speed that is not a number.
func TestCFLSubsteps(t *testing.T) {
	c := CFL{Number: 1.5, Min: 4, Max: 32}
	const d = 0.01 // 1.5 spacings a step is 0.015 m
	for _, tc := range []struct {
		speed float64
		want  int
	}{
		{0, 4}, {0.015 * 60 * 4, 4}, {0.015*60*4 + 0.01, 5}, {0.015 * 60 * 10, 10}, {1e6, 32}, {math.Inf(1), 32}, {math.NaN(), 32},
	} {
		if got := c.Substeps(tc.speed, d, FrameDt); got != tc.want {
			t.Errorf("speed %g m/s: %d substeps, want %d", tc.speed, got, tc.want)
		}
	}
	if got := (CFL{Number: 1, Min: 8, Max: 2}).Substeps(0, d, FrameDt); got != 8 {
		t.Errorf("the fewest over the most: %d substeps, want the fewest, 8", got)
	}
}

// Real-time mode caps the CFL rule's steps at RealTimeSteps, winning over Min, and a speed that is not a number asks
// for the cap; off, the cap is not read. Checked against the counts worked out by hand for a 0.015 m crossing.
func TestCFLSubstepsRealTime(t *testing.T) {
	const d = 0.01
	for _, tc := range []struct {
		c     CFL
		speed float64
		want  int
	}{
		{CFL{Number: 1.5, Min: 1, Max: 32, RealTime: true, RealTimeSteps: 2}, 0, 1},
		{CFL{Number: 1.5, Min: 1, Max: 32, RealTime: true, RealTimeSteps: 2}, 0.015 * 60 * 2, 2},
		{CFL{Number: 1.5, Min: 1, Max: 32, RealTime: true, RealTimeSteps: 2}, 0.015*60*2 + 0.01, 2},
		{CFL{Number: 1.5, Min: 1, Max: 32, RealTime: true, RealTimeSteps: 2}, 1e6, 2},
		{CFL{Number: 1.5, Min: 1, Max: 32, RealTime: true, RealTimeSteps: 2}, math.NaN(), 2},
		{CFL{Number: 1.5, Min: 4, Max: 32, RealTime: true, RealTimeSteps: 2}, 0, 2},              // the cap wins over the fewest
		{CFL{Number: 1.5, Min: 4, Max: 32, RealTime: true, RealTimeSteps: 8}, 0.015 * 60 * 6, 6}, // under the cap: the CFL rule's
		{CFL{Number: 1.5, Min: 1, Max: 3, RealTime: true, RealTimeSteps: 8}, 1e6, 3},             // the most still holds
		{CFL{Number: 1.5, Min: 1, Max: 32, RealTime: true, RealTimeSteps: 0}, 1e6, 1},            // a cap below 1 is 1
		{CFL{Number: 1.5, Min: 4, Max: 32, RealTime: false, RealTimeSteps: 2}, 1e6, 32},          // off: the cap is not read
	} {
		if got := tc.c.Substeps(tc.speed, d, FrameDt); got != tc.want {
			t.Errorf("%+v at %g m/s: %d substeps, want %d", tc.c, tc.speed, got, tc.want)
		}
	}
}

// The speed limit is Number·spacing/Δt in real-time mode (1.5 spacings of 0.01 m in 1/120 s is 1.8 m/s), and +Inf
// when it is off or the step has no length.
func TestCFLSpeedLimit(t *testing.T) {
	on := CFL{Number: 1.5, Min: 1, Max: 32, RealTime: true, RealTimeSteps: 2}
	if got := on.SpeedLimit(0.01, 1.0/120); math.Abs(got-1.8) > 1e-12 {
		t.Errorf("on: %g m/s, want 1.8", got)
	}
	off := on
	off.RealTime = false
	for _, tc := range []struct {
		c       CFL
		d, dt   float64
		explain string
	}{{off, 0.01, 1.0 / 120, "off"}, {on, 0.01, 0, "Δt = 0"}, {on, 0, 1.0 / 120, "no spacing"}, {on, 0.01, math.NaN(), "Δt NaN"}} {
		if got := tc.c.SpeedLimit(tc.d, tc.dt); !math.IsInf(got, 1) {
			t.Errorf("%s: %g m/s, want +Inf", tc.explain, got)
		}
	}
}

// ClampSpeeds against each velocity's own speed: the count is the velocities faster than the limit; a clamped one
// keeps its direction (and its fourth component) and has the limit's length to float32 rounding; one at or under
// the limit, or not finite, is untouched bit for bit; the count is the same on one worker and on many.
func TestClampSpeeds(t *testing.T) {
	const limit = 2.5
	rng := rand.New(rand.NewPCG(1, 2))
	vel := make([][4]float32, 50000)
	for i := range vel {
		s := 5 * rng.Float64()
		x, y, z := rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()
		l := math.Sqrt(x*x + y*y + z*z)
		vel[i] = [4]float32{float32(s * x / l), float32(s * y / l), float32(s * z / l), float32(i)}
	}
	vel[0] = [4]float32{limit, 0, 0, 7}                // exactly at the limit
	vel[1] = [4]float32{float32(math.NaN()), 1, 1, 0}  // not finite
	vel[2] = [4]float32{float32(math.Inf(1)), 0, 0, 0} // not finite
	vel[3] = [4]float32{0, -100, 0, 3}                 // far over
	orig := append([][4]float32(nil), vel...)
	want := 0
	for i, v := range orig { // the finite ones whose float32 |v|² is over limit²
		if i > 2 && float32(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]) > limit*limit {
			want++
		}
	}
	one := append([][4]float32(nil), vel...)
	n := ClampSpeeds(par.Pool{}, vel, limit)
	if n1 := ClampSpeeds(par.Pool{Workers: 1}, one, limit); n1 != n {
		t.Errorf("one worker clamped %d, the pool %d", n1, n)
	}
	if n != want || n < 10000 {
		t.Errorf("clamped %d, want %d", n, want)
	}
	for i, v := range vel {
		o := orig[i]
		if v != one[i] && i != 1 { // NaN is not equal to itself
			t.Fatalf("particle %d: %v on the pool, %v on one worker", i, v, one[i])
		}
		so := math.Sqrt(float64(o[0])*float64(o[0]) + float64(o[1])*float64(o[1]) + float64(o[2])*float64(o[2]))
		sv := math.Sqrt(float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2]))
		if i <= 2 || !(float32(o[0]*o[0]+o[1]*o[1]+o[2]*o[2]) > limit*limit) {
			if i != 1 && v != o || i == 1 && !math.IsNaN(float64(v[0])) {
				t.Fatalf("particle %d at %g m/s: %v, want it untouched %v", i, so, v, o)
			}
			continue
		}
		if math.Abs(sv-limit) > 1e-6*limit {
			t.Fatalf("particle %d: clamped from %g to %.9g m/s, want the limit %g", i, so, sv, limit)
		}
		for a := 0; a < 3; a++ { // the direction: each component scaled by the same limit/|v|
			if d := math.Abs(float64(v[a]) - float64(o[a])*limit/so); d > 1e-6*limit {
				t.Fatalf("particle %d: %v from %v turned (component %d off by %g)", i, v, o, a, d)
			}
		}
		if v[3] != o[3] {
			t.Fatalf("particle %d: the fourth component %g became %g", i, o[3], v[3])
		}
	}
	if got := ClampSpeeds(par.Pool{}, vel, math.Inf(1)); got != 0 {
		t.Errorf("an infinite limit clamped %d", got)
	}
}

// Real-time mode's figures: the cap and the clamped count, a warning when some were clamped; nothing when it is
// off.
func TestCFLAppendFigures(t *testing.T) {
	on := CFL{Number: 1, Min: 1, Max: 8, RealTime: true, RealTimeSteps: 3}
	if got := (CFL{Number: 1, Min: 1, Max: 8, RealTimeSteps: 3}).AppendFigures(nil, 5); len(got) != 0 {
		t.Errorf("off: %v", got)
	}
	if got := on.AppendFigures(nil, 0); len(got) != 2 || got[0].Name != FigRealTimeCap || got[0].Value != 3 || got[1].Value != 0 || got[1].Warn {
		t.Errorf("on, none clamped: %v", got)
	}
	got := on.AppendFigures(nil, 5)
	if len(got) != 2 || got[1].Name != FigSpeedsClamped || got[1].Value != 5 || !got[1].Warn {
		t.Errorf("on, 5 clamped: %v", got)
	}
}

func TestFormatValue(t *testing.T) {
	for _, tc := range []struct {
		v          float64
		unit, want string
	}{{1.234, "%", "1.23%"}, {12, "", "12"}, {0.000123, "", "0.000123"}, {250.4, "m/s", "250 m/s"}} {
		if got := FormatValue(tc.v, tc.unit); got != tc.want {
			t.Errorf("FormatValue(%g, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}
