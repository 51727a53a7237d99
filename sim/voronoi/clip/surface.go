package clip

import (
	"math"

	"github.com/slosh/slosh/sim/voronoi/cell"
)

// The free surface clip. Inside cell i the liquid is the ball |x − s| ≤ r around its site s, and the cell
// (convex, containing s, not yet clipped by obstacles) is star-shaped about s, so the boundary of cell ∩ ball is
// the cell's boundary with every point outside the ball moved radially onto the sphere. The clip does that on a
// refined copy of the boundary:
//
//  1. the cell is cut to the cube of half-side r (+2·Tol) around s (those cuts lie outside the ball and end up as air);
//  2. every edge with an end outside the ball is split into pieces no longer than ℓ (the same points for the
//     two facets that share it), and every facet with a vertex outside the ball is meshed by a polar grid
//     about its vertex average (rings that are scaled copies of its split boundary), so no mesh edge is longer
//     than ℓ;
//  3. each mesh polygon is split where its edges cross the sphere (the exact crossing, shared by the two
//     polygons of the edge): the part inside keeps the facet's kind and owner, each run of vertices outside
//     becomes an air polygon, and those vertices are projected radially onto the sphere;
//  4. unless an obstacle is near (it clips the mesh next, more accurately on small polygons), each facet's
//     kept parts, flat, are joined into one polygon, so the measures see fewer polygons.
//
// The result is closed (every mesh edge is shared and every vertex moves once), it has no vertex outside the
// ball, and the sphere is seen wherever it crosses the mesh, including a ball that bulges through the middle of
// a facet or lies inside the cell and crosses no edge of it. A Voronoi facet's kept part is meshed from the
// facet polygon alone, so the two cells sharing it mesh it alike and measure the same area (to rounding where
// the two polygons agree; where they differ, beyond the Reach cube, to the mesh's accuracy).

// touchesNeighbour reports whether the ball of radius r around s meets one of the cell's Voronoi facets
// (those shared with another particle), i.e. whether some particle's ball overlaps this one's inside the
// union of spheres.
func touchesNeighbour(d *cell.Diagram, i int, s vec3, r float64) bool {
	flo, fhi := d.Facets(i)
	for f := flo; f < fhi; f++ {
		if d.Owner[f] < 0 {
			continue
		}
		loop := d.FacetLoop(f)
		n := d.Normal[f]
		dp := dot(n, sub(d.Vert[loop[0]], s))
		if math.Abs(dp) >= r {
			continue
		}
		// the foot of s on the plane inside the polygon: distance dp; else the nearest edge
		foot := add(s, scale(n, dp))
		inside := true
		best := math.Inf(1)
		for k, a := range loop {
			pa, pe := d.Vert[a], d.Vert[loop[(k+1)%len(loop)]]
			if dot(cross(sub(pe, pa), sub(foot, pa)), n) < 0 {
				inside = false
			}
			best = min(best, segDist2(s, pa, pe))
		}
		if inside || best < r*r {
			return true
		}
	}
	return false
}

// segDist2 is the squared distance from x to the segment [a, e].
func segDist2(x, a, e vec3) float64 {
	u := sub(e, a)
	t := 0.0
	if l := dot(u, u); l > 0 {
		t = min(max(dot(sub(x, a), u)/l, 0), 1)
	}
	w := sub(x, lerp(a, e, t))
	return dot(w, w)
}

// edgeMemo maps an edge (a, e), either way round, to a vertex: a list of the edges at each edge's lower end.
// A mesh vertex has a handful of edges, so a lookup walks a few entries, where a hash map hashed every key
// and had to be cleared bucket by bucket for every cell.
type edgeMemo struct {
	head        []int32 // per vertex, its first entry, or −1
	hi, x, next []int32 // per entry: the edge's higher end, the vertex it maps to, the vertex's next entry
}

