package field

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/slosh/slosh/sim/surface/mc"
)

// lattice returns particles on a cubic lattice of spacing s over n[0]×n[1]×n[2] sites from origin o, moved by up to
// jitter·s along each axis, keeping the sites where keep is nil or true.
func lattice(n [3]int, s float64, o [3]float64, jitter float64, seed uint64, keep func(i, j, k int) bool) [][4]float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	var pos [][4]float32
	for k := range n[2] {
		for j := range n[1] {
			for i := range n[0] {
				if keep != nil && !keep(i, j, k) {
					continue
				}
				var p [4]float32
				for a, c := range [3]int{i, j, k} {
					p[a] = float32(o[a] + s*(float64(c)+jitter*(2*rng.Float64()-1)))
				}
				pos = append(pos, p)
			}
		}
	}
	return pos
}

// checkClosed fails unless every directed edge of m appears once and its reverse once (closed, manifold at its
// edges, consistently oriented), no triangle repeats a vertex, and every vertex is used.
func checkClosed(t *testing.T, m *mc.Mesh) {
	t.Helper()
	if err := closed(m); err != nil {
		t.Fatal(err)
	}
}

func closed(m *mc.Mesh) error {
	edges := make(map[[2]int32]int, 3*len(m.Triangles))
	used := make([]bool, len(m.Positions))
	for ti, tr := range m.Triangles {
		if tr[0] == tr[1] || tr[1] == tr[2] || tr[0] == tr[2] {
			return fmt.Errorf("triangle %d %v repeats a vertex", ti, tr)
		}
		for e := range 3 {
			a, b := tr[e], tr[(e+1)%3]
			edges[[2]int32{a, b}]++
			used[a] = true
		}
	}
	for e, n := range edges {
		if n != 1 {
			return fmt.Errorf("directed edge %v in %d triangles", e, n)
		}
		if edges[[2]int32{e[1], e[0]}] != 1 {
			return fmt.Errorf("edge %v has no opposite", e)
		}
	}
	for i, u := range used {
		if !u {
			return fmt.Errorf("vertex %d unused", i)
		}
	}
	return nil
}

// volume is the mesh's enclosed volume by the divergence theorem.
func volume(m *mc.Mesh) float64 {
	v := 0.0
	for _, t := range m.Triangles {
		a, b, c := vec(m.Positions[t[0]]), vec(m.Positions[t[1]]), vec(m.Positions[t[2]])
		v += dot(a, cross(b, c)) / 6
	}
	return v
}

// components is the number of connected pieces of the mesh.
func components(m *mc.Mesh) int {
	parent := make([]int32, len(m.Positions))
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(int32) int32
	find = func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for _, t := range m.Triangles {
		a := find(t[0])
		for _, v := range t[1:] {
			if b := find(v); b != a {
				parent[b] = a
			}
		}
	}
	n := 0
	for i := range parent {
		if find(int32(i)) == int32(i) {
			n++
		}
	}
	return n
}

// intersections counts pairs of triangles sharing no vertex where an edge of one crosses the other.
func intersections(m *mc.Mesh) int {
	type box struct{ lo, hi [3]float64 }
	boxes := make([]box, len(m.Triangles))
	for i, t := range m.Triangles {
		b := box{lo: vec(m.Positions[t[0]]), hi: vec(m.Positions[t[0]])}
		for _, v := range t[1:] {
			p := vec(m.Positions[v])
			for a := range 3 {
				b.lo[a], b.hi[a] = min(b.lo[a], p[a]), max(b.hi[a], p[a])
			}
		}
		boxes[i] = b
	}
	n := 0
	for i, ti := range m.Triangles {
	next:
		for j := i + 1; j < len(m.Triangles); j++ {
			for a := range 3 {
				if boxes[i].hi[a] < boxes[j].lo[a] || boxes[j].hi[a] < boxes[i].lo[a] {
					continue next
				}
			}
			tj := m.Triangles[j]
			for _, a := range ti {
				for _, b := range tj {
					if a == b {
						continue next
					}
				}
			}
			if crosses(m, ti, tj) || crosses(m, tj, ti) {
				n++
			}
		}
	}
	return n
}

// crosses reports whether an edge of triangle a passes through the interior of triangle b.
func crosses(m *mc.Mesh, a, b [3]int32) bool {
	p0, p1, p2 := vec(m.Positions[b[0]]), vec(m.Positions[b[1]]), vec(m.Positions[b[2]])
	e1, e2 := sub(p1, p0), sub(p2, p0)
	for e := range 3 {
		o := vec(m.Positions[a[e]])
		d := sub(vec(m.Positions[a[(e+1)%3]]), o)
		pv := cross(d, e2)
		det := dot(e1, pv)
		if math.Abs(det) < 1e-18 {
			continue
		}
		tv := sub(o, p0)
		u := dot(tv, pv) / det
		qv := cross(tv, e1)
		v := dot(d, qv) / det
		s := dot(e2, qv) / det
		const eps = 1e-9
		if u > eps && v > eps && u+v < 1-eps && s > eps && s < 1-eps {
			return true
		}
	}
	return false
}

func vec(p [3]float32) [3]float64 { return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])} }
func sub(a, b [3]float64) [3]float64 {
	return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]}
}
func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func norm(a [3]float64) float64 { return math.Sqrt(dot(a, a)) }

// mesh meshes pos with cfg on a fresh Mesher, failing the test on an error.
func mesh(t *testing.T, pos [][4]float32, cfg Config) (*mc.Mesh, Stats) {
	t.Helper()
	m, st, err := NewMesher().Mesh(pos, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m, st
}
