package cell

import (
	"math"
	"math/rand"
	"runtime"
	"strings"
	"testing"
)

var unitish = Box{Min: [3]float64{0, 0, 0}, Max: [3]float64{1, 2, 0.5}}

func boxVolume(b Box) float64 {
	return (b.Max[0] - b.Min[0]) * (b.Max[1] - b.Min[1]) * (b.Max[2] - b.Min[2])
}

// random makes n uniform points in box.
func random(n int, box Box, seed int64) [][4]float32 {
	rng := rand.New(rand.NewSource(seed))
	pos := make([][4]float32, n)
	for i := range pos {
		for a := 0; a < 3; a++ {
			pos[i][a] = float32(box.Min[a] + rng.Float64()*(box.Max[a]-box.Min[a]))
		}
	}
	return pos
}

// spacingOf is the mean spacing of n points filling box.
func spacingOf(n int, box Box) float64 { return math.Cbrt(boxVolume(box) / float64(n)) }

func build(t testing.TB, pos [][4]float32, box Box, opt Options) *Diagram {
	t.Helper()
	if opt.Spacing == 0 {
		opt.Spacing = spacingOf(len(pos), box)
	}
	d, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Build(pos, box); err != nil {
		t.Fatal(err)
	}
	return d
}

func site(pos [][4]float32, i int) vec3 {
	return vec3{float64(pos[i][0]), float64(pos[i][1]), float64(pos[i][2])}
}

func norm(a vec3) float64 { return math.Sqrt(dot(a, a)) }

