package trimesh

import (
	"math"

	"github.com/slosh/slosh/assets"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

func v64(a [3]float32) scene.Vec3 { return scene.Vec3{float64(a[0]), float64(a[1]), float64(a[2])} }

// TestShapeMeshes checks every obstacle mesh against the shape's signed distance: vertices lie on the surface,
// every triangle is wound counter-clockwise seen from outside (its normal points out of the solid) and vertex
// normals agree with the faces they shade.
func TestShapeMeshes(t *testing.T) {
	shapes := []scene.Shape{
		{Kind: scene.ShapeSphere, Center: scene.Vec3{0.3, 0.4, -0.2}, Radius: 0.25},
		{Kind: scene.ShapeBox, Center: scene.Vec3{1, 0.5, 0}, Size: scene.Vec3{0.4, 0.2, 0.6}, Rotation: scene.Vec3{20, 35, -10}},
		{Kind: scene.ShapeCapsule, A: scene.Vec3{0, 0, 0}, B: scene.Vec3{0.5, 0.3, 0.2}, Radius: 0.1},
		{Kind: scene.ShapeCapsule, A: scene.Vec3{0, 0, 0}, B: scene.Vec3{0.5, 0, 0}, Radius: 0.1}, // along x
		{Kind: scene.ShapeCylinder, Center: scene.Vec3{-1, 0.3, 0.5}, Radius: 0.15, Height: 0.5, Rotation: scene.Vec3{0, 0, 70}},
	}
	for _, s := range shapes {
		m, err := Shape(&s)
		if err != nil {
			t.Fatalf("%s: %v", s.String(), err)
		}
		if len(m.Triangles) == 0 {
			t.Fatalf("%s: %d triangles", s.String(), len(m.Triangles))
		}
		size := s.Bounds().Size().MaxComp()
		for i, p := range m.Positions {
			if d, _ := s.SDF(v64(p)); math.Abs(d) > 1e-5*size {
				t.Errorf("%s: vertex %d at %v is %g off the surface", s.String(), i, p, d)
				break
			}
			if l := v64(m.Normals[i]).Len(); math.Abs(l-1) > 1e-5 {
				t.Errorf("%s: vertex %d normal has length %g", s.String(), i, l)
				break
			}
		}
		eps := 0.02 * size
		bad := 0
		for k, tr := range m.Triangles {
			a, b, c := v64(m.Positions[tr[0]]), v64(m.Positions[tr[1]]), v64(m.Positions[tr[2]])
			n := crossV(b.Sub(a), c.Sub(a))
			if n.Len() < 1e-12 {
				t.Errorf("%s: triangle %d is degenerate", s.String(), k)
				continue
			}
			n = n.Scale(1 / n.Len())
			centroid := a.Add(b).Add(c).Scale(1.0 / 3)
			out, _ := s.SDF(centroid.Add(n.Scale(eps)))
			in, _ := s.SDF(centroid.Sub(n.Scale(eps)))
			if out <= 0 || in >= 0 {
				bad++
			}
			for _, i := range tr {
				if v64(m.Normals[i]).Dot(n) < 0.5 {
					bad++
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d triangle or normal orientation failures out of %d triangles", s.String(), bad, len(m.Triangles))
		}
	}
	if _, err := Shape(&scene.Shape{Kind: scene.ShapeMesh, Mesh: "duck.obj"}); err == nil {
		t.Error("a mesh shape whose file was never loaded tessellated without error")
	}
}

// TestBunnyMesh places the shipped bunny, turned and scaled, and checks its triangles against the shape's signed
// distance (a grid of 64 cells across, so "on the surface" means within a cell) and its faces and smooth normals
// point out of the solid.
func TestBunnyMesh(t *testing.T) {
	md, err := scene.LoadMesh(assets.Meshes(), "bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	s := scene.Shape{Kind: scene.ShapeMesh, Mesh: "bunny.obj", Extent: 0.5, Center: scene.Vec3{0.2, 0.3, -0.1}, Rotation: scene.Vec3{0, 40, 10}}
	s.SetMesh(md)
	m, err := Shape(&s)
	if err != nil {
		t.Fatal(err)
	}
	cell := 0.5 / float64(scene.MeshSDFCells)
	off := 0
	for _, p := range m.Positions {
		if d, _ := s.SDF(v64(p)); math.Abs(d) > cell {
			off++
		}
	}
	if off > len(m.Positions)/100 {
		t.Errorf("%d of %d bunny vertices are more than a grid cell off its surface", off, len(m.Positions))
	}
	outward, agree := 0, 0
	for _, tr := range m.Triangles {
		a, b, c := v64(m.Positions[tr[0]]), v64(m.Positions[tr[1]]), v64(m.Positions[tr[2]])
		n := crossV(b.Sub(a), c.Sub(a))
		n = n.Scale(1 / n.Len())
		centroid := a.Add(b).Add(c).Scale(1.0 / 3)
		if in, _ := s.SDF(centroid.Sub(n.Scale(2 * cell))); in < 0 {
			outward++
		}
		if v64(m.Normals[tr[0]]).Dot(n) > 0 {
			agree++
		}
	}
	tris := len(m.Triangles)
	if outward < tris*95/100 || agree < tris*95/100 {
		t.Errorf("of %d triangles, %d face outwards and %d agree with their vertex normals", tris, outward, agree)
	}
}