// reset empties the memo for vertices 0 … n−1.
func (m *edgeMemo) reset(n int) {
	m.head = resize(m.head, n)
	for k := range m.head {
		m.head[k] = -1
	}
	m.hi, m.x, m.next = m.hi[:0], m.x[:0], m.next[:0]
}

func (m *edgeMemo) get(a, e int32) (int32, bool) {
	lo, hi := min(a, e), max(a, e)
	for k := m.head[lo]; k >= 0; k = m.next[k] {
		if m.hi[k] == hi {
			return m.x[k], true
		}
	}
	return 0, false
}

func (m *edgeMemo) put(a, e, x int32) {
	lo, hi := min(a, e), max(a, e)
	m.hi, m.x, m.next = append(m.hi, hi), append(m.x, x), append(m.next, m.head[lo])
	m.head[lo] = int32(len(m.hi) - 1)
}

// surface clips b.p by the ball of radius r around s (see above). It returns whether anything changed. With
// merge, each facet's kept part is one polygon (see merge), not the mesh's.
func (c *Clipper) surface(b *block, s vec3, r float64, merge bool, grp *int32) (bool, error) {
	p := &b.p
	r2 := r * r
	far := false
	for _, v := range p.v {
		if w := sub(v, s); dot(w, w) > r2 {
			far = true
			break
		}
	}
	if !far {
		return false, nil
	}
	h := r + 2*c.tol // the cube's crossings lie within Tol inside it, still outside the ball
	for a := range 3 {
		for _, sg := range [2]float64{1, -1} {
			cut := false
			for _, v := range p.v {
				if sg*(v[a]-s[a]) > h {
					cut = true
					break
				}
			}
			if !cut {
				continue
			}
			if _, err := c.clip(b, func(x vec3) float64 { return sg*(x[a]-s[a]) - h }, nil, Far,
				cell.Far, grp); err != nil {
				return false, err
			}
		}
	}
	// With merge, the mesh polygons wholly inside the ball are left out (see refine); they are needed only where
	// a facet's merge fails, and then the cell is meshed and split again in full, from b.p, which split leaves
	// as it was.
	g0 := *grp
	for skip := merge && !c.noSkip; ; skip = false {
		skipped := c.refine(b, s, r, skip)
		b.stats.Skipped += skipped
		if b.q.n()+skipped > c.opt.MaxFacets || len(b.q.v) > c.opt.MaxVerts {
			return false, errBudget(b.q.n()+skipped, len(b.q.v))
		}
		if (c.split(b, s, r, merge, grp) && !c.remesh) || skipped == 0 {
			break
		}
		*grp = g0
		b.stats.Remeshed++
	}
	b.p, b.t = b.t, b.p
	if b.p.n() > c.opt.MaxFacets || len(b.p.v) > c.opt.MaxVerts {
		return false, errBudget(b.p.n(), len(b.p.v))
	}
	return true, nil
}

