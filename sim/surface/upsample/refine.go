package upsample

import (
	"math"

	"github.com/slosh/slosh/sim/par"
)

// batch is the number of neighbour-list entries whose children are computed in parallel before they are accepted
// in order. It is fixed, so the result does not depend on the number of workers.
const batch = 2048

// minBPrime: below this |b'| the parents' normals are taken as belonging to different surfaces (eq. 6.13: "the
// points are not refined"), e.g. the two faces of a thin sheet.
const minBPrime = 0.05

// candidate is the child of one neighbour pair, as the workers compute it.
type candidate struct {
	x, n   [3]float32 // position and normal (eq. 6.2, 6.13)
	w      float32    // collision weight: the distance to the parents
	p1, p2 int32
	hit    int32 // the point of an earlier step it collides with (type 2), −1 none
	ok     bool  // a child exists (the pair is refined)
}

// refiner holds the point set's neighbourhoods and the scratch of the refinement steps.
type refiner struct {
	start, list []int32 // neighbourhoods of the current points: list[start[p]:start[p+1]], ascending
	count       []int32
	owner       []int32 // list entry → its point
	src         []int32 // level-0 point → sorted particle (detection only)
	w           []float32

	posNext, nrmNext [][3]float32 // the points of earlier steps, moved by collisions; applied when the step ends
	regHead, parHead []int32      // per point of an earlier step: its registered children R_p; the children it parented
	regLen           []int32      // |R_p|
	lnkNext, lnkNode []int32      // linked-list nodes of both
	mark             []uint32     // per child of the step: the last visit's tag
	tag              uint32
	edges            []int32 // new neighbour relations of the step (type 2 and 3), as pairs

	cand  []candidate
	uIdx  []int32   // per candidate: U = N1 ∪ N2, up to maxU points
	uDist []float32 // and their squared distances to the child
	uLen  []int32

	nstart, nlist []int32

	// noMoves switches off the collision handling (eq. 6.16–6.18): rejected children leave the point they hit
	// where it is. For tests: it separates the collisions the detection misses from those the moves cause.
	noMoves bool
}

// run refines out (its level-0 points, with f.start/f.list their neighbourhoods) in cfg.Levels steps.
func (f *refiner) run(pool par.Pool, out *Points, r float32, cfg Config, st *Stats) {
	ri := float64(r)
	f.cand = grow(f.cand, batch, batch)
	f.uIdx = grow(f.uIdx, batch*maxU, batch*maxU)
	f.uDist = grow(f.uDist, batch*maxU, batch*maxU)
	f.uLen = grow(f.uLen, batch, batch)
	for s := 0; s < cfg.Levels; s++ {
		if len(out.Pos) == 0 {
			return
		}
		last := s == cfg.Levels-1
		capped := f.step(pool, out, s, ri, cfg, last, st)
		if capped {
			st.Capped = true
			return
		}
		ri *= shrink
	}
}

