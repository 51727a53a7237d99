package mesh

import (
	"math"
	"slices"
)

// Locator answers exact queries on a mesh through a bounding volume hierarchy over its triangles: the nearest
// point of the surface, and whether a point is inside. It keeps a pointer to the mesh, which must not change.
type Locator struct {
	m     *Mesh
	nodes []bvhNode
	tris  []int32 // triangle indices in leaf order
}

type bvhNode struct {
	lo, hi Vec3
	// a leaf holds tris[first : first+count]; an inner node (count == 0) has children first and first+1
	first, count int32
}

const leafSize = 4

// NewLocator builds the hierarchy: splits at the middle of the longest axis of the triangles' centroids (at the
// median where that leaves a side empty).
func NewLocator(m *Mesh) *Locator {
	l := &Locator{m: m, tris: make([]int32, len(m.Triangles))}
	if len(m.Triangles) == 0 {
		return l
	}
	// the triangles' boxes and centroids, moved around with them so that each level reads memory in order
	items := make([]bvhItem, len(m.Triangles))
	for i, t := range m.Triangles {
		a, b, c := m.Vertices[t[0]], m.Vertices[t[1]], m.Vertices[t[2]]
		items[i] = bvhItem{lo: a.Min(b).Min(c), hi: a.Max(b).Max(c), c: a.Add(b).Add(c).Scale(1.0 / 3), id: int32(i)}
	}
	l.nodes = make([]bvhNode, 1, 2*len(m.Triangles)/leafSize+1)
	type job struct{ node, lo, hi int32 }
	stack := []job{{0, 0, int32(len(items))}}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		part := items[j.lo:j.hi]
		blo, bhi := part[0].lo, part[0].hi
		clo, chi := part[0].c, part[0].c
		for i := range part[1:] {
			it := &part[i+1]
			blo, bhi = blo.Min(it.lo), bhi.Max(it.hi)
			clo, chi = clo.Min(it.c), chi.Max(it.c)
		}
		n := &l.nodes[j.node]
		n.lo, n.hi = blo, bhi
		if len(part) <= leafSize {
			n.first, n.count = j.lo, int32(len(part))
			continue
		}
		axis, ext := 0, chi.Sub(clo)
		if ext[1] > ext[axis] {
			axis = 1
		}
		if ext[2] > ext[axis] {
			axis = 2
		}
		split := (clo[axis] + chi[axis]) / 2
		k := 0
		for i := range part {
			if part[i].c[axis] < split {
				part[i], part[k] = part[k], part[i]
				k++
			}
		}
		if k == 0 || k == len(part) {
			slices.SortFunc(part, func(a, b bvhItem) int {
				switch {
				case a.c[axis] < b.c[axis]:
					return -1
				case a.c[axis] > b.c[axis]:
					return 1
				}
				return int(a.id - b.id)
			})
			k = len(part) / 2
		}
		mid := j.lo + int32(k)
		child := int32(len(l.nodes))
		n.first, n.count = child, 0
		l.nodes = append(l.nodes, bvhNode{}, bvhNode{})
		stack = append(stack, job{child, j.lo, mid}, job{child + 1, mid, j.hi})
	}
	for i := range items {
		l.tris[i] = items[i].id
	}
	return l
}

type bvhItem struct {
	lo, hi, c Vec3
	id        int32
}

// Mesh is the mesh the locator was built for.
func (l *Locator) Mesh() *Mesh { return l.m }

// Nearest returns the distance from p to the surface, the nearest triangle and the nearest point on it.
func (l *Locator) Nearest(p Vec3) (dist float64, tri int, closest Vec3) {
	return l.nearest(p, math.Inf(1), -1)
}

// nearest searches only closer than bound (dist is +Inf and tri −1 when nothing is). A hint ≥ 0 is a triangle
// likely to be near (a neighbouring query's answer): starting from it prunes most of the hierarchy at once.
func (l *Locator) nearest(p Vec3, bound float64, hint int) (float64, int, Vec3) {
	best2 := bound * bound
	tri := -1
	var closest Vec3
	if len(l.nodes) == 0 {
		return math.Inf(1), -1, p
	}
	if hint >= 0 {
		t := l.m.Triangles[hint]
		q := closestOnTriangle(p, l.m.Vertices[t[0]], l.m.Vertices[t[1]], l.m.Vertices[t[2]])
		if d := q.Sub(p); d.Dot(d) < best2 {
			best2, tri, closest = d.Dot(d), hint, q
		}
	}
	type entry struct {
		node int32
		d2   float64 // the squared distance to the node's box
	}
	var stackBuf [64]entry
	stack := append(stackBuf[:0], entry{0, boxDist2(p, l.nodes[0].lo, l.nodes[0].hi)})
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.d2 >= best2 {
			continue
		}
		n := &l.nodes[e.node]
		if n.count > 0 {
			for _, ti := range l.tris[n.first : n.first+n.count] {
				t := l.m.Triangles[ti]
				q := closestOnTriangle(p, l.m.Vertices[t[0]], l.m.Vertices[t[1]], l.m.Vertices[t[2]])
				if d := q.Sub(p); d.Dot(d) < best2 {
					best2, tri, closest = d.Dot(d), int(ti), q
				}
			}
			continue
		}
		a, b := n.first, n.first+1
		da, db := boxDist2(p, l.nodes[a].lo, l.nodes[a].hi), boxDist2(p, l.nodes[b].lo, l.nodes[b].hi)
		if da > db {
			a, b, da, db = b, a, db, da
		}
		// the nearer child is searched first
		if db < best2 {
			stack = append(stack, entry{b, db})
		}
		if da < best2 {
			stack = append(stack, entry{a, da})
		}
	}
	if tri < 0 {
		return math.Inf(1), -1, p
	}
	return math.Sqrt(best2), tri, closest
}

