package clip

import (
	"math"
	"math/rand"
	"reflect"
	"testing"

	"github.com/slosh/slosh/sim/voronoi/cell"
)

// lattice makes k³ particles at spacing h filling [0, k·h]³, and the box.
func lattice(k int, h float64) ([][4]float32, cell.Box) {
	var pos [][4]float32
	for z := 0; z < k; z++ {
		for y := 0; y < k; y++ {
			for x := 0; x < k; x++ {
				pos = append(pos, [4]float32{float32((float64(x) + 0.5) * h), float32((float64(y) + 0.5) * h),
					float32((float64(z) + 0.5) * h)})
			}
		}
	}
	L := float64(k) * h
	return pos, cell.Box{Max: [3]float64{L, L, L}}
}

func run(t testing.TB, pos [][4]float32, box cell.Box, h, radius float64, obst []SDF) *Clipper {
	t.Helper()
	d, err := cell.New(cell.Options{Spacing: h, Reach: radius})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Build(pos, box); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Spacing: h, Radius: radius})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Clip(d, pos, obst); err != nil {
		t.Fatal(err)
	}
	return c
}

func total(c *Clipper) float64 {
	s := 0.0
	for _, v := range c.Volume {
		s += v
	}
	return s
}

// checkClosed: every liquid cell is closed (Σ area·normal ≈ 0) and its volume agrees with the facets' flux of x/3.
func checkClosed(t *testing.T, c *Clipper, h float64) {
	t.Helper()
	checkClosedTol(t, c, h, 1e-9*h*h)
}

// checkClosedTol is checkClosed with a bound on |Σ area·normal| (the diagram leaves out sliver facets).
func checkClosedTol(t *testing.T, c *Clipper, h, tol float64) {
	t.Helper()
	for i := range c.NumCells() {
		lo, hi := c.Facets(i)
		var s vec3
		flux := 0.0
		for f := lo; f < hi; f++ {
			s = add(s, scale(c.Normal[f], c.Area[f]))
			flux += dot(c.FacetCentroid[f], c.Normal[f]) * c.Area[f] / 3
		}
		if e := math.Sqrt(dot(s, s)); e > tol {
			t.Fatalf("cell %d is not closed: |Σ area·normal| = %g", i, e)
		}
		if c.Volume[i] < 0 || flux < -1e-9*h*h*h {
			t.Fatalf("cell %d: volume %g, facet flux %g", i, c.Volume[i], flux)
		}
	}
}

func checkOutside(t *testing.T, c *Clipper, sdf SDF, tol float64) {
	t.Helper()
	for k, v := range c.Vert {
		if s := sdf(v); s < -tol {
			t.Fatalf("vertex %d at %v lies %g inside the obstacle", k, v, -s)
		}
	}
}

func TestTiltedPlane(t *testing.T) {
	const h, k = 0.1, 8
	pos, box := lattice(k, h)
	n := vec3{0.3, 0.5, 0.8}
	l := math.Sqrt(dot(n, n))
	n = scale(n, 1/l)
	c0 := 0.35
	plane := func(p [3]float64) float64 { return c0 - dot(p, n) } // solid where p·n < c0
	c := run(t, pos, box, h, 0, []SDF{plane})
	// exact solid volume inside the unit-ish cube by Monte Carlo would be noisy; integrate on a fine grid instead
	L := k * h
	m := 200
	in := 0
	for z := 0; z < m; z++ {
		for y := 0; y < m; y++ {
			for x := 0; x < m; x++ {
				p := vec3{(float64(x) + 0.5) * L / float64(m), (float64(y) + 0.5) * L / float64(m),
					(float64(z) + 0.5) * L / float64(m)}
				if plane(p) < 0 {
					in++
				}
			}
		}
	}
	want := L * L * L * (1 - float64(in)/float64(m*m*m))
	if got := total(c); math.Abs(got-want) > 2e-3*L*L*L {
		t.Fatalf("liquid volume %g, want %g", got, want)
	}
	checkOutside(t, c, plane, 1e-9)
	checkClosed(t, c, h)
	st := c.Stats()
	if st.Empty == 0 || st.Cut == 0 {
		t.Fatalf("stats %+v: expected cut and empty cells", st)
	}
	for i := range c.NumCells() {
		p := vec3{float64(pos[i][0]), float64(pos[i][1]), float64(pos[i][2])}
		if c.State[i] == Empty && plane(p) > 0.9*h {
			t.Fatalf("cell %d well outside the solid is empty", i)
		}
		lo, hi := c.Facets(i)
		for f := lo; f < hi; f++ {
			if c.Kind[f] == Obstacle && dot(c.Normal[f], n) < 0.999 {
				t.Fatalf("obstacle facet normal %v is not n (into the solid)", c.Normal[f])
			}
		}
	}
}

