package cell

import (
	"fmt"
	"math"
	"testing"
)

// sameDiagram reports the first array in which two diagrams differ, bit for bit, or "".
func sameDiagram(a, b *Diagram) string {
	switch {
	case a.Stats() != b.Stats():
		return fmt.Sprintf("stats %+v vs %+v", a.Stats(), b.Stats())
	case !eqInt(a.FacetStart, b.FacetStart) || !eqInt(a.VertStart, b.VertStart):
		return "cell ranges"
	case !eqVec(a.Vert, b.Vert):
		return "vertices"
	case !eqInt(a.LoopStart, b.LoopStart) || !eqInt(a.Loop, b.Loop):
		return "loops"
	case !eqInt(a.Owner, b.Owner) || !eqInt(a.Twin, b.Twin) || !eqInt(a.Dup, b.Dup):
		return "owners, twins or duplicates"
	case !eqVec(a.Normal, b.Normal):
		return "normals"
	case !eqBits(a.Area, b.Area) || !eqVec(a.FacetCentroid, b.FacetCentroid):
		return "facet areas or centroids"
	case !eqBits(a.Volume, b.Volume) || !eqVec(a.Centroid, b.Centroid):
		return "volumes or centroids"
	}
	return ""
}

// The builder matches the reference copy of the original one (ref_test.go) bit for bit: random clouds, jittered
// and exact lattices (many co-spherical neighbours, snapped vertices), duplicates, points on and outside the box,
// with and without a reach.
func TestBuildMatchesReference(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s on 2 cores: diagrams checked against the reference clipper; make test runs it")
	}
	type input struct {
		name string
		pos  [][4]float32
		box  Box
		h    float64
	}
	var ins []input
	for _, n := range []int{1, 7, 300, 3000} {
		ins = append(ins, input{fmt.Sprintf("random %d", n), random(n, unitish, int64(n)+5), unitish, spacingOf(n, unitish)})
	}
	for _, j := range []float64{0, 1e-7, 0.01, 0.1, 0.5} {
		pos, box, h := damBreakJitter(2000, 3, j)
		ins = append(ins, input{fmt.Sprintf("dam break jitter %g", j), pos, box, h})
	}
	lat := lattice([3]float32{0.2, 0.2, 0.1}, 0.05, 6, 6, 6)
	rotate(lat, [3]float32{0.3, 0.3, 0.2}, 0.3, 0.7)
	ins = append(ins, input{"rotated lattice", lat, unitish, 0.05})
	mixed := random(500, unitish, 9)
	mixed = append(mixed, mixed[:40]...)                                             // duplicates
	mixed = append(mixed, [4]float32{0, 0.5, 0.25, 0}, [4]float32{1.2, 0.3, 0.1, 0}) // on and outside the box
	ins = append(ins, input{"duplicates and outside", mixed, unitish, spacingOf(500, unitish)})
	for _, in := range ins {
		for _, reach := range []float64{0, 1, 2.5} {
			for _, w := range []int{1, 3} {
				opt := Options{Spacing: in.h, Reach: reach * in.h, Workers: w}
				got := build(t, in.pos, in.box, opt)
				want, err := New(opt)
				if err != nil {
					t.Fatal(err)
				}
				if err := want.buildRef(in.pos, in.box); err != nil {
					t.Fatal(err)
				}
				if diff := sameDiagram(got, want); diff != "" {
					t.Fatalf("%s, reach %g, %d workers: %s differ from the reference", in.name, reach, w, diff)
				}
			}
		}
	}
}

