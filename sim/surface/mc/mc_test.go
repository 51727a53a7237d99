package mc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// sample fills a grid of n³ points over [lo, lo + (n−1)h]³ with f.
func sample(n int, lo, h float64, f func(x, y, z float64) float64) Grid {
	g := Grid{Dims: [3]int{n, n, n}, Origin: [3]float64{lo, lo, lo}, H: h, Values: make([]float32, n*n*n)}
	for k := range n {
		for j := range n {
			for i := range n {
				g.Values[i+n*(j+n*k)] = float32(f(lo+h*float64(i), lo+h*float64(j), lo+h*float64(k)))
			}
		}
	}
	return g
}

func sphere(cx, cy, cz, r float64) func(x, y, z float64) float64 {
	return func(x, y, z float64) float64 { return math.Sqrt((x-cx)*(x-cx)+(y-cy)*(y-cy)+(z-cz)*(z-cz)) - r }
}

func mustMesh(t testing.TB, g Grid) *Mesh {
	t.Helper()
	m, err := MeshGrid(g)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkClosed fails unless every directed edge of m appears once and its reverse once (closed, edge-manifold,
// consistently oriented), no triangle repeats a vertex, every vertex's triangles form one fan around it
// (vertex-manifold), every vertex is used and has a unit normal. It returns the Euler characteristic V − E + F.
func checkClosed(t *testing.T, name string, m *Mesh) int {
	t.Helper()
	if len(m.Normals) != len(m.Positions) {
		t.Fatalf("%s: %d normals for %d positions", name, len(m.Normals), len(m.Positions))
	}
	type edge struct{ a, b int32 }
	directed := make(map[edge]int, 3*len(m.Triangles))
	opposite := make([]map[int32]int32, len(m.Positions)) // per vertex: the edges opposite it in its triangles
	for ti, tr := range m.Triangles {
		for s := range 3 {
			a, b, c := tr[s], tr[(s+1)%3], tr[(s+2)%3]
			if a < 0 || int(a) >= len(m.Positions) {
				t.Fatalf("%s: triangle %d has vertex %d of %d", name, ti, a, len(m.Positions))
			}
			if a == b {
				t.Fatalf("%s: triangle %d %v repeats a vertex", name, ti, tr)
			}
			directed[edge{a, b}]++
			if opposite[a] == nil {
				opposite[a] = map[int32]int32{}
			}
			if _, dup := opposite[a][b]; dup {
				t.Fatalf("%s: vertex %d: two triangles leave it toward %d", name, a, b)
			}
			opposite[a][b] = c
		}
	}
	bad := 0
	for e, n := range directed {
		if n != 1 || directed[edge{e.b, e.a}] != 1 {
			if bad < 5 {
				t.Errorf("%s: edge %d→%d appears %d times, its reverse %d times", name, e.a, e.b, n, directed[edge{e.b, e.a}])
			}
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d directed edges without exactly one twin", name, bad)
	}
	for v, fan := range opposite {
		if fan == nil {
			t.Fatalf("%s: vertex %d is in no triangle", name, v)
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
			t.Fatalf("%s: the %d triangles around vertex %d form more than one fan", name, len(fan), v)
		}
		n := m.Normals[v]
		if l := math.Sqrt(float64(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])); math.Abs(l-1) > 1e-5 {
			t.Fatalf("%s: vertex %d normal %v has length %v", name, v, n, l)
		}
	}
	return len(m.Positions) - len(directed)/2 + len(m.Triangles)
}

// volume is the signed volume enclosed by a closed mesh (divergence theorem); positive when the triangles face out.
func volume(m *Mesh) float64 {
	v := 0.0
	for _, tr := range m.Triangles {
		p := func(i int32) [3]float64 {
			q := m.Positions[i]
			return [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
		}
		v += dot(p(tr[0]), cross(p(tr[1]), p(tr[2]))) / 6
	}
	return v
}

// The table: every case's triangles use exactly the edges whose ends differ in sign, and the boundary of each
// case's patch (the mesh edges used once within the cube) runs on the cube's faces, between edges of one face.
func TestCaseTable(t *testing.T) {
	if _, err := buildCases(); err != nil {
		t.Fatal(err)
	}
	for mask := range 256 {
		used := [12]bool{}
		for _, tr := range caseTris[mask] {
			for _, e := range tr {
				used[e] = true
			}
		}
		for e, ce := range cubeEdges {
			crossed := (mask>>ce.corner&1 != 0) != (mask>>(ce.corner|1<<ce.axis)&1 != 0)
			if used[e] != crossed {
				t.Errorf("case %#02x: edge %d used %v, crossed %v", mask, e, used[e], crossed)
			}
		}
	}
}

// Every sign pattern of one cube, alone in the grid (so closed by the outside's positive values), and every
// pattern of 2×2×3 points, which puts each case beside others, gives a closed manifold mesh.
func TestAllCasesClosed(t *testing.T) {
	for mask := range 256 {
		g := Grid{Dims: [3]int{2, 2, 2}, H: 1, Values: make([]float32, 8)}
		for c := range 8 {
			g.Values[c] = 1
			if mask&(1<<c) != 0 {
				g.Values[c] = -1
			}
		}
		checkClosed(t, fmt.Sprintf("case %#02x", mask), mustMesh(t, g))
	}
	for mask := range 1 << 12 {
		g := Grid{Dims: [3]int{2, 2, 3}, H: 1, Values: make([]float32, 12)}
		for c := range 12 {
			g.Values[c] = 0.5
			if mask&(1<<c) != 0 {
				g.Values[c] = -1.5
			}
		}
		checkClosed(t, fmt.Sprintf("pattern %#03x", mask), mustMesh(t, g))
	}
}

// A sphere of radius r: closed, genus 0, vertices on the sphere, normals pointing out, and the enclosed volume
// converging to 4/3 π r³.
func TestSphere(t *testing.T) {
	const r = 1.0
	exact := 4 * math.Pi / 3 * r * r * r
	prevErr := math.Inf(1)
	for _, n := range []int{12, 24, 48} {
		h := 3.0 / float64(n-1)
		m := mustMesh(t, sample(n, -1.5, h, sphere(0.013, -0.021, 0.007, r)))
		name := fmt.Sprintf("sphere n=%d", n)
		if chi := checkClosed(t, name, m); chi != 2 {
			t.Errorf("%s: Euler characteristic %d, want 2", name, chi)
		}
		relErr := math.Abs(volume(m)-exact) / exact
		t.Logf("%s: %d triangles, volume %.5f (exact %.5f, error %.3f%%)", name, len(m.Triangles), volume(m), exact, 100*relErr)
		if relErr > 0.05 || relErr > prevErr {
			t.Errorf("%s: volume error %.4f, want under 0.05 and below the coarser grid's %.4f", name, relErr, prevErr)
		}
		prevErr = relErr
		worst, worstDot := 0.0, 1.0
		for i, p := range m.Positions {
			d := [3]float64{float64(p[0]) - 0.013, float64(p[1]) + 0.021, float64(p[2]) - 0.007}
			l := math.Sqrt(dot(d, d))
			worst = max(worst, math.Abs(l-r))
			nv := m.Normals[i]
			worstDot = min(worstDot, dot(d, [3]float64{float64(nv[0]), float64(nv[1]), float64(nv[2])})/l)
		}
		// linear interpolation of the exact distance: within h²/(2r)-ish of the sphere; h/4 leaves a margin.
		if worst > h/4 {
			t.Errorf("%s: a vertex %.4f from the sphere, want within h/4 = %.4f", name, worst, h/4)
		}
		if worstDot < 0.9 {
			t.Errorf("%s: a normal at cos %.3f to the radial direction, want above 0.9", name, worstDot)
		}
	}
}

func torus(R, r float64) func(x, y, z float64) float64 {
	return func(x, y, z float64) float64 {
		q := math.Hypot(x, y) - R
		return math.Hypot(q, z) - r
	}
}

// Shapes of other topology and touching parts: a torus (Euler characteristic 0), two spheres touching at a point,
// two tori linked, all closed manifolds.
func TestShapes(t *testing.T) {
	tor := torus(1, 0.35)
	for _, n := range []int{16, 33} {
		m := mustMesh(t, sample(n, -1.6, 3.2/float64(n-1), tor))
		if chi := checkClosed(t, "torus", m); chi != 0 {
			t.Errorf("torus n=%d: Euler characteristic %d, want 0", n, chi)
		}
		exact := 2 * math.Pi * math.Pi * 1 * 0.35 * 0.35
		if e := math.Abs(volume(m)-exact) / exact; n == 33 && e > 0.05 {
			t.Errorf("torus n=%d: volume %.4f, exact %.4f", n, volume(m), exact)
		}
	}
	a, b := sphere(-0.5, 0, 0, 0.5), sphere(0.5, 0, 0, 0.5)
	for _, n := range []int{11, 21, 32} { // grid points on the contact point, and not
		m := mustMesh(t, sample(n, -1.2, 2.4/float64(n-1), func(x, y, z float64) float64 { return min(a(x, y, z), b(x, y, z)) }))
		checkClosed(t, fmt.Sprintf("touching spheres n=%d", n), m)
	}
	linked := func(x, y, z float64) float64 {
		return min(torus(0.8, 0.2)(x, y, z), torus(0.8, 0.2)(x-0.8, z, y))
	}
	m := mustMesh(t, sample(40, -1.2, 3.0/39, linked))
	if chi := checkClosed(t, "linked tori", m); chi != 0 {
		t.Errorf("linked tori: Euler characteristic %d, want 0", chi)
	}
}

// Noise with many ambiguous faces (signs independent per point), a checkerboard of signs (every face ambiguous),
// integer values with many exact zeros, and noise touching the grid's boundary everywhere.
func TestNoiseClosed(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 16))
		n := 5 + int(seed%7)
		g := Grid{Dims: [3]int{n, n + 1, n + 2}, Origin: [3]float64{-1, 2, 0.5}, H: 0.3, Values: make([]float32, n*(n+1)*(n+2))}
		for i := range g.Values {
			switch seed % 3 {
			case 0:
				g.Values[i] = float32(rng.NormFloat64())
			case 1:
				g.Values[i] = float32(rng.IntN(3) - 1) // −1, 0 or 1: zeros count as outside
			case 2:
				g.Values[i] = float32(rng.Float64() - 0.8) // mostly outside: many small pieces
			}
		}
		m := mustMesh(t, g)
		checkClosed(t, fmt.Sprintf("noise seed %d", seed), m)
		if v := volume(m); !(v > 0) && len(m.Triangles) > 0 {
			t.Errorf("noise seed %d: enclosed volume %v, want positive", seed, v)
		}
	}
	for _, n := range []int{2, 3, 6, 9} {
		g := Grid{Dims: [3]int{n, n, n}, H: 1, Values: make([]float32, n*n*n)}
		for i := range g.Values {
			x, y, z := i%n, i/n%n, i/(n*n)
			g.Values[i] = float32(1 - 2*((x+y+z)%2))
		}
		m := mustMesh(t, g)
		if chi := checkClosed(t, fmt.Sprintf("checkerboard %d", n), m); chi != 2*(n*n*n/2) {
			// inside corners never connect across a face: each inside point is its own small sphere
			t.Errorf("checkerboard %d: Euler characteristic %d, want 2 per inside point (%d)", n, chi, 2*(n*n*n/2))
		}
	}
}

