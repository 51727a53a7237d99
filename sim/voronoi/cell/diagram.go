package cell

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/par"
)

// Walls are the owners of facets that lie on the bounding box, in the order x−, x+, y−, y+, z−, z+. Every wall is
// negative, every particle index non-negative.
const (
	WallXMin int32 = -1 - iota
	WallXMax
	WallYMin
	WallYMax
	WallZMin
	WallZMax
	// Far owns the facets made by the cube of Options.Reach around a site.
	Far
)

// IsWall reports whether a facet owner is a wall of the bounding box (not a particle, not Far).
func IsWall(owner int32) bool { return owner <= WallXMin && owner >= WallZMax }

// Defaults for Options.
const (
	DefaultEpsRel       = 1e-6
	DefaultMaxParticles = 1 << 22
	DefaultMaxFacets    = 128
	// blockCells is how many consecutive cells one task builds into its own buffers.
	blockCells = 128
	// maxGridPerParticle bounds the neighbour grid: a box much larger than the particles gets coarser grid cells
	// rather than millions of empty ones.
	maxGridPerParticle = 16
)

// Box is the axis-aligned bounding box every cell starts from.
type Box struct{ Min, Max [3]float64 }

// Options configure a Diagram.
type Options struct {
	// Spacing is the typical distance between neighbouring particles (m); the neighbour grid's cell and the
	// tolerances scale with it. Required.
	Spacing float64
	// EpsRel sets the length tolerance Eps = max(EpsRel·Spacing, 2⁻²²·(largest |coordinate| of the box)): a vertex
	// closer than Eps to a cutting plane counts as on it. The second term covers float32 input, in which a
	// lattice is a lattice only to within half an ulp of its coordinates. 0 means DefaultEpsRel.
	EpsRel float64
	// MaxParticles bounds the input; a larger one is an error before anything is allocated. 0 means
	// DefaultMaxParticles.
	MaxParticles int
	// MaxFacets bounds the facets of one cell; a cell with more is an error that names it. 0 means
	// DefaultMaxFacets.
	MaxFacets int
	// Reach, when positive, also clips each cell to the cube of half-side Reach centred on its site; the cube's
	// facets are owned by Far. It bounds the cells of particles next to empty space, which otherwise reach across
	// the box and must be cut by every particle within twice that distance. A free surface made of spheres of
	// radius r (§3.2) keeps only the part of cell i within r of site i, so Reach ≥ r changes nothing it keeps.
	// 0 means no limit: the plain Voronoi diagram clipped to the box.
	Reach float64
	// Workers is the number of goroutines; 0 means GOMAXPROCS. The output does not depend on it.
	Workers int
}

// Stats describe the last Build. All are exact counts, independent of the number of workers.
type Stats struct {
	Cells      int // particles
	Sites      int // particles that are sites (not duplicates)
	Duplicates int // particles within Eps of a lower-numbered one: empty cells
	Empty      int // non-duplicate cells with no volume (a site outside the box whose region misses it)
	Facets     int // facets kept, over all cells
	Vertices   int
	Examined   int64 // particles distance-tested in the grid shells, over all cells
	Planes     int64 // bisector planes tested against a cell ("neighbours visited"), over all cells
	Cuts       int64 // planes that cut something away
	MaxFacets  int   // most facets of one cell
	Slivers    int   // facets dropped for an area below SliverArea
	Unpaired   int   // particle facets whose neighbour's cell has no facet back (see Twin)
	Eps        float64
}

