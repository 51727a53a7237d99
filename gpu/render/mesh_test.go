package render

import (
	"math"
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
		m, err := shapeMesh(&s)
		if err != nil {
			t.Fatalf("%s: %v", s.String(), err)
		}
		if len(m.idx) == 0 || len(m.idx)%3 != 0 {
			t.Fatalf("%s: %d indices", s.String(), len(m.idx))
		}
		size := s.Bounds().Size().MaxComp()
		for i, v := range m.verts {
			if d, _ := s.SDF(v64(v.Pos)); math.Abs(d) > 1e-5*size {
				t.Errorf("%s: vertex %d at %v is %g off the surface", s.String(), i, v.Pos, d)
				break
			}
			if l := v64(v.Normal).Len(); math.Abs(l-1) > 1e-5 {
				t.Errorf("%s: vertex %d normal has length %g", s.String(), i, l)
				break
			}
		}
		eps := 0.02 * size
		bad := 0
		for k := 0; k < len(m.idx); k += 3 {
			a, b, c := v64(m.verts[m.idx[k]].Pos), v64(m.verts[m.idx[k+1]].Pos), v64(m.verts[m.idx[k+2]].Pos)
			n := cross(b.Sub(a), c.Sub(a))
			if n.Len() < 1e-12 {
				t.Errorf("%s: triangle %d is degenerate", s.String(), k/3)
				continue
			}
			n = n.Scale(1 / n.Len())
			centroid := a.Add(b).Add(c).Scale(1.0 / 3)
			out, _ := s.SDF(centroid.Add(n.Scale(eps)))
			in, _ := s.SDF(centroid.Sub(n.Scale(eps)))
			if out <= 0 || in >= 0 {
				bad++
			}
			for _, i := range m.idx[k : k+3] {
				if v64(m.verts[i].Normal).Dot(n) < 0.5 {
					bad++
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d triangle or normal orientation failures out of %d triangles", s.String(), bad, len(m.idx)/3)
		}
	}
	if _, err := shapeMesh(&scene.Shape{Kind: scene.ShapeMesh, Mesh: "duck.obj"}); err == nil {
		t.Error("a mesh obstacle tessellated without error; the renderer cannot draw OBJ obstacles yet")
	}
}