// A field negative up to and beyond the grid's boundary is capped there: values outside the grid count as
// outside. A sphere cut by the grid's box and an all-negative grid give closed genus-0 meshes; the all-negative
// grid's surface passes halfway to the missing outer layer of points, on the box [−h/2, (n−1/2)h]³ with its
// edges and corners chamfered.
func TestBoundaryCapped(t *testing.T) {
	m := mustMesh(t, sample(20, -1, 2.0/19, sphere(0.3, 0.2, -0.1, 1.2)))
	if chi := checkClosed(t, "clipped sphere", m); chi != 2 {
		t.Errorf("clipped sphere: Euler characteristic %d, want 2", chi)
	}
	n := 6
	g := Grid{Dims: [3]int{n, n, n}, H: 1, Values: make([]float32, n*n*n)}
	for i := range g.Values {
		g.Values[i] = -1
	}
	m = mustMesh(t, g)
	if chi := checkClosed(t, "full grid", m); chi != 2 {
		t.Errorf("full grid: Euler characteristic %d, want 2", chi)
	}
	for _, p := range m.Positions {
		for a := range 3 {
			if p[a] < -0.5 || p[a] > float32(n)-0.5 {
				t.Fatalf("full grid: vertex %v outside the box", p)
			}
		}
	}
	box := float64(n * n * n)
	if v := volume(m); v > box || v < box-float64(12*n)*0.125 {
		t.Errorf("full grid: volume %v, want the box %v less its chamfers", v, box)
	}
}