// checkCells asserts what every diagram must satisfy, whatever its input: facet loops oriented along their
// normals, vertices on their facets' planes, closed cells whose divergence-theorem volume matches Volume, every
// site inside its cell, twins that agree, and (for up to a few thousand points) every vertex of cell i at least
// as close to site i as to any other site.
func checkCells(t *testing.T, d *Diagram, pos [][4]float32, box Box) {
	t.Helper()
	eps := d.Eps()
	h := d.opt.Spacing
	for i := 0; i < d.NumCells(); i++ {
		s := site(pos, i)
		lo, hi := d.Facets(i)
		if d.Dup[i] >= 0 {
			if lo != hi || d.Volume[i] != 0 {
				t.Fatalf("duplicate %d has %d facets and volume %g", i, hi-lo, d.Volume[i])
			}
			continue
		}
		var closure vec3
		div, total := 0.0, 0.0
		for f := lo; f < hi; f++ {
			loop := d.FacetLoop(f)
			n := d.Normal[f]
			if len(loop) < 3 || math.Abs(norm(n)-1) > 1e-12 {
				t.Fatalf("cell %d facet %d: loop %v normal %v", i, f, loop, n)
			}
			// the loop's area vector points along the normal and has the facet's area
			var avec vec3
			for k := range loop {
				avec = add(avec, cross(d.Vert[loop[k]], d.Vert[loop[(k+1)%len(loop)]]))
			}
			avec = scale(avec, 0.5)
			if dot(avec, n) <= 0 || math.Abs(norm(avec)-d.Area[f]) > 1e-9*d.Area[f]+8*eps*math.Sqrt(d.Area[f]) {
				t.Fatalf("cell %d facet %d (owner %d): area vector %v against normal %v, area %g", i, f, d.Owner[f], avec, n, d.Area[f])
			}
			// vertices on the facet's plane, and in cell i's range
			vlo, vhi := d.Vertices(i)
			for _, v := range loop {
				if int(v) < vlo || int(v) >= vhi {
					t.Fatalf("cell %d facet %d uses vertex %d outside [%d, %d)", i, f, v, vlo, vhi)
				}
				x := d.Vert[v]
				var off float64
				if j := d.Owner[f]; j >= 0 {
					sj := site(pos, int(j))
					off = dot(sub(x, scale(add(s, sj), 0.5)), n)
				} else if !IsWall(j) {
					if j != Far {
						t.Fatalf("cell %d facet %d has owner %d", i, f, j)
					}
					off = dot(sub(x, s), n) - d.opt.Reach
				} else {
					w := -1 - j
					bound := box.Min[w/2]
					if w%2 == 1 {
						bound = box.Max[w/2]
					}
					off = x[w/2] - bound
				}
				if math.Abs(off) > 2*eps {
					t.Fatalf("cell %d facet %d (owner %d): vertex %v is %g off its plane", i, f, d.Owner[f], x, off)
				}
			}
			// the site is inside every facet's half-space (a site outside the box is not in its cell)
			if inBox(s, box) && dot(sub(s, d.FacetCentroid[f]), n) > eps {
				t.Fatalf("cell %d: site outside facet %d (owner %d)", i, f, d.Owner[f])
			}
			closure = add(closure, scale(n, d.Area[f]))
			total += d.Area[f]
			div += d.Area[f] * dot(sub(d.FacetCentroid[f], s), n) / 3
			if tw := d.Twin[f]; tw >= 0 {
				// the same facet seen from the other side: its area and centroid are stored bit-identical (the
				// mean of the two cells' measurements, which the polygon checks above hold to each cell's own)
				same := d.Area[tw] == d.Area[f] && d.FacetCentroid[tw] == d.FacetCentroid[f]
				if d.Owner[tw] != int32(i) || d.Twin[tw] != int32(f) || norm(add(d.Normal[tw], n)) > 1e-12 ||
					!same && d.opt.Reach == 0 {
					t.Fatalf("cell %d facet %d (owner %d, area %g, centroid %v) disagrees with its twin %d (owner %d, area %g, centroid %v)",
						i, f, d.Owner[f], d.Area[f], d.FacetCentroid[f], tw, d.Owner[tw], d.Area[tw], d.FacetCentroid[tw])
				}
			}
		}
		// zero up to dropped slivers and to vertices snapped up to Eps off the plane whose normal the facet keeps
		slivers := float64(d.Stats().Slivers) * d.SliverArea()
		if norm(closure) > 1e-9*total+4*eps*math.Sqrt(total)+slivers {
			t.Fatalf("cell %d is not closed: Σ a·n = %v", i, closure)
		}
		// the volume includes dropped slivers, the facets' sum does not
		if math.Abs(div-d.Volume[i]) > 1e-9*d.Volume[i]+eps*total+slivers*h {
			t.Fatalf("cell %d: divergence-theorem volume %g, Volume %g", i, div, d.Volume[i])
		}
		if d.Volume[i] > 0 {
			// the centroid is inside the cell
			for f := lo; f < hi; f++ {
				if dot(sub(d.Centroid[i], d.FacetCentroid[f]), d.Normal[f]) > eps {
					t.Fatalf("cell %d: centroid %v outside facet %d", i, d.Centroid[i], f)
				}
			}
		}
	}
	if len(pos) <= 3000 {
		for i := 0; i < d.NumCells(); i++ {
			s := site(pos, i)
			vlo, vhi := d.Vertices(i)
			for v := vlo; v < vhi; v++ {
				x := d.Vert[v]
				di := norm(sub(x, s))
				for k := range pos {
					if k == i || d.Dup[k] >= 0 {
						continue
					}
					if dk := norm(sub(x, site(pos, k))); dk < di-2*eps {
						t.Fatalf("vertex %v of cell %d is nearer site %d (%g) than its own (%g)", x, i, k, dk, di)
					}
				}
			}
		}
	}
}

func inBox(s vec3, b Box) bool {
	for a := 0; a < 3; a++ {
		if s[a] < b.Min[a] || s[a] > b.Max[a] {
			return false
		}
	}
	return true
}

// checkTiles asserts that the cells' volumes add up to the box's.
func checkTiles(t *testing.T, d *Diagram, box Box) {
	t.Helper()
	sum := 0.0
	for _, v := range d.Volume {
		sum += v
	}
	if want := boxVolume(box); math.Abs(sum-want) > 1e-9*want {
		t.Fatalf("volumes sum to %.15g, box %.15g (relative %.2g)", sum, want, (sum-want)/want)
	}
}