// Diagram is the Voronoi diagram of a set of particles, clipped to a box: one convex polyhedron per particle,
// rebuilt by Build and stored in flat arrays that are reused from build to build. Cell i owns the facets
// [FacetStart[i], FacetStart[i+1]) and the vertices [VertStart[i], VertStart[i+1]); facet f's vertex loop is
// Loop[LoopStart[f]:LoopStart[f+1]], indices into Vert. The exported slices are read-only views valid until the
// next Build.
type Diagram struct {
	opt Options

	FacetStart []int32 // per cell, len n+1
	VertStart  []int32 // per cell, len n+1
	Volume     []float64
	Centroid   [][3]float64
	// Dup[i] is the lowest-numbered particle within Eps of particle i, or −1: a duplicate has an empty cell and is
	// nobody's neighbour.
	Dup []int32

	Vert [][3]float64 // world coordinates

	LoopStart     []int32 // per facet, len facets+1
	Loop          []int32 // vertex indices into Vert, counter-clockwise seen from outside the cell
	Owner         []int32 // per facet: neighbour particle (≥ 0) or wall (< 0)
	Normal        [][3]float64
	Area          []float64
	FacetCentroid [][3]float64
	Twin          []int32 // per facet: the same facet in the neighbour's cell, or −1 (walls, unpaired)

	stats Stats
	eps   float64

	grid   *grid.Grid
	gbox   Box
	gcell  float32
	ids    []uint32
	sorted []vec3 // positions in grid order, float64
	sdup   []bool // in grid order: the particle is a duplicate
	site   []vec3 // positions in input order, float64
	blocks []*block
	pool   par.Pool
}

// block is one task's share of a build: blockCells consecutive cells, their output and their scratch.
type block struct {
	poly  poly
	cand  []cand
	err   error
	stats Stats

	nf, nv   []int32 // per cell of the block: facets, vertices
	vol      []float64
	cen      []vec3
	vert     []vec3
	loopN    []int32 // per facet: loop length
	loop     []int32 // vertex indices local to the cell
	owner    []int32
	normal   []vec3
	area     []float64
	fcen     []vec3
	fBase    int // first facet, vertex and loop entry of the block in the diagram's arrays
	vBase    int
	loopBase int
}

// cand is a neighbour waiting to be clipped: squared distance, position in grid order, particle index.
type cand struct {
	d2   float64
	t, j int32
}

func (a cand) less(b cand) bool { return a.d2 < b.d2 || a.d2 == b.d2 && a.j < b.j }

// push and pop keep b.cand a binary min-heap in (distance, index) order.
func (b *block) push(c cand) {
	h := append(b.cand, c)
	k := len(h) - 1
	for k > 0 {
		up := (k - 1) / 2
		if !h[k].less(h[up]) {
			break
		}
		h[k], h[up] = h[up], h[k]
		k = up
	}
	b.cand = h
}

func (b *block) pop() cand {
	h := b.cand
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	k := 0
	for {
		l := 2*k + 1
		if l >= len(h) {
			break
		}
		if r := l + 1; r < len(h) && h[r].less(h[l]) {
			l = r
		}
		if !h[l].less(h[k]) {
			break
		}
		h[k], h[l] = h[l], h[k]
		k = l
	}
	b.cand = h
	return top
}

// New makes an empty Diagram.
func New(opt Options) (*Diagram, error) {
	if !(opt.Spacing > 0) || math.IsInf(opt.Spacing, 0) {
		return nil, fmt.Errorf("voronoi cell: spacing %g must be positive", opt.Spacing)
	}
	if opt.EpsRel == 0 {
		opt.EpsRel = DefaultEpsRel
	}
	if !(opt.EpsRel > 0 && opt.EpsRel < 0.01) {
		return nil, fmt.Errorf("voronoi cell: relative tolerance %g must lie in (0, 0.01)", opt.EpsRel)
	}
	if opt.MaxParticles == 0 {
		opt.MaxParticles = DefaultMaxParticles
	}
	if opt.MaxParticles < 0 || opt.MaxParticles > math.MaxInt32/64 {
		return nil, fmt.Errorf("voronoi cell: particle budget %d out of range", opt.MaxParticles)
	}
	if opt.MaxFacets == 0 {
		opt.MaxFacets = DefaultMaxFacets
	}
	if opt.Reach < 0 || math.IsNaN(opt.Reach) {
		return nil, fmt.Errorf("voronoi cell: reach %g must not be negative", opt.Reach)
	}
	if opt.MaxFacets < 6 || opt.MaxFacets > 4096 {
		return nil, fmt.Errorf("voronoi cell: facet budget %d must lie in [6, 4096]", opt.MaxFacets)
	}
	return &Diagram{opt: opt, pool: par.Pool{Workers: opt.Workers}}, nil
}

// Eps is the length tolerance of the last Build (see Options.EpsRel).
func (d *Diagram) Eps() float64 { return d.eps }

