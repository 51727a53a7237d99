package sim

import (
	"math"
	"testing"
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
