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

// checkClosed fails unless m is closed, manifold and consistently oriented (trimesh.CheckClosed) with unit
// normals, and returns its Euler characteristic V − E + F.
func checkClosed(t *testing.T, name string, m *Mesh) int {
	t.Helper()
	chi, err := m.CheckClosed()
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(m.Normals) != len(m.Positions) {
		t.Fatalf("%s: %d normals for %d positions", name, len(m.Normals), len(m.Positions))
	}
	for v, n := range m.Normals {
		if l := math.Sqrt(float64(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])); math.Abs(l-1) > 1e-5 {
			t.Fatalf("%s: vertex %d normal %v has length %v", name, v, n, l)
		}
	}
	return chi
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
		relErr := math.Abs(m.Volume()-exact) / exact
		t.Logf("%s: %d triangles, volume %.5f (exact %.5f, error %.3f%%)", name, len(m.Triangles), m.Volume(), exact, 100*relErr)
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
		if e := math.Abs(m.Volume()-exact) / exact; n == 33 && e > 0.05 {
			t.Errorf("torus n=%d: volume %.4f, exact %.4f", n, m.Volume(), exact)
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
		if v := m.Volume(); !(v > 0) && len(m.Triangles) > 0 {
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
	if v := m.Volume(); v > box || v < box-float64(12*n)*0.125 {
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
	if dv := math.Abs(m.Volume() - whole.Volume()); dv > 1e-9*math.Abs(whole.Volume()) {
		t.Errorf("blocks: volume %v, whole %v", m.Volume(), whole.Volume())
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
		if n := m.Crossings(); n > 0 {
			t.Errorf("%s: %d pairs of triangles cross", c.name, n)
		}
	}
	for seed := range uint64(8) { // noise: many ambiguous faces and long loops
		rng := rand.New(rand.NewPCG(seed, 17))
		g := Grid{Dims: [3]int{8, 8, 8}, H: 1, Values: make([]float32, 512)}
		for i := range g.Values {
			g.Values[i] = float32(rng.NormFloat64())
		}
		if n := mustMesh(t, g).Crossings(); n > 0 {
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
	if m.Crossings() == 0 {
		t.Error("a sphere folded through itself shows no crossing")
	}
}