// refine meshes b.p into b.q: edges with an end outside the ball split to pieces ≤ ℓ, facets with a vertex
// outside the ball meshed by a polar grid. With skip it leaves out the grid's polygons with no vertex that split
// moves (none beyond r − Tol) and returns how many: split would keep each of them whole, and merge then replaces
// all the kept parts of the facet by their boundary, which such a polygon adds nothing to (no vertex crosses the
// sphere in it, so no chord). A disordered liquid's cells mostly reach just beyond their spheres at a few
// corners, and those polygons were most of the mesh. Every vertex is still made, so the numbering is the same.
func (c *Clipper) refine(b *block, s vec3, r float64, skip bool) int {
	p, q := &b.p, &b.q
	ell := c.opt.RefineRel * r
	r2 := r * r
	rin := (r - c.tol) * (r - c.tol) // split's test
	moved := b.moved[:0]             // per vertex of q, whether split will move it (split's out)
	skipped := 0
	b.out = resize(b.out, len(p.v))
	for v := range p.v {
		w := sub(p.v[v], s)
		b.out[v] = dot(w, w) > r2
	}
	q.clear()
	q.v = append(q.v, p.v...)
	b.memo.reset(len(p.v))
	b.gb = b.gb[:0]
	for k := range b.gbN {
		b.gbN[k] = 0
	}
	for f := 0; f < p.n(); f++ {
		loop := p.idx[p.start[f]:p.start[f+1]]
		any := false
		bnd := b.bnd[:0]
		for k, a := range loop {
			e := loop[(k+1)%len(loop)]
			any = any || b.out[a]
			bnd = append(bnd, a)
			if !b.out[a] && !b.out[e] {
				continue
			}
			d := sub(p.v[e], p.v[a])
			n := int(math.Ceil(math.Sqrt(dot(d, d)) / ell))
			if n < 2 {
				continue
			}
			first, ok := b.memo.get(a, e)
			lo, hi := min(a, e), max(a, e)
			if !ok {
				first = int32(len(q.v))
				for t := 1; t < n; t++ {
					q.v = append(q.v, lerp(p.v[lo], p.v[hi], float64(t)/float64(n)))
				}
				b.memo.put(a, e, first)
			}
			if a == lo {
				for t := 0; t < n-1; t++ {
					bnd = append(bnd, first+int32(t))
				}
			} else {
				for t := n - 2; t >= 0; t-- {
					bnd = append(bnd, first+int32(t))
				}
			}
		}
		b.bnd = bnd
		if !any {
			q.idx = append(q.idx, bnd...)
			q.close(p.kind[f], p.owner[f], p.grp[f])
			continue
		}
		for int(p.grp[f]) >= len(b.gbS) {
			b.gbS, b.gbN = append(b.gbS, 0), append(b.gbN, 0)
		}
		b.gbS[p.grp[f]], b.gbN[p.grp[f]] = int32(len(b.gb)), int32(len(bnd))
		b.gb = append(b.gb, bnd...)
		var ctr vec3
		for _, a := range loop {
			ctr = add(ctr, p.v[a])
		}
		ctr = scale(ctr, 1/float64(len(loop)))
		spoke := 0.0
		for _, a := range bnd {
			w := sub(q.v[a], ctr)
			spoke = max(spoke, dot(w, w))
		}
		m := max(int(math.Ceil(math.Sqrt(spoke)/ell)), 1)
		K := len(bnd)
		ci := int32(len(q.v))
		q.v = append(q.v, ctr)
		base := int32(len(q.v)) // ring j (1 ≤ j < m) point k is base + (j−1)·K + k
		for j := 1; j < m; j++ {
			t := float64(j) / float64(m)
			for _, a := range bnd {
				x := &q.v[a] // lerp(ctr, x, t) in scalars (see emit)
				q.v = append(q.v, vec3{ctr[0] + (x[0]-ctr[0])*t, ctr[1] + (x[1]-ctr[1])*t, ctr[2] + (x[2]-ctr[2])*t})
			}
		}
		ring := func(j, k int) int32 {
			k %= K
			switch j {
			case 0:
				return ci
			case m:
				return bnd[k]
			}
			return base + int32((j-1)*K+k)
		}
		moved = beyond(moved, q.v, s, rin)
		for k := range K {
			if a, e := ring(1, k), ring(1, k+1); !skip || moved[ci] || moved[a] || moved[e] {
				q.idx = append(q.idx, ci, a, e)
				q.close(p.kind[f], p.owner[f], p.grp[f])
			} else {
				skipped++
			}
			for j := 1; j < m; j++ {
				a, e, g, h := ring(j, k), ring(j+1, k), ring(j+1, k+1), ring(j, k+1)
				if skip && !moved[a] && !moved[e] && !moved[g] && !moved[h] {
					skipped++
					continue
				}
				q.idx = append(q.idx, a, e, g, h)
				q.close(p.kind[f], p.owner[f], p.grp[f])
			}
		}
	}
	b.moved = beyond(moved, q.v, s, rin)
	return skipped
}