// BenchmarkAgainstReference times the builder and the reference on the solver's case (35k particles, 10 %
// jitter, Reach = h) in one process, one worker each, alternating, so their ratio survives a noisy machine.
func BenchmarkAgainstReference(b *testing.B) {
	pos, box, h := damBreakJitter(35000, 1, 0.1)
	opt := Options{Spacing: h, Reach: h, Workers: 1}
	fast, err := New(opt)
	if err != nil {
		b.Fatal(err)
	}
	ref, err := New(opt)
	if err != nil {
		b.Fatal(err)
	}
	if err := ref.buildRef(pos, box); err != nil { // grow the buffers
		b.Fatal(err)
	}
	if err := fast.Build(pos, box); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var tf, tr float64
	for range b.N {
		start := b.Elapsed()
		if err := ref.buildRef(pos, box); err != nil {
			b.Fatal(err)
		}
		mid := b.Elapsed()
		if err := fast.Build(pos, box); err != nil {
			b.Fatal(err)
		}
		tr += (mid - start).Seconds()
		tf += (b.Elapsed() - mid).Seconds()
	}
	n := float64(b.N * len(pos))
	b.ReportMetric(tr*1e9/n, "ref-ns/cell")
	b.ReportMetric(tf*1e9/n, "new-ns/cell")
	b.ReportMetric(tr/tf, "speedup")
}

// samePoly reports how p differs from the reference polytope r, or "": the same facets in the same order with the
// same owners, normals and loops, the same vertices in the same order (p's live ones), the same security radius.
func samePoly(p *poly, r *refPoly) string {
	if len(p.face) != len(r.face) || len(p.live) != len(r.v) {
		return fmt.Sprintf("%d facets and %d vertices, want %d and %d", len(p.face), len(p.live), len(r.face), len(r.v))
	}
	if math.Float64bits(p.rmax2) != math.Float64bits(r.rmax2) {
		return fmt.Sprintf("rmax² %g, want %g", p.rmax2, r.rmax2)
	}
	for k, v := range p.live {
		if !eqBits(p.v[v][:], r.v[k][:]) {
			return fmt.Sprintf("vertex %d is %v, want %v", k, p.v[v], r.v[k])
		}
	}
	num := p.number()
	for k, f := range p.face {
		g := r.face[k]
		if f.owner != g.owner || !eqBits(f.nrm[:], g.nrm[:]) || f.n != g.n {
			return fmt.Sprintf("facet %d: %+v, want %+v", k, f, g)
		}
		for m := range f.n {
			if num[p.loop[f.start+m]] != r.loop[g.start+m] {
				return fmt.Sprintf("facet %d: loop differs", k)
			}
		}
	}
	return ""
}

// The polytope matches the reference polytope after every cut, with the planes in index order rather than
// nearest first: far planes that clip a corner squeeze facets away (the rare case where the vertices in use must
// be found by scanning the loops), and an exact lattice snaps vertices onto many planes.
func TestCutMatchesReference(t *testing.T) {
	inputs := map[string][][4]float32{"lattice": lattice([3]float32{0.1, 0.2, 0.05}, 0.15, 4, 3, 2)}
	for seed := int64(0); seed < 6; seed++ {
		inputs[fmt.Sprintf("random %d", seed)] = random(int(5+seed*4), unitish, 300+seed)
	}
	lat := lattice([3]float32{0.2, 0.2, 0.1}, 0.1, 4, 4, 3)
	rotate(lat, [3]float32{0.3, 0.3, 0.2}, 0.3, 0.7)
	inputs["rotated lattice"] = lat
	squeezed := 0
	for name, pos := range inputs {
		eps := 1e-6 * spacingOf(len(pos), unitish)
		var p poly
		var r refPoly
		p.eps, p.maxFacets, r.eps, r.maxFacets = eps, 1<<20, eps, 1<<20
		for i := range pos {
			s := site(pos, i)
			p.reset(sub(unitish.Min, s), sub(unitish.Max, s))
			r.reset(sub(unitish.Min, s), sub(unitish.Max, s))
			for j := range pos {
				if j == i || p.empty() {
					continue
				}
				q := sub(site(pos, j), s)
				stamp := p.stamp
				cp, errP := p.cut(q, int32(j))
				cr, errR := r.cut(q, int32(j))
				if cp != cr || errP != errR {
					t.Fatalf("%s cell %d plane %d: cut %v %v, want %v %v", name, i, j, cp, errP, cr, errR)
				}
				if p.stamp != stamp {
					squeezed++
				}
				if diff := samePoly(&p, &r); diff != "" {
					t.Fatalf("%s cell %d plane %d: %s", name, i, j, diff)
				}
			}
		}
	}
	if squeezed == 0 {
		t.Fatal("no cut squeezed a facet away: the test misses the scan of the loops")
	}
}