// The plane test exactly: the lattice's planar cut is exact, so the volume matches the analytic one closely.
func TestSphereConverges(t *testing.T) {
	const L = 1.0
	R := 0.3
	ctr := vec3{0.5, 0.5, 0.5}
	sphere := func(p [3]float64) float64 { d := sub(p, ctr); return math.Sqrt(dot(d, d)) - R }
	want := L*L*L - 4.0/3*math.Pi*R*R*R
	prev := math.Inf(1)
	for _, k := range []int{8, 16, 32} {
		h := L / float64(k)
		pos, box := lattice(k, h)
		c := run(t, pos, box, h, 0, []SDF{sphere})
		e := math.Abs(total(c) - want)
		t.Logf("k=%d h=%.4f volume error %.3g (relative to sphere %.3g)", k, h, e, e/(4.0/3*math.Pi*R*R*R))
		if e > prev/2.5 {
			t.Fatalf("volume error %g at k=%d did not shrink from %g", e, k, prev)
		}
		prev = e
		checkOutside(t, c, sphere, 1e-9)
		checkClosed(t, c, h)
	}
}

func TestSlabCutsCellTwice(t *testing.T) {
	// one particle, its cell the unit box; a solid made of two half-spaces cuts off opposite corners
	pos := [][4]float32{{0.5, 0.5, 0.5}}
	box := cell.Box{Max: [3]float64{1, 1, 1}}
	s3 := math.Sqrt(3)
	slab := func(p [3]float64) float64 {
		u := p[0] + p[1] + p[2]
		return min((u-0.5)/s3, (2.5-u)/s3)
	}
	c := run(t, pos, box, 1, 0, []SDF{slab})
	st := c.Stats()
	if st.Caps != 2 || st.MultiCap != 1 {
		t.Fatalf("stats %+v: want two average vertices", st)
	}
	want := 1 - 2*0.125/6 // two corner tetrahedra of legs 0.5
	if got := c.Volume[0]; math.Abs(got-want) > 1e-9 {
		t.Fatalf("volume %g, want %g", got, want)
	}
	checkOutside(t, c, slab, 1e-9)
	checkClosed(t, c, 1)
	nObst := 0
	lo, hi := c.Facets(0)
	for f := lo; f < hi; f++ {
		if c.Kind[f] == Obstacle {
			nObst++
		}
	}
	if nObst != 2 {
		t.Fatalf("%d obstacle facets, want 2", nObst)
	}
}

// A blob of particles with a surface radius of the spacing: the clipped volume is the union of the spheres'
// (measured on a fine grid) to the piecewise-linear approximation's accuracy, air normals point away from the
// particle, and the cells stay closed.
func TestFreeSurfaceBlob(t *testing.T) {
	const h = 0.1
	pos0, _ := lattice(4, h)
	var pos [][4]float32
	for _, p := range pos0 {
		p[0] += 0.3
		p[1] += 0.3
		p[2] += 0.3
		pos = append(pos, p)
	}
	box := cell.Box{Max: [3]float64{1, 1, 1}}
	r := 0.9 * h
	c := run(t, pos, box, h, r, nil)
	want := unionVolume(pos, r, math.Inf(-1), 400)
	got := total(c)
	t.Logf("blob volume %g, union of spheres %g (%.2f%%)", got, want, 100*(got-want)/want)
	// The sphere is meshed at ℓ = 0.3r and projected (surface.go): the error is about −0.5 % here (the paper's
	// edge crossings alone lost a third).
	if got > 1.002*want || got < 0.985*want {
		t.Fatalf("blob volume %g, want within [−1.5 %%, +0.2 %%] of %g", got, want)
	}
	checkClosed(t, c, h)
	air := 0
	for i := range c.NumCells() {
		s := vec3{float64(pos[i][0]), float64(pos[i][1]), float64(pos[i][2])}
		lo, hi := c.Facets(i)
		for f := lo; f < hi; f++ {
			if c.Kind[f] == Air {
				air++
				if dot(c.Normal[f], sub(c.FacetCentroid[f], c.Centroid[i])) <= 0 {
					t.Fatalf("cell %d: air facet normal %v points into the liquid", i, c.Normal[f])
				}
			}
			if c.Kind[f] == Far {
				t.Fatalf("cell %d keeps a Far facet", i)
			}
		}
		d := sub(c.Centroid[i], s)
		if math.Sqrt(dot(d, d)) > h {
			t.Fatalf("cell %d: centroid %v far from its site", i, c.Centroid[i])
		}
	}
	if air == 0 {
		t.Fatal("no air facets")
	}
}