// SliverArea is the area below which a facet is dropped from the output: Eps·Spacing, a strip Eps wide along an
// edge a particle spacing long. The dropped facet's volume stays in the cell's volume and centroid.
func (d *Diagram) SliverArea() float64 { return d.eps * d.opt.Spacing }

// Stats returns the counts of the last Build.
func (d *Diagram) Stats() Stats { return d.stats }

// NumCells is the number of cells (particles) of the last Build.
func (d *Diagram) NumCells() int { return max(len(d.FacetStart)-1, 0) }

// NumFacets is the number of facets over all cells.
func (d *Diagram) NumFacets() int { return max(len(d.LoopStart)-1, 0) }

// Facets returns the range of facet indices of cell i.
func (d *Diagram) Facets(i int) (lo, hi int) { return int(d.FacetStart[i]), int(d.FacetStart[i+1]) }

// Vertices returns the range of vertex indices of cell i.
func (d *Diagram) Vertices(i int) (lo, hi int) { return int(d.VertStart[i]), int(d.VertStart[i+1]) }

// FacetLoop returns facet f's vertex indices, counter-clockwise seen from outside its cell.
func (d *Diagram) FacetLoop(f int) []int32 { return d.Loop[d.LoopStart[f]:d.LoopStart[f+1]] }

// Build computes every particle's cell, clipped to box. pos holds world positions (the fourth component is
// ignored). It fails on non-finite positions, on more particles than MaxParticles and on a cell with more than
// MaxFacets facets; the Diagram is then empty.
func (d *Diagram) Build(pos [][4]float32, box Box) error {
	err := d.build(pos, box)
	if err != nil {
		d.reset(0)
	}
	return err
}

func (d *Diagram) build(pos [][4]float32, box Box) error {
	n := len(pos)
	if n > d.opt.MaxParticles {
		return fmt.Errorf("voronoi cell: %d particles exceed the budget of %d", n, d.opt.MaxParticles)
	}
	m := 0.0
	for a := 0; a < 3; a++ {
		if !(box.Min[a] < box.Max[a]) || math.IsInf(box.Min[a], 0) || math.IsInf(box.Max[a], 0) {
			return fmt.Errorf("voronoi cell: box %v–%v is empty or infinite along axis %d", box.Min, box.Max, a)
		}
		m = max(m, math.Abs(box.Min[a]), math.Abs(box.Max[a]))
	}
	d.eps = max(d.opt.EpsRel*d.opt.Spacing, m*0x1p-22)
	if err := d.prepare(pos, box); err != nil {
		return err
	}
	d.reset(n)
	nb := (n + blockCells - 1) / blockCells
	for len(d.blocks) < nb {
		d.blocks = append(d.blocks, &block{})
	}
	for _, b := range d.blocks[:nb] {
		b.err = nil
		b.poly.eps = d.eps
		b.poly.maxFacets = d.opt.MaxFacets
	}
	d.findDuplicates()
	d.pool.For(nb, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			d.buildBlock(d.blocks[k], k*blockCells, min((k+1)*blockCells, n), box)
		}
	})
	for _, b := range d.blocks[:nb] {
		if b.err != nil {
			return b.err
		}
	}
	d.gather(nb)
	d.pair()
	return nil
}

// reset sizes the per-cell arrays for n cells and empties the per-facet ones.
func (d *Diagram) reset(n int) {
	d.FacetStart = resize(d.FacetStart, n+1)
	d.VertStart = resize(d.VertStart, n+1)
	d.Volume = resize(d.Volume, n)
	d.Centroid = resize(d.Centroid, n)
	d.Dup = resize(d.Dup, n)
	d.Vert = d.Vert[:0]
	d.LoopStart = append(d.LoopStart[:0], 0)
	d.Loop, d.Owner, d.Normal, d.Area, d.FacetCentroid, d.Twin = d.Loop[:0], d.Owner[:0], d.Normal[:0], d.Area[:0],
		d.FacetCentroid[:0], d.Twin[:0]
	d.stats = Stats{Cells: n, Eps: d.eps}
	if n == 0 {
		d.FacetStart[0], d.VertStart[0] = 0, 0
	}
}

