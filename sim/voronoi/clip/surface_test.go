package clip

import (
	"math"
	"math/rand"
	"reflect"
	"sort"
	"testing"

	"github.com/slosh/slosh/sim/voronoi/cell"
)

func site(p [4]float32) vec3 { return vec3{float64(p[0]), float64(p[1]), float64(p[2])} }

// Two particles closer than 2r: each cell holds its ball less the half lens beyond the bisector, whose
// volume is known exactly, though no edge of either cell crosses the sphere (each ball lies inside its cell but
// for the shared facet, which the sphere crosses only through the facet's middle).
func TestPairOfBalls(t *testing.T) {
	const r = 0.1
	for _, dist := range []float64{0.5 * r, 1.2 * r, 1.9 * r} {
		pos := [][4]float32{{0.5, 0.5, 0.5}, {float32(0.5 + dist), 0.5, 0.5}}
		c := run(t, pos, cell.Box{Max: [3]float64{1, 1, 1}}, r, r, nil)
		lens := math.Pi * (4*r + dist) * (2*r - dist) * (2*r - dist) / 12
		want := 2*4.0/3*math.Pi*r*r*r - lens
		got := total(c)
		t.Logf("d = %.2fr: volume %g, want %g (%.2f%%)", dist/r, got, want, 100*(got-want)/want)
		if math.Abs(got-want) > 0.02*want {
			t.Fatalf("d = %.2fr: volume %g, want %g", dist/r, got, want)
		}
		if c.State[0] != Liquid || c.State[1] != Liquid {
			t.Fatalf("states %v", c.State)
		}
		checkClosed(t, c, r)
		// the shared facet is the disc of radius √(r² − d²/4) on the bisector
		rho2 := r*r - dist*dist/4
		for i := range 2 {
			lo, hi := c.Facets(i)
			n := 0
			for f := lo; f < hi; f++ {
				if c.Kind[f] != Voronoi {
					continue
				}
				n++
				if a := c.Area[f]; math.Abs(a-math.Pi*rho2) > 0.02*math.Pi*rho2 {
					t.Fatalf("cell %d: shared facet area %g, want %g", i, a, math.Pi*rho2)
				}
			}
			if n != 1 {
				t.Fatalf("cell %d has %d Voronoi facets, want 1", i, n)
			}
			for v := c.VertStart[i]; v < c.VertStart[i+1]; v++ {
				if w := sub(c.Vert[v], site(pos[i])); math.Sqrt(dot(w, w)) > r*(1+1e-9) {
					t.Fatalf("cell %d: vertex %v outside the ball", i, c.Vert[v])
				}
			}
		}
	}
}

// One flat layer of particles, r = h: away from the layer's edges each cell is the column of the h × h square
// between the heights ±r (the Reach cube) cut by the ball, whose volume is integrated on a fine grid.
func TestFlatLayerCell(t *testing.T) {
	const h, k = 0.1, 7
	r := h
	var pos [][4]float32
	for y := range k {
		for x := range k {
			pos = append(pos, [4]float32{float32((float64(x) + 0.5) * h), float32((float64(y) + 0.5) * h), 0.5})
		}
	}
	c := run(t, pos, cell.Box{Max: [3]float64{k * h, k * h, 1}}, h, r, nil)
	m := 120
	in := 0
	for z := range m {
		for y := range m {
			for x := range m {
				p := vec3{(float64(x)+0.5)/float64(m) - 0.5, (float64(y)+0.5)/float64(m) - 0.5,
					2 * ((float64(z)+0.5)/float64(m) - 0.5)} // in units of h over the column [−h/2, h/2]² × [−h, h]
				if dot(p, p) < 1 {
					in++
				}
			}
		}
	}
	want := 2 * h * h * h * float64(in) / float64(m*m*m)
	checkClosed(t, c, h)
	for _, i := range []int{3*k + 3, 2*k + 4, 4*k + 2} {
		got := c.Volume[i]
		t.Logf("cell %d: volume %g, want %g (%.2f%%)", i, got, want, 100*(got-want)/want)
		if math.Abs(got-want) > 0.01*want {
			t.Fatalf("cell %d: volume %g, want %g", i, got, want)
		}
		air := 0.0
		lo, hi := c.Facets(i)
		for f := lo; f < hi; f++ {
			if c.Kind[f] == Air {
				air += c.Area[f]
			}
		}
		if air == 0 {
			t.Fatalf("cell %d has no air facets", i)
		}
	}
}

