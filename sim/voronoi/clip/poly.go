package clip

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/voronoi/cell"
)

// block is one task's share of a Clip: its cells' output and the scratch of the cell being clipped.
type block struct {
	err   error
	stats Stats

	state        []State
	vol          []float64
	cen          []vec3
	nf, nv       []int32
	meas         []bool // per cell: measured by emit (not copied from the diagram)
	kind         []Kind
	owner        []int32
	normal       []vec3
	area         []float64
	fcen         []vec3
	vert         []vec3
	fBase, vBase int

	p, q    poly // the cell, and the clip's output
	t       poly // free surface: split's output, swapped with p after it
	g       []float64
	rem     []bool
	xa      []int32 // crossing memo: edge (xa, xb) → vertex xv
	xb      []int32
	xv      []int32
	next    []int32 // per new vertex: its successor along the cap, or −1
	pred    []bool
	item    []item
	used    []int32
	comp    []int32
	out     []bool   // free surface: per vertex of the cell, outside the ball (refine)
	moved   []bool   // free surface: per vertex of the mesh, beyond r − Tol: split moves it onto the sphere
	bnd     []int32  // free surface: a facet's split boundary
	memo    edgeMemo // free surface: edge → its first split point, or its sphere crossing
	gb      []int32  // free surface: meshed facets' boundaries, group g's at gb[gbS[g]:][:gbN[g]]
	gbS     []int32
	gbN     []int32
	exit    []bool  // free surface: per item of a kept part, whether it is the crossing where the part exits
	succ    []int32 // free surface: per vertex, its successor on a kept region's boundary, or −1
	seen    []bool
	touched []int32
}

func errBudget(polys, verts int) error {
	return fmt.Errorf("%d polygons and %d vertices exceed the budget", polys, verts)
}

// poly is a polyhedron as polygons over a shared vertex list, counter-clockwise seen from outside.
type poly struct {
	v     []vec3
	start []int32 // per polygon, len polygons+1
	idx   []int32
	kind  []Kind
	owner []int32
	grp   []int32 // polygons of one group form one output facet
}

func (p *poly) clear() {
	p.v, p.start, p.idx, p.kind, p.owner, p.grp = p.v[:0], append(p.start[:0], 0), p.idx[:0], p.kind[:0],
		p.owner[:0], p.grp[:0]
}

func (p *poly) n() int { return len(p.start) - 1 }

func (p *poly) close(k Kind, owner, grp int32) {
	p.start = append(p.start, int32(len(p.idx)))
	p.kind, p.owner, p.grp = append(p.kind, k), append(p.owner, owner), append(p.grp, grp)
}

type item struct {
	v   int32
	typ int8 // 0 kept, 1 exit, 2 entry
	nx  int32
	vis bool
}

func (c *Clipper) clipBlock(b *block, d *cell.Diagram, pos [][4]float32, obst []SDF, lo, hi int) {
	b.err = nil
	b.stats = Stats{}
	m := hi - lo
	b.state, b.vol, b.cen = resize(b.state, m), resize(b.vol, m), resize(b.cen, m)
	b.nf, b.nv, b.meas = resize(b.nf, m), resize(b.nv, m), resize(b.meas, m)
	b.kind, b.owner, b.normal, b.area, b.fcen, b.vert = b.kind[:0], b.owner[:0], b.normal[:0], b.area[:0],
		b.fcen[:0], b.vert[:0]
	for i := lo; i < hi; i++ {
		if err := c.clipCell(b, d, pos, obst, i); err != nil {
			b.err = err
			return
		}
	}
}