// step is refinement step s_i with radius r_i: it appends the children (level i+1) and, unless last, leaves the
// neighbourhoods within r_{i+1} of all points in f.start/f.list. It reports whether MaxPoints or MaxLinks stopped
// it (the children accepted so far stay; no later step runs).
func (f *refiner) step(pool par.Pool, out *Points, s int, ri64 float64, cfg Config, last bool, st *Stats) bool {
	m := len(out.Pos)
	ri := float32(ri64)
	rNext := float32(ri64 * shrink)
	beta := float32(cfg.Beta * ri64)
	hmax := float32(ri64 * (math.Sqrt2 - 1) / 2)
	e := int(f.start[m])

	f.owner = grow(f.owner, e, math.MaxInt)
	pool.For(m, 1024, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			for k := f.start[p]; k < f.start[p+1]; k++ {
				f.owner[k] = int32(p)
			}
		}
	})
	f.posNext = append(f.posNext[:0], out.Pos[:m]...)
	f.nrmNext = append(f.nrmNext[:0], out.Normal[:m]...)
	f.regHead = grow(f.regHead, m, math.MaxInt)
	f.parHead = grow(f.parHead, m, math.MaxInt)
	f.regLen = grow(f.regLen, m, math.MaxInt)
	for p := range m {
		f.regHead[p], f.parHead[p], f.regLen[p] = -1, -1, 0
	}
	f.lnkNext, f.lnkNode = f.lnkNext[:0], f.lnkNode[:0]
	f.mark, f.tag = f.mark[:0], 0
	f.edges = f.edges[:0]

	capped := false
	for lo := 0; lo < e && !capped; lo += batch {
		hi := min(lo+batch, e)
		pos := out.Pos[:m] // the points of earlier steps, unchanged during the step
		nrm := out.Normal[:m]
		pool.For(hi-lo, 64, func(a, b int) {
			for k := a; k < b; k++ {
				f.child(k, lo+k, pos, nrm, ri, rNext, beta, hmax)
			}
		})
		capped = f.accept(out, hi-lo, m, uint8(s+1), rNext, beta, cfg, last, st)
	}

	// the moves of the points of earlier steps (eq. 6.16–6.18) take effect
	copy(out.Pos[:m], f.posNext)
	copy(out.Normal[:m], f.nrmNext)
	if !last && !capped {
		capped = !f.neighbourhoods(pool, out, m, rNext, cfg.MaxLinks)
	}
	return capped
}

// child computes the child of list entry e into candidate slot k: the spherical interpolation (eq. 6.2–6.14), U
// with the distances to the child, and the nearest type-2 collision in I = N1 ∩ N2.
func (f *refiner) child(k, e int, pos, nrm [][3]float32, ri, rNext, beta, hmax float32) {
	c := &f.cand[k]
	c.ok, c.hit = false, -1
	f.uLen[k] = 0
	p1, p2 := f.owner[e], f.list[e]
	if p2 <= p1 { // each pair once
		return
	}
	x1, x2 := pos[p1], pos[p2]
	d := sub(x1, x2)
	dl := length(d)
	if dl < rNext || dl >= ri { // type 1: refined in the next step; beyond r_i: not neighbours
		return
	}
	a := scale(d, 1/dl)
	n1, n2 := nrm[p1], nrm[p2]
	sum := add(n1, n2)
	bp := sub(sum, scale(a, dot(sum, a)))
	bl := length(bp)
	if bl < minBPrime {
		return
	}
	nc := scale(bp, 1/bl)
	h := sphereHeight(dot(n1, a), dot(n1, nc)+1, -dot(n2, a), dot(n2, nc)+1, dl/2, hmax)
	mid := scale(add(x1, x2), 0.5)
	xc := add(mid, scale(nc, h))
	c.x, c.n, c.p1, c.p2, c.ok = xc, nc, p1, p2, true
	c.w = float32(math.Sqrt(float64(dl*dl/4 + h*h)))

	// U = N1 ∪ N2 by merging the sorted lists; entries in both form I
	l1 := f.list[f.start[p1]:f.start[p1+1]]
	l2 := f.list[f.start[p2]:f.start[p2+1]]
	ui := f.uIdx[k*maxU : (k+1)*maxU]
	ud := f.uDist[k*maxU : (k+1)*maxU]
	nu := 0
	best, bestD := int32(-1), beta*beta
	i, j := 0, 0
	for (i < len(l1) || j < len(l2)) && nu < maxU {
		var q int32
		both := false
		switch {
		case j >= len(l2) || (i < len(l1) && l1[i] < l2[j]):
			q = l1[i]
			i++
		case i >= len(l1) || l2[j] < l1[i]:
			q = l2[j]
			j++
		default:
			q = l1[i]
			i++
			j++
			both = true
		}
		dq := length2(sub(pos[q], xc))
		ui[nu], ud[nu] = q, dq
		nu++
		if both && dq < bestD {
			best, bestD = q, dq
		}
	}
	f.uLen[k] = int32(nu)
	c.hit = best
}

