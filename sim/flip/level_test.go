package flip

import (
	"math"
)

// level is the liquid's surface height away from x in [x0, x1]: the mean over columns of a coarse (x, z) grid of
// each column's highest particle.
func level(s *Solver, x0, x1 float64) float64 {
	const nb = 16
	lo, hi := s.sc.Domain.Min, s.sc.Domain.Max
	var top [nb][nb]float64
	var has [nb][nb]bool
	for _, p := range s.x {
		if float64(p[0]) > x0 && float64(p[0]) < x1 {
			continue
		}
		i := min(nb-1, int((float64(p[0])-lo[0])/(hi[0]-lo[0])*nb))
		k := min(nb-1, int((float64(p[2])-lo[2])/(hi[2]-lo[2])*nb))
		if !has[i][k] || float64(p[1]) > top[i][k] {
			top[i][k], has[i][k] = float64(p[1]), true
		}
	}
	var sum float64
	n := 0
	for i := range top {
		for k := range top[i] {
			if has[i][k] {
				sum += top[i][k]
				n++
			}
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