func (c *Clipper) clipCell(b *block, d *cell.Diagram, pos [][4]float32, obst []SDF, i int) error {
	j := i - (i/blockCells)*blockCells
	vlo, vhi := d.Vertices(i)
	flo, fhi := d.Facets(i)
	s := vec3{float64(pos[i][0]), float64(pos[i][1]), float64(pos[i][2])}
	b.meas[j] = true
	if fhi > flo && !c.noCopy && c.untouched(d.Vert[vlo:vhi], s, obst) {
		c.copyCell(b, d, i, j)
		b.meas[j] = false
		return nil
	}
	p := &b.p
	p.clear()
	p.v = append(p.v, d.Vert[vlo:vhi]...)
	for f := flo; f < fhi; f++ {
		for _, v := range d.FacetLoop(f) {
			p.idx = append(p.idx, v-int32(vlo))
		}
		o := d.Owner[f]
		k := Voronoi
		switch {
		case o == cell.Far:
			k = Far
		case o < 0:
			k = Wall
		}
		p.close(k, o, int32(f-flo))
	}
	grp := int32(fhi - flo)
	state := Liquid
	if p.n() == 0 {
		state = Empty
	}
	cut := false
	if rad := c.opt.Radius; rad > 0 && state == Liquid {
		if far(p.v, s, rad) && !touchesNeighbour(d, i, s, rad) {
			state = Ballistic
		} else {
			// an obstacle near the cell clips the mesh next, and is found more accurately on its finer polygons
			merge := !c.noMerge
			reach := 0.0
			for k := 0; k < len(p.v) && len(obst) > 0; k++ {
				reach = max(reach, dot(sub(p.v[k], s), sub(p.v[k], s)))
			}
			for _, o := range obst {
				merge = merge && o(s) >= math.Sqrt(reach)
			}
			r, err := c.surface(b, s, rad, merge, &grp)
			if err != nil {
				return fmt.Errorf("voronoi clip: cell %d, free surface: %w", i, err)
			}
			if r {
				cut = true
				b.stats.Refined++
			}
		}
	}
	// the largest distance from the site to a vertex, for skipping obstacles far away; measured only where there
	// are obstacles, as after the free surface the mesh's vertices are many
	reach := 0.0
	if len(obst) > 0 {
		for _, v := range p.v {
			reach = max(reach, dot(sub(v, s), sub(v, s)))
		}
	}
	reach = math.Sqrt(reach)
	for k := 0; k < len(obst) && state == Liquid; k++ {
		sdf := obst[k]
		if ds := sdf(s); ds >= reach { // a distance bound: no vertex can be inside the solid
			continue
		}
		all := func(x vec3) float64 { // inside any of the obstacles clipped so far
			g := -sdf(x)
			for _, o := range obst[:k] {
				g = max(g, -o(x))
			}
			return g
		}
		r, err := c.clip(b, func(x vec3) float64 { return -sdf(x) }, all, Obstacle, int32(k), &grp)
		if err != nil {
			return fmt.Errorf("voronoi clip: cell %d, obstacle %d: %w", i, k, err)
		}
		cut = cut || r != 0
		if r < 0 {
			state = Empty
		}
	}
	if cut {
		b.stats.Cut++
	}
	switch state {
	case Empty:
		b.stats.Empty++
	case Ballistic:
		b.stats.Ballistic++
	}
	b.state[j] = state
	if state != Liquid {
		p.clear()
	}
	c.emit(b, j, pos[i])
	return nil
}

