package pressure

import "math"

// block is the number of cells (at least, in whole spans) over which every reduction sums before the blocks are
// combined, in order, on the calling goroutine. Because the blocks depend only on the matrix, never on the worker
// count, dot products and norms (and so every solve) give bit-identical results with any par.Pool.
const block = 4096

// maxSums is the most values one reduction may produce.
const maxSums = 8

// span is a run [lo, hi) of cells in the system along one x-line of the grid.
type span struct{ lo, hi int }

// findSpans lists the runs of cells in the system, in index order, and groups them into blocks of at least block
// cells: the solvers' loops touch these cells only. It also notes each x-line's first span and plans the MIC
// passes' pipeline (pipeline.go).
func (s *Solver) findSpans(m *Matrix) {
	s.spans = s.spans[:0]
	s.lines = s.lines[:0]
	s.blocks = append(s.blocks[:0], 0)
	diag := m.Diag
	nx, n := m.Nx, m.Len()
	cells, total := 0, 0
	for base := 0; base < n; base += nx {
		s.lines = append(s.lines, len(s.spans))
		end := base + nx
		for c := base; c < end; {
			if !(diag[c] > 0) {
				c++
				continue
			}
			lo := c
			for c < end && diag[c] > 0 {
				c++
			}
			s.spans = append(s.spans, span{lo, c})
			cells += c - lo
			total += c - lo
			if cells >= block {
				s.blocks = append(s.blocks, len(s.spans))
				cells = 0
			}
		}
	}
	if s.blocks[len(s.blocks)-1] != len(s.spans) {
		s.blocks = append(s.blocks, len(s.spans))
	}
	s.lines = append(s.lines, len(s.spans))
	s.planPipeline(m, total)
}

// reduce runs body over the spans of the cells in the system, block by block on the pool. For each block, out
// starts at 0 (or +Inf for value i when bit i of minMask is set) and body folds each span's cells into its k
// values (by sum, or by min for the minMask ones). The blocks are then combined in order. The returned slice is
// valid until the next reduction.
func (s *Solver) reduce(k int, minMask uint, body func(lo, hi int, out []float64)) []float64 {
	nb := len(s.blocks) - 1
	s.part = grown(s.part, nb*k)
	part, spans, blocks := s.part, s.spans, s.blocks
	s.Pool.For(nb, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			out := part[b*k : (b+1)*k]
			for i := range out {
				out[i] = 0
				if minMask&(1<<i) != 0 {
					out[i] = math.Inf(1)
				}
			}
			for _, sp := range spans[blocks[b]:blocks[b+1]] {
				body(sp.lo, sp.hi, out)
			}
		}
	})
	sums := s.sums[:k]
	for i := range sums {
		sums[i] = 0
		if minMask&(1<<i) != 0 {
			sums[i] = math.Inf(1)
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

// each runs body over the spans of the cells in the system on the pool (element-wise work only).
func (s *Solver) each(body func(lo, hi int)) {
	spans, blocks := s.spans, s.blocks
	s.Pool.For(len(blocks)-1, 1, func(lo, hi int) {
		for _, sp := range spans[blocks[lo]:blocks[hi]] {
			body(sp.lo, sp.hi)
		}
	})
}

// dot is aᵀb over the cells in the system, deterministically.
func (s *Solver) dot(a, b []float64) float64 {
	return s.reduce(1, 0, func(lo, hi int, out []float64) {
		v := out[0]
		for i := lo; i < hi; i++ {
			v += a[i] * b[i]
		}
		out[0] = v
	})[0]
}

// copyIn sets dst = src on the cells in the system.
func (s *Solver) copyIn(dst, src []float64) {
	s.each(func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}

// mul sets y = A x on the cells in the system (y is left alone elsewhere: the solvers keep their workspaces 0
// there), the 7-point part span by span on the pool, then the low-rank terms.
func (s *Solver) mul(m *Matrix, x, y []float64) {
	s.each(func(lo, hi int) { m.mulSpan(x, y, lo, hi) })
	m.mulBodies(x, y)
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
