package trimesh

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/scene"
)

// Tessellation of the curved shapes: segments around an axis, rings from pole to pole.
const (
	meshSegments = 32
	meshRings    = 16
)

// add appends a vertex at p with normal n and returns its index.
func (m *Mesh) add(p, n scene.Vec3) int32 {
	m.Positions = append(m.Positions, [3]float32{float32(p[0]), float32(p[1]), float32(p[2])})
	m.Normals = append(m.Normals, [3]float32{float32(n[0]), float32(n[1]), float32(n[2])})
	return int32(len(m.Positions) - 1)
}

// tri appends the triangle a-b-c (counter-clockwise from outside).
func (m *Mesh) tri(a, b, c int32) { m.Triangles = append(m.Triangles, [3]int32{a, b, c}) }

// quad adds the quad a-b-c-d (counter-clockwise from outside) as two triangles.
func (m *Mesh) quad(a, b, c, d int32) { m.tri(a, b, c); m.tri(a, c, d) }

// frame3 places local geometry in the world: p ↦ R·p + origin, n ↦ R·n.
type frame3 struct {
	r      scene.Mat3
	origin scene.Vec3
}

func (f frame3) point(p scene.Vec3) scene.Vec3 { return f.r.MulVec(p).Add(f.origin) }

// Shape tessellates a scene shape where the scene placed it: curved shapes in meshSegments around and meshRings
// from pole to pole, mesh shapes as their triangles with smooth normals.
func Shape(s *scene.Shape) (*Mesh, error) {
	switch s.Kind {
	case scene.ShapeBox:
		return boxMesh(frame3{s.RotationMatrix(), s.Center}, s.Size.Scale(0.5)), nil
	case scene.ShapeSphere:
		return capsuleMesh(frame3{identity(), s.Center}, s.Radius, 0), nil
	case scene.ShapeCapsule:
		ab := s.B.Sub(s.A)
		return capsuleMesh(frame3{axisFrame(ab), s.A.Add(ab.Scale(0.5))}, s.Radius, ab.Len()/2), nil
	case scene.ShapeCylinder:
		return cylinderMesh(frame3{s.RotationMatrix(), s.Center}, s.Radius, s.Height/2), nil
	case scene.ShapeMesh:
		return triangleMesh(s)
	}
	return nil, fmt.Errorf("trimesh: cannot tessellate a %q shape", s.Kind)
}

// triangleMesh places a mesh shape's triangles in the world, with smooth vertex normals (area-weighted face
// normals).
func triangleMesh(s *scene.Shape) (*Mesh, error) {
	md := s.MeshData()
	if md == nil || md.Mesh == nil {
		return nil, fmt.Errorf("trimesh: mesh %q is not loaded", s.Mesh)
	}
	t := s.MeshTransform()
	src := md.Mesh
	pos := make([]scene.Vec3, len(src.Vertices))
	for i, v := range src.Vertices {
		pos[i] = t.Apply(v)
	}
	nrm := make([]scene.Vec3, len(pos))
	for _, tri := range src.Triangles {
		a, b, c := pos[tri[0]], pos[tri[1]], pos[tri[2]]
		n := crossV(b.Sub(a), c.Sub(a)) // twice the area, outward for the counter-clockwise faces the loader keeps
		for _, k := range tri {
			nrm[k] = nrm[k].Add(n)
		}
	}
	m := new(Mesh)
	for i := range pos {
		n := nrm[i]
		if l := n.Len(); l > 0 {
			n = n.Scale(1 / l)
		}
		m.add(pos[i], n)
	}
	for _, tri := range src.Triangles {
		m.tri(int32(tri[0]), int32(tri[1]), int32(tri[2]))
	}
	return m, nil
}

// Box is the axis-aligned box of centre c and half extents h, as the tank is drawn.
func Box(c, h scene.Vec3) *Mesh { return boxMesh(frame3{identity(), c}, h) }

// boxMesh is a box of half extents h: 6 faces of 4 vertices with flat normals.
func boxMesh(f frame3, h scene.Vec3) *Mesh {
	m := new(Mesh)
	for axis := 0; axis < 3; axis++ {
		u, v := (axis+1)%3, (axis+2)%3 // u × v = +axis
		for _, s := range [2]float64{1, -1} {
			var n scene.Vec3
			n[axis] = s
			wn := f.r.MulVec(n)
			corner := func(a, b float64) int32 {
				var p scene.Vec3
				p[axis], p[u], p[v] = s*h[axis], a*h[u], b*h[v]
				return m.add(f.point(p), wn)
			}
			c0, c1, c2, c3 := corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)
			if s > 0 {
				m.quad(c0, c1, c2, c3)
			} else {
				m.quad(c0, c3, c2, c1)
			}
		}
	}
	return m
}