// Random points: the cells tile the box, each facet between two particles appears in both cells with equal area,
// opposite normals and the same centroid, each cell holds its site, and every vertex is nearest its own site.
func TestRandomPointsTileTheBox(t *testing.T) {
	if testing.Short() {
		t.Skip("about 4 s on 2 cores: Voronoi cells of many random points; make test runs it")
	}
	for _, n := range []int{1, 2, 10, 200, 2000} {
		pos := random(n, unitish, int64(n))
		d := build(t, pos, unitish, Options{})
		checkTiles(t, d, unitish)
		checkCells(t, d, pos, unitish)
		st := d.Stats()
		if st.Unpaired != 0 || st.Empty != 0 || st.Duplicates != 0 {
			t.Fatalf("n %d: %+v", n, st)
		}
		// each cell's own polygon for a shared facet: the two agree to rounding, except where a vertex within
		// Eps of a third plane was snapped in one cell only
		paired, loose := 0, 0
		for f := range d.Owner {
			if d.Owner[f] >= 0 {
				tw := d.Twin[f]
				if tw < 0 {
					t.Fatalf("n %d: facet %d has no twin", n, f)
				}
				paired++
				af, at := loopArea(d, f), loopArea(d, int(tw))
				if math.Abs(af-at) > 1e-9*af || norm(sub(loopCentroid(d, f), loopCentroid(d, int(tw)))) > 1e-9*d.opt.Spacing {
					loose++
				}
			}
		}
		if loose*100 > paired {
			t.Fatalf("n %d: %d of %d shared facets differ between their cells by more than 1e-9", n, loose, paired)
		}
		if n >= 200 {
			// a Poisson–Voronoi cell has about 15.5 facets; one near the walls a few fewer particle facets
			mean := float64(st.Facets) / float64(n)
			if mean < 11 || mean > 17 || paired == 0 {
				t.Fatalf("n %d: %.1f facets per cell, %d paired", n, mean, paired)
			}
		}
	}
}

// cubic lattice of nx·ny·nz points at spacing h from origin o (computed in float32, as a scene would).
func lattice(o [3]float32, h float32, nx, ny, nz int) [][4]float32 {
	var pos [][4]float32
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				pos = append(pos, [4]float32{o[0] + (float32(x)+0.5)*h, o[1] + (float32(y)+0.5)*h, o[2] + (float32(z)+0.5)*h})
			}
		}
	}
	return pos
}

// rotate turns the points about o by angle a about z, then b about x, rounding each to float32.
func rotate(pos [][4]float32, o [3]float32, a, b float64) {
	ca, sa, cb, sb := math.Cos(a), math.Sin(a), math.Cos(b), math.Sin(b)
	for i, p := range pos {
		x, y, z := float64(p[0]-o[0]), float64(p[1]-o[1]), float64(p[2]-o[2])
		x, y = ca*x-sa*y, sa*x+ca*y
		y, z = cb*y-sb*z, sb*y+cb*z
		pos[i] = [4]float32{o[0] + float32(x), o[1] + float32(y), o[2] + float32(z)}
	}
}

// A cubic lattice, where every cell has co-spherical neighbours whose bisectors touch the cube only at an edge or
// a corner: every interior cell is a cube of volume h³ with six facets of area h², owned by the six face
// neighbours, and no sliver facets at all.
func TestLatticeCellsAreCubes(t *testing.T) {
	cases := []struct {
		name string
		o    [3]float32
		h    float32
		box  Box
	}{
		{"exact", [3]float32{0, 0, 0}, 0.125, Box{Max: [3]float64{1.5, 1.25, 1}}},
		{"float32", [3]float32{0.3, 0.1, 0.7}, 0.02, Box{Min: [3]float64{0.1, 0, 0.5}, Max: [3]float64{0.6, 0.4, 1.3}}},
		{"far", [3]float32{3.1, 2.2, 4.3}, 0.013, Box{Min: [3]float64{3, 2, 4}, Max: [3]float64{3.5, 2.5, 4.5}}},
		// rotated, each point rounds to float32 on its own: co-spherical only to within an ulp
		{"rotated", [3]float32{3.1, 2.2, 4.3}, 0.013, Box{Min: [3]float64{2.9, 1.9, 3.9}, Max: [3]float64{3.6, 2.6, 4.6}}},
	}
	for _, c := range cases {
		const nx, ny, nz = 9, 8, 7
		pos := lattice(c.o, c.h, nx, ny, nz)
		if c.name == "rotated" {
			rotate(pos, c.o, 0.3, 0.5)
		}
		d := build(t, pos, c.box, Options{Spacing: float64(c.h)})
		checkTiles(t, d, c.box)
		checkCells(t, d, pos, c.box)
		h := float64(c.h)
		rel := 20 * d.Eps() / h // float32 positions are a lattice only to within rounding
		if st := d.Stats(); st.Slivers != 0 || st.Unpaired != 0 {
			t.Fatalf("%s: %+v", c.name, st)
		}
		for z := 1; z < nz-1; z++ {
			for y := 1; y < ny-1; y++ {
				for x := 1; x < nx-1; x++ {
					i := (z*ny+y)*nx + x
					lo, hi := d.Facets(i)
					if hi-lo != 6 || math.Abs(d.Volume[i]-h*h*h) > rel*h*h*h {
						t.Fatalf("%s: cell %d has %d facets and volume %g, want 6 and %g", c.name, i, hi-lo, d.Volume[i], h*h*h)
					}
					want := map[int32]bool{int32(i - 1): true, int32(i + 1): true, int32(i - nx): true, int32(i + nx): true,
						int32(i - nx*ny): true, int32(i + nx*ny): true}
					for f := lo; f < hi; f++ {
						if !want[d.Owner[f]] || math.Abs(d.Area[f]-h*h) > rel*h*h {
							t.Fatalf("%s: cell %d facet owned by %d with area %g", c.name, i, d.Owner[f], d.Area[f])
						}
						delete(want, d.Owner[f])
					}
					if vlo, vhi := d.Vertices(i); vhi-vlo != 8 {
						t.Fatalf("%s: cell %d has %d vertices", c.name, i, vhi-vlo)
					}
				}
			}
		}
	}
}

