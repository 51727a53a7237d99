package pressure

import "math"

// block is the fixed number of cells over which every reduction sums before the blocks are combined, in order,
// on the calling goroutine. Because the blocks do not depend on the worker count, dot products and norms (and so
// every solve) give bit-identical results with any par.Pool.
const block = 4096

// maxSums is the most values one reduction may produce.
const maxSums = 8

// reduce runs body over [0, n) in blocks of block cells on the pool; body writes k partial values for its block
// into out (all k of them). The blocks are then combined in order: by sum, or by min for value i when bit i of
// minMask is set. The returned slice is valid until the next reduction.
func (s *Solver) reduce(n, k int, minMask uint, body func(lo, hi int, out []float64)) []float64 {
	nb := (n + block - 1) / block
	s.part = grown(s.part, nb*k)
	part := s.part
	s.Pool.For(nb, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			body(b*block, min(n, (b+1)*block), part[b*k:(b+1)*k])
		}
	})
	sums := s.sums[:k]
	for i := range sums {
		if minMask&(1<<i) != 0 {
			sums[i] = math.Inf(1)
		} else {
			sums[i] = 0
		}
	}
	for b := 0; b < nb; b++ {
		for i, v := range part[b*k : (b+1)*k] {
			if minMask&(1<<i) != 0 {
				sums[i] = min(sums[i], v)
			} else {
				sums[i] += v
			}
		}
	}
	return sums
}

// each runs body over [0, n) on the pool in chunks of at least block cells (element-wise work only).
func (s *Solver) each(n int, body func(lo, hi int)) {
	s.Pool.For(n, block, body)
}

// dot is aᵀb, deterministically.
func (s *Solver) dot(a, b []float64) float64 {
	return s.reduce(len(a), 1, 0, func(lo, hi int, out []float64) {
		var v float64
		for i := lo; i < hi; i++ {
			v += a[i] * b[i]
		}
		out[0] = v
	})[0]
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// splitmix is a fixed hash of an index to [−1, 1): the power iteration's cold start, the same on every run.
func splitmix(i uint64) float64 {
	z := i + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)/float64(1<<52) - 1
}