// Two blobs two radii apart share no facet, and an isolated particle whose cell is larger than its sphere is
// ballistic (every vertex outside the liquid, §3.2).
func TestBlobsSeparatedAndBallistic(t *testing.T) {
	const h = 0.1
	var pos [][4]float32
	for _, off := range []float32{0.2, 0.6} {
		for z := 0; z < 2; z++ {
			for y := 0; y < 2; y++ {
				for x := 0; x < 2; x++ {
					pos = append(pos, [4]float32{off + float32(x)*h, 0.4 + float32(y)*h, 0.4 + float32(z)*h})
				}
			}
		}
	}
	pos = append(pos, [4]float32{0.5, 0.85, 0.5}) // isolated
	box := cell.Box{Max: [3]float64{1, 1, 1}}
	r := h
	d, err := cell.New(cell.Options{Spacing: h, Reach: r})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Build(pos, box); err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Spacing: h, Radius: r})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Clip(d, pos, nil); err != nil {
		t.Fatal(err)
	}
	blob := func(i int) int { return i / 8 }
	for i := 0; i < 16; i++ {
		if c.State[i] != Liquid {
			t.Fatalf("particle %d state %d", i, c.State[i])
		}
		lo, hi := c.Facets(i)
		for f := lo; f < hi; f++ {
			if c.Kind[f] == Voronoi && (int(c.Owner[f]) >= 16 || blob(int(c.Owner[f])) != blob(i)) {
				t.Fatalf("cell %d keeps a facet with particle %d of another blob", i, c.Owner[f])
			}
		}
	}
	if c.State[16] != Ballistic || c.Volume[16] != 0 {
		t.Fatalf("isolated particle: state %d volume %g, want ballistic", c.State[16], c.Volume[16])
	}
	checkClosed(t, c, h)
}

func TestInsideSolidIsEmpty(t *testing.T) {
	const h = 0.1
	pos, box := lattice(6, h)
	ball := func(p [3]float64) float64 { d := sub(p, vec3{0.3, 0.3, 0.3}); return math.Sqrt(dot(d, d)) - 0.2 }
	c := run(t, pos, box, h, 0, []SDF{ball})
	for i := range c.NumCells() {
		s := vec3{float64(pos[i][0]), float64(pos[i][1]), float64(pos[i][2])}
		if ball(s) < -0.9*h && c.State[i] != Empty {
			t.Fatalf("particle %d deep in the solid has state %d", i, c.State[i])
		}
		if c.State[i] == Empty && (c.Volume[i] != 0 || c.FacetStart[i] != c.FacetStart[i+1]) {
			t.Fatalf("empty cell %d has volume %g", i, c.Volume[i])
		}
	}
}

// emitRef is emit's measure in vec3 form, as it was before emit was written out in scalars: per group of
// polygons the vector area, the area-weighted centroid, and the cell's volume and centroid from the fans.
func emitRef(p *poly, o vec3) (vol float64, cen vec3, area []float64, normal, fcen []vec3) {
	for f := 0; f < p.n(); {
		g := f
		var av, ac vec3
		aw := 0.0
		for ; g < p.n() && p.grp[g] == p.grp[f]; g++ {
			loop := p.idx[p.start[g]:p.start[g+1]]
			a := sub(p.v[loop[0]], o)
			for k := 1; k+1 < len(loop); k++ {
				bb, cc := sub(p.v[loop[k]], o), sub(p.v[loop[k+1]], o)
				n := cross(sub(bb, a), sub(cc, a))
				av = add(av, n)
				w := math.Sqrt(dot(n, n))
				tc := scale(add(add(a, bb), cc), 1.0/3)
				ac = add(ac, scale(tc, w))
				aw += w
				v6 := dot(a, cross(bb, cc))
				vol += v6
				cen = add(cen, scale(add(add(a, bb), cc), v6))
			}
		}
		if ar := 0.5 * math.Sqrt(dot(av, av)); ar > 0 {
			area = append(area, ar)
			normal = append(normal, scale(av, 0.5/ar))
			fcen = append(fcen, add(o, scale(ac, 1/aw)))
		}
		f = g
	}
	if vol > 0 {
		cen = add(o, scale(cen, 1/(4*vol)))
	} else {
		cen = o
	}
	return vol / 6, cen, area, normal, fcen
}

// emit's scalar sums give the vec3 form's results bit for bit, on random polygons in random groups.
func TestEmitMatchesVectorForm(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	c, err := New(Options{Spacing: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 200 {
		b := &block{}
		b.state, b.vol, b.cen = make([]State, 1), make([]float64, 1), make([]vec3, 1)
		b.nf, b.nv, b.meas = make([]int32, 1), make([]int32, 1), make([]bool, 1)
		p := &b.p
		p.clear()
		site := [4]float32{float32(rng.Float64()), float32(rng.Float64()), float32(rng.Float64())}
		for range 30 {
			p.v = append(p.v, vec3{rng.Float64(), rng.Float64(), rng.Float64()})
		}
		grp := int32(0)
		for range 1 + rng.Intn(20) {
			for range 3 + rng.Intn(6) {
				p.idx = append(p.idx, int32(rng.Intn(len(p.v))))
			}
			if rng.Intn(2) == 0 {
				grp++
			}
			p.close(Air, -1, grp)
		}
		o := vec3{float64(site[0]), float64(site[1]), float64(site[2])}
		vol, cen, area, normal, fcen := emitRef(p, o)
		c.emit(b, 0, site)
		if b.vol[0] != vol || b.cen[0] != cen || !reflect.DeepEqual(b.area, area) ||
			!reflect.DeepEqual(b.normal, normal) || !reflect.DeepEqual(b.fcen, fcen) {
			t.Fatalf("trial %d: volume %v centroid %v areas %v, the vec3 form's %v %v %v", trial, b.vol[0], b.cen[0],
				b.area, vol, cen, area)
		}
	}
}