// Duplicates: a particle at the same position as a lower-numbered one gets an empty cell and Dup names the
// lowest; the others still tile the box and none has a facet owned by a duplicate.
func TestDuplicatesGetEmptyCells(t *testing.T) {
	pos := random(300, unitish, 7)
	pos = append(pos, pos[5], pos[5], pos[17], pos[299])
	pos[40] = pos[41] // a duplicate earlier in the order: 41 duplicates 40
	d := build(t, pos, unitish, Options{Spacing: spacingOf(300, unitish)})
	checkTiles(t, d, unitish)
	checkCells(t, d, pos, unitish)
	want := map[int]int32{41: 40, 300: 5, 301: 5, 302: 17, 303: 299}
	for i := range pos {
		w, ok := want[i]
		if !ok {
			w = -1
		}
		if d.Dup[i] != w {
			t.Fatalf("Dup[%d] = %d, want %d", i, d.Dup[i], w)
		}
	}
	for f, o := range d.Owner {
		if o >= 0 && d.Dup[o] >= 0 {
			t.Fatalf("facet %d owned by duplicate %d", f, o)
		}
	}
	if st := d.Stats(); st.Duplicates != 5 || st.Sites != len(pos)-5 || st.Unpaired != 0 {
		t.Fatalf("%+v", st)
	}
}

// Points on the box's faces, edges and corners, and points outside it: no error, the cells still tile the box,
// a boundary site's cell has it on its boundary, and an outside site's cell is the part of its region in the box.
func TestBoundaryAndOutsidePoints(t *testing.T) {
	b := unitish
	pos := random(400, b, 3)
	for i := 0; i < 60; i++ { // snap some onto faces, some onto corners
		for a := 0; a < 3; a++ {
			if (i+a)%3 == 0 || i < 8 {
				pos[i][a] = float32(b.Min[a])
				if i%2 == 1 {
					pos[i][a] = float32(b.Max[a])
				}
			}
		}
	}
	outside := len(pos)
	pos = append(pos, [4]float32{-0.01, 1, 0.25}, [4]float32{0.5, 2.01, 0.25}, [4]float32{5, 5, 5})
	d := build(t, pos, b, Options{Spacing: spacingOf(400, b)})
	checkTiles(t, d, b)
	checkCells(t, d, pos, b)
	if d.Volume[outside] <= 0 || d.Volume[outside+1] <= 0 {
		t.Fatalf("sites just outside the box have volumes %g, %g", d.Volume[outside], d.Volume[outside+1])
	}
	if d.Volume[outside+2] != 0 || d.Stats().Empty != 1 {
		t.Fatalf("a site far outside has volume %g; stats %+v", d.Volume[outside+2], d.Stats())
	}
}

