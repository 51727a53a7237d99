package cell

import (
	"math"
	"sort"
	"testing"
)

// facetAreas maps each owner of cell i's facets to the area of its polygon (summed if it owns several), as the
// cell itself measured it.
func facetAreas(d *Diagram, i int) map[int32]float64 {
	m := map[int32]float64{}
	lo, hi := d.Facets(i)
	for f := lo; f < hi; f++ {
		m[d.Owner[f]] += loopArea(d, f)
	}
	return m
}

// exhaustive clips the box by the bisector of every other site, in index order, with no search and no early stop.
func exhaustive(t *testing.T, d *Diagram, pos [][4]float32, box Box, i int) (vol float64, areas map[int32]float64) {
	t.Helper()
	p := poly{eps: d.Eps(), maxFacets: 1 << 20}
	s := site(pos, i)
	p.reset(sub(box.Min, s), sub(box.Max, s))
	for j := range pos {
		if j == i || d.Dup[j] >= 0 || p.empty() {
			continue
		}
		if _, err := p.cut(sub(site(pos, j), s), int32(j)); err != nil {
			t.Fatalf("cell %d, plane %d: %v", i, j, err)
		}
	}
	areas = map[int32]float64{}
	for _, f := range p.face {
		l := p.loop[f.start : f.start+f.n]
		var a vec3
		for k := range l {
			a = add(a, cross(p.v[l[k]], p.v[l[(k+1)%len(l)]]))
		}
		for k := 1; k+1 < len(l); k++ {
			vol += dot(p.v[l[0]], cross(p.v[l[k]], p.v[l[k+1]])) / 6
		}
		if area := 0.5 * norm(a); area >= d.SliverArea() {
			areas[f.owner] += area
		}
	}
	return vol, areas
}

type plane struct {
	n     vec3
	c     float64 // the half-space n·x ≤ c
	owner int32
}

// enumerate builds cell i independently of the clipper: its vertices are the points where three of its planes
// (bisectors and walls) meet and that satisfy all the others; each plane holding at least three of them is a
// facet, whose area comes from its vertices sorted by angle, and the volume is Σ area·(distance to the plane)/3.
// Only for points in general position.
func enumerate(pos [][4]float32, box Box, i int, tol float64) (vol float64, areas map[int32]float64) {
	s := site(pos, i)
	var pl []plane
	for w := 0; w < 6; w++ {
		a := w / 2
		n := vec3{}
		if w%2 == 0 {
			n[a] = -1
			pl = append(pl, plane{n, -box.Min[a], WallXMin - int32(w)})
		} else {
			n[a] = 1
			pl = append(pl, plane{n, box.Max[a], WallXMin - int32(w)})
		}
	}
	for j := range pos {
		if j == i {
			continue
		}
		q := sub(site(pos, j), s)
		n := scale(q, 1/norm(q))
		pl = append(pl, plane{n, dot(n, scale(add(s, site(pos, j)), 0.5)), int32(j)})
	}
	var verts []vec3
	for a := range pl {
		for b := a + 1; b < len(pl); b++ {
			for c := b + 1; c < len(pl); c++ {
				x, ok := solve3(pl[a], pl[b], pl[c])
				if !ok {
					continue
				}
				inside := true
				for _, p := range pl {
					if dot(p.n, x)-p.c > tol {
						inside = false
						break
					}
				}
				if !inside {
					continue
				}
				dup := false
				for _, v := range verts {
					if norm(sub(v, x)) < tol {
						dup = true
						break
					}
				}
				if !dup {
					verts = append(verts, x)
				}
			}
		}
	}
	areas = map[int32]float64{}
	for _, p := range pl {
		var on []vec3
		var m vec3
		for _, v := range verts {
			if math.Abs(dot(p.n, v)-p.c) < tol {
				on = append(on, v)
				m = add(m, v)
			}
		}
		if len(on) < 3 {
			continue
		}
		m = scale(m, 1/float64(len(on)))
		u := sub(on[0], m)
		u = scale(u, 1/norm(u))
		w := cross(p.n, u)
		sort.Slice(on, func(a, b int) bool {
			da, db := sub(on[a], m), sub(on[b], m)
			return math.Atan2(dot(da, w), dot(da, u)) < math.Atan2(dot(db, w), dot(db, u))
		})
		area := 0.0
		for k := range on {
			area += dot(cross(sub(on[k], m), sub(on[(k+1)%len(on)], m)), p.n) / 2
		}
		areas[p.owner] = area
		vol += area * (p.c - dot(p.n, s)) / 3
	}
	return vol, areas
}

