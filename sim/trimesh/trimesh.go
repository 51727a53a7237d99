// Package trimesh is the triangle mesh every part of slosh passes around: the fluid's surface meshed from its
// particles (sim/surface/mc, sim/surface/field), the scene's shapes tessellated for drawing and for export (the
// tank, the obstacles, the rigid bodies at their poses), and what sim/export writes as OBJ and PLY.
//
// A Mesh is indexed: positions and unit vertex normals side by side, and triangles wound counter-clockwise seen
// from outside. Meshes made by marching cubes share each vertex between the triangles around it, so they can be
// checked for closedness (CheckClosed); tessellated shapes split vertices at hard edges (a box's corners have three
// normals), which drawing wants and export keeps.
package trimesh

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/rigid"
)

// Mesh is an indexed triangle mesh.
type Mesh struct {
	Positions [][3]float32
	Normals   [][3]float32 // unit, one per position, pointing out of the inside region
	Triangles [][3]int32   // counter-clockwise seen from outside
}

// Append adds o's vertices and triangles to m.
func (m *Mesh) Append(o *Mesh) {
	base := int32(len(m.Positions))
	m.Positions = append(m.Positions, o.Positions...)
	m.Normals = append(m.Normals, o.Normals...)
	for _, t := range o.Triangles {
		m.Triangles = append(m.Triangles, [3]int32{t[0] + base, t[1] + base, t[2] + base})
	}
}

// Posed returns m moved as the rigid body b moved since the scene placed it: each point x goes to
// b.Center + R·(x − b.Origin) and each normal n to R·n, R the rotation of b.Rot. m is unchanged.
func (m *Mesh) Posed(b sim.BodyState) *Mesh {
	r := rigid.Quat(b.Rot).Normalized().Matrix()
	mul := func(v [3]float32) [3]float32 {
		return [3]float32{
			r[0][0]*v[0] + r[0][1]*v[1] + r[0][2]*v[2],
			r[1][0]*v[0] + r[1][1]*v[1] + r[1][2]*v[2],
			r[2][0]*v[0] + r[2][1]*v[1] + r[2][2]*v[2],
		}
	}
	out := &Mesh{
		Positions: make([][3]float32, len(m.Positions)),
		Normals:   make([][3]float32, len(m.Normals)),
		Triangles: append([][3]int32(nil), m.Triangles...),
	}
	for i, p := range m.Positions {
		q := mul([3]float32{p[0] - b.Origin[0], p[1] - b.Origin[1], p[2] - b.Origin[2]})
		out.Positions[i] = [3]float32{q[0] + b.Center[0], q[1] + b.Center[1], q[2] + b.Center[2]}
	}
	for i, n := range m.Normals {
		out.Normals[i] = mul(n)
	}
	return out
}

// Volume is the signed volume m encloses, by the divergence theorem: positive when its triangles face out. It is
// the enclosed volume only for a closed mesh.
func (m *Mesh) Volume() float64 {
	v := 0.0
	for _, t := range m.Triangles {
		a, b, c := m.point(t[0]), m.point(t[1]), m.point(t[2])
		v += dot(a, cross(b, c)) / 6
	}
	return v
}

// Area is the total area of m's triangles.
func (m *Mesh) Area() float64 {
	s := 0.0
	for _, t := range m.Triangles {
		a, b, c := m.point(t[0]), m.point(t[1]), m.point(t[2])
		s += norm(cross(sub(b, a), sub(c, a))) / 2
	}
	return s
}

// Bounds is the box around m's positions; lo > hi for a mesh without positions.
func (m *Mesh) Bounds() (lo, hi [3]float64) {
	lo = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := range m.Positions {
		p := m.point(int32(i))
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
		}
	}
	return lo, hi
}

// CheckValid returns an error naming the first triangle whose index is out of range or repeats a vertex, the
// first non-finite position or normal, or a normal count unlike the position count: what a writer checks before
// it writes m.
func (m *Mesh) CheckValid() error {
	if len(m.Normals) != 0 && len(m.Normals) != len(m.Positions) {
		return fmt.Errorf("mesh: %d normals for %d positions", len(m.Normals), len(m.Positions))
	}
	for i, p := range m.Positions {
		if !finite3(p) {
			return fmt.Errorf("mesh: position %d is %v", i, p)
		}
	}
	for i, n := range m.Normals {
		if !finite3(n) {
			return fmt.Errorf("mesh: normal %d is %v", i, n)
		}
	}
	for i, t := range m.Triangles {
		for _, v := range t {
			if v < 0 || int(v) >= len(m.Positions) {
				return fmt.Errorf("mesh: triangle %d has vertex %d of %d", i, v, len(m.Positions))
			}
		}
		if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
			return fmt.Errorf("mesh: triangle %d %v repeats a vertex", i, t)
		}
	}
	return nil
}

// CheckClosed returns an error unless m is a closed, manifold, consistently oriented surface: valid (CheckValid),
// every directed edge once and its reverse once, the triangles around each vertex one fan, every vertex used.
// Otherwise it returns the Euler characteristic V − E + F (2 for each sphere-like component, 0 for a torus).
func (m *Mesh) CheckClosed() (int, error) {
	if err := m.CheckValid(); err != nil {
		return 0, err
	}
	type edge struct{ a, b int32 }
	directed := make(map[edge]int, 3*len(m.Triangles))
	opposite := make([]map[int32]int32, len(m.Positions)) // per vertex: the edges opposite it in its triangles
	for _, tr := range m.Triangles {
		for s := range 3 {
			a, b, c := tr[s], tr[(s+1)%3], tr[(s+2)%3]
			directed[edge{a, b}]++
			if opposite[a] == nil {
				opposite[a] = map[int32]int32{}
			}
			if _, dup := opposite[a][b]; dup {
				return 0, fmt.Errorf("mesh: vertex %d: two triangles leave it toward %d", a, b)
			}
			opposite[a][b] = c
		}
	}
	for e, n := range directed {
		if r := directed[edge{e.b, e.a}]; n != 1 || r != 1 {
			return 0, fmt.Errorf("mesh: edge %d→%d appears %d times, its reverse %d times (a hole or a seam)", e.a, e.b, n, r)
		}
	}
	for v, fan := range opposite {
		if fan == nil {
			return 0, fmt.Errorf("mesh: vertex %d is in no triangle", v)
		}
		var start int32
		for a := range fan {
			start = a
			break
		}
		steps := 0
		for a := start; ; {
			a = fan[a]
			steps++
			if a == start || steps > len(fan) {
				break
			}
		}
		if steps != len(fan) {
			return 0, fmt.Errorf("mesh: the %d triangles around vertex %d form more than one fan", len(fan), v)
		}
	}
	return len(m.Positions) - len(directed)/2 + len(m.Triangles), nil
}

func (m *Mesh) point(i int32) [3]float64 {
	q := m.Positions[i]
	return [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
}

func finite3(v [3]float32) bool {
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return false
		}
	}
	return true
}

func sub(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func dot(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func norm(a [3]float64) float64      { return math.Sqrt(dot(a, a)) }
func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Components is the number of connected pieces of m: vertices joined through its triangles (a vertex in no
// triangle is a piece of its own).
func (m *Mesh) Components() int {
	parent := make([]int32, len(m.Positions))
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	n := len(parent)
	for _, t := range m.Triangles {
		a := find(t[0])
		for _, v := range t[1:] {
			if b := find(v); b != a {
				parent[b] = a
				n--
			}
		}
	}
	return n
}
