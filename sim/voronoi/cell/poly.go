package cell

import (
	"errors"
	"math"
)

// vec3 is a point or vector in double precision.
type vec3 = [3]float64

func dot(a, b vec3) float64        { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func sub(a, b vec3) vec3           { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func add(a, b vec3) vec3           { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func scale(a vec3, s float64) vec3 { return vec3{a[0] * s, a[1] * s, a[2] * s} }
func cross(a, b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// face is one facet of the working polytope: a vertex loop in poly.loop, counter-clockwise seen from outside.
type face struct {
	start, n int32
	owner    int32 // neighbour particle (≥ 0) or wall (< 0)
	nrm      vec3  // unit outward normal of the plane that made the facet
}

// errTooManyFacets is returned by cut when the cell would exceed its facet budget.
var errTooManyFacets = errors.New("too many facets")

// errTopology is returned by cut when the crossing edges do not close into loops, which a closed polytope cannot
// produce; it guards against an infinite walk rather than being expected.
var errTopology = errors.New("crossing edges do not form closed loops")

// poly is the working convex polytope of one cell, in coordinates relative to its site. Its buffers are reused
// from cell to cell, so clipping allocates nothing once they have grown to the largest cell seen.
//
// A cut only rewrites what it touches. Vertices are never moved or renumbered while the cell is built: a vertex
// that is cut away or no facet uses any more just leaves live, the increasing list of the vertices in use (emitCell
// numbers them in that order, which is the order a compaction after every cut would give). Facet loops live in an
// arena: a facet the plane does not touch keeps its loop where it is, a cut facet and the cap get new loops at the
// arena's end, and the arena is packed once it holds mostly stale loops.
type poly struct {
	v           []vec3    // every vertex made since the reset, dead ones included; only live ones are used
	d           []float64 // per vertex: signed distance to the current cutting plane (live vertices only)
	out         []uint8   // per vertex: 1 if d > eps, the vertex is cut away, else 0 (live vertices only)
	mark        []uint32  // per vertex: stamp of the last cut after which a facet used it
	stamp       uint32
	live, live2 []int32
	face        []face
	loop, loop2 []int32 // loop is the arena; loop2 is scratch for packing it
	loopLen     int     // Σ n over face: the arena's entries in use
	// crossing nodes of the current cut: the edge (in → out) crosses the plane at vertex v; next links the nodes
	// into the cap's loop
	nodes     []node
	remap     []int32
	eps       float64
	maxFacets int
	rmax2     float64 // squared largest distance from the site to a live vertex
}

// node is a crossing of the current cut.
type node struct{ in, out, v, next int32 }

// boxFaces lists the corners of each wall (corner k has x = bit 0, y = bit 1, z = bit 2 of k), counter-clockwise
// seen from outside, in wall order x−, x+, y−, y+, z−, z+.
var boxFaces = [6][4]int32{{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}}

var boxNormals = [6]vec3{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}

// reset makes the polytope the box [lo, hi] (relative to the site), its facets owned by the walls.
func (p *poly) reset(lo, hi vec3) {
	p.resetOwned(lo, hi, [6]int32{WallXMin, WallXMax, WallYMin, WallYMax, WallZMin, WallZMax})
}

// resetOwned makes the polytope the box [lo, hi] with the given owners of its facets x−, x+, y−, y+, z−, z+.
func (p *poly) resetOwned(lo, hi vec3, owner [6]int32) {
	p.v, p.live = p.v[:0], p.live[:0]
	for k := 0; k < 8; k++ {
		c := lo
		for a := 0; a < 3; a++ {
			if k>>a&1 == 1 {
				c[a] = hi[a]
			}
		}
		p.v = append(p.v, c)
		p.live = append(p.live, int32(k))
	}
	p.d, p.out, p.mark = resize(p.d, 8), resize(p.out, 8), resize(p.mark, 8)
	clear(p.mark)
	p.stamp = 0
	p.face, p.loop = p.face[:0], p.loop[:0]
	for w, f := range boxFaces {
		p.face = append(p.face, face{start: int32(len(p.loop)), n: 4, owner: owner[w], nrm: boxNormals[w]})
		p.loop = append(p.loop, f[:]...)
	}
	p.loopLen = len(p.loop)
	p.updateRmax()
}

func (p *poly) updateRmax() {
	r := 0.0
	for _, v := range p.v {
		r = max(r, dot(v, v))
	}
	p.rmax2 = r
}

func (p *poly) empty() bool { return len(p.face) == 0 }

func (p *poly) clear() {
	p.v, p.live, p.face, p.loop = p.v[:0], p.live[:0], p.face[:0], p.loop[:0]
	p.d, p.out, p.mark = p.d[:0], p.out[:0], p.mark[:0]
	p.loopLen = 0
	p.rmax2 = 0
}

// cut clips the polytope by the bisector of the site (the origin) and the neighbour at q: the half-space
// {x : q·x ≤ |q|²/2}. Vertices within eps of the plane count as inside and become vertices of the new facet as
// they are (no sliver). It reports whether anything was cut away.
func (p *poly) cut(q vec3, owner int32) (bool, error) {
	ql := math.Sqrt(dot(q, q))
	n := scale(q, 1/ql)
	c := ql / 2
	eps := p.eps
	// most planes tested cut nothing: find out with one pass, which also leaves each vertex's distance
	n0, n1, n2 := n[0], n[1], n[2]
	thr := c + eps
	vs, ds, outs := p.v, p.d, p.out
	// counters rather than branches: which vertices are out is what a cut cannot predict
	var anyOut, anyIn uint8
	for _, k := range p.live {
		v := &vs[k]
		x := n0*v[0] + n1*v[1] + n2*v[2]
		d := x - c
		o, ot := b2u(d > eps), b2u(x > thr)
		ds[k], outs[k] = d, o
		anyOut |= ot
		anyIn |= o ^ 1
	}
	if anyOut == 0 {
		return false, nil
	}
	if anyIn == 0 {
		p.clear()
		return true, nil
	}
	nv0 := int32(len(p.v))
	// a vertex stays in use unless it is cut away or every facet that used it is dropped: an inside vertex of a
	// cut facet is always in its new loop, and each new vertex is in two facets and the cap; only when a facet or
	// the cap is squeezed away must the loops be scanned to find the vertices still in use
	dropped := false
	// the rebuild works on local copies of the growing slices (stored back below) so that they stay in registers
	vs, ds, outs, mark := p.v, p.d, p.out, p.mark
	// the facets are rewritten in place: each yields at most one, so the one written never passes the one read
	loop, faces, nodes := p.loop, p.face, p.nodes[:0]
	w := 0
	for fi := range faces {
		f := &faces[fi]
		l := loop[f.start : f.start+f.n]
		nout := 0
		for _, v := range l {
			nout += int(outs[v])
		}
		if nout == 0 {
			if w != fi {
				faces[w] = *f
			}
			w++
			continue
		}
		if nout == len(l) {
			continue // wholly cut away
		}
		first := 0
		for outs[l[first]] != 0 {
			first++
		}
		// walk the loop from an inside vertex: keep inside vertices, put a crossing vertex on each edge that
		// crosses, and link each entry crossing to the exit crossing before it (the cap runs the other way); the
		// new loop goes at the arena's end (l still reads the old one if appending moves the arena). A vertex
		// is appended unless it repeats the previous one of the new loop.
		start := len(loop)
		exit := int32(-1)
		m := len(l)
		a := l[first]
		ao := false
		for t := first + 1; t <= first+m; t++ {
			i := t
			if i >= m {
				i -= m
			}
			b := l[i]
			bo := outs[b] != 0
			if ao == bo {
				if !ao && (len(loop) == start || loop[len(loop)-1] != a) {
					loop = append(loop, a)
				}
				a = b
				continue
			}
			// the crossing node of the edge from its inside end in to its outside end ou, made on first use: its
			// vertex is in itself when in lies within eps of the plane, else the intersection point, always
			// computed from the inside end so both facets sharing the edge see one vertex
			in, ou := a, b
			if ao {
				in, ou = b, a
			} else if len(loop) == start || loop[len(loop)-1] != a {
				loop = append(loop, a)
			}
			e := -1
			for k := range nodes {
				if nodes[k].in == in && nodes[k].out == ou {
					e = k
					break
				}
			}
			if e < 0 {
				v := in
				if di := ds[in]; di < -eps {
					do := ds[ou]
					t := di / (di - do)
					v = int32(len(vs))
					// in + (ou − in)·t, by component (copying whole vectors here stalls on store forwarding)
					va, vb := &vs[in], &vs[ou]
					vs = append(vs, vec3{va[0] + (vb[0]-va[0])*t, va[1] + (vb[1]-va[1])*t, va[2] + (vb[2]-va[2])*t})
					ds = append(ds, 0)
					outs = append(outs, 0)
					mark = append(mark, 0)
				}
				e = len(nodes)
				nodes = append(nodes, node{in: in, out: ou, v: v, next: -1})
			}
			if nv := nodes[e].v; len(loop) == start || loop[len(loop)-1] != nv {
				loop = append(loop, nv)
			}
			if !ao {
				exit = int32(e)
			} else {
				if exit < 0 || nodes[e].next >= 0 {
					return false, errTopology
				}
				nodes[e].next = exit
			}
			a, ao = b, bo
		}
		var keep bool
		if loop, keep = closeLoop(loop, start, f); keep {
			if w != fi {
				faces[w] = *f
			}
			w++
		} else {
			dropped = true
		}
	}
	faces = faces[:w]
	// the cap: follow next around each cycle (normally one)
	for s := range nodes {
		if nodes[s].next < 0 {
			return false, errTopology
		}
	}
	for s := range nodes {
		if nodes[s].in < 0 {
			continue // already on a cycle
		}
		start := len(loop)
		k := int32(s)
		for steps := 0; nodes[k].in >= 0; steps++ {
			if steps > len(nodes) {
				return false, errTopology
			}
			nodes[k].in = -1 // visited
			if nv := nodes[k].v; len(loop) == start || loop[len(loop)-1] != nv {
				loop = append(loop, nv)
			}
			k = nodes[k].next
		}
		if k != int32(s) {
			return false, errTopology
		}
		cf := face{owner: owner, nrm: n}
		var keep bool
		if loop, keep = closeLoop(loop, start, &cf); keep {
			faces = append(faces, cf)
		} else {
			dropped = true
		}
	}
	p.v, p.d, p.out, p.mark = vs, ds, outs, mark
	p.loop, p.face, p.nodes = loop, faces, nodes
	if len(p.face) > p.maxFacets {
		return false, errTooManyFacets
	}
	// the live vertices: those a facet uses now, in increasing order (old ones, then the ones this cut made)
	var st uint32
	if dropped {
		p.stamp++
		if p.stamp == 0 { // wrapped: forget every old stamp
			clear(p.mark)
			p.stamp = 1
		}
		st = p.stamp
		for _, f := range p.face {
			for _, v := range p.loop[f.start : f.start+f.n] {
				p.mark[v] = st
			}
		}
	}
	live := p.live2[:0]
	r := 0.0
	vs = p.v
	for _, k := range p.live {
		if dropped && p.mark[k] == st || !dropped && outs[k] == 0 {
			live = append(live, k)
			x := &vs[k]
			if x2 := x[0]*x[0] + x[1]*x[1] + x[2]*x[2]; x2 > r {
				r = x2
			}
		}
	}
	for k := nv0; k < int32(len(vs)); k++ {
		if !dropped || p.mark[k] == st {
			live = append(live, k)
			x := &vs[k]
			if x2 := x[0]*x[0] + x[1]*x[1] + x[2]*x[2]; x2 > r {
				r = x2
			}
		}
	}
	p.live, p.live2 = live, p.live
	p.rmax2 = r
	loopLen := 0
	for _, f := range p.face {
		loopLen += int(f.n)
	}
	p.loopLen = loopLen
	if len(p.loop) > 4*loopLen+256 {
		p.pack()
	}
	return true, nil
}

// pack moves the facets' loops to the start of the arena, in facet order, dropping the stale ones.
func (p *poly) pack() {
	l2 := p.loop2[:0]
	for k := range p.face {
		f := &p.face[k]
		start := int32(len(l2))
		l2 = append(l2, p.loop[f.start:f.start+f.n]...)
		f.start = start
	}
	p.loop, p.loop2 = l2, p.loop
}

// b2u is 1 for true and 0 for false.
func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// closeLoop finishes the loop begun at start as facet f's, or drops it if fewer than three distinct vertices remain
// (a facet squeezed to an edge or a point by vertices snapped onto the plane), and reports whether f is kept.
func closeLoop(loop []int32, start int, f *face) ([]int32, bool) {
	end := len(loop)
	if end-start > 1 && loop[end-1] == loop[start] {
		end--
	}
	if end-start < 3 {
		return loop[:start], false
	}
	loop = loop[:end]
	f.start, f.n = int32(start), int32(end-start)
	return loop, true
}

// number sets remap[v] to the position of each live vertex v in live, the cell's vertex numbering.
func (p *poly) number() []int32 {
	p.remap = resize(p.remap, len(p.v))
	for k, v := range p.live {
		p.remap[v] = int32(k)
	}
	return p.remap
}
