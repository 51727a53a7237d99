package mesh

import (
	"math"
	"testing"
	"testing/fstest"

	"github.com/slosh/slosh/assets"
)

// cubeOBJ is the unit cube [0, 1]³ with outward-facing quads.
const cubeOBJ = `v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 4 8 7 3
f 1 5 8 4
f 2 3 7 6
`

func unitCube(t testing.TB) *Mesh {
	t.Helper()
	m, err := Parse([]byte(cubeOBJ), "cube.obj")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// boxDistance is the exact signed distance to the box [lo, hi] and its outward normal (the nearest face inside).
func boxDistance(p, lo, hi Vec3) (float64, Vec3) {
	c, h := lo.Add(hi).Scale(0.5), hi.Sub(lo).Scale(0.5)
	q := p.Sub(c)
	var o Vec3
	out := false
	for k := 0; k < 3; k++ {
		o[k] = math.Abs(q[k]) - h[k]
		out = out || o[k] > 0
	}
	if out {
		var v Vec3
		for k := 0; k < 3; k++ {
			v[k] = math.Copysign(math.Max(o[k], 0), q[k])
		}
		l := v.Len()
		return l, v.Scale(1 / l)
	}
	k := 0
	if o[1] > o[k] {
		k = 1
	}
	if o[2] > o[k] {
		k = 2
	}
	var n Vec3
	n[k] = math.Copysign(1, q[k])
	return o[k], n
}

// icosphere is a sphere of radius r about the origin: an icosahedron subdivided level times, vertices pushed onto
// the sphere, triangles wound outward.
func icosphere(r float64, level int) *Mesh {
	g := (1 + math.Sqrt(5)) / 2
	m := &Mesh{Name: "icosphere", Vertices: []Vec3{
		{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0},
		{0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g},
		{g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1},
	}, Triangles: [][3]int32{
		{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11},
		{1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
		{3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8}, {3, 8, 9},
		{4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1},
	}}
	for range level {
		m = subdivide(m)
	}
	for i, v := range m.Vertices {
		m.Vertices[i] = v.Scale(r / v.Len())
	}
	return m
}

// subdivide splits every triangle into four at its edge midpoints (the shape is unchanged).
func subdivide(m *Mesh) *Mesh {
	out := &Mesh{Name: m.Name, Vertices: append([]Vec3(nil), m.Vertices...)}
	mid := map[[2]int32]int32{}
	at := func(a, b int32) int32 {
		if a > b {
			a, b = b, a
		}
		if i, ok := mid[[2]int32{a, b}]; ok {
			return i
		}
		i := int32(len(out.Vertices))
		out.Vertices = append(out.Vertices, m.Vertices[a].Add(m.Vertices[b]).Scale(0.5))
		mid[[2]int32{a, b}] = i
		return i
	}
	for _, t := range m.Triangles {
		ab, bc, ca := at(t[0], t[1]), at(t[1], t[2]), at(t[2], t[0])
		out.Triangles = append(out.Triangles,
			[3]int32{t[0], ab, ca}, [3]int32{ab, t[1], bc}, [3]int32{ca, bc, t[2]}, [3]int32{ab, bc, ca})
	}
	return out
}

// bunny is the shipped bunny scaled so that its longest side is 1, centred on the origin.
func bunny(t testing.TB) *Mesh {
	t.Helper()
	m, err := Load(assets.Meshes(), "bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	return m.Transformed(m.Fit(1, Vec3{}, Vec3{}))
}

// bruteDistance is the distance to the nearest triangle, by looking at all of them.
func bruteDistance(m *Mesh, p Vec3) float64 {
	best := math.Inf(1)
	for _, t := range m.Triangles {
		q := closestOnTriangle(p, m.Vertices[t[0]], m.Vertices[t[1]], m.Vertices[t[2]])
		best = math.Min(best, q.Sub(p).Len())
	}
	return best
}

func memFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for name, data := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}
