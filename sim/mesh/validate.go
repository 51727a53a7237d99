package mesh

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Validate checks that the mesh is a solid whose inside is defined: it has triangles, every vertex index is in
// range, no triangle has zero area, every edge is shared by exactly two triangles (closed and manifold), the two
// triangles at each edge wind it in opposite directions (consistently oriented), and it encloses some volume.
// Errors name the mesh, say how many places are wrong, point at a line of the file, and say what to do.
func (m *Mesh) Validate() error {
	if len(m.Triangles) == 0 {
		return fmt.Errorf("%s: no faces (%s, no f lines): a solid needs triangles or polygons", m.Name, count(len(m.Vertices), "vertex", "vertices"))
	}
	if len(m.Triangles) > maxTriangles {
		return fmt.Errorf("%s: %d triangles, over the limit of %d; decimate the mesh (e.g. Blender's Decimate modifier)", m.Name, len(m.Triangles), maxTriangles)
	}
	if m.Lines != nil && len(m.Lines) != len(m.Triangles) {
		panic("mesh: Lines and Triangles differ in length")
	}
	nv := int32(len(m.Vertices))
	for ti, t := range m.Triangles {
		for _, i := range t {
			if i < 0 || i >= nv {
				return fmt.Errorf("%s: %s: vertex index %d is out of range: the mesh has %d vertices", m.Name, m.triangle(ti), i+1, nv)
			}
		}
	}
	if len(m.Vertices) > maxVertices {
		return fmt.Errorf("%s: %d vertices, over the limit of %d; decimate the mesh (e.g. Blender's Decimate modifier)", m.Name, len(m.Vertices), maxVertices)
	}
	for i, v := range m.Vertices {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%s: vertex %d has a non-finite coordinate %v", m.Name, i+1, v)
			}
			if !(math.Abs(x) <= MaxCoordinate) {
				return fmt.Errorf("%s: vertex %d has the coordinate %g, out of range: coordinates lie within ±%g", m.Name, i+1, x, float64(MaxCoordinate))
			}
		}
	}
	lo, hi := m.Bounds()
	size := hi.Sub(lo)
	if !(size.MaxComp() > 0) {
		return fmt.Errorf("%s: degenerate: all vertices are at one point", m.Name)
	}
	// below this size, areas (squares of coordinates' differences) underflow or drown in rounding: every
	// triangle would look like it had zero area
	if far := math.Max(1, math.Max(lo.Abs().MaxComp(), hi.Abs().MaxComp())); size.MaxComp() < MinRelativeSize*far {
		return fmt.Errorf("%s: the mesh is %g units across, %g from the origin: too small to compute with (at least %g of its distance from the origin, and of 1); scale it up, and centre it, in the modelling program",
			m.Name, size.MaxComp(), far, MinRelativeSize)
	}
	// zero-area triangles: repeated corners or three points on a line have no normal and no inside
	zero, firstZero := 0, -1
	tiny := 1e-14 * size.MaxComp() * size.MaxComp()
	for ti, t := range m.Triangles {
		a, b, c := m.Vertices[t[0]], m.Vertices[t[1]], m.Vertices[t[2]]
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] || b.Sub(a).Cross(c.Sub(a)).Len() <= tiny {
			if zero == 0 {
				firstZero = ti
			}
			zero++
		}
	}
	if zero > 0 {
		return fmt.Errorf("%s: degenerate: %s zero area (the first: %s); remove them (e.g. Blender's Merge by Distance and Degenerate Dissolve)",
			m.Name, count(zero, "triangle has", "triangles have"), m.triangle(firstZero))
	}
	// edges: sort the directed edges by their undirected key; each key must occur exactly twice, once each way
	type edge struct {
		key uint64 // lo<<32 | hi
		dir int8   // +1 when the triangle runs lo→hi
		tri int32
	}
	edges := make([]edge, 0, 3*len(m.Triangles))
	for ti, t := range m.Triangles {
		for k := 0; k < 3; k++ {
			a, b := uint64(t[k]), uint64(t[(k+1)%3])
			e := edge{dir: 1, tri: int32(ti)}
			if a > b {
				a, b = b, a
				e.dir = -1
			}
			e.key = a<<32 | b
			edges = append(edges, e)
		}
	}
	slices.SortFunc(edges, func(x, y edge) int {
		if x.key != y.key {
			if x.key < y.key {
				return -1
			}
			return 1
		}
		return int(x.tri) - int(y.tri)
	})
	badEdges, flipped := 0, 0
	var firstBad, firstFlip []edge
	for i := 0; i < len(edges); {
		j := i
		for j < len(edges) && edges[j].key == edges[i].key {
			j++
		}
		switch {
		case j-i != 2:
			if badEdges == 0 {
				firstBad = edges[i:j]
			}
			badEdges++
		case edges[i].dir == edges[i+1].dir:
			if flipped == 0 {
				firstFlip = edges[i:j]
			}
			flipped++
		}
		i = j
	}
	if badEdges > 0 {
		e := firstBad[0]
		users := make([]string, len(firstBad))
		for i, f := range firstBad {
			users[i] = m.triangle(int(f.tri))
		}
		why := "it has holes: close them (e.g. Blender's Fill Holes)"
		if len(firstBad) > 2 {
			why = "parts meet along an edge: move them apart or join them into one solid (e.g. Blender's 3D-Print Toolbox)"
		}
		return fmt.Errorf("%s: not closed and manifold: %s used by other than exactly two triangles (the first, between vertices %d and %d, by %d: %s); inside and outside are undefined for such a mesh: %s",
			m.Name, count(badEdges, "edge is", "edges are"), e.key>>32+1, e.key&0xffffffff+1, len(firstBad), strings.Join(users, ", "), why)
	}
	if flipped > 0 {
		e := firstFlip
		return fmt.Errorf("%s: inconsistently oriented: at %s the two triangles wind the same way (the first: %s and %s); make the normals consistent (e.g. Blender's Recalculate Outside)",
			m.Name, count(flipped, "edge", "edges"), m.triangle(int(e[0].tri)), m.triangle(int(e[1].tri)))
	}
	if v := math.Abs(m.Volume()); !(v > 1e-9*size[0]*size[1]*size[2]) {
		return fmt.Errorf("%s: degenerate: the mesh encloses no volume (%g)", m.Name, v)
	}
	return nil
}

// triangle names a triangle for messages: "triangle 4 (line 12)", or "triangle 4" for a mesh made in code.
func (m *Mesh) triangle(i int) string {
	if i < len(m.Lines) {
		return fmt.Sprintf("triangle %d (line %d)", i, m.Lines[i])
	}
	return fmt.Sprintf("triangle %d", i)
}

// count is "1 edge is" or "4 edges are".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