// The same input gives bit-identical output on any number of workers.
func TestDeterministicAcrossWorkers(t *testing.T) {
	pos := random(3000, unitish, 11)
	pos = append(pos, lattice([3]float32{0.2, 0.2, 0.1}, 0.05, 6, 6, 6)...) // degenerate corner too
	var ref *Diagram
	for _, w := range []int{1, 2, 3, 8} {
		d := build(t, pos, unitish, Options{Spacing: spacingOf(len(pos), unitish), Workers: w})
		if ref == nil {
			ref = d
			continue
		}
		if d.Stats() != ref.Stats() {
			t.Fatalf("workers %d: stats %+v, want %+v", w, d.Stats(), ref.Stats())
		}
		same := eqBits(d.Volume, ref.Volume) && eqBits(d.Area, ref.Area) && eqVec(d.Vert, ref.Vert) &&
			eqVec(d.Normal, ref.Normal) && eqVec(d.FacetCentroid, ref.FacetCentroid) && eqVec(d.Centroid, ref.Centroid) &&
			eqInt(d.Loop, ref.Loop) && eqInt(d.LoopStart, ref.LoopStart) && eqInt(d.Owner, ref.Owner) &&
			eqInt(d.Twin, ref.Twin) && eqInt(d.FacetStart, ref.FacetStart) && eqInt(d.VertStart, ref.VertStart)
		if !same {
			t.Fatalf("workers %d: output differs from one worker's", w)
		}
	}
}

func eqBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func eqVec(a, b [][3]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !eqBits(a[i][:], b[i][:]) {
			return false
		}
	}
	return true
}

func eqInt(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Bad input and exhausted budgets are errors that say what and where, never a panic; the diagram is then empty.
func TestErrors(t *testing.T) {
	for _, opt := range []Options{{}, {Spacing: -1}, {Spacing: math.Inf(1)}, {Spacing: 1, EpsRel: 0.5}, {Spacing: 1, MaxFacets: 3}, {Spacing: 1, MaxParticles: -1}} {
		if _, err := New(opt); err == nil {
			t.Errorf("New(%+v) succeeded", opt)
		}
	}
	pos := random(500, unitish, 5)
	cases := []struct {
		opt  Options
		pos  [][4]float32
		box  Box
		want string
	}{
		{Options{Spacing: 0.1, MaxParticles: 100}, pos, unitish, "exceed the budget"},
		{Options{Spacing: 0.1, MaxFacets: 8}, pos, unitish, "too many facets"},
		{Options{Spacing: 0.1}, append(append([][4]float32{}, pos...), [4]float32{float32(math.NaN()), 0, 0}), unitish, "particle 500 has a non-finite"},
		{Options{Spacing: 0.1}, append(append([][4]float32{}, pos...), [4]float32{0, float32(math.Inf(-1)), 0}), unitish, "non-finite"},
		{Options{Spacing: 0.1}, pos, Box{Min: [3]float64{0, 0, 1}, Max: [3]float64{1, 1, 1}}, "empty or infinite"},
		{Options{Spacing: 0.1}, pos, Box{Min: [3]float64{0, 0, 0}, Max: [3]float64{1, math.Inf(1), 1}}, "empty or infinite"},
	}
	for _, c := range cases {
		d, err := New(c.opt)
		if err != nil {
			t.Fatal(err)
		}
		err = d.Build(c.pos, c.box)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opt, err, c.want)
		}
		if d.NumCells() != 0 || d.NumFacets() != 0 {
			t.Errorf("a failed build left %d cells, %d facets", d.NumCells(), d.NumFacets())
		}
	}
	// an empty input is no error
	d := build(t, nil, unitish, Options{Spacing: 0.1})
	if d.NumCells() != 0 || d.NumFacets() != 0 {
		t.Fatalf("empty input: %d cells", d.NumCells())
	}
}

// Rebuilding with the same particle count reuses every buffer: what is left is the worker pools' goroutines, a
// few kilobytes, against megabytes of diagram.
func TestRebuildDoesNotAllocate(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: repeated rebuilds of a large diagram; make test runs it")
	}
	pos := random(5000, unitish, 13)
	d := build(t, pos, unitish, Options{})
	rng := rand.New(rand.NewSource(1))
	rebuild := func() {
		for i := range pos { // move the particles a little, as a step would
			pos[i][0] = float32(min(max(float64(pos[i][0])+0.01*(rng.Float64()-0.5), 0), 1))
		}
		if err := d.Build(pos, unitish); err != nil {
			t.Fatal(err)
		}
	}
	for range 12 { // let the buffers reach the largest cells these moves make
		rebuild()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 5
	for range runs {
		rebuild()
	}
	runtime.ReadMemStats(&after)
	if perBuild := (after.TotalAlloc - before.TotalAlloc) / runs; perBuild > 32<<10 {
		t.Fatalf("%d bytes allocated per rebuild", perBuild)
	}
}