// Blocks meshed separately into one Builder share their boundary vertices: the union is the same closed mesh as
// meshing all cells at once.
func TestBlocksShareVertices(t *testing.T) {
	g := sample(18, -1.3, 2.6/17, torus(0.8, 0.3))
	whole := mustMesh(t, g)
	b, err := NewBuilder(g.Origin, g.H)
	if err != nil {
		t.Fatal(err)
	}
	n := g.Dims[0]
	at := func(i, j, k int) float32 {
		if uint(i) >= uint(n) || uint(j) >= uint(n) || uint(k) >= uint(n) {
			return 1
		}
		return g.Values[i+n*(j+n*k)]
	}
	const block = 5
	for k := -1; k < n; k += block {
		for j := -1; j < n; j += block {
			for i := -1; i < n; i += block {
				if err := b.Cells([3]int{i, j, k}, [3]int{min(i+block, n), min(j+block, n), min(k+block, n)}, at); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	m := b.Finish()
	if chi := checkClosed(t, "blocks", m); chi != 0 {
		t.Errorf("blocks: Euler characteristic %d, want 0", chi)
	}
	if len(m.Positions) != len(whole.Positions) || len(m.Triangles) != len(whole.Triangles) {
		t.Errorf("blocks: %d vertices, %d triangles; whole: %d, %d", len(m.Positions), len(m.Triangles),
			len(whole.Positions), len(whole.Triangles))
	}
	if dv := math.Abs(volume(m) - volume(whole)); dv > 1e-9*math.Abs(volume(whole)) {
		t.Errorf("blocks: volume %v, whole %v", volume(m), volume(whole))
	}
}

func TestBadInput(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, c := range []struct {
		g    Grid
		want string
	}{
		{Grid{Dims: [3]int{2048, 2048, 2048}, H: 1}, "exceeds MaxPoints"},
		{Grid{Dims: [3]int{1 << 40, 1 << 40, 1 << 40}, H: 1}, "grid dimension 0"},
		{Grid{Dims: [3]int{0, 2, 2}, H: 1}, "grid dimension 0 is 0"},
		{Grid{Dims: [3]int{2, -1, 2}, H: 1}, "grid dimension 1 is -1"},
		{Grid{Dims: [3]int{2, 2, 2}, H: 1, Values: make([]float32, 7)}, "needs 8 values, got 7"},
		{Grid{Dims: [3]int{2, 2, 2}, H: 1, Values: []float32{1, 1, 1, 1, 1, 1, nan, 1}}, "value 6 (grid point 0, 1, 1) is NaN"},
		{Grid{Dims: [3]int{2, 2, 2}, H: 1, Values: []float32{1, 1, 1, -inf, 1, 1, 1, 1}}, "value 3 (grid point 1, 1, 0) is -Inf"},
		{Grid{Dims: [3]int{2, 2, 2}, H: 0, Values: make([]float32, 8)}, "grid spacing 0"},
		{Grid{Dims: [3]int{2, 2, 2}, H: math.Inf(1), Values: make([]float32, 8)}, "grid spacing +Inf"},
		{Grid{Dims: [3]int{2, 2, 2}, H: 1, Origin: [3]float64{0, math.NaN(), 0}, Values: make([]float32, 8)}, "origin coordinate 1"},
	} {
		if _, err := MeshGrid(c.g); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("dims %v: error %v, want it to say %q", c.g.Dims, err, c.want)
		}
	}
	b, err := NewBuilder([3]float64{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Cells([3]int{0, 0, 0}, [3]int{1 << 20, 1, 1}, func(int, int, int) float32 { return 1 }); err == nil {
		t.Error("cells beyond the key range accepted")
	}
	if err := b.Cells([3]int{0, 0, 0}, [3]int{1, 1, 1}, nil); err == nil {
		t.Error("nil field accepted")
	}
	// a NaN from the field function counts as outside and the mesh stays closed
	if err := b.Cells([3]int{-1, -1, -1}, [3]int{2, 2, 2}, func(i, j, k int) float32 {
		if i == 0 && j == 0 && k == 0 {
			return -1
		}
		if i == 1 && j == 0 && k == 0 {
			return nan
		}
		return 1
	}); err != nil {
		t.Fatal(err)
	}
	m := b.Finish()
	checkClosed(t, "NaN neighbour", m)
	if b.Finish() != m || len(m.Triangles) == 0 {
		t.Error("a second Finish gave another mesh, or the first an empty one")
	}
	if err := b.Cells([3]int{0, 0, 0}, [3]int{1, 1, 1}, func(int, int, int) float32 { return -1 }); err == nil {
		t.Error("cells added after Finish")
	}
}

// BenchmarkSphere128 meshes a sphere filling a 128³ grid; it reports triangles per second.
func BenchmarkSphere128(b *testing.B) {
	g := sample(128, -1.1, 2.2/127, sphere(0, 0, 0, 1))
	var tris int
	b.ResetTimer()
	for b.Loop() {
		m, err := MeshGrid(g)
		if err != nil {
			b.Fatal(err)
		}
		tris = len(m.Triangles)
	}
	b.ReportMetric(float64(tris), "triangles")
	b.ReportMetric(float64(tris)*float64(b.N)/b.Elapsed().Seconds(), "triangles/s")
}

// crossings counts the pairs of triangles of m that share no vertex and of which one has an edge passing strictly
// through the other's interior (a self-intersection; touching and coplanar contacts are not counted).
func crossings(m *Mesh) int {
	p := func(i int32) [3]float64 {
		q := m.Positions[i]
		return [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
	}
	orient := func(a, b, c, d [3]float64) float64 { return dot(sub(b, a), cross(sub(c, a), sub(d, a))) }
	segHits := func(s0, s1 [3]float64, t [3][3]float64) bool {
		o0, o1 := orient(t[0], t[1], t[2], s0), orient(t[0], t[1], t[2], s1)
		if !(o0 > 0 && o1 < 0 || o0 < 0 && o1 > 0) {
			return false
		}
		u, v, w := orient(s0, s1, t[0], t[1]), orient(s0, s1, t[1], t[2]), orient(s0, s1, t[2], t[0])
		return u > 0 && v > 0 && w > 0 || u < 0 && v < 0 && w < 0
	}
	type box struct{ lo, hi [3]float64 }
	tris := make([][3][3]float64, len(m.Triangles))
	boxes := make([]box, len(m.Triangles))
	for i, tr := range m.Triangles {
		tris[i] = [3][3]float64{p(tr[0]), p(tr[1]), p(tr[2])}
		boxes[i] = box{tris[i][0], tris[i][0]}
		for _, q := range tris[i][1:] {
			for a := range 3 {
				boxes[i].lo[a], boxes[i].hi[a] = min(boxes[i].lo[a], q[a]), max(boxes[i].hi[a], q[a])
			}
		}
	}
	n := 0
	for i := range tris {
	next:
		for j := i + 1; j < len(tris); j++ {
			for a := range 3 {
				if boxes[i].hi[a] < boxes[j].lo[a] || boxes[j].hi[a] < boxes[i].lo[a] {
					continue next
				}
			}
			for _, vi := range m.Triangles[i] {
				for _, vj := range m.Triangles[j] {
					if vi == vj {
						continue next
					}
				}
			}
			for s := range 3 {
				if segHits(tris[i][s], tris[i][(s+1)%3], tris[j]) || segHits(tris[j][s], tris[j][(s+1)%3], tris[i]) {
					n++
					continue next
				}
			}
		}
	}
	return n
}

// The test scenes' meshes, smooth and noisy, do not intersect themselves.
func TestNoSelfIntersections(t *testing.T) {
	a, b := sphere(-0.5, 0, 0, 0.5), sphere(0.5, 0, 0, 0.5)
	for _, c := range []struct {
		name string
		g    Grid
	}{
		{"sphere", sample(24, -1.5, 3.0/23, sphere(0.013, -0.021, 0.007, 1))},
		{"torus", sample(33, -1.6, 3.2/32, torus(1, 0.35))},
		{"touching spheres", sample(21, -1.2, 2.4/20, func(x, y, z float64) float64 { return min(a(x, y, z), b(x, y, z)) })},
		{"clipped sphere", sample(20, -1, 2.0/19, sphere(0.3, 0.2, -0.1, 1.2))},
	} {
		m := mustMesh(t, c.g)
		if n := crossings(m); n > 0 {
			t.Errorf("%s: %d pairs of triangles cross", c.name, n)
		}
	}
	for seed := range uint64(8) { // noise: many ambiguous faces and long loops
		rng := rand.New(rand.NewPCG(seed, 17))
		g := Grid{Dims: [3]int{8, 8, 8}, H: 1, Values: make([]float32, 512)}
		for i := range g.Values {
			g.Values[i] = float32(rng.NormFloat64())
		}
		if n := crossings(mustMesh(t, g)); n > 0 {
			t.Errorf("noise seed %d: %d pairs of triangles cross", seed, n)
		}
	}
	// the check itself: two overlapping spheres meshed separately and put into one mesh cross
	m := mustMesh(t, sample(12, -1, 2.0/11, sphere(0, 0, 0, 0.6)))
	m2 := mustMesh(t, sample(12, -1, 2.0/11, sphere(0.4, 0, 0, 0.6)))
	off := int32(len(m.Positions))
	m.Positions = append(m.Positions, m2.Positions...)
	for _, tr := range m2.Triangles {
		m.Triangles = append(m.Triangles, [3]int32{tr[0] + off, tr[1] + off, tr[2] + off})
	}
	if crossings(m) == 0 {
		t.Error("a sphere folded through itself shows no crossing")
	}
}