// beyond appends to out, for each vertex of v from len(out) on, whether it lies farther than √rin from s.
func beyond(out []bool, v []vec3, s vec3, rin float64) []bool {
	for k := len(out); k < len(v); k++ {
		dx, dy, dz := v[k][0]-s[0], v[k][1]-s[1], v[k][2]-s[2] // dot(sub(v, s), …) in scalars (see emit)
		out = append(out, dx*dx+dy*dy+dz*dz > rin)
	}
	return out
}

// split cuts the mesh b.q by the sphere into b.t: per facet (group), first the kept parts, then the air parts
// as a group of their own; vertices outside are then projected onto the sphere. It reports whether every merge
// it tried succeeded.
func (c *Clipper) split(b *block, s vec3, r float64, merge bool, grp *int32) bool {
	p, q := &b.t, &b.q
	merged := true
	r2 := r * r
	// refine found which vertices lie beyond r − Tol (b.moved): a vertex within Tol of the sphere is moved onto
	// it, so no sliver stays
	out := b.moved
	p.clear()
	p.v = append(p.v, q.v...)
	b.memo.reset(len(q.v))
	cross := func(a, e int32) int32 { // a inside, e outside
		if x, ok := b.memo.get(a, e); ok {
			return x
		}
		x := int32(len(p.v))
		p.v = append(p.v, sphereCrossing(q.v[a], q.v[e], s, r2))
		b.memo.put(a, e, x)
		return x
	}
	for f := 0; f < q.n(); {
		g := f
		for g < q.n() && q.grp[g] == q.grp[f] {
			g++
		}
		np0, st0 := p.n(), len(p.idx)
		b.touched = b.touched[:0]
		// a meshed facet (refine kept its boundary) is merged, however few of its polygons refine left in b.q;
		// only its chords are linked, so no link outlives the merge that reads it
		meshed := merge && int(q.grp[f]) < len(b.gbN) && b.gbN[q.grp[f]] > 0
		for h := f; h < g; h++ {
			loop := q.idx[q.start[h]:q.start[h+1]]
			st := len(p.idx)
			b.exit = b.exit[:0]
			for k, a := range loop {
				e := loop[(k+1)%len(loop)]
				if !out[a] {
					p.idx = append(p.idx, a)
					b.exit = append(b.exit, false)
				}
				if out[a] != out[e] {
					if out[a] {
						p.idx = append(p.idx, cross(e, a))
					} else {
						p.idx = append(p.idx, cross(a, e))
					}
					b.exit = append(b.exit, !out[a])
				}
			}
			if len(p.idx)-st < 3 {
				p.idx = p.idx[:st]
				continue
			}
			p.close(q.kind[h], q.owner[h], q.grp[h])
			if meshed { // chords of the kept part: exit → the entry that follows it
				it := p.idx[st:]
				for k, x := range it {
					if b.exit[k] {
						b.link(x, it[(k+1)%len(it)], len(p.v))
					}
				}
			}
		}
		if meshed && !c.merge(b, q.kind[f], q.owner[f], q.grp[f], np0, st0, cross) {
			merged = false
		}
		air := false
		for h := f; h < g; h++ {
			loop := q.idx[q.start[h]:q.start[h+1]]
			L := len(loop)
			allOut := true
			for _, a := range loop {
				allOut = allOut && out[a]
			}
			if allOut {
				p.idx = append(p.idx, loop...)
				p.close(Air, -1, *grp)
				air = true
				continue
			}
			for k0 := range L { // each run of outside vertices starting at k0
				if !out[loop[k0]] || out[loop[(k0+L-1)%L]] {
					continue
				}
				st := len(p.idx)
				p.idx = append(p.idx, cross(loop[(k0+L-1)%L], loop[k0]))
				k := k0
				for ; out[loop[k%L]]; k++ {
					p.idx = append(p.idx, loop[k%L])
				}
				p.idx = append(p.idx, cross(loop[k%L], loop[(k+L-1)%L]))
				if len(p.idx)-st < 3 {
					p.idx = p.idx[:st]
					continue
				}
				p.close(Air, -1, *grp)
				air = true
			}
		}
		if air {
			*grp++
		}
		f = g
	}
	for v := range q.v {
		if out[v] {
			w := sub(p.v[v], s)
			p.v[v] = add(s, scale(w, r/math.Sqrt(dot(w, w))))
		}
	}
	return merged
}