// capsuleMesh is a sphere of radius r split at its equator, the halves pushed halfLen apart along the local y
// axis; halfLen 0 gives a sphere.
func capsuleMesh(f frame3, r, halfLen float64) *Mesh {
	m := new(Mesh)
	// rows run from the north pole (row 0) to the south pole; the equator appears twice, once per half.
	type row struct{ lat, shift float64 }
	var rows []row
	half := meshRings / 2
	for i := 0; i <= half; i++ {
		rows = append(rows, row{math.Pi/2 - math.Pi*float64(i)/meshRings, halfLen})
	}
	south := half
	if halfLen == 0 {
		south++ // a sphere: no cylinder band, the equator once
	}
	for i := south; i <= meshRings; i++ {
		rows = append(rows, row{math.Pi/2 - math.Pi*float64(i)/meshRings, -halfLen})
	}
	first := make([]int32, len(rows))
	for k, rw := range rows {
		first[k] = int32(len(m.Positions))
		sl, cl := math.Sincos(rw.lat)
		for j := 0; j <= meshSegments; j++ {
			sa, ca := math.Sincos(2 * math.Pi * float64(j) / meshSegments)
			n := scene.Vec3{cl * sa, sl, cl * ca}
			p := n.Scale(r).Add(scene.Vec3{0, rw.shift, 0})
			m.add(f.point(p), f.r.MulVec(n))
		}
	}
	for k := 0; k+1 < len(rows); k++ {
		for j := int32(0); j < meshSegments; j++ {
			a, b := first[k]+j, first[k]+j+1
			c, d := first[k+1]+j+1, first[k+1]+j
			// rows go north to south and segments turn from +z toward +x: a-d-c-b is counter-clockwise outside.
			switch {
			case k == 0:
				m.tri(a, d, c) // the pole row's quads are triangles
			case k+2 == len(rows):
				m.tri(a, d, b)
			default:
				m.quad(a, d, c, b)
			}
		}
	}
	return m
}

// cylinderMesh is a cylinder of radius r along the local y axis from −hh to hh, with flat caps.
func cylinderMesh(f frame3, r, hh float64) *Mesh {
	m := new(Mesh)
	side := int32(len(m.Positions))
	for j := 0; j <= meshSegments; j++ {
		sa, ca := math.Sincos(2 * math.Pi * float64(j) / meshSegments)
		n := f.r.MulVec(scene.Vec3{sa, 0, ca})
		m.add(f.point(scene.Vec3{r * sa, hh, r * ca}), n)
		m.add(f.point(scene.Vec3{r * sa, -hh, r * ca}), n)
	}
	for j := int32(0); j < meshSegments; j++ {
		top, bot := side+2*j, side+2*j+1
		m.quad(top, bot, bot+2, top+2)
	}
	for _, s := range [2]float64{1, -1} {
		n := f.r.MulVec(scene.Vec3{0, s, 0})
		centre := m.add(f.point(scene.Vec3{0, s * hh, 0}), n)
		rim := int32(len(m.Positions))
		for j := 0; j <= meshSegments; j++ {
			sa, ca := math.Sincos(2 * math.Pi * float64(j) / meshSegments)
			m.add(f.point(scene.Vec3{r * sa, s * hh, r * ca}), n)
		}
		for j := int32(0); j < meshSegments; j++ {
			if s > 0 {
				m.tri(centre, rim+j, rim+j+1)
			} else {
				m.tri(centre, rim+j+1, rim+j)
			}
		}
	}
	return m
}

func identity() scene.Mat3 { return scene.Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} }

// axisFrame is a rotation taking the local y axis onto the direction of d (any rotation about it will do).
func axisFrame(d scene.Vec3) scene.Mat3 {
	l := d.Len()
	if l == 0 {
		return identity()
	}
	y := d.Scale(1 / l)
	helper := scene.Vec3{1, 0, 0}
	if math.Abs(y[0]) > 0.9 {
		helper = scene.Vec3{0, 0, 1}
	}
	x := crossV(helper, y)
	x = x.Scale(1 / x.Len())
	z := crossV(x, y)
	// columns are the images of the local axes
	return scene.Mat3{{x[0], y[0], z[0]}, {x[1], y[1], z[1]}, {x[2], y[2], z[2]}}
}

func crossV(a, b scene.Vec3) scene.Vec3 {
	return scene.Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