// resize returns s with length n, reallocating with a quarter to spare when it is too small: totals such as the
// vertex count drift from step to step and should not reallocate at every new maximum.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// prepare converts the positions to float64, checks them, and bins them into the neighbour grid (made anew only
// when the box or the cell count changes).
func (d *Diagram) prepare(pos [][4]float32, box Box) error {
	n := len(pos)
	d.site = resize(d.site, n)
	var bad atomic.Int64
	bad.Store(math.MaxInt64)
	d.pool.For(n, 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := pos[i]
			for a := 0; a < 3; a++ {
				if math.IsNaN(float64(p[a])) || math.IsInf(float64(p[a]), 0) {
					for { // keep the lowest bad index, whatever the schedule
						old := bad.Load()
						if int64(i) >= old || bad.CompareAndSwap(old, int64(i)) {
							break
						}
					}
				}
			}
			d.site[i] = vec3{float64(p[0]), float64(p[1]), float64(p[2])}
		}
	})
	if b := bad.Load(); b != math.MaxInt64 {
		return fmt.Errorf("voronoi cell: particle %d has a non-finite position %v", b, pos[b])
	}
	// grid cells of about the spacing, coarser if the box would need more than maxGridPerParticle per particle
	cell := d.opt.Spacing
	budget := float64(maxGridPerParticle*n + 4096)
	for {
		cells := 1.0
		for a := 0; a < 3; a++ {
			cells *= math.Max(1, math.Ceil((box.Max[a]-box.Min[a])/cell))
		}
		if cells <= budget && cells <= grid.MaxCells {
			break
		}
		cell *= math.Max(1.05, math.Cbrt(cells/budget))
	}
	if d.grid == nil || d.gbox != box || d.gcell != float32(cell) {
		g, err := grid.New(f32(box.Min), f32(box.Max), float32(cell))
		if err != nil {
			return fmt.Errorf("voronoi cell: neighbour grid: %w", err)
		}
		d.grid, d.gbox, d.gcell = g, box, float32(cell)
	}
	if cap(d.ids) < n {
		d.ids = make([]uint32, n, max(n, cap(d.ids)*3/2))
		for i := range d.ids {
			d.ids[i] = uint32(i)
		}
	}
	d.ids = d.ids[:n]
	d.grid.Build(pos, d.ids)
	d.sorted = resize(d.sorted, n)
	d.pool.For(n, 4096, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			d.sorted[k] = d.site[d.grid.Order[k]]
		}
	})
	return nil
}

func f32(v [3]float64) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }

// findDuplicates sets Dup: particle i duplicates the lowest-numbered j < i within Eps of it.
func (d *Diagram) findDuplicates() {
	g := d.grid
	eps2 := d.eps * d.eps
	d.pool.For(len(d.site), 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s := d.site[i]
			cx, cy, cz := g.Coord(float32(s[0]), float32(s[1]), float32(s[2]))
			best := int32(-1)
			for dz := int32(-1); dz <= 1; dz++ {
				for dy := int32(-1); dy <= 1; dy++ {
					b, e, ok := g.Row(cx, cy, cz, dy, dz)
					if !ok {
						continue
					}
					for t := b; t < e; t++ {
						j := g.Order[t]
						if j < int32(i) && (best < 0 || j < best) {
							if q := sub(d.sorted[t], s); dot(q, q) <= eps2 {
								best = j
							}
						}
					}
				}
			}
			d.Dup[i] = best
		}
	})
	d.sdup = resize(d.sdup, len(d.Dup))
	n := 0
	for t, j := range g.Order {
		d.sdup[t] = d.Dup[j] >= 0
		if d.Dup[j] >= 0 {
			n++
		}
	}
	d.stats.Duplicates = n
	d.stats.Sites = len(d.Dup) - n
}

// buildBlock builds cells [lo, hi) into b's buffers.
func (d *Diagram) buildBlock(b *block, lo, hi int, box Box) {
	b.stats = Stats{}
	b.nf, b.nv, b.vol, b.cen = b.nf[:0], b.nv[:0], b.vol[:0], b.cen[:0]
	b.vert, b.loopN, b.loop = b.vert[:0], b.loopN[:0], b.loop[:0]
	b.owner, b.normal, b.area, b.fcen = b.owner[:0], b.normal[:0], b.area[:0], b.fcen[:0]
	for i := lo; i < hi; i++ {
		if d.Dup[i] >= 0 {
			b.poly.clear()
		} else if err := d.clipCell(b, i, box); err != nil {
			b.err = fmt.Errorf("voronoi cell: particle %d at %v: %w (budget %d facets)", i, d.site[i], err, d.opt.MaxFacets)
			return
		}
		d.emitCell(b, i)
	}
}