// A jittered blob: the two sides of every shared Voronoi facet have the same area and opposite normals after
// the free surface clip (the projection pairs them), and any number of workers gives the same output.
func TestSharedFacetsAgree(t *testing.T) {
	const h = 0.1
	rng := rand.New(rand.NewSource(3))
	var pos [][4]float32
	for z := range 5 {
		for y := range 5 {
			for x := range 5 {
				p := [4]float32{}
				for a, q := range [3]int{x, y, z} {
					p[a] = float32(0.25 + (float64(q)+0.3*(rng.Float64()-0.5))*h)
				}
				pos = append(pos, p)
			}
		}
	}
	box := cell.Box{Max: [3]float64{1, 1, 1}}
	r := 1.1 * h
	d, err := cell.New(cell.Options{Spacing: h, Reach: r})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Build(pos, box); err != nil {
		t.Fatal(err)
	}
	var cs [3]*Clipper
	for w, workers := range []int{1, 3, 1} {
		c, err := New(Options{Spacing: h, Radius: r, Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		c.noPair = w == 2
		if err := c.Clip(d, pos, nil); err != nil {
			t.Fatal(err)
		}
		cs[w] = c
	}
	c := cs[0]
	checkClosedTol(t, c, h, float64(d.Stats().Slivers)*d.Stats().Eps*h) // the diagram drops sliver facets
	type pair struct{ i, j int32 }
	facet := map[pair]int{}
	for i := range c.NumCells() {
		lo, hi := c.Facets(i)
		for f := lo; f < hi; f++ {
			if c.Kind[f] == Voronoi {
				facet[pair{int32(i), c.Owner[f]}] = f
			}
		}
	}
	worst, pairs := 0.0, 0
	for k, f := range facet {
		g, ok := facet[pair{k.j, k.i}]
		if !ok {
			if c.Area[f] > 1e-6*h*h {
				t.Fatalf("cell %d: facet with %d of area %g has no twin", k.i, k.j, c.Area[f])
			}
			continue
		}
		pairs++
		e := math.Abs(c.Area[f]-c.Area[g]) / max(c.Area[f], c.Area[g])
		worst = max(worst, e)
		if c.Area[f] != c.Area[g] {
			t.Fatalf("cells %d, %d: shared facet areas %g and %g", k.i, k.j, c.Area[f], c.Area[g])
		}
		if dot(c.Normal[f], c.Normal[g]) > -1+1e-9 {
			t.Fatalf("cells %d, %d: normals %v and %v not opposite", k.i, k.j, c.Normal[f], c.Normal[g])
		}
	}
	// unpaired, the two meshes' measures differ only by the mesh's error (different Reach cuts)
	u := cs[2]
	raw := 0.0
	for k, f := range facet {
		if g, ok := facet[pair{k.j, k.i}]; ok {
			raw = max(raw, math.Abs(u.Area[f]-u.Area[g])/max(u.Area[f], u.Area[g]))
		}
	}
	t.Logf("%d shared facets, largest relative area difference %.3g (%.3g before pairing)", pairs, worst, raw)
	if raw > 1e-2 {
		t.Fatalf("before pairing, shared facet areas differ by %.3g", raw)
	}
	if pairs == 0 {
		t.Fatal("no shared facets")
	}
	o := cs[1]
	if len(o.Area) != len(c.Area) || len(o.Vert) != len(c.Vert) {
		t.Fatal("output depends on the number of workers")
	}
	for f := range c.Area {
		if c.Area[f] != o.Area[f] || c.Normal[f] != o.Normal[f] || c.Owner[f] != o.Owner[f] {
			t.Fatalf("facet %d depends on the number of workers", f)
		}
	}
	for i := range c.Volume {
		if c.Volume[i] != o.Volume[i] {
			t.Fatalf("cell %d depends on the number of workers", i)
		}
	}
}

// A blob resting in a floor: the free surface and the obstacle together keep the union of spheres above the
// floor, with no vertex below it.
func TestBlobOnFloor(t *testing.T) {
	const h = 0.1
	var pos [][4]float32
	for z := range 2 {
		for y := range 3 {
			for x := range 3 {
				pos = append(pos, [4]float32{float32(0.4 + float64(x)*h), float32(0.4 + float64(y)*h),
					float32(0.33 + float64(z)*h)})
			}
		}
	}
	floor := func(p [3]float64) float64 { return p[2] - 0.3 } // solid below z = 0.3
	r := h
	c := run(t, pos, cell.Box{Max: [3]float64{1, 1, 1}}, h, r, []SDF{floor})
	checkOutside(t, c, floor, 1e-9)
	checkClosed(t, c, h)
	want := unionVolume(pos, r, 0.3, 400)
	got := total(c)
	t.Logf("volume %g, union of spheres above the floor %g (%.2f%%)", got, want, 100*(got-want)/want)
	if math.Abs(got-want) > 0.015*want {
		t.Fatalf("volume %g, want %g", got, want)
	}
	for i := range c.NumCells() {
		if c.State[i] != Liquid {
			t.Fatalf("cell %d state %d", i, c.State[i])
		}
	}
}

// unionVolume is the volume of the union of the balls of radius r around pos above the height zmin, integrated
// exactly along vertical lines over an m × m grid of the balls' bounding square.
func unionVolume(pos [][4]float32, r, zmin float64, m int) float64 {
	lo, hi := vec3{math.Inf(1), math.Inf(1)}, vec3{math.Inf(-1), math.Inf(-1)}
	for _, q := range pos {
		for a := range 2 {
			lo[a], hi[a] = min(lo[a], float64(q[a])-r), max(hi[a], float64(q[a])+r)
		}
	}
	dx, dy := (hi[0]-lo[0])/float64(m), (hi[1]-lo[1])/float64(m)
	vol := 0.0
	var iv [][2]float64
	for y := range m {
		for x := range m {
			px, py := lo[0]+(float64(x)+0.5)*dx, lo[1]+(float64(y)+0.5)*dy
			iv = iv[:0]
			for _, q := range pos {
				ex, ey := px-float64(q[0]), py-float64(q[1])
				if h2 := r*r - ex*ex - ey*ey; h2 > 0 {
					hz := math.Sqrt(h2)
					a, b := max(float64(q[2])-hz, zmin), float64(q[2])+hz
					if b > a {
						iv = append(iv, [2]float64{a, b})
					}
				}
			}
			sort.Slice(iv, func(i, j int) bool { return iv[i][0] < iv[j][0] })
			end := math.Inf(-1)
			for _, v := range iv {
				a := max(v[0], end)
				if v[1] > a {
					vol += (v[1] - a) * dx * dy
					end = v[1]
				}
			}
		}
	}
	return vol
}

// Cells that no clip reaches are copied from the diagram: the same cells and facets as measuring them, and the
// clipped ones untouched by the copy.
func TestCopiedCellsMatchMeasured(t *testing.T) {
	const h = 0.1
	rng := rand.New(rand.NewSource(5))
	var pos [][4]float32
	for z := range 6 {
		for y := range 6 {
			for x := range 6 {
				p := [4]float32{}
				for a, q := range [3]int{x, y, z} {
					p[a] = float32(0.2 + (float64(q)+0.2*(rng.Float64()-0.5))*h)
				}
				pos = append(pos, p)
			}
		}
	}
	ball := func(p [3]float64) float64 { w := sub(p, vec3{0.2, 0.2, 0.2}); return math.Sqrt(dot(w, w)) - 0.15 }
	r := 1.2 * h
	d, err := cell.New(cell.Options{Spacing: h, Reach: r})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Build(pos, cell.Box{Max: [3]float64{1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	var cs [2]*Clipper
	for k := range 2 {
		c, err := New(Options{Spacing: h, Radius: r})
		if err != nil {
			t.Fatal(err)
		}
		c.noCopy = k == 1
		if err := c.Clip(d, pos, []SDF{ball}); err != nil {
			t.Fatal(err)
		}
		cs[k] = c
	}
	a, m := cs[0], cs[1]
	vtol := d.Stats().Eps * h * h // the diagram's volume keeps the dropped slivers' part
	copied := 0
	for i := range a.NumCells() {
		if a.measured[i] {
			continue
		}
		copied++
		if a.State[i] != m.State[i] || math.Abs(a.Volume[i]-m.Volume[i]) > vtol {
			t.Fatalf("cell %d: copied state %d volume %g, measured %d %g", i, a.State[i], a.Volume[i], m.State[i],
				m.Volume[i])
		}
		alo, ahi := a.Facets(i)
		mlo, mhi := m.Facets(i)
		if ahi-alo != mhi-mlo {
			t.Fatalf("cell %d: %d facets copied, %d measured", i, ahi-alo, mhi-mlo)
		}
		for k := range ahi - alo {
			f, g := alo+k, mlo+k
			if a.Kind[f] != m.Kind[g] || a.Owner[f] != m.Owner[g] || math.Abs(a.Area[f]-m.Area[g]) > 1e-9*h*h ||
				dot(a.Normal[f], m.Normal[g]) < 1-1e-9 {
				t.Fatalf("cell %d facet %d: copied %v %d %g %v, measured %v %d %g %v", i, k, a.Kind[f], a.Owner[f],
					a.Area[f], a.Normal[f], m.Kind[g], m.Owner[g], m.Area[g], m.Normal[g])
			}
		}
	}
	if copied == 0 || copied == a.NumCells() {
		t.Fatalf("%d of %d cells copied", copied, a.NumCells())
	}
	for i := range a.NumCells() {
		if math.Abs(a.Volume[i]-m.Volume[i]) > vtol {
			t.Fatalf("cell %d: volume %g, measured everywhere %g", i, a.Volume[i], m.Volume[i])
		}
	}
	// the particles near the ball's centre lie inside the solid: what the free surface leaves of their cells is a
	// thin shell around the solid, whose obstacle cap curves around the removed side
	checkOutside(t, a, ball, 1e-9)
	checkClosedTol(t, a, h, float64(d.Stats().Slivers)*d.Stats().Eps*h)
	t.Logf("%d of %d cells copied", copied, a.NumCells())
}

// Random clouds of varied density, radii and obstacles: every cell is closed, has no vertex outside its ball or
// inside a solid, and no more volume than its ball.
func TestRandomClouds(t *testing.T) {
	const h = 0.1
	rng := rand.New(rand.NewSource(9))
	for trial := range 12 {
		n := 20 + rng.Intn(200)
		spread := 0.2 + 0.6*rng.Float64()
		var pos [][4]float32
		for range n {
			var p [4]float32
			for a := range 3 {
				p[a] = float32(0.5 + spread*(rng.Float64()-0.5))
			}
			pos = append(pos, p)
		}
		r := h * (0.6 + 0.9*rng.Float64())
		ctr := vec3{rng.Float64(), rng.Float64(), rng.Float64()}
		R := 0.1 + 0.2*rng.Float64()
		obst := []SDF{
			func(p [3]float64) float64 { w := sub(p, ctr); return math.Sqrt(dot(w, w)) - R },
			func(p [3]float64) float64 { return p[2] - 0.35 },
		}
		d, err := cell.New(cell.Options{Spacing: h, Reach: r})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Build(pos, cell.Box{Max: [3]float64{1, 1, 1}}); err != nil {
			t.Fatal(err)
		}
		c, err := New(Options{Spacing: h, Radius: r})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Clip(d, pos, obst); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		checkClosedTol(t, c, h, float64(max(d.Stats().Slivers, 1))*d.Stats().Eps*h)
		// the last obstacle clipped leaves no vertex inside it. KNOWN GAP: an earlier obstacle's cap is one fan,
		// flat across the cell and inside the curved solid by its sag, and a later clip puts vertices on it (0.06h
		// deep here; 0.2h without the free surface, whose cells are larger)
		checkOutside(t, c, obst[1], 1e-9)
		checkOutside(t, c, obst[0], 0.1*h)
		ball := 4.0 / 3 * math.Pi * r * r * r
		for i := range c.NumCells() {
			if c.Volume[i] > ball*(1+1e-9) || math.IsNaN(c.Volume[i]) {
				t.Fatalf("trial %d cell %d: volume %g above the ball's %g", trial, i, c.Volume[i], ball)
			}
			for v := c.VertStart[i]; v < c.VertStart[i+1]; v++ {
				if w := sub(c.Vert[v], site(pos[i])); math.Sqrt(dot(w, w)) > r*(1+1e-9) {
					t.Fatalf("trial %d cell %d: vertex outside the ball", trial, i)
				}
			}
		}
		st := c.Stats()
		t.Logf("trial %d: %d particles, r = %.2fh: %d refined, %d ballistic, %d empty", trial, n, r/h, st.Refined,
			st.Ballistic, st.Empty)
	}
}

// Joining each facet's kept parts into one polygon changes no measure, only the number of polygons.
func TestMergedKeptParts(t *testing.T) {
	const h = 0.1
	pos0, _ := lattice(4, h)
	rng := rand.New(rand.NewSource(7))
	var pos [][4]float32
	for _, p := range pos0 {
		for a := range 3 {
			p[a] += float32(0.3 + 0.2*h*(rng.Float64()-0.5))
		}
		pos = append(pos, p)
	}
	d, err := cell.New(cell.Options{Spacing: h, Reach: h})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Build(pos, cell.Box{Max: [3]float64{1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	var cs [2]*Clipper
	for k := range 2 {
		c, err := New(Options{Spacing: h, Radius: h})
		if err != nil {
			t.Fatal(err)
		}
		c.noMerge = k == 1
		if err := c.Clip(d, pos, nil); err != nil {
			t.Fatal(err)
		}
		cs[k] = c
	}
	a, m := cs[0], cs[1]
	if len(a.Area) != len(m.Area) {
		t.Fatalf("%d facets merged, %d not", len(a.Area), len(m.Area))
	}
	for i := range a.NumCells() {
		if math.Abs(a.Volume[i]-m.Volume[i]) > 1e-12*h*h*h {
			t.Fatalf("cell %d: volume %g merged, %g not", i, a.Volume[i], m.Volume[i])
		}
	}
	for f := range a.Area {
		if a.Kind[f] != m.Kind[f] || math.Abs(a.Area[f]-m.Area[f]) > 1e-12*h*h || dot(a.Normal[f], m.Normal[f]) < 1-1e-12 {
			t.Fatalf("facet %d: %v %g merged, %v %g not", f, a.Kind[f], a.Area[f], m.Kind[f], m.Area[f])
		}
	}
	pa, pm := a.Stats().Polygons, m.Stats().Polygons
	t.Logf("%d polygons merged, %d not", pa, pm)
	if pa >= pm*9/10 {
		t.Fatalf("%d polygons merged, %d not", pa, pm)
	}
	checkClosedTol(t, a, h, float64(max(d.Stats().Slivers, 1))*d.Stats().Eps*h)
}

// The free surface's clip leaves out the mesh polygons wholly inside the ball (refine's skip): the output is the
// same, bit for bit, as meshing them all, on a disordered block whose inner cells reach just beyond their spheres
// (the splash's bulk) and on random clouds with obstacles (near which nothing is merged, so nothing is skipped).
func TestSkippedPolygonsChangeNothing(t *testing.T) {
	const h = 0.1
	rng := rand.New(rand.NewSource(11))
	type input struct {
		pos  [][4]float32
		r    float64
		obst []SDF
	}
	var ins []input
	pos0, _ := lattice(6, h)
	for _, jit := range []float64{0.2, 0.5} {
		var pos [][4]float32
		for _, p := range pos0 {
			for a := range 3 {
				p[a] += float32(0.2 + jit*h*(rng.Float64()-0.5))
			}
			pos = append(pos, p)
		}
		ins = append(ins, input{pos: pos, r: h})
	}
	for range 4 {
		var pos [][4]float32
		for range 50 + rng.Intn(150) {
			var p [4]float32
			for a := range 3 {
				p[a] = float32(0.5 + 0.4*(rng.Float64()-0.5))
			}
			pos = append(pos, p)
		}
		ctr := vec3{rng.Float64(), rng.Float64(), rng.Float64()}
		ins = append(ins, input{pos: pos, r: h * (0.7 + 0.8*rng.Float64()), obst: []SDF{
			func(p [3]float64) float64 { w := sub(p, ctr); return math.Sqrt(dot(w, w)) - 0.2 },
		}})
	}
	skipped := 0
	for k, in := range ins {
		d, err := cell.New(cell.Options{Spacing: h, Reach: in.r})
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Build(in.pos, cell.Box{Max: [3]float64{1, 1, 1}}); err != nil {
			t.Fatal(err)
		}
		var cs [3]*Clipper // skipping, meshing all, skipping and then meshing all again (a failed merge's path)
		for m := range 3 {
			if cs[m], err = New(Options{Spacing: h, Radius: in.r}); err != nil {
				t.Fatal(err)
			}
			cs[m].noSkip, cs[m].remesh = m == 1, m == 2
			if err := cs[m].Clip(d, in.pos, in.obst); err != nil {
				t.Fatal(err)
			}
		}
		f := cs[1]
		if f.Stats().Skipped != 0 {
			t.Fatalf("input %d: %d polygons skipped with noSkip", k, f.Stats().Skipped)
		}
		if r := cs[2].Stats(); r.Skipped > 0 && r.Remeshed == 0 {
			t.Fatalf("input %d: no cell meshed again", k)
		}
		skipped += cs[0].Stats().Skipped
		for m, a := range []*Clipper{cs[0], cs[2]} {
			same := func(what string, x, y any) {
				if !reflect.DeepEqual(x, y) {
					t.Fatalf("input %d: %s differ with the inner polygons skipped (%d of them, meshed again: %v) and meshed", k, what,
						a.Stats().Skipped, m == 1)
				}
			}
			same("states", a.State, f.State)
			same("volumes", a.Volume, f.Volume)
			same("centroids", a.Centroid, f.Centroid)
			same("facet ranges", a.FacetStart, f.FacetStart)
			same("kinds", a.Kind, f.Kind)
			same("owners", a.Owner, f.Owner)
			same("areas", a.Area, f.Area)
			same("normals", a.Normal, f.Normal)
			same("facet centroids", a.FacetCentroid, f.FacetCentroid)
			same("vertices", a.Vert, f.Vert)
			as, fs := a.Stats(), f.Stats()
			as.Skipped, as.Remeshed, fs.Remeshed = 0, 0, 0
			same("stats", as, fs)
			t.Logf("input %d: %d cells refined, %d mesh polygons skipped, %d cells meshed again; %d polygons measured",
				k, as.Refined, a.Stats().Skipped, a.Stats().Remeshed, fs.Polygons)
		}
	}
	if skipped == 0 {
		t.Fatal("no polygon was skipped")
	}
}
