package flip

import (
	"math"
	"testing"
)

func TestDiag(t *testing.T) {
	s := newSolver(t, builtin(t, "pool"), "flip.cell=0.05")
	for f := 0; f < 120; f++ {
		frames(t, s, 1)
		best, bi := 0.0, 0
		for i, v := range s.v {
			sp := math.Sqrt(float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]))
			if sp > best {
				best, bi = sp, i
			}
		}
		// histogram of speeds by height
		var cnt [20]int
		var sum [20]float64
		for i, v := range s.v {
			sp := math.Sqrt(float64(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]))
			k := min(19, int(s.x[i][1]/0.025))
			cnt[k]++
			sum[k] += sp
		}
		t.Logf("f%d fastest %.3f at %v v=%v", f, best, s.x[bi], s.v[bi])
		if f%40 == 39 {
			for k := 0; k < 16; k++ {
				if cnt[k] > 0 {
					t.Logf("   y=%.3f n=%d mean speed %.4f", float64(k)*0.025, cnt[k], sum[k]/float64(cnt[k]))
				}
			}
		}
	}
}