// clip removes the part of b.p where g > 0. It returns 0 when nothing changed, 1 when the cell was cut and −1
// when every vertex was removed (the cell is cleared).
//
// all, when not nil, is the union of this clip's removed region with the earlier clips': an average vertex in
// it is moved out (see walk).
func (c *Clipper) clip(b *block, g, all func(vec3) float64, kind Kind, owner int32, grp *int32) (int, error) {
	if all == nil {
		all = g
	}
	p := &b.p
	nv0 := len(p.v)
	b.g, b.rem = resize(b.g, nv0), resize(b.rem, nv0)
	nrem := 0
	for v := range p.v {
		b.g[v] = g(p.v[v])
		b.rem[v] = b.g[v] > 0 || math.IsNaN(b.g[v])
		if b.rem[v] {
			nrem++
		}
	}
	if nrem == 0 {
		return 0, nil
	}
	if nrem == nv0 {
		p.clear()
		return -1, nil
	}
	q := &b.q
	q.clear()
	q.v = append(q.v, p.v...)
	b.xa, b.xb, b.xv = b.xa[:0], b.xb[:0], b.xv[:0]
	for f := 0; f < p.n(); f++ {
		loop := p.idx[p.start[f]:p.start[f+1]]
		b.item = b.item[:0]
		nx := 0
		for k, a := range loop {
			e := loop[(k+1)%len(loop)]
			if !b.rem[a] {
				b.item = append(b.item, item{v: a})
			}
			if b.rem[a] != b.rem[e] {
				x := c.crossing(b, g, a, e)
				typ := int8(1)
				if b.rem[a] {
					typ = 2
				}
				b.item = append(b.item, item{v: x, typ: typ})
				nx++
			}
		}
		it := b.item
		if len(it) == 0 {
			continue
		}
		// successors: the next item, or for an exit the entry it is joined to
		for k := range it {
			it[k].nx = int32((k + 1) % len(it))
		}
		if nx >= 4 { // several kept runs: join each exit to the next entry unless that cut crosses removed space
			split := false
			for k := range it {
				if it[k].typ == 1 {
					e := it[(k+1)%len(it)] // next item after an exit is the next entry
					if g(scale(add(q.v[it[k].v], q.v[e.v]), 0.5)) > 0 {
						split = true
					}
				}
			}
			if split { // close every kept run on itself: exit → the entry that began the run
				last := -1
				for k := len(it) - 1; k >= 0 && last < 0; k-- {
					if it[k].typ == 2 {
						last = k
					}
				}
				for k := range it {
					if it[k].typ == 2 {
						last = k
					} else if it[k].typ == 1 {
						it[k].nx = int32(last)
					}
				}
			}
		}
		for k := range it {
			if it[k].vis {
				continue
			}
			s := len(q.idx)
			for m := k; !it[m].vis; m = int(it[m].nx) {
				it[m].vis = true
				q.idx = append(q.idx, it[m].v)
				if it[m].typ == 1 {
					y := it[it[m].nx].v
					b.next[y-int32(nv0)] = it[m].v // the cap runs entry → exit
				}
			}
			if len(q.idx)-s < 3 {
				q.idx = q.idx[:s]
				continue
			}
			q.close(p.kind[f], p.owner[f], p.grp[f])
		}
	}
	// caps: chains of new vertices; heads (no predecessor) first, then closed cycles
	nn := len(q.v) - nv0
	b.pred = resize(b.pred, nn)
	clear(b.pred)
	for k := 0; k < nn; k++ {
		if y := b.next[k]; y >= 0 {
			b.pred[y-int32(nv0)] = true
		}
	}
	vis := b.pred // reused below as "visited" after heads are known
	heads := b.used[:0]
	for k := 0; k < nn; k++ {
		if !b.pred[k] {
			heads = append(heads, int32(k))
		}
	}
	clear(vis)
	caps := 0
	walk := func(k int) error {
		b.comp = b.comp[:0]
		for m := k; m >= 0 && !vis[m]; {
			vis[m] = true
			b.comp = append(b.comp, int32(m+nv0))
			if y := b.next[m]; y >= 0 {
				m = int(y) - nv0
			} else {
				m = -1
			}
		}
		if len(b.comp) < 3 {
			return nil
		}
		caps++
		var avg vec3
		for _, v := range b.comp {
			avg = add(avg, q.v[v])
		}
		avg = scale(avg, 1/float64(len(b.comp)))
		var area vec3
		reach := 0.0
		for k, v := range b.comp {
			w := b.comp[(k+1)%len(b.comp)]
			area = add(area, cross(sub(q.v[v], avg), sub(q.v[w], avg)))
			reach = max(reach, math.Sqrt(dot(sub(q.v[v], avg), sub(q.v[v], avg))))
		}
		if l := math.Sqrt(dot(area, area)); l > 0 {
			avg = c.settle(b, g, avg, scale(area, 1/l), reach)
		}
		if ga := all(avg); ga > 0 || math.IsNaN(ga) {
			// still on the removed side, or inside an earlier clip's (a cap curved around the removed side, as a
			// thin shell left by the free surface has, or a cap next to another obstacle): the root towards one of
			// the chain's vertices, which are all kept
			w := q.v[b.comp[0]]
			if gw := all(w); gw <= 0 {
				avg = c.root(b, all, w, avg, gw, ga)
			}
		}
		a := int32(len(q.v))
		q.v = append(q.v, avg)
		for k, v := range b.comp {
			q.idx = append(q.idx, a, v, b.comp[(k+1)%len(b.comp)])
			q.close(kind, owner, *grp)
		}
		*grp++
		return nil
	}
	for _, h := range heads {
		_ = walk(int(h))
	}
	for k := 0; k < nn; k++ {
		if !vis[k] {
			_ = walk(k)
		}
	}
	b.used = heads[:0]
	if caps > 1 {
		b.stats.MultiCap++
	}
	b.stats.Caps += caps
	if q.n() > c.opt.MaxFacets || len(q.v) > c.opt.MaxVerts {
		return 0, errBudget(q.n(), len(q.v))
	}
	b.p, b.q = b.q, b.p
	return 1, nil
}