// clipCell leaves particle i's cell in b.poly: the box (and the reach cube) clipped by the bisectors of the
// neighbours in order of distance, visiting grid shells outwards and stopping once no unvisited particle can
// reach the cell.
func (d *Diagram) clipCell(b *block, i int, box Box) error {
	g := d.grid
	s := d.site[i]
	p := &b.poly
	lo, hi := sub(box.Min, s), sub(box.Max, s)
	if r := d.opt.Reach; r > 0 {
		own := [6]int32{WallXMin, WallXMax, WallYMin, WallYMax, WallZMin, WallZMax}
		for a := 0; a < 3; a++ {
			if -r > lo[a] {
				lo[a], own[2*a] = -r, Far
			}
			if r < hi[a] {
				hi[a], own[2*a+1] = r, Far
			}
			if !(lo[a] < hi[a]) { // the cube misses the box
				p.clear()
				return nil
			}
		}
		p.resetOwned(lo, hi, own)
	} else {
		p.reset(lo, hi)
	}
	// the site projected into the grid's box; any particle binned k+1 or more cells away (Chebyshev) is at least
	// the distance from it to the faces of the (2k+1)³ block around its cell (projection does not lengthen)
	cell := float64(g.Cell)
	var gp vec3
	var c [3]int32
	org := [3]float64{float64(g.Origin[0]), float64(g.Origin[1]), float64(g.Origin[2])}
	for a := 0; a < 3; a++ {
		gp[a] = min(max(s[a], org[a]), org[a]+float64(g.Dims[a])*cell)
	}
	c[0], c[1], c[2] = g.Coord(float32(gp[0]), float32(gp[1]), float32(gp[2]))
	slack := 1e-4 * cell // float32 binning may put a particle a rounding error over a cell face
	bound := func(k int32) float64 {
		r := math.Inf(1)
		for a := 0; a < 3; a++ {
			if lo := c[a] - k; lo > 0 {
				r = min(r, gp[a]-(org[a]+float64(lo)*cell))
			}
			if hi := c[a] + k + 1; hi < g.Dims[a] {
				r = min(r, org[a]+float64(hi)*cell-gp[a])
			}
		}
		return max(0, r-slack)
	}
	b.cand = b.cand[:0]
	row := func(y, z, x0, x1 int32) {
		base := (z*g.Dims[1] + y) * g.Dims[0]
		lim := 4 * p.rmax2
		for t := g.Start[base+x0]; t < g.Start[base+x1+1]; t++ {
			if d.sdup[t] {
				continue
			}
			// by component: copying whole vectors through the stack stalls on store forwarding
			o := &d.sorted[t]
			qx, qy, qz := o[0]-s[0], o[1]-s[1], o[2]-s[2]
			if d2 := qx*qx + qy*qy + qz*qz; d2 < lim {
				if j := g.Order[t]; j != int32(i) {
					b.push(cand{d2, t, j})
				}
			}
		}
		b.stats.Examined += int64(g.Start[base+x1+1] - g.Start[base+x0])
	}
	for k := int32(0); ; k++ {
		// gather shell k: the cells at Chebyshev distance exactly k
		for dz := -k; dz <= k; dz++ {
			z := c[2] + dz
			if z < 0 || z >= g.Dims[2] {
				continue
			}
			for dy := -k; dy <= k; dy++ {
				y := c[1] + dy
				if y < 0 || y >= g.Dims[1] {
					continue
				}
				if dz == -k || dz == k || dy == -k || dy == k {
					row(y, z, max(c[0]-k, 0), min(c[0]+k, g.Dims[0]-1))
					continue
				}
				if x := c[0] - k; x >= 0 {
					row(y, z, x, x)
				}
				if x := c[0] + k; x < g.Dims[0] {
					row(y, z, x, x)
				}
			}
		}
		r := bound(k)
		r2 := r * r
		for len(b.cand) > 0 && b.cand[0].d2 < r2 {
			cd := b.pop()
			if cd.d2 >= 4*p.rmax2 {
				return nil // security radius: no farther particle can reach the cell
			}
			b.stats.Planes++
			cut, err := p.cut(sub(d.sorted[cd.t], s), cd.j)
			if err != nil {
				return err
			}
			if cut {
				b.stats.Cuts++
				if p.empty() {
					return nil
				}
			}
		}
		if math.IsInf(r, 1) || r2 >= 4*p.rmax2 {
			return nil
		}
	}
}