// link records x → y on the boundary of a facet's kept region.
func (b *block) link(x, y int32, nv int) {
	for len(b.succ) < nv {
		b.succ, b.seen = append(b.succ, -1), append(b.seen, false)
	}
	b.succ[x] = y
	b.touched = append(b.touched, x)
}

// merge replaces the kept parts of a meshed facet's polygons, b.t's polygons from np0 on, by the boundary of
// their union (the facet's own boundary where it is kept, joined by the chain of chords across the mesh), so
// the flat kept region is one polygon, or as many as it has components. Where the chain does not close it
// leaves them as they are and returns false.
func (c *Clipper) merge(b *block, kind Kind, owner, grp int32, np0, st0 int, cross func(a, e int32) int32) bool {
	p := &b.t
	out := b.moved
	bnd := b.gb[b.gbS[grp] : b.gbS[grp]+b.gbN[grp]]
	for k, a := range bnd {
		e := bnd[(k+1)%len(bnd)]
		switch {
		case !out[a] && !out[e]:
			b.link(a, e, len(p.v))
		case !out[a]:
			b.link(a, cross(a, e), len(p.v))
		case !out[e]:
			b.link(cross(e, a), e, len(p.v))
		}
	}
	ok := true
	tmp := b.comp[:0]
	var starts []int32
	for _, t := range b.touched {
		if b.seen[t] || !ok {
			continue
		}
		n0 := len(tmp)
		for x := t; ; {
			if b.seen[x] {
				ok = x == t && len(tmp)-n0 >= 3
				break
			}
			b.seen[x] = true
			tmp = append(tmp, x)
			if x = b.succ[x]; x < 0 {
				ok = false
				break
			}
		}
		starts = append(starts, int32(n0))
	}
	for _, t := range b.touched {
		b.succ[t], b.seen[t] = -1, false
	}
	b.comp = tmp
	if !ok {
		return false
	}
	p.idx, p.start = p.idx[:st0], p.start[:np0+1]
	p.kind, p.owner, p.grp = p.kind[:np0], p.owner[:np0], p.grp[:np0]
	for k, s0 := range starts {
		e := int32(len(tmp))
		if k+1 < len(starts) {
			e = starts[k+1]
		}
		p.idx = append(p.idx, tmp[s0:e]...)
		p.close(kind, owner, grp)
	}
	return true
}

// sphereCrossing is the point where the segment from a (inside, |a − s| ≤ r) to e (outside) meets the sphere.
func sphereCrossing(a, e, s vec3, r2 float64) vec3 {
	d := sub(e, a)
	f := sub(a, s)
	dd, fd, cc := dot(d, d), dot(f, d), dot(f, f)-r2
	if dd == 0 {
		return a
	}
	disc := math.Sqrt(max(fd*fd-dd*cc, 0))
	var t float64
	if fd > 0 {
		t = -cc / (fd + disc)
	} else {
		t = (disc - fd) / dd
	}
	return lerp(a, e, min(max(t, 0), 1))
}

