package cell

// This file keeps the cell builder as it was before it was made faster (refPoly, refClipCell, refEmitCell: the
// same code under other names), so that a test can hold the current builder to its output bit for bit and a
// benchmark can time both in one process.

import (
	"fmt"
	"math"
)

// buildRef is Build with the reference cell builder, on one goroutine.
func (d *Diagram) buildRef(pos [][4]float32, box Box) error {
	n := len(pos)
	m := 0.0
	for a := 0; a < 3; a++ {
		m = max(m, math.Abs(box.Min[a]), math.Abs(box.Max[a]))
	}
	d.eps = max(d.opt.EpsRel*d.opt.Spacing, m*0x1p-22)
	if err := d.prepare(pos, box); err != nil {
		return err
	}
	d.reset(n)
	nb := (n + blockCells - 1) / blockCells
	for len(d.blocks) < nb {
		d.blocks = append(d.blocks, &block{})
	}
	d.findDuplicates()
	rp := &refPoly{eps: d.eps, maxFacets: d.opt.MaxFacets}
	for k, b := range d.blocks[:nb] {
		lo, hi := k*blockCells, min((k+1)*blockCells, n)
		b.stats = Stats{}
		b.nf, b.nv, b.vol, b.cen = b.nf[:0], b.nv[:0], b.vol[:0], b.cen[:0]
		b.vert, b.loopN, b.loop = b.vert[:0], b.loopN[:0], b.loop[:0]
		b.owner, b.normal, b.area, b.fcen = b.owner[:0], b.normal[:0], b.area[:0], b.fcen[:0]
		for i := lo; i < hi; i++ {
			if d.Dup[i] >= 0 {
				rp.clear()
			} else if err := d.refClipCell(b, rp, i, box); err != nil {
				return fmt.Errorf("reference: particle %d: %w", i, err)
			}
			d.refEmitCell(b, rp, i)
		}
	}
	d.gather(nb)
	d.pair()
	return nil
}