// solve3 intersects three planes by Cramer's rule.
func solve3(a, b, c plane) (vec3, bool) {
	det := dot(a.n, cross(b.n, c.n))
	if math.Abs(det) < 1e-9 {
		return vec3{}, false
	}
	x := add(add(scale(cross(b.n, c.n), a.c), scale(cross(c.n, a.n), b.c)), scale(cross(a.n, b.n), c.c))
	return scale(x, 1/det), true
}

// sameAreas reports whether two owner→area maps have the same owners (ignoring areas under floor) and areas
// within rel relative plus abs.
func sameAreas(a, b map[int32]float64, rel, abs, floor float64) bool {
	for o, x := range a {
		y, ok := b[o]
		if x < floor && (!ok || y < floor) {
			continue
		}
		if !ok || math.Abs(x-y) > rel*max(x, y)+abs {
			return false
		}
	}
	for o, y := range b {
		if _, ok := a[o]; !ok && y >= floor {
			return false
		}
	}
	return true
}

// The grid search with its security-radius stop finds the same cells as clipping by every other point, on random
// points, a lattice (ties everywhere) and points with duplicates and on the boundary.
func TestSearchMatchesExhaustiveClipping(t *testing.T) {
	inputs := map[string][][4]float32{
		"lattice": lattice([3]float32{0.1, 0.2, 0.05}, 0.15, 4, 3, 2),
	}
	for seed := int64(0); seed < 12; seed++ {
		inputs["random"+string(rune('a'+seed))] = random(int(3+seed*2), unitish, 100+seed)
	}
	mixed := random(25, unitish, 9)
	mixed = append(mixed, mixed[3], [4]float32{0, 0, 0}, [4]float32{1, 1, 0.5}, [4]float32{0.3, 2, 0.1})
	inputs["mixed"] = mixed
	for name, pos := range inputs {
		d := build(t, pos, unitish, Options{Spacing: spacingOf(len(pos), unitish)})
		checkTiles(t, d, unitish)
		for i := range pos {
			if d.Dup[i] >= 0 {
				continue
			}
			vol, areas := exhaustive(t, d, pos, unitish, i)
			// equal to rounding, or to Eps times the surface where ties (the lattice) snap in another order
			surface := 0.0
			for _, a := range areas {
				surface += a
			}
			if math.Abs(vol-d.Volume[i]) > 1e-10*vol+d.Eps()*surface {
				t.Fatalf("%s cell %d: volume %g, exhaustive %g", name, i, d.Volume[i], vol)
			}
			if got := facetAreas(d, i); !sameAreas(got, areas, 1e-9, 8*d.Eps()*math.Sqrt(surface), 0) {
				t.Fatalf("%s cell %d: facets %v, exhaustive %v", name, i, got, areas)
			}
		}
	}
}

// The clipper agrees with a construction that shares none of its code: vertices from triples of planes.
func TestClipperMatchesVertexEnumeration(t *testing.T) {
	for seed := int64(0); seed < 8; seed++ {
		n := 5 + int(seed)*3
		pos := random(n, unitish, 200+seed)
		d := build(t, pos, unitish, Options{Spacing: spacingOf(n, unitish)})
		for i := range pos {
			vol, areas := enumerate(pos, unitish, i, 1e-9)
			if math.Abs(vol-d.Volume[i]) > 1e-9*vol {
				t.Fatalf("n %d cell %d: volume %.12g, enumeration %.12g", n, i, d.Volume[i], vol)
			}
			if got := facetAreas(d, i); !sameAreas(got, areas, 1e-8, 0, d.SliverArea()) {
				t.Fatalf("n %d cell %d: facets %v, enumeration %v", n, i, got, areas)
			}
		}
	}
}