// sphereHeight is h (eq. 6.4–6.10, 6.14): each parent's displacement h_k = (s_k/t_k)·|d|/2 onto the sphere
// through both parents with its normal, the one of smaller magnitude when both have the same sign (0 at an
// inflection), limited to ±h_max.
func sphereHeight(s1, t1, s2, t2, half, hmax float32) float32 {
	h1, h2 := slope(s1, t1, half, hmax), slope(s2, t2, half, hmax)
	var h float32
	switch {
	case h1 >= 0 && h2 >= 0:
		h = min(h1, h2)
	case h1 <= 0 && h2 <= 0:
		h = max(h1, h2)
	}
	return max(-hmax, min(hmax, h))
}

func slope(s, t, half, hmax float32) float32 {
	if t > 1e-6 {
		return s / t * half
	}
	if s < 0 {
		return -hmax
	}
	return hmax
}

// accept goes through the batch's candidates in order: type-2 hits move the point hit, type-3 collisions (in
// S = R1 ∩ R2) move the child hit, and the rest become points, registered in U and joined to their neighbours.
func (f *refiner) accept(out *Points, nb, m int, level uint8, rNext, beta float32, cfg Config, last bool, st *Stats) bool {
	maxPoints := cfg.MaxPoints
	reach2 := (rNext + beta) * (rNext + beta)
	rNext2 := rNext * rNext
	for k := range nb {
		c := &f.cand[k]
		if !c.ok {
			continue
		}
		if c.hit >= 0 { // type 2
			if out.Level[c.hit] > 0 && !f.noMoves { // the particles stay put (the limit of a high weight)
				f.posNext[c.hit], f.nrmNext[c.hit] = merge(f.posNext[c.hit], f.nrmNext[c.hit], &f.w[c.hit], c)
			}
			st.Rejected++
			continue
		}
		// type 3: children of this step in S = R1 ∩ R2. Every child of S is in the shorter of R1 and R2, and
		// distance-checking that list is cheaper than intersecting the two.
		head := f.regHead[c.p1]
		if f.regLen[c.p2] < f.regLen[c.p1] {
			head = f.regHead[c.p2]
		}
		best, bestD := int32(-1), beta*beta
		for nd := head; nd >= 0; nd = f.lnkNext[nd] {
			q := f.lnkNode[nd]
			if d2 := length2(sub(out.Pos[q], c.x)); d2 < bestD {
				best, bestD = q, d2
			}
		}
		if best >= 0 {
			if !f.noMoves {
				out.Pos[best], out.Normal[best] = merge(out.Pos[best], out.Normal[best], &f.w[best], c)
			}
			st.Rejected++
			continue
		}
		if len(out.Pos) >= maxPoints || len(f.edges)/2+len(f.lnkNode) > cfg.MaxLinks {
			return true
		}
		ci := int32(len(out.Pos))
		out.Pos = appendCapped(out.Pos, c.x, maxPoints)
		out.Normal = appendCapped(out.Normal, c.n, maxPoints)
		out.Level = appendCapped(out.Level, level, maxPoints)
		f.w = appendCapped(f.w, c.w, maxPoints)
		f.mark = append(f.mark, 0)
		ui := f.uIdx[k*maxU : k*maxU+int(f.uLen[k])]
		ud := f.uDist[k*maxU : k*maxU+int(f.uLen[k])]
		if !last {
			// type 2: points of earlier steps in U within r_{i+1}; type 3: children of this step whose parents are
			// in U (Figure 6.7), within r_{i+1}
			f.tag++
			for j, q := range ui {
				if ud[j] <= rNext2 {
					f.edges = append(f.edges, q, ci)
				}
				for nd := f.parHead[q]; nd >= 0; nd = f.lnkNext[nd] {
					ch := f.lnkNode[nd]
					if f.mark[int(ch)-m] == f.tag {
						continue
					}
					f.mark[int(ch)-m] = f.tag
					if length2(sub(out.Pos[ch], c.x)) <= rNext2 {
						f.edges = append(f.edges, ch, ci)
					}
				}
			}
			f.push(&f.parHead[c.p1], ci)
			f.push(&f.parHead[c.p2], ci)
		}
		for j, q := range ui {
			if ud[j] < reach2 {
				f.push(&f.regHead[q], ci)
				f.regLen[q]++
			}
		}
	}
	return false
}

