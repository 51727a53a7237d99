package pressure

import (
	"runtime"
	"sync/atomic"
)

// The MIC(0) factorisation and its triangular solves, pipelined over the workers without changing a bit of them.
//
// In the natural order a cell of the forward passes (the factorisation and L q = r) reads only the cell before it
// on its x-line and the cells below it along y and along z. So the y-lines of a plane can be cut into ranges, one
// per worker: worker w does plane k of its range once worker w−1 has done plane k of its own (the line just below
// its first), while the earlier planes it reads are its own. The workers run one plane apart, like a bucket
// brigade, and each cell computes exactly what the sequential pass computes, from the same values. The backward
// pass Lᵀ z = q runs the same brigade from the top: the last range leads and the planes go from the last down.

// pipeMin is the fewest cells in the system for which the passes are pipelined: below it a plane of a range is too
// little work for the hand-over.
const pipeMin = 16384

// planPipeline cuts the y-lines into one range per worker (at most one per two lines), each holding about as many
// cells in the system summed over the planes; s.cuts is empty when the passes run sequentially. It needs s.lines.
func (s *Solver) planPipeline(m *Matrix, cells int) {
	s.cuts = s.cuts[:0]
	workers := min(s.Pool.Size(), m.Ny/2)
	if workers < 2 || cells < pipeMin {
		return
	}
	s.perY = grown(s.perY, m.Ny)
	clear(s.perY)
	for l := 0; l < m.Ny*m.Nz; l++ {
		for _, sp := range s.spans[s.lines[l]:s.lines[l+1]] {
			s.perY[l%m.Ny] += float64(sp.hi - sp.lo)
		}
	}
	s.cuts = append(s.cuts, 0)
	acc := 0.0
	for j := 0; j < m.Ny && len(s.cuts) < workers; j++ {
		acc += s.perY[j]
		if acc >= float64(cells)*float64(len(s.cuts))/float64(workers) {
			s.cuts = append(s.cuts, j+1)
		}
	}
	s.cuts = append(s.cuts, m.Ny)
}

// pipelined runs pass over the cells in the system plane by plane, each plane's lines in the ranges of s.cuts, on
// the pool as a brigade (above); reverse runs the planes and the ranges from the last. pass gets the spans of one
// range of one plane, in index order.
func (s *Solver) pipelined(m *Matrix, reverse bool, pass func(spans []span)) {
	ranges := len(s.cuts) - 1
	ny, nz := m.Ny, m.Nz
	if len(s.done) < ranges {
		s.done = make([]atomic.Int32, ranges)
	}
	done := s.done[:ranges]
	for i := range done {
		done[i].Store(0)
	}
	// chunk c waits only on chunk c−1, and the pool hands chunks out in order, so whoever holds c−1 is running
	s.Pool.For(ranges, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			r := c
			if reverse {
				r = ranges - 1 - c
			}
			j0, j1 := s.cuts[r], s.cuts[r+1]
			for step := 0; step < nz; step++ {
				k := step
				if reverse {
					k = nz - 1 - step
				}
				if c > 0 {
					for done[c-1].Load() <= int32(step) {
						runtime.Gosched()
					}
				}
				pass(s.spans[s.lines[j0+ny*k]:s.lines[j1+ny*k]])
				done[c].Store(int32(step + 1))
			}
		}
	})
}

// factorMIC factors MIC(0) on the cells of set (mic.factor), pipelined when the system is large enough.
func (s *Solver) factorMIC(m *Matrix, set []bool) {
	if len(s.cuts) == 0 {
		s.f.factor(m, s.dg, set, s.spans)
		return
	}
	s.pipelined(m, false, func(spans []span) { s.f.factorSpans(m, s.dg, set, spans) })
}

// applyMIC sets z = (L Lᵀ)⁻¹ r (mic.apply), pipelined when the system is large enough.
func (s *Solver) applyMIC(m *Matrix, r, z []float64) {
	if len(s.cuts) == 0 {
		s.f.apply(m, r, z, s.spans)
		return
	}
	s.pipelined(m, false, func(spans []span) { s.f.forward(m, r, z, spans) })
	s.pipelined(m, true, func(spans []span) { s.f.backward(m, z, spans) })
}