// emitCell measures b.poly and appends it as particle i's cell to b's buffers, in world coordinates.
func (d *Diagram) emitCell(b *block, i int) {
	p := &b.poly
	s := d.site[i]
	sliver := d.SliverArea()
	remap := p.number()
	vol := 0.0
	var mx, my, mz float64 // the moment Σ tv·(v0+v1+v2)
	nf := 0
	vs := p.v
	for fi := range p.face {
		f := &p.face[fi]
		l := p.loop[f.start : f.start+f.n]
		v0 := &vs[l[0]]
		nx, ny, nz := f.nrm[0], f.nrm[1], f.nrm[2]
		// the fan from l[0], written out component by component (the same operations as the vector helpers)
		var ax, ay, az, fx, fy, fz float64
		for k := 1; k+1 < len(l); k++ {
			v1, v2 := &vs[l[k]], &vs[l[k+1]]
			e1x, e1y, e1z := v1[0]-v0[0], v1[1]-v0[1], v1[2]-v0[2]
			e2x, e2y, e2z := v2[0]-v0[0], v2[1]-v0[1], v2[2]-v0[2]
			tx, ty, tz := e1y*e2z-e1z*e2y, e1z*e2x-e1x*e2z, e1x*e2y-e1y*e2x // twice the triangle's area vector
			ax, ay, az = ax+tx, ay+ty, az+tz
			w := tx*nx + ty*ny + tz*nz
			sx, sy, sz := v0[0]+v1[0]+v2[0], v0[1]+v1[1]+v2[1], v0[2]+v1[2]+v2[2]
			fx, fy, fz = fx+sx*w, fy+sy*w, fz+sz*w
			// six times the tetrahedron (site, v0, v1, v2)
			tv := v0[0]*(v1[1]*v2[2]-v1[2]*v2[1]) + v0[1]*(v1[2]*v2[0]-v1[0]*v2[2]) + v0[2]*(v1[0]*v2[1]-v1[1]*v2[0])
			vol += tv
			mx, my, mz = mx+sx*tv, my+sy*tv, mz+sz*tv
		}
		area := 0.5 * math.Sqrt(ax*ax+ay*ay+az*az)
		if area < sliver {
			b.stats.Slivers++
			continue
		}
		wsum := 2 * area // Σw = 2·(area vector · n) ≈ 2·area for a planar convex loop
		if aw := ax*nx + ay*ny + az*nz; aw > 0 {
			wsum = aw
		}
		b.loopN = append(b.loopN, f.n)
		for _, v := range l {
			b.loop = append(b.loop, remap[v])
		}
		b.owner = append(b.owner, f.owner)
		b.normal = append(b.normal, f.nrm)
		b.area = append(b.area, area)
		k := 1 / (3 * wsum)
		b.fcen = append(b.fcen, vec3{s[0] + fx*k, s[1] + fy*k, s[2] + fz*k})
		nf++
	}
	for _, v := range p.live {
		x := &vs[v]
		b.vert = append(b.vert, vec3{s[0] + x[0], s[1] + x[1], s[2] + x[2]})
	}
	vol /= 6
	cen := s
	if vol > 0 {
		k := 1 / (24 * vol)
		cen = vec3{s[0] + mx*k, s[1] + my*k, s[2] + mz*k}
	} else if d.Dup[i] < 0 {
		b.stats.Empty++
	}
	b.nf = append(b.nf, int32(nf))
	b.nv = append(b.nv, int32(len(p.live)))
	b.vol = append(b.vol, vol)
	b.cen = append(b.cen, cen)
	b.stats.Facets += nf
	b.stats.Vertices += len(p.live)
	b.stats.MaxFacets = max(b.stats.MaxFacets, nf)
}