// SignedDistance is the exact distance to the surface, negative inside.
func (l *Locator) SignedDistance(p Vec3) float64 {
	d, _, _ := l.Nearest(p)
	if l.Inside(p) {
		return -d
	}
	return d
}

// Inside reports whether p is inside the closed mesh: rays from p along +x, +y and +z each count the triangles
// they cross (a symbolic perturbation of p decides rays through edges and vertices consistently, so a crossing
// there counts exactly once), an odd count votes inside, and the majority of the three decides. Vertex normals
// and the triangles' winding play no part.
func (l *Locator) Inside(p Vec3) bool {
	votes := 0
	for axis := 0; axis < 3; axis++ {
		if l.crossings(p, axis)%2 == 1 {
			votes++
		}
	}
	return votes >= 2
}

// crossings counts the triangles the ray from p along +axis crosses.
func (l *Locator) crossings(p Vec3, axis int) int {
	if len(l.nodes) == 0 {
		return 0
	}
	u, v := (axis+1)%3, (axis+2)%3
	count := 0
	var stackBuf [64]int32
	stack := append(stackBuf[:0], 0)
	for len(stack) > 0 {
		n := &l.nodes[stack[len(stack)-1]]
		stack = stack[:len(stack)-1]
		if n.hi[axis] < p[axis] || p[u] < n.lo[u] || p[u] > n.hi[u] || p[v] < n.lo[v] || p[v] > n.hi[v] {
			continue
		}
		if n.count == 0 {
			stack = append(stack, n.first, n.first+1)
			continue
		}
		for _, ti := range l.tris[n.first : n.first+n.count] {
			t := l.m.Triangles[ti]
			a, b, c := l.m.Vertices[t[0]], l.m.Vertices[t[1]], l.m.Vertices[t[2]]
			if x, ok := rayHit(p[u], p[v], a, b, c, axis, u, v); ok && x > p[axis] {
				count++
			}
		}
	}
	return count
}

// rayHit intersects the line through (pu, pv) parallel to axis with triangle abc: ok when the line passes
// through the triangle's projection (decided exactly as if the line were moved by an infinitesimal (ε, ε²) in
// (u, v)), and x the crossing's coordinate along axis.
func rayHit(pu, pv float64, a, b, c Vec3, axis, u, v int) (x float64, ok bool) {
	au, av := a[u]-pu, a[v]-pv
	bu, bv := b[u]-pu, b[v]-pv
	cu, cv := c[u]-pu, c[v]-pv
	sa, wa := orient2(bu, bv, cu, cv)
	if sa == 0 {
		return 0, false
	}
	sb, wb := orient2(cu, cv, au, av)
	if sb != sa {
		return 0, false
	}
	sc, wc := orient2(au, av, bu, bv)
	if sc != sa {
		return 0, false
	}
	sum := wa + wb + wc
	if sum == 0 {
		return 0, false
	}
	return (wa*a[axis] + wb*b[axis] + wc*c[axis]) / sum, true
}

// orient2 is the side of the origin relative to the segment from (x1, y1) to (x2, y2): the sign of twice the
// signed area of (origin, p1, p2), with ties broken by simulation of simplicity (the origin moved by (ε, ε²)),
// so that orient2(p1, p2) = −orient2(p2, p1) always and a segment shared by two triangles is decided the same way
// for both. It returns the sign and the area itself.
func orient2(x1, y1, x2, y2 float64) (int, float64) {
	w := y1*x2 - x1*y2
	switch {
	case w > 0:
		return 1, w
	case w < 0:
		return -1, w
	case y2 > y1:
		return 1, w
	case y2 < y1:
		return -1, w
	case x1 > x2:
		return 1, w
	case x1 < x2:
		return -1, w
	}
	return 0, w
}

// boxDist2 is the squared distance from p to the box [lo, hi] (0 inside).
func boxDist2(p, lo, hi Vec3) float64 {
	d2 := 0.0
	for c := 0; c < 3; c++ {
		if p[c] < lo[c] {
			d := lo[c] - p[c]
			d2 += d * d
		} else if p[c] > hi[c] {
			d := p[c] - hi[c]
			d2 += d * d
		}
	}
	return d2
}

// closestOnTriangle is the point of triangle abc nearest to p (Ericson, Real-Time Collision Detection §5.1.5:
// find the Voronoi region of p among the vertices, edges and face).
func closestOnTriangle(p, a, b, c Vec3) Vec3 {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	if d1 <= 0 && d2 <= 0 {
		return a
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return b
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return a.Add(ab.Scale(d1 / (d1 - d3)))
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return c
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return a.Add(ac.Scale(d2 / (d2 - d6)))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return b.Add(c.Sub(b).Scale((d4 - d3) / ((d4 - d3) + (d5 - d6))))
	}
	denom := 1 / (va + vb + vc)
	return a.Add(ab.Scale(vb * denom)).Add(ac.Scale(vc * denom))
}