// loopArea is the area of facet f's polygon, from its vertices.
func loopArea(d *Diagram, f int) float64 {
	loop := d.FacetLoop(f)
	var a vec3
	for k := range loop {
		a = add(a, cross(d.Vert[loop[k]], d.Vert[loop[(k+1)%len(loop)]]))
	}
	return 0.5 * norm(a)
}

// loopCentroid is the centroid of facet f's polygon, from its vertices.
func loopCentroid(d *Diagram, f int) vec3 {
	loop := d.FacetLoop(f)
	v0 := d.Vert[loop[0]]
	var m vec3
	w := 0.0
	for k := 1; k+1 < len(loop); k++ {
		v1, v2 := d.Vert[loop[k]], d.Vert[loop[k+1]]
		a := norm(cross(sub(v1, v0), sub(v2, v0)))
		m = add(m, scale(add(add(v0, v1), v2), a/3))
		w += a
	}
	return scale(m, 1/w)
}

// With a reach, each cell is its plain cell cut by the cube of half-side Reach around its site: cells that fit in
// the cube are unchanged, the others shrink, and no vertex lies outside the cube.
func TestReachClipsToCube(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s on 2 cores: Voronoi cells of many random points; make test runs it")
	}
	pos := random(1500, unitish, 21)
	h := spacingOf(len(pos), unitish)
	plain := build(t, pos, unitish, Options{Spacing: h})
	for _, reach := range []float64{0.6 * h, 1.2 * h, 10} {
		d := build(t, pos, unitish, Options{Spacing: h, Reach: reach})
		checkCells(t, d, pos, unitish)
		cut := 0
		for i := range pos {
			s := site(pos, i)
			fits := true
			vlo, vhi := plain.Vertices(i)
			for v := vlo; v < vhi; v++ {
				for a := 0; a < 3; a++ {
					fits = fits && math.Abs(plain.Vert[v][a]-s[a]) <= reach
				}
			}
			switch {
			case fits && math.Abs(d.Volume[i]-plain.Volume[i]) > 1e-12*plain.Volume[i]:
				t.Fatalf("reach %g: cell %d fits the cube but its volume went from %g to %g", reach, i, plain.Volume[i], d.Volume[i])
			case !fits && !(d.Volume[i] < plain.Volume[i]):
				t.Fatalf("reach %g: cell %d sticks out of the cube but kept volume %g of %g", reach, i, d.Volume[i], plain.Volume[i])
			}
			if !fits {
				cut++
			}
			vlo, vhi = d.Vertices(i)
			for v := vlo; v < vhi; v++ {
				for a := 0; a < 3; a++ {
					if math.Abs(d.Vert[v][a]-s[a]) > reach+d.Eps() {
						t.Fatalf("reach %g: cell %d vertex %v outside the cube", reach, i, d.Vert[v])
					}
				}
			}
		}
		if (reach < h) != (cut > len(pos)/2) || (reach == 10) != (cut == 0) {
			t.Fatalf("reach %g cut %d of %d cells", reach, cut, len(pos))
		}
	}
}

// A lattice point moved by 2·Eps along x makes some of its neighbours' planes cut cube corners just over Eps
// deep, leaving facets a few Eps across: they are dropped as slivers, so every interior cell still has six facets, and the volumes still tile the box.
func TestSliversAreDropped(t *testing.T) {
	const nx, ny, nz = 6, 6, 6
	box := Box{Max: [3]float64{0.75, 0.75, 0.75}}
	pos := lattice([3]float32{}, 0.125, nx, ny, nz)
	d := build(t, pos, box, Options{Spacing: 0.125})
	moved := (2*ny+2)*nx + 2
	pos[moved][0] += float32(2 * d.Eps())
	d = build(t, pos, box, Options{Spacing: 0.125})
	checkTiles(t, d, box)
	checkCells(t, d, pos, box)
	if d.Stats().Slivers == 0 {
		t.Fatalf("no slivers dropped: %+v", d.Stats())
	}
	for z := 1; z < nz-1; z++ {
		for y := 1; y < ny-1; y++ {
			for x := 1; x < nx-1; x++ {
				i := (z*ny+y)*nx + x
				if lo, hi := d.Facets(i); hi-lo != 6 {
					t.Fatalf("cell %d has %d facets", i, hi-lo)
				}
			}
		}
	}
}
