package trimesh

import (
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// octahedron is the closed octahedron of vertices ±r on each axis around c, its faces counter-clockwise outside.
func octahedron(c [3]float32, r float32) *Mesh {
	m := &Mesh{}
	for _, d := range [][3]float32{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
		m.Positions = append(m.Positions, [3]float32{c[0] + r*d[0], c[1] + r*d[1], c[2] + r*d[2]})
		m.Normals = append(m.Normals, d)
	}
	// (+x, +y, +z) is counter-clockwise seen from outside; each octant flips the order once per negative axis
	for _, x := range []int32{0, 1} {
		for _, y := range []int32{2, 3} {
			for _, z := range []int32{4, 5} {
				t := [3]int32{x, y, z}
				if (x+y+z-6)%2 != 0 {
					t = [3]int32{x, z, y}
				}
				m.Triangles = append(m.Triangles, t)
			}
		}
	}
	return m
}

func TestClosedAndVolume(t *testing.T) {
	m := octahedron([3]float32{1, 2, 3}, 2)
	chi, err := m.CheckClosed()
	if err != nil || chi != 2 {
		t.Fatalf("octahedron: χ = %d, %v", chi, err)
	}
	if v, want := m.Volume(), 4.0/3*8; math.Abs(v-want) > 1e-5 {
		t.Errorf("volume %v, want %v", v, want)
	}
	if a, want := m.Area(), 16*math.Sqrt(3); math.Abs(a-want) > 1e-4 {
		t.Errorf("area %v, want %v", a, want)
	}
	two := octahedron([3]float32{}, 1)
	two.Append(octahedron([3]float32{5, 0, 0}, 1))
	if chi, err := two.CheckClosed(); err != nil || chi != 4 {
		t.Errorf("two octahedra: χ = %d, %v", chi, err)
	}
	if n := two.Components(); n != 2 {
		t.Errorf("two octahedra: %d components", n)
	}
	if n := m.Components(); n != 1 {
		t.Errorf("one octahedron: %d components", n)
	}

	for _, c := range []struct {
		name, want string
		edit       func(m *Mesh)
	}{
		{"hole", "appears", func(m *Mesh) { m.Triangles = m.Triangles[1:] }},
		{"flipped face", "two triangles leave", func(m *Mesh) { t := &m.Triangles[3]; t[1], t[2] = t[2], t[1] }},
		{"out of range", "vertex 9 of 6", func(m *Mesh) { m.Triangles[2][1] = 9 }},
		{"repeated vertex", "repeats", func(m *Mesh) { m.Triangles[2][1] = m.Triangles[2][0] }},
		{"NaN", "position 4", func(m *Mesh) { m.Positions[4][1] = float32(math.NaN()) }},
		{"unused vertex", "in no triangle", func(m *Mesh) {
			m.Positions = append(m.Positions, [3]float32{})
			m.Normals = append(m.Normals, [3]float32{1, 0, 0})
		}},
		{"two fans", "more than one fan", func(m *Mesh) {
			// two octahedra glued at one vertex: every edge is fine, the shared vertex is not a manifold point
			o := octahedron([3]float32{2, 0, 0}, 1)
			base := int32(len(m.Positions))
			m.Append(o)
			for i := range m.Triangles[8:] {
				for k, v := range m.Triangles[8+i] {
					if v == base+1 { // o's −x vertex sits on m's +x vertex
						m.Triangles[8+i][k] = 0
					}
				}
			}
		}},
	} {
		m := octahedron([3]float32{}, 1)
		c.edit(m)
		if _, err := m.CheckClosed(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
}

func TestCrossings(t *testing.T) {
	if n := octahedron([3]float32{}, 1).Crossings(); n != 0 {
		t.Errorf("one octahedron: %d crossings", n)
	}
	two := octahedron([3]float32{}, 1)
	two.Append(octahedron([3]float32{3, 0, 0}, 1))
	if n := two.Crossings(); n != 0 {
		t.Errorf("two apart: %d crossings", n)
	}
	over := octahedron([3]float32{}, 1)
	over.Append(octahedron([3]float32{0.5, 0.3, 0.2}, 1))
	if n := over.Crossings(); n == 0 {
		t.Error("two overlapping octahedra show no crossing")
	}
	// a finely tessellated sphere, with many triangles per grid cell, against a shifted copy
	s, err := Shape(sphereShape(0, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Crossings(); n != 0 {
		t.Errorf("sphere: %d crossings", n)
	}
	s2, _ := Shape(sphereShape(0.3, 0.5))
	s.Append(s2)
	if n := s.Crossings(); n < 10 {
		t.Errorf("overlapping spheres: %d crossings", n)
	}
}

func TestPosed(t *testing.T) {
	m := octahedron([3]float32{1, 1, 1}, 0.5)
	s := float32(math.Sqrt(0.5))
	b := sim.BodyState{Center: [3]float32{3, 0, 0}, Origin: [3]float32{1, 1, 1}, Rot: [4]float32{0, 0, s, s}} // 90° about z
	p := m.Posed(b)
	// +x vertex (1.5, 1, 1) → offset (0.5, 0, 0) → rotated (0, 0.5, 0) → (3, 0.5, 0)
	want := [3]float32{3, 0.5, 0}
	for k := range 3 {
		if math.Abs(float64(p.Positions[0][k]-want[k])) > 1e-6 {
			t.Fatalf("posed +x vertex %v, want %v", p.Positions[0], want)
		}
	}
	if n := p.Normals[0]; math.Abs(float64(n[1])-1) > 1e-6 {
		t.Errorf("posed +x normal %v, want +y", n)
	}
	if math.Abs(p.Volume()-m.Volume()) > 1e-6 {
		t.Errorf("volume %v after posing, %v before", p.Volume(), m.Volume())
	}
	if m.Positions[0] != [3]float32{1.5, 1, 1} {
		t.Error("Posed changed its mesh")
	}
}

func sphereShape(x, r float64) *scene.Shape {
	return &scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{x, 0, 0}, Radius: r}
}
