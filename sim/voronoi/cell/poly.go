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
type poly struct {
	v           []vec3
	d           []float64 // signed distance of each vertex to the current cutting plane
	out         []bool    // d > eps: the vertex is cut away
	face, face2 []face
	loop, loop2 []int32
	// crossing nodes of the current cut: the edge (nIn → nOut) crosses the plane at vertex nV; capNext links the
	// nodes into the cap's loop
	nIn, nOut, nV, capNext []int32
	remap                  []int32
	eps                    float64
	maxFacets              int
	rmax2                  float64 // squared largest distance from the site to a vertex
}

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
	p.v = p.v[:0]
	for k := 0; k < 8; k++ {
		c := lo
		for a := 0; a < 3; a++ {
			if k>>a&1 == 1 {
				c[a] = hi[a]
			}
		}
		p.v = append(p.v, c)
	}
	p.face, p.loop = p.face[:0], p.loop[:0]
	for w, f := range boxFaces {
		p.face = append(p.face, face{start: int32(len(p.loop)), n: 4, owner: owner[w], nrm: boxNormals[w]})
		p.loop = append(p.loop, f[:]...)
	}
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
	p.v, p.face, p.loop = p.v[:0], p.face[:0], p.loop[:0]
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
	// most planes tested cut nothing: find out without storing anything
	n0, n1, n2 := n[0], n[1], n[2]
	thr := c + eps
	anyOut := false
	for _, v := range p.v {
		if n0*v[0]+n1*v[1]+n2*v[2] > thr {
			anyOut = true
			break
		}
	}
	if !anyOut {
		return false, nil
	}
	nv := len(p.v)
	if cap(p.d) < nv {
		p.d, p.out = make([]float64, nv, 2*nv), make([]bool, nv, 2*nv)
	}
	p.d, p.out = p.d[:nv], p.out[:nv]
	ds, outs := p.d, p.out
	anyIn := false
	for k, v := range p.v {
		d := n0*v[0] + n1*v[1] + n2*v[2] - c
		o := d > eps
		ds[k], outs[k] = d, o
		anyIn = anyIn || !o
	}
	if !anyIn {
		p.clear()
		return true, nil
	}
	p.face2, p.loop2 = p.face2[:0], p.loop2[:0]
	p.nIn, p.nOut, p.nV, p.capNext = p.nIn[:0], p.nOut[:0], p.nV[:0], p.capNext[:0]
	for _, f := range p.face {
		l := p.loop[f.start : f.start+f.n]
		nout := 0
		first := -1
		for k, v := range l {
			if p.out[v] {
				nout++
			} else if first < 0 {
				first = k
			}
		}
		if nout == 0 {
			start := int32(len(p.loop2))
			p.loop2 = append(p.loop2, l...)
			f.start = start
			p.face2 = append(p.face2, f)
			continue
		}
		if first < 0 {
			continue // wholly cut away
		}
		// walk the loop from an inside vertex: keep inside vertices, put a crossing vertex on each edge that
		// crosses, and link each entry crossing to the exit crossing before it (the cap runs the other way)
		start := int32(len(p.loop2))
		exit := int32(-1)
		m := len(l)
		for t := 0; t < m; t++ {
			a, b := l[(first+t)%m], l[(first+t+1)%m]
			switch {
			case !p.out[a] && !p.out[b]:
				p.emit(start, a)
			case !p.out[a] && p.out[b]:
				p.emit(start, a)
				exit = p.node(a, b)
				p.emit(start, p.nV[exit])
			case p.out[a] && !p.out[b]:
				e := p.node(b, a)
				p.emit(start, p.nV[e])
				if exit < 0 || p.capNext[e] >= 0 {
					return false, errTopology
				}
				p.capNext[e] = exit
			}
		}
		p.closeFace(start, f)
	}
	// the cap: follow capNext around each cycle (normally one)
	for s := range p.capNext {
		if p.capNext[s] < 0 {
			return false, errTopology
		}
	}
	for s := range p.nV {
		if p.nIn[s] < 0 {
			continue // already on a cycle
		}
		start := int32(len(p.loop2))
		k := int32(s)
		for steps := 0; p.nIn[k] >= 0; steps++ {
			if steps > len(p.nV) {
				return false, errTopology
			}
			p.nIn[k] = -1 // visited
			p.emit(start, p.nV[k])
			k = p.capNext[k]
		}
		if k != int32(s) {
			return false, errTopology
		}
		p.closeFace(start, face{owner: owner, nrm: n})
	}
	if len(p.face2) > p.maxFacets {
		return false, errTooManyFacets
	}
	p.face, p.face2 = p.face2, p.face
	p.loop, p.loop2 = p.loop2, p.loop
	p.compact()
	return true, nil
}

// emit appends vertex v to the loop being built from start, unless it repeats the previous one.
func (p *poly) emit(start, v int32) {
	if int32(len(p.loop2)) > start && p.loop2[len(p.loop2)-1] == v {
		return
	}
	p.loop2 = append(p.loop2, v)
}

// closeFace finishes the loop begun at start as facet f, or drops it if fewer than three distinct vertices remain
// (a facet squeezed to an edge or a point by vertices snapped onto the plane).
func (p *poly) closeFace(start int32, f face) {
	end := int32(len(p.loop2))
	if end-start > 1 && p.loop2[end-1] == p.loop2[start] {
		end--
	}
	if end-start < 3 {
		p.loop2 = p.loop2[:start]
		return
	}
	p.loop2 = p.loop2[:end]
	f.start, f.n = start, end-start
	p.face2 = append(p.face2, f)
}

// node returns the crossing node of the edge from inside vertex a to outside vertex b, making it on first use:
// its vertex is a itself when a lies within eps of the plane, else the intersection point, always computed from
// the inside end so both facets sharing the edge see one vertex.
func (p *poly) node(a, b int32) int32 {
	for k := range p.nIn {
		if p.nIn[k] == a && p.nOut[k] == b {
			return int32(k)
		}
	}
	v := a
	if p.d[a] < -p.eps {
		da, db := p.d[a], p.d[b]
		t := da / (da - db)
		v = int32(len(p.v))
		p.v = append(p.v, add(p.v[a], scale(sub(p.v[b], p.v[a]), t)))
		p.d = append(p.d, 0)
		p.out = append(p.out, false)
	}
	p.nIn, p.nOut, p.nV, p.capNext = append(p.nIn, a), append(p.nOut, b), append(p.nV, v), append(p.capNext, -1)
	return int32(len(p.nIn) - 1)
}

// compact drops vertices no facet uses any more and renumbers the loops, then updates rmax2.
func (p *poly) compact() {
	nv := len(p.v)
	if cap(p.remap) < nv {
		p.remap = make([]int32, nv, 2*nv)
	}
	remap := p.remap[:nv]
	for v := range remap {
		remap[v] = -1
	}
	loop := p.loop
	for _, v := range loop {
		remap[v] = 0
	}
	k := int32(0)
	r := 0.0
	vs := p.v
	for v := range remap {
		if remap[v] < 0 {
			continue
		}
		remap[v] = k
		x := vs[v]
		vs[k] = x
		r = max(r, x[0]*x[0]+x[1]*x[1]+x[2]*x[2])
		k++
	}
	p.v = vs[:k]
	for i, v := range loop {
		loop[i] = remap[v]
	}
	p.rmax2 = r
}