// refClipCell leaves particle i's cell in p: the box (and the reach cube) clipped by the bisectors of the
// neighbours in order of distance, visiting grid shells outwards and stopping once no unvisited particle can
// reach the cell.
func (d *Diagram) refClipCell(b *block, p *refPoly, i int, box Box) error {
	g := d.grid
	s := d.site[i]
	lo, hi := sub(box.Min, s), sub(box.Max, s)
	if r := d.opt.Reach; r > 0 {
		own := [6]int32{WallXMin, WallXMax, WallYMin, WallYMax, WallZMin, WallZMax}
		for a := 0; a < 3; a++ {
			if -r > lo[a] {
				lo[a], own[2*a] = -r, Far
			}
			if r < hi[a] {
				hi[a], own[2*a+1] = r, Far
			}
			if !(lo[a] < hi[a]) { // the cube misses the box
				p.clear()
				return nil
			}
		}
		p.resetOwned(lo, hi, own)
	} else {
		p.reset(lo, hi)
	}
	// the site projected into the grid's box; any particle binned k+1 or more cells away (Chebyshev) is at least
	// the distance from it to the faces of the (2k+1)³ block around its cell (projection does not lengthen)
	cell := float64(g.Cell)
	var gp vec3
	var c [3]int32
	org := [3]float64{float64(g.Origin[0]), float64(g.Origin[1]), float64(g.Origin[2])}
	for a := 0; a < 3; a++ {
		gp[a] = min(max(s[a], org[a]), org[a]+float64(g.Dims[a])*cell)
	}
	c[0], c[1], c[2] = g.Coord(float32(gp[0]), float32(gp[1]), float32(gp[2]))
	slack := 1e-4 * cell // float32 binning may put a particle a rounding error over a cell face
	bound := func(k int32) float64 {
		r := math.Inf(1)
		for a := 0; a < 3; a++ {
			if lo := c[a] - k; lo > 0 {
				r = min(r, gp[a]-(org[a]+float64(lo)*cell))
			}
			if hi := c[a] + k + 1; hi < g.Dims[a] {
				r = min(r, org[a]+float64(hi)*cell-gp[a])
			}
		}
		return max(0, r-slack)
	}
	b.cand = b.cand[:0]
	row := func(y, z, x0, x1 int32) {
		base := (z*g.Dims[1] + y) * g.Dims[0]
		lim := 4 * p.rmax2
		for t := g.Start[base+x0]; t < g.Start[base+x1+1]; t++ {
			if d.sdup[t] {
				continue
			}
			q := sub(d.sorted[t], s)
			if d2 := dot(q, q); d2 < lim {
				if j := g.Order[t]; j != int32(i) {
					b.push(cand{d2, t, j})
				}
			}
		}
		b.stats.Examined += int64(g.Start[base+x1+1] - g.Start[base+x0])
	}
	for k := int32(0); ; k++ {
		// gather shell k: the cells at Chebyshev distance exactly k
		for dz := -k; dz <= k; dz++ {
			z := c[2] + dz
			if z < 0 || z >= g.Dims[2] {
				continue
			}
			for dy := -k; dy <= k; dy++ {
				y := c[1] + dy
				if y < 0 || y >= g.Dims[1] {
					continue
				}
				if dz == -k || dz == k || dy == -k || dy == k {
					row(y, z, max(c[0]-k, 0), min(c[0]+k, g.Dims[0]-1))
					continue
				}
				if x := c[0] - k; x >= 0 {
					row(y, z, x, x)
				}
				if x := c[0] + k; x < g.Dims[0] {
					row(y, z, x, x)
				}
			}
		}
		r := bound(k)
		r2 := r * r
		for len(b.cand) > 0 && b.cand[0].d2 < r2 {
			cd := b.pop()
			if cd.d2 >= 4*p.rmax2 {
				return nil // security radius: no farther particle can reach the cell
			}
			b.stats.Planes++
			cut, err := p.cut(sub(d.sorted[cd.t], s), cd.j)
			if err != nil {
				return err
			}
			if cut {
				b.stats.Cuts++
				if p.empty() {
					return nil
				}
			}
		}
		if math.IsInf(r, 1) || r2 >= 4*p.rmax2 {
			return nil
		}
	}
}

// refEmitCell measures p and appends it as particle i's cell to b's buffers, in world coordinates.
func (d *Diagram) refEmitCell(b *block, p *refPoly, i int) {
	s := d.site[i]
	sliver := d.SliverArea()
	vol := 0.0
	var mom vec3
	nf := 0
	for _, f := range p.face {
		l := p.loop[f.start : f.start+f.n]
		v0 := p.v[l[0]]
		var avec, fm vec3
		for k := 1; k+1 < len(l); k++ {
			v1, v2 := p.v[l[k]], p.v[l[k+1]]
			tri := cross(sub(v1, v0), sub(v2, v0)) // twice the triangle's area vector
			avec = add(avec, tri)
			w := dot(tri, f.nrm)
			fm = add(fm, scale(add(add(v0, v1), v2), w))
			tv := dot(v0, cross(v1, v2)) // six times the tetrahedron (site, v0, v1, v2)
			vol += tv
			mom = add(mom, scale(add(add(v0, v1), v2), tv))
		}
		area := 0.5 * math.Sqrt(dot(avec, avec))
		if area < sliver {
			b.stats.Slivers++
			continue
		}
		wsum := 2 * area // Σw = 2·(area vector · n) ≈ 2·area for a planar convex loop
		if aw := dot(avec, f.nrm); aw > 0 {
			wsum = aw
		}
		b.loopN = append(b.loopN, f.n)
		for _, v := range l {
			b.loop = append(b.loop, v)
		}
		b.owner = append(b.owner, f.owner)
		b.normal = append(b.normal, f.nrm)
		b.area = append(b.area, area)
		b.fcen = append(b.fcen, add(s, scale(fm, 1/(3*wsum))))
		nf++
	}
	for _, v := range p.v {
		b.vert = append(b.vert, add(s, v))
	}
	vol /= 6
	cen := s
	if vol > 0 {
		cen = add(s, scale(mom, 1/(24*vol)))
	} else if d.Dup[i] < 0 {
		b.stats.Empty++
	}
	b.nf = append(b.nf, int32(nf))
	b.nv = append(b.nv, int32(len(p.v)))
	b.vol = append(b.vol, vol)
	b.cen = append(b.cen, cen)
	b.stats.Facets += nf
	b.stats.Vertices += len(p.v)
	b.stats.MaxFacets = max(b.stats.MaxFacets, nf)
}