// gather copies the blocks' output, in cell order, into the diagram's flat arrays.
func (d *Diagram) gather(nb int) {
	nfac, nvert, nloop := 0, 0, 0
	st := &d.stats
	for _, b := range d.blocks[:nb] {
		b.fBase, b.vBase, b.loopBase = nfac, nvert, nloop
		nfac += len(b.owner)
		nvert += len(b.vert)
		nloop += len(b.loop)
		st.Empty += b.stats.Empty
		st.Facets += b.stats.Facets
		st.Vertices += b.stats.Vertices
		st.Examined += b.stats.Examined
		st.Planes += b.stats.Planes
		st.Cuts += b.stats.Cuts
		st.MaxFacets = max(st.MaxFacets, b.stats.MaxFacets)
		st.Slivers += b.stats.Slivers
	}
	d.Vert = resize(d.Vert, nvert)
	d.LoopStart = resize(d.LoopStart, nfac+1)
	d.Loop = resize(d.Loop, nloop)
	d.Owner = resize(d.Owner, nfac)
	d.Normal = resize(d.Normal, nfac)
	d.Area = resize(d.Area, nfac)
	d.FacetCentroid = resize(d.FacetCentroid, nfac)
	d.Twin = resize(d.Twin, nfac)
	d.LoopStart[nfac] = int32(nloop)
	d.FacetStart[len(d.FacetStart)-1] = int32(nfac)
	d.VertStart[len(d.VertStart)-1] = int32(nvert)
	d.pool.For(nb, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			b := d.blocks[k]
			copy(d.Vert[b.vBase:], b.vert)
			copy(d.Owner[b.fBase:], b.owner)
			copy(d.Normal[b.fBase:], b.normal)
			copy(d.Area[b.fBase:], b.area)
			copy(d.FacetCentroid[b.fBase:], b.fcen)
			copy(d.Volume[k*blockCells:], b.vol)
			copy(d.Centroid[k*blockCells:], b.cen)
			f, v, l := b.fBase, b.vBase, b.loopBase
			lf := 0 // facet within the block
			ll := 0 // loop entry within the block
			for c := range b.nf {
				i := k*blockCells + c
				d.FacetStart[i], d.VertStart[i] = int32(f), int32(v)
				for range b.nf[c] {
					d.LoopStart[f] = int32(l)
					for range b.loopN[lf] {
						d.Loop[l] = b.loop[ll] + int32(v)
						l++
						ll++
					}
					f++
					lf++
				}
				v += int(b.nv[c])
			}
		}
	})
}

// pair finds each particle facet's twin in the neighbour's cell: the facet of cell j owned by i.
func (d *Diagram) pair() {
	var unpaired atomic.Int64
	d.pool.For(d.NumCells(), 512, func(lo, hi int) {
		u := int64(0)
		for i := lo; i < hi; i++ {
			for f := d.FacetStart[i]; f < d.FacetStart[i+1]; f++ {
				j := d.Owner[f]
				d.Twin[f] = -1
				if j < 0 {
					continue
				}
				for g := d.FacetStart[j]; g < d.FacetStart[j+1]; g++ {
					if d.Owner[g] == int32(i) {
						d.Twin[f] = g
						break
					}
				}
				if d.Twin[f] < 0 {
					u++
				}
			}
		}
		unpaired.Add(u)
	})
	d.stats.Unpaired = int(unpaired.Load())
	if d.opt.Reach > 0 {
		return // each side was cut by its own site's cube: two different polygons
	}
	// a mutual pair stores the mean of its two measurements, bit-identical on both sides (the operands are taken
	// in facet order), so a system built from either cell's facets is symmetric; each facet is in at most one
	// mutual pair and only its lower-numbered facet writes it
	d.pool.For(d.NumFacets(), 4096, func(lo, hi int) {
		for f := lo; f < hi; f++ {
			tw := d.Twin[f]
			if tw <= int32(f) || d.Twin[tw] != int32(f) {
				continue
			}
			a := 0.5 * (d.Area[f] + d.Area[tw])
			c := scale(add(d.FacetCentroid[f], d.FacetCentroid[tw]), 0.5)
			d.Area[f], d.Area[tw] = a, a
			d.FacetCentroid[f], d.FacetCentroid[tw] = c, c
		}
	})
}