// pair makes the two sides of every shared Voronoi facet agree: cells i and j that each hold exactly one facet
// owned by the other store the mean of the two areas and centroids and the mean normal, bit-identical in both
// (so a system built from either side is symmetric). The two sides are meshed from their own polygons, which
// differ where the Reach cube of cell.Options cut them differently, so their measures differ by the mesh's
// error (about 10⁻³ of the area at the default RefineRel); the change in the cell's Σ area·normal is taken up
// by its air facets in proportion to their areas (by its obstacle facets where it has no air, by its walls where
// it has neither), so the cell stays closed. The volume is not changed.
func (c *Clipper) pair() {
	n := c.NumCells()
	nf := len(c.Area)
	c.pArea, c.pNormal, c.pCen = resize(c.pArea, nf), resize(c.pNormal, nf), resize(c.pCen, nf)
	twin := func(i, f int) int { // the facet of cell Owner[f] owned by i, if both are unique
		j := int(c.Owner[f])
		if j < 0 || j >= n {
			return -1
		}
		g := -1
		lo, hi := c.Facets(j)
		for h := lo; h < hi; h++ {
			if c.Kind[h] == Voronoi && int(c.Owner[h]) == i {
				if g >= 0 {
					return -1
				}
				g = h
			}
		}
		lo, hi = c.Facets(i)
		for h := lo; h < hi; h++ {
			if h != f && c.Kind[h] == Voronoi && c.Owner[h] == c.Owner[f] {
				return -1
			}
		}
		return g
	}
	// A cell copied from the diagram already holds the mean of its mutual pairs (copyCell), so only a measured
	// cell and its neighbours change. The new measures go to the scratch arrays first, as the twins' old ones are
	// still being read.
	touched := func(i int) bool {
		if c.measured[i] {
			return true
		}
		lo, hi := c.Facets(i)
		for f := lo; f < hi; f++ {
			if o := c.Owner[f]; c.Kind[f] == Voronoi && o >= 0 && int(o) < n && c.measured[o] {
				return true
			}
		}
		return false
	}
	c.pool.For(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if !touched(i) {
				continue
			}
			flo, fhi := c.Facets(i)
			var delta vec3 // Σ area·normal removed by the change
			var takes [Air + 1]float64
			for f := flo; f < fhi; f++ {
				c.pArea[f], c.pNormal[f], c.pCen[f] = c.Area[f], c.Normal[f], c.FacetCentroid[f]
				takes[c.Kind[f]] += c.Area[f]

				if c.Kind[f] != Voronoi {
					continue
				}
				g := twin(i, f)
				if g < 0 {
					continue
				}
				nm := sub(c.Normal[f], c.Normal[g])
				l := math.Sqrt(dot(nm, nm))
				if l == 0 {
					continue
				}
				a := 0.5 * (c.Area[f] + c.Area[g])
				c.pArea[f], c.pNormal[f] = a, scale(nm, 1/l)
				c.pCen[f] = scale(add(c.FacetCentroid[f], c.FacetCentroid[g]), 0.5)
				delta = add(delta, sub(scale(c.Normal[f], c.Area[f]), scale(c.pNormal[f], a)))
			}
			// the facets that take up delta: the air ones, else the obstacles' (the air may all be inside a solid),
			// else the walls'
			k := Air
			for _, kk := range [...]Kind{Air, Obstacle, Wall} {
				if k = kk; takes[k] > 0 {
					break
				}
			}
			if takes[k] == 0 || delta == (vec3{}) {
				continue
			}
			for f := flo; f < fhi; f++ {
				if c.Kind[f] != k {
					continue
				}
				v := add(scale(c.Normal[f], c.Area[f]), scale(delta, c.Area[f]/takes[k]))
				if l := math.Sqrt(dot(v, v)); l > 0 {
					c.pArea[f], c.pNormal[f] = l, scale(v, 1/l)
				}
			}
		}
	})
	c.pool.For(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if touched(i) {
				flo, fhi := c.Facets(i)
				copy(c.Area[flo:fhi], c.pArea[flo:fhi])
				copy(c.Normal[flo:fhi], c.pNormal[flo:fhi])
				copy(c.FacetCentroid[flo:fhi], c.pCen[flo:fhi])
			}
		}
	})
}