// refFace is one facet of the working polytope: a vertex loop in refPoly.loop, counter-clockwise seen from outside.
type refFace struct {
	start, n int32
	owner    int32 // neighbour particle (≥ 0) or wall (< 0)
	nrm      vec3  // unit outward normal of the plane that made the facet
}

// refPoly is the working convex polytope of one cell, in coordinates relative to its site. Its buffers are reused
// from cell to cell, so clipping allocates nothing once they have grown to the largest cell seen.
type refPoly struct {
	v           []vec3
	d           []float64 // signed distance of each vertex to the current cutting plane
	out         []bool    // d > eps: the vertex is cut away
	face, face2 []refFace
	loop, loop2 []int32
	// crossing nodes of the current cut: the edge (nIn → nOut) crosses the plane at vertex nV; capNext links the
	// nodes into the cap's loop
	nIn, nOut, nV, capNext []int32
	remap                  []int32
	eps                    float64
	maxFacets              int
	rmax2                  float64 // squared largest distance from the site to a vertex
}

// reset makes the polytope the box [lo, hi] (relative to the site), its facets owned by the walls.
func (p *refPoly) reset(lo, hi vec3) {
	p.resetOwned(lo, hi, [6]int32{WallXMin, WallXMax, WallYMin, WallYMax, WallZMin, WallZMax})
}

// resetOwned makes the polytope the box [lo, hi] with the given owners of its facets x−, x+, y−, y+, z−, z+.
func (p *refPoly) resetOwned(lo, hi vec3, owner [6]int32) {
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
		p.face = append(p.face, refFace{start: int32(len(p.loop)), n: 4, owner: owner[w], nrm: boxNormals[w]})
		p.loop = append(p.loop, f[:]...)
	}
	p.updateRmax()
}

func (p *refPoly) updateRmax() {
	r := 0.0
	for _, v := range p.v {
		r = max(r, dot(v, v))
	}
	p.rmax2 = r
}

func (p *refPoly) empty() bool { return len(p.face) == 0 }

func (p *refPoly) clear() {
	p.v, p.face, p.loop = p.v[:0], p.face[:0], p.loop[:0]
	p.rmax2 = 0
}

// cut clips the polytope by the bisector of the site (the origin) and the neighbour at q: the half-space
// {x : q·x ≤ |q|²/2}. Vertices within eps of the plane count as inside and become vertices of the new facet as
// they are (no sliver). It reports whether anything was cut away.
func (p *refPoly) cut(q vec3, owner int32) (bool, error) {
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
		p.closeFace(start, refFace{owner: owner, nrm: n})
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
func (p *refPoly) emit(start, v int32) {
	if int32(len(p.loop2)) > start && p.loop2[len(p.loop2)-1] == v {
		return
	}
	p.loop2 = append(p.loop2, v)
}

// closeFace finishes the loop begun at start as facet f, or drops it if fewer than three distinct vertices remain
// (a facet squeezed to an edge or a point by vertices snapped onto the plane).
func (p *refPoly) closeFace(start int32, f refFace) {
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
func (p *refPoly) node(a, b int32) int32 {
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
func (p *refPoly) compact() {
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