// crossing returns the vertex on edge (a, e) where g changes sign, made once per edge.
func (c *Clipper) crossing(b *block, g func(vec3) float64, a, e int32) int32 {
	u, w := min(a, e), max(a, e)
	for k := range b.xa {
		if b.xa[k] == u && b.xb[k] == w {
			return b.xv[k]
		}
	}
	in, out := a, e
	if b.rem[a] {
		in, out = e, a
	}
	x := c.root(b, g, b.q.v[in], b.q.v[out], b.g[in], b.g[out])
	v := int32(len(b.q.v))
	b.q.v = append(b.q.v, x)
	b.xa, b.xb, b.xv = append(b.xa, u), append(b.xb, w), append(b.xv, v)
	k := int(v) - len(b.p.v)
	for len(b.next) <= k {
		b.next = append(b.next, -1)
	}
	b.next[k] = -1
	return v
}

// root finds the zero of g between x0 (g0 ≤ 0) and x1 (g1 > 0) to within Tol and returns the kept end.
func (c *Clipper) root(b *block, g func(vec3) float64, x0, x1 vec3, g0, g1 float64) vec3 {
	l := math.Sqrt(dot(sub(x1, x0), sub(x1, x0)))
	if l <= c.tol || math.IsNaN(g1) {
		return x0
	}
	t0, t1 := 0.0, 1.0
	side := 0
	for it := 0; it < maxIter && (t1-t0)*l > c.tol; it++ {
		t := t0 + (t1-t0)*g0/(g0-g1)
		if !(t > t0 && t < t1) || it%4 == 3 { // safeguard: bisect every fourth step
			t = 0.5 * (t0 + t1)
		}
		gt := g(lerp(x0, x1, t))
		b.stats.Iterations++
		if gt > 0 || math.IsNaN(gt) {
			t1, g1 = t, gt
			if side == 1 {
				g0 *= 0.5
			}
			side = 1
		} else {
			t0, g0 = t, gt
			if side == -1 {
				g1 *= 0.5
			}
			side = -1
		}
		if math.IsNaN(g1) {
			g1 = math.Abs(g0) + 1
		}
	}
	return lerp(x0, x1, t0)
}

// settle moves an average vertex along n (the cap's outward normal) to the zero of g within reach, if there is
// one; otherwise it stays.
func (c *Clipper) settle(b *block, g func(vec3) float64, x vec3, n vec3, reach float64) vec3 {
	gx := g(x)
	if gx == 0 || math.IsNaN(gx) || reach <= c.tol {
		return x
	}
	if gx > 0 { // removed side: look back into the cell
		y := sub(x, scale(n, reach))
		if gy := g(y); gy <= 0 {
			return c.root(b, g, y, x, gy, gx)
		}
		return x
	}
	y := add(x, scale(n, reach))
	if gy := g(y); gy > 0 {
		return c.root(b, g, x, y, gx, gy)
	}
	return x
}

// untouched reports whether no clip can change the cell with vertices v around the site s: every vertex lies
// within the free surface's radius, and every obstacle's distance at s exceeds the largest distance to a vertex.
func (c *Clipper) untouched(v []vec3, s vec3, obst []SDF) bool {
	reach := 0.0
	for _, x := range v {
		w := sub(x, s)
		reach = max(reach, dot(w, w))
	}
	if rad := c.opt.Radius; rad > 0 && reach > rad*rad {
		return false
	}
	reach = math.Sqrt(reach)
	for _, o := range obst {
		if !(o(s) >= reach) {
			return false
		}
	}
	return true
}

// copyCell outputs cell i of d as it is, but for the pairing of shared facets that pair does for measured cells.
func (c *Clipper) copyCell(b *block, d *cell.Diagram, i, j int) {
	vlo, vhi := d.Vertices(i)
	flo, fhi := d.Facets(i)
	for f := flo; f < fhi; f++ {
		o := d.Owner[f]
		k := Voronoi
		switch {
		case o == cell.Far:
			k = Far
		case o < 0:
			k = Wall
		}
		b.kind, b.owner = append(b.kind, k), append(b.owner, o)
	}
	for f := flo; f < fhi; f++ { // mutual pairs as their mean (cell keeps each side's own with Reach)
		n, a, fc := d.Normal[f], d.Area[f], d.FacetCentroid[f]
		if g := d.Twin[f]; g >= 0 && int(d.Twin[g]) == f {
			if nm := sub(n, d.Normal[g]); dot(nm, nm) > 0 {
				n, a = scale(nm, 1/math.Sqrt(dot(nm, nm))), 0.5*(a+d.Area[g])
				fc = scale(add(fc, d.FacetCentroid[g]), 0.5)
			}
		}
		b.normal, b.area, b.fcen = append(b.normal, n), append(b.area, a), append(b.fcen, fc)
	}
	b.vert = append(b.vert, d.Vert[vlo:vhi]...)
	b.state[j], b.vol[j], b.cen[j] = Liquid, d.Volume[i], d.Centroid[i]
	b.nf[j], b.nv[j] = int32(fhi-flo), int32(vhi-vlo)
}