func (f *refiner) push(head *int32, child int32) {
	f.lnkNext = append(f.lnkNext, *head)
	f.lnkNode = append(f.lnkNode, child)
	*head = int32(len(f.lnkNode) - 1)
}

// merge moves a point towards a rejected child (eq. 6.16–6.18).
func merge(x, n [3]float32, w *float32, c *candidate) ([3]float32, [3]float32) {
	wp, wc := *w, c.w
	inv := 1 / (wp + wc)
	for k := 0; k < 3; k++ {
		x[k] = (x[k]*wp + c.x[k]*wc) * inv
		n[k] = (n[k]*wp + c.n[k]*wc) * inv
	}
	if l := length(n); l > 1e-12 {
		n = scale(n, 1/l)
	}
	*w = wp + wc
	return x, n
}

// neighbourhoods builds the neighbourhoods within r_{i+1} of all points from the old ones (type 1: kept when still
// within r_{i+1}) and the step's new relations (§6.2.4); no spatial search. It builds nothing and returns false
// when they would hold more than maxLinks entries.
func (f *refiner) neighbourhoods(pool par.Pool, out *Points, m int, rNext float32, maxLinks int) bool {
	total := len(out.Pos)
	rNext2 := rNext * rNext
	f.count = grow(f.count, total, math.MaxInt)
	clear(f.count[m:total])
	pool.For(m, 1024, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			c := int32(0)
			for _, q := range f.list[f.start[p]:f.start[p+1]] {
				if length2(sub(out.Pos[p], out.Pos[q])) <= rNext2 {
					c++
				}
			}
			f.count[p] = c
		}
	})
	f.nstart = grow(f.nstart, total+1, math.MaxInt)
	f.nstart[0] = 0
	// each point's new relations come after its kept ones
	for _, q := range f.edges {
		f.count[q]++
	}
	links := 0
	for p := 0; p < total; p++ {
		links += int(f.count[p])
		if links > maxLinks {
			return false
		}
		f.nstart[p+1] = f.nstart[p] + f.count[p]
	}
	f.nlist = grow(f.nlist, int(f.nstart[total]), math.MaxInt)
	pool.For(m, 1024, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			c := f.nstart[p]
			for _, q := range f.list[f.start[p]:f.start[p+1]] {
				if length2(sub(out.Pos[p], out.Pos[q])) <= rNext2 {
					f.nlist[c] = q
					c++
				}
			}
			f.count[p] = c // the fill cursor from here on
		}
	})
	for p := m; p < total; p++ {
		f.count[p] = f.nstart[p]
	}
	for k := 0; k < len(f.edges); k += 2 {
		a, b := f.edges[k], f.edges[k+1]
		f.nlist[f.count[a]] = b
		f.count[a]++
		f.nlist[f.count[b]] = a
		f.count[b]++
	}
	pool.For(total, 1024, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			sortInt32(f.nlist[f.nstart[p]:f.nstart[p+1]])
		}
	})
	f.start, f.nstart = f.nstart, f.start
	f.list, f.nlist = f.nlist, f.list
	return true
}

// appendCapped appends v, growing s to at most limit entries.
func appendCapped[T any](s []T, v T, limit int) []T {
	if len(s) == cap(s) {
		s = grow(s, len(s)+1, limit)[:len(s)]
	}
	return append(s, v)
}

func add(a, b [3]float32) [3]float32 { return [3]float32{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub(a, b [3]float32) [3]float32 { return [3]float32{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scale(a [3]float32, s float32) [3]float32 {
	return [3]float32{a[0] * s, a[1] * s, a[2] * s}
}
func dot(a, b [3]float32) float32  { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func length2(a [3]float32) float32 { return dot(a, a) }
func length(a [3]float32) float32  { return float32(math.Sqrt(float64(dot(a, a)))) }
