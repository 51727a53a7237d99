package mesh

import (
	"math"
	"math/rand"
	"testing"
	"time"
)

// The locator's nearest triangle agrees with looking at every triangle.
func TestLocatorNearest(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, m := range []*Mesh{unitCube(t), icosphere(0.5, 3), bunny(t)} {
		loc := NewLocator(m)
		for n := 0; n < 300; n++ {
			p := Vec3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}
			d, tri, q := loc.Nearest(p)
			want := bruteDistance(m, p)
			if math.Abs(d-want) > 1e-12 || math.Abs(q.Sub(p).Len()-d) > 1e-12 {
				t.Fatalf("%s: Nearest(%v) = %g (triangle %d, point %v), brute force %g", m.Name, p, d, tri, q, want)
			}
		}
	}
}

// Inside is exact on the cube at points whose rays run through its edges, vertices and along its faces, and
// agrees with the sphere away from the thin shell between the icosphere and its circumscribed sphere.
func TestLocatorInside(t *testing.T) {
	cube := NewLocator(unitCube(t))
	coords := []float64{-0.5, 0, 0.25, 0.5, 0.75, 1, 1.5}
	checked := 0
	for _, x := range coords {
		for _, y := range coords {
			for _, z := range coords {
				p := Vec3{x, y, z}
				d, _ := boxDistance(p, Vec3{}, Vec3{1, 1, 1})
				if d == 0 {
					continue // on the surface
				}
				if got := cube.Inside(p); got != (d < 0) {
					t.Errorf("cube: Inside(%v) = %v, distance %g", p, got, d)
				}
				checked++
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d points checked", checked)
	}
	const r = 0.5
	sphere := NewLocator(icosphere(r, 3))
	rng := rand.New(rand.NewSource(2))
	for n := 0; n < 3000; n++ {
		p := Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}.Scale(1.4)
		l := p.Len()
		if l > 0.98*r && l < r {
			continue // between the polyhedron and the sphere
		}
		if got := sphere.Inside(p); got != (l < r) {
			t.Fatalf("icosphere: Inside(%v) = %v at radius %g", p, got, l)
		}
		if sd := sphere.SignedDistance(p); (sd < 0) != (l < r) {
			t.Fatalf("icosphere: SignedDistance(%v) = %g at radius %g", p, sd, l)
		}
	}
}

// sdfCase describes how closely a field must follow the exact distance: the nodes within the exact band to
// rounding, every node to within nodeTol cells (further out the sweeps carry the nearest points; deep inside,
// near the medial axis, that costs a little), and points between nodes to within pointTol cells (trilinear
// interpolation cannot follow the cone of distances at a convex corner: at the corner itself it averages
// distances of up to √3/2 cells).
type sdfCase struct {
	name              string
	m                 *Mesh
	cell              float64
	exact             func(p Vec3) (float64, Vec3) // signed distance and outward normal
	nodeTol, pointTol float64
	shell             float64 // the exact function is this far from the mesh (the icosphere's sagitta)
}

func TestSDFMatchesExactDistance(t *testing.T) {
	const r = 0.5
	ico := icosphere(r, 3)
	// the largest gap between the polyhedron and the sphere: at the face centres
	sag := 0.0
	for _, tr := range ico.Triangles {
		c := ico.Vertices[tr[0]].Add(ico.Vertices[tr[1]]).Add(ico.Vertices[tr[2]]).Scale(1.0 / 3)
		sag = math.Max(sag, r-c.Len())
	}
	cases := []sdfCase{
		// nodes lie exactly on the faces, edges and corners: grid lines run through them
		{name: "cube, aligned", m: unitCube(t), cell: 0.05, nodeTol: 0.02, pointTol: 0.5,
			exact: func(p Vec3) (float64, Vec3) { return boxDistance(p, Vec3{}, Vec3{1, 1, 1}) }},
		{name: "cube, unaligned", m: unitCube(t), cell: 0.0713, nodeTol: 0.02, pointTol: 0.5,
			exact: func(p Vec3) (float64, Vec3) { return boxDistance(p, Vec3{}, Vec3{1, 1, 1}) }},
		{name: "icosphere", m: ico, cell: 1.0 / 32, nodeTol: 0.3, pointTol: 0.1, shell: sag,
			exact: func(p Vec3) (float64, Vec3) {
				l := p.Len()
				return l - r, p.Scale(1 / l)
			}},
	}
	for _, c := range cases {
		s, err := BuildSDF(c.m, c.cell, 3)
		if err != nil {
			t.Fatal(err)
		}
		h := s.Cell
		// nodes: the exact distance to the mesh (the locator agrees with brute force, above), signed
		loc := NewLocator(c.m)
		worst, signs := 0.0, 0
		for k := 0; k < s.Dims[2]; k++ {
			for j := 0; j < s.Dims[1]; j++ {
				for i := 0; i < s.Dims[0]; i++ {
					p := s.Node(i, j, k)
					v := float64(s.At(i, j, k))
					want, _, _ := loc.Nearest(p)
					ana, _ := c.exact(p)
					if math.Abs(ana) > c.shell+1e-9 {
						if (v < 0) != (ana < 0) {
							t.Fatalf("%s: node %v: value %g, exact %g: wrong sign", c.name, p, v, ana)
						}
						signs++
					}
					e := math.Abs(math.Abs(v)-want) / h
					if want <= exactCells*h && e > 1e-5 {
						t.Fatalf("%s: node %v within the exact band: |value| %g, distance %g", c.name, p, math.Abs(v), want)
					}
					worst = math.Max(worst, e)
				}
			}
		}
		if worst > c.nodeTol {
			t.Errorf("%s: nodes differ from the exact distance by up to %.3f cells (tolerance %g)", c.name, worst, c.nodeTol)
		}
		if signs < len(s.Values)*8/10 {
			t.Errorf("%s: only %d of %d node signs checked", c.name, signs, len(s.Values))
		}
		// points anywhere in and around the grid, and clustered near the corners and edges
		lo, hi := s.Bounds()
		mlo, mhi := c.m.Bounds()
		rng := rand.New(rand.NewSource(5))
		worst = 0
		for n := 0; n < 20000; n++ {
			var p Vec3
			switch n % 3 {
			case 0: // in the grid
				for a := 0; a < 3; a++ {
					p[a] = lo[a] + rng.Float64()*(hi[a]-lo[a])
				}
			case 1: // near a corner or an edge of the mesh's box (a vertex or edge of the cube)
				for a := 0; a < 3; a++ {
					p[a] = mlo[a]
					if rng.Intn(2) == 1 {
						p[a] = mhi[a]
					}
					if rng.Intn(3) == 0 { // along an edge
						p[a] = mlo[a] + rng.Float64()*(mhi[a]-mlo[a])
					}
					p[a] += (rng.Float64()*2 - 1) * 2 * h
				}
			default: // outside the grid, up to a grid's width away
				for a := 0; a < 3; a++ {
					p[a] = lo[a] + (rng.Float64()*3-1)*(hi[a]-lo[a])
				}
			}
			d := s.Distance(p)
			ana, nrm := c.exact(p)
			inGrid := p == p.Max(lo).Min(hi)
			if inGrid {
				e := math.Abs(d-ana) - c.shell
				worst = math.Max(worst, e/h)
			} else {
				// beyond the grid: the distance to the grid plus the value at the nearest point of the grid, which
				// bounds the exact distance from above
				q := p.Max(lo).Min(hi)
				border, _ := c.exact(q)
				if d < ana-c.shell-c.pointTol*h || math.Abs(d-(p.Sub(q).Len()+border)) > c.shell+c.pointTol*h {
					t.Fatalf("%s: outside the grid at %v: Distance %g, exact %g, %g to the grid + %g", c.name, p, d, ana, p.Sub(q).Len(), border)
				}
			}
			if math.Abs(ana) > c.shell+c.pointTol*h && (d < 0) != (ana < 0) {
				t.Fatalf("%s: Distance(%v) = %g, exact %g: wrong sign", c.name, p, d, ana)
			}
			// the gradient points outward: along the exact normal where that is well defined (beyond the grid it
			// is the gradient of the extension, still outward)
			if math.Abs(ana) > h+c.shell && wellDefinedNormal(p, mlo, mhi, c.name, h) {
				minDot := 0.95
				if !inGrid {
					minDot = 0
				}
				if g := s.Normal(p); math.Abs(g.Len()-1) > 1e-9 || g.Dot(nrm) < minDot {
					t.Fatalf("%s: Normal(%v) = %v, exact normal %v (distance %g)", c.name, p, g, nrm, ana)
				}
			}
		}
		if worst > c.pointTol {
			t.Errorf("%s: Distance between nodes differs from the exact distance by up to %.3f cells (tolerance %g)", c.name, worst, c.pointTol)
		}
		t.Logf("%s: %v nodes, worst interpolation error %.3f cells", c.name, s.Dims, worst)
	}
}

// wellDefinedNormal excludes points inside the cube that are nearly as close to two faces (where the nearest face,
// and with it the normal, flips).
func wellDefinedNormal(p, lo, hi Vec3, name string, h float64) bool {
	if name == "icosphere" {
		return true
	}
	var ds []float64
	for a := 0; a < 3; a++ {
		if p[a] < lo[a] || p[a] > hi[a] {
			return true // outside: the normal points from the nearest point, everywhere well defined
		}
		ds = append(ds, p[a]-lo[a], hi[a]-p[a])
	}
	first, second := math.Inf(1), math.Inf(1)
	for _, d := range ds {
		if d < first {
			first, second = d, first
		} else if d < second {
			second = d
		}
	}
	return second-first > 2*h
}

// The bunny builds; the volume of its inside cells matches the divergence theorem; signs agree with the exact
// inside test and distances with the exact distance.
func TestBunnySDF(t *testing.T) {
	m := bunny(t)
	start := time.Now()
	s, err := BuildSDF(m, 1.0/64, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bunny: %d triangles, %v nodes, built in %v", len(m.Triangles), s.Dims, time.Since(start))
	in := 0
	for _, v := range s.Values {
		if v < 0 {
			in++
		}
	}
	cellVol := float64(in) * s.Cell * s.Cell * s.Cell
	if vol := m.Volume(); math.Abs(cellVol-vol) > 0.02*vol {
		t.Errorf("inside cells hold %g, the divergence theorem gives %g", cellVol, vol)
	}
	loc := NewLocator(m)
	rng := rand.New(rand.NewSource(7))
	lo, hi := s.Bounds()
	for n := 0; n < 3000; n++ {
		var p Vec3
		for a := 0; a < 3; a++ {
			p[a] = lo[a] + rng.Float64()*(hi[a]-lo[a])
		}
		d, _, _ := loc.Nearest(p)
		if loc.Inside(p) {
			d = -d
		}
		got := s.Distance(p)
		if math.Abs(got-d) > 0.5*s.Cell {
			t.Fatalf("bunny: Distance(%v) = %g, exact %g", p, got, d)
		}
		if math.Abs(d) > 0.5*s.Cell && (got < 0) != (d < 0) {
			t.Fatalf("bunny: Distance(%v) = %g, exact %g: wrong sign", p, got, d)
		}
	}
}

func TestBuildSDFErrors(t *testing.T) {
	m := unitCube(t)
	for _, c := range []struct {
		cell float64
		band int
	}{{0, 3}, {-1, 3}, {math.Inf(1), 3}, {math.NaN(), 3}, {0.1, 0}, {1e-4, 3}} {
		if _, err := BuildSDF(m, c.cell, c.band); err == nil {
			t.Errorf("BuildSDF(cell %g, band %d) succeeded", c.cell, c.band)
		}
	}
}

func BenchmarkBuildSDF(b *testing.B) {
	m := bunny(b)
	for _, c := range []struct {
		name string
		m    *Mesh
	}{{"bunny", m}, {"bunny×16", subdivide(subdivide(m))}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportMetric(float64(len(c.m.Triangles)), "triangles")
			for b.Loop() {
				if _, err := BuildSDF(c.m, 1.0/64, 3); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