// far reports whether some vertex lies farther than r from s.
func far(v []vec3, s vec3, r float64) bool {
	for _, x := range v {
		if w := sub(x, s); dot(w, w) > r*r {
			return true
		}
	}
	return false
}

const third = 1.0 / 3

// emit measures the cell and appends its facets (groups of polygons) and used vertices to the block's output.
func (c *Clipper) emit(b *block, j int, site [4]float32) {
	p := &b.p
	o := vec3{float64(site[0]), float64(site[1]), float64(site[2])}
	b.used = resize(b.used, len(p.v))
	for k := range b.used {
		b.used[k] = -1
	}
	nv := int32(0)
	for _, v := range p.idx {
		if b.used[v] < 0 {
			b.used[v] = nv
			nv++
			b.vert = append(b.vert, p.v[v])
		}
	}
	// The sums below are written out in scalars: Go keeps a [3]float64 in memory, not in registers, and this loop
	// over every triangle of every measured cell was a third of the clip. Each scalar is the vec3 expression it
	// replaces, operation for operation (sub, cross, dot, add(add(a, b), c)·s), so the results are the same bits.
	var vol, cenX, cenY, cenZ float64
	ox, oy, oz := o[0], o[1], o[2]
	nf := 0
	b.stats.Polygons += p.n()
	for f := 0; f < p.n(); {
		g := f
		var avX, avY, avZ, acX, acY, acZ float64
		aw := 0.0
		for ; g < p.n() && p.grp[g] == p.grp[f]; g++ {
			loop := p.idx[p.start[g]:p.start[g+1]]
			if len(loop) < 3 {
				continue
			}
			v := &p.v[loop[0]]
			ax, ay, az := v[0]-ox, v[1]-oy, v[2]-oz
			v = &p.v[loop[1]]
			bx, by, bz := v[0]-ox, v[1]-oy, v[2]-oz
			for _, l := range loop[2:] {
				v = &p.v[l]
				cx, cy, cz := v[0]-ox, v[1]-oy, v[2]-oz
				ux, uy, uz := bx-ax, by-ay, bz-az // n = (b − a) × (c − a)
				wx, wy, wz := cx-ax, cy-ay, cz-az
				nx, ny, nz := uy*wz-uz*wy, uz*wx-ux*wz, ux*wy-uy*wx
				avX, avY, avZ = avX+nx, avY+ny, avZ+nz
				w := math.Sqrt(nx*nx + ny*ny + nz*nz)
				sx, sy, sz := ax+bx+cx, ay+by+cy, az+bz+cz
				acX, acY, acZ = acX+sx*third*w, acY+sy*third*w, acZ+sz*third*w
				aw += w
				// six times the signed volume of the tetrahedron (o, a, b, c): a · (b × c)
				v6 := ax*(by*cz-bz*cy) + ay*(bz*cx-bx*cz) + az*(bx*cy-by*cx)
				vol += v6
				cenX, cenY, cenZ = cenX+sx*v6, cenY+sy*v6, cenZ+sz*v6
				bx, by, bz = cx, cy, cz
			}
		}
		av, ac := vec3{avX, avY, avZ}, vec3{acX, acY, acZ}
		area := 0.5 * math.Sqrt(dot(av, av))
		if area > 0 {
			b.kind, b.owner = append(b.kind, p.kind[f]), append(b.owner, p.owner[f])
			b.normal = append(b.normal, scale(av, 0.5/area))
			b.area = append(b.area, area)
			b.fcen = append(b.fcen, add(o, scale(ac, 1/aw)))
			nf++
		}
		f = g
	}
	b.nf[j], b.nv[j] = int32(nf), nv
	b.vol[j] = vol / 6
	cen := vec3{cenX, cenY, cenZ}
	if vol > 0 {
		b.cen[j] = add(o, scale(cen, 1/(4*vol)))
	} else {
		b.cen[j] = o
	}
}
