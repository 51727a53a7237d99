// Package clip clips the Voronoi cells of sim/voronoi/cell against obstacles and the free surface (Sin, Bargteil
// & Hodgins 2009, §3.2), giving the restricted Voronoi diagram the projection (§3.3) works on.
//
// # Procedure
//
// Each cell is clipped on its own, first against the free surface, then against every obstacle in turn (the
// intersection does not depend on the order, and the Voronoi cell is convex only before the obstacles). A cell
// that no clip can reach (every vertex within the radius of its site, every obstacle's distance at the site
// larger than its farthest vertex) is copied from the diagram as it is.
//
// The free surface clip (surface.go) works on the cell while it is convex and contains its site, so the boundary
// of cell ∩ ball is the cell's boundary with every point outside the ball moved radially onto the sphere. The
// cell is cut to the ball's bounding cube, every facet with a vertex outside the ball is meshed (a polar grid
// about its vertex average, edges no longer than ℓ = RefineRel·Radius, the split points of an edge shared by its
// two facets), every mesh polygon is split where its edges cross the sphere (exact crossings), the inside parts
// keep the facet's kind and owner, the outside parts become Air polygons, and the outside vertices are projected
// onto the sphere. So the sphere is seen wherever it crosses the mesh, also where it bulges through the middle of
// a facet or lies inside the cell without crossing an edge (the paper's edge crossings alone lost about a third
// of a small blob's volume); the volume error goes as ℓ² (about −0.5 % for a blob at the default ℓ = 0.3r).
//
// One obstacle clip by a function g (a vertex is removed
// when g > 0) marks every vertex, finds on every edge with one end kept and one removed the crossing point (a
// safeguarded regula falsi on g along the edge, stopped when the bracket is shorter than Tol; the kept end of the
// bracket is used, so no vertex lies on the removed side), keeps the kept part of every facet with the new
// vertices, and joins the new vertices into the new boundary: the cut edges of the facets, reversed, link the new
// vertices into closed chains, one per connected component of the boundary through the cell, and each chain is
// fanned to its own average vertex. A boundary that crosses the cell twice therefore gets two average vertices.
// Unlike the paper the average vertex is then moved along the cap's normal onto the zero set of g (where a root
// lies within the cap's size), so a curved boundary is not flattened towards the kept side: the error of the
// approximation is second order in the cell size either way. A facet whose kept vertices form several runs is
// split into several polygons when the straight cut between one run's exit and the next run's entry would cross
// removed space (the ambiguous "saddle" case of marching squares).
//
// Obstacles are signed distance functions, negative inside the solid (g = −sdf). The free surface is the union of
// spheres of radius Radius around the liquid particles, φ(x) = min_j |x − x_j| − r; inside the Voronoi cell of
// particle i the nearest particle is i itself, so there φ(x) = |x − x_i| − r exactly and no neighbour search is
// needed (the cells must be the plain Voronoi cells of all liquid particles, with Reach ≥ r or none).
//
// Cells are convex before clipping but need not be afterwards, so volumes, centroids, facet areas and normals
// are computed from the triangulated facets by the divergence theorem; a facet's area and normal come from its
// vector area, so Σ area·normal over every closed cell is zero to rounding.
//
// A cell all of whose vertices are removed by an obstacle is Empty. A particle whose ball meets none of its
// cell's Voronoi facets (no other particle within 2r of it: its ball lies alone in its cell but for walls) is
// Ballistic and gets no cell: the paper makes a cell ballistic when all its Voronoi vertices are outside the
// liquid, which would also drop the particles of a small blob whose spheres overlap only through the middle of
// their facets; here those are liquid, with the union of spheres inside their cells. Each output facet carries a
// Kind: a Voronoi facet shared with the neighbour particle Owner, a wall of the box (Owner the cell.Wall… code),
// the Reach cube (Far), an obstacle (Owner its index in the list given to Clip), or Air (the free surface: one
// Air facet per facet of the cell that reached outside the ball).
//
// The two sides of a shared Voronoi facet are measured from their own polygons, which differ where the Reach
// cube cut them differently; when each of the two cells holds exactly one facet owned by the other, both store
// the mean area, centroid and normal, bit-identical, and the difference (about 10⁻³ of the area with Reach = r)
// is moved onto the cell's Air facets so that Σ area·normal stays zero.
//
// Cells are clipped in blocks on a sim/par pool and gathered in order into flat arrays reused from call to call,
// so the output does not depend on the number of workers.
//
// Not done here: the connected components of the unclipped diagram (§3.4's MLS neighbourhoods); facet loops are
// not output, only the measures the projection needs and the vertices.
package clip

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/voronoi/cell"
)

type vec3 = [3]float64

func dot(a, b vec3) float64        { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func sub(a, b vec3) vec3           { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func add(a, b vec3) vec3           { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func scale(a vec3, s float64) vec3 { return vec3{a[0] * s, a[1] * s, a[2] * s} }
func cross(a, b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func lerp(a, b vec3, t float64) vec3 { return add(a, scale(sub(b, a), t)) }

// SDF is a signed distance function: negative inside the solid. Clip leaves a cell alone when the value at its
// site exceeds the distance to its farthest vertex, so outside the solid it must not overestimate the distance.
type SDF func(p [3]float64) float64

// Kind labels a clipped facet.
type Kind uint8

// Facet kinds.
const (
	Voronoi  Kind = iota // shared with particle Owner
	Wall                 // a wall of the box; Owner is cell.WallXMin … cell.WallZMax
	Far                  // the cube of cell.Options.Reach
	Obstacle             // Owner is the obstacle's index
	Air                  // the free surface
)

// State of a clipped cell.
type State uint8

// Cell states.
const (
	Liquid    State = iota
	Empty           // inside the solids (or a duplicate with no cell)
	Ballistic       // entirely outside the liquid
)

// Defaults for Options.
const (
	DefaultTolRel    = 1e-6
	DefaultMaxFacets = 8192
	DefaultMaxVerts  = 8192
	DefaultRefineRel = 0.3
	blockCells       = 128
	maxIter          = 200
)

// Options configure a Clipper.
type Options struct {
	// Spacing is the typical particle spacing (m). Required.
	Spacing float64
	// Radius is the free surface's sphere radius r; 0 means no free surface clip.
	Radius float64
	// TolRel sets Tol = TolRel·Spacing, the length to which crossing points are found. 0 means DefaultTolRel.
	TolRel float64
	// MaxFacets and MaxVerts bound one clipped cell (polygons while clipping, vertices); more is an error that
	// names the cell. 0 means the defaults.
	MaxFacets, MaxVerts int
	// RefineRel sets the free surface's mesh size ℓ = RefineRel·Radius (see surface.go); 0 means
	// DefaultRefineRel. Smaller is more accurate (the volume error goes as ℓ²) and slower (as 1/ℓ²).
	RefineRel float64
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
}

// Stats describe the last Clip.
type Stats struct {
	Cut        int // cells changed by some clip
	Empty      int
	Ballistic  int
	Caps       int // average vertices made (connected components of new boundary)
	MultiCap   int // cell clips that made more than one average vertex
	Facets     int
	Vertices   int
	Iterations int64 // evaluations of g in root finding
	Refined    int   // cells clipped by the free surface (meshed and projected onto the sphere)
	Polygons   int   // polygons of the measured (not copied) cells: the mesh's size
	Skipped    int   // mesh polygons wholly inside the ball that the free surface's clip left out (see refine)
	Remeshed   int   // cells meshed again in full after a facet's merge failed (see refine)
}

// Clipper holds the clipped diagram: cell i owns facets [FacetStart[i], FacetStart[i+1]) and vertices
// [VertStart[i], VertStart[i+1]). The slices are read-only views valid until the next Clip.
type Clipper struct {
	opt Options
	tol float64

	State      []State
	Volume     []float64
	Centroid   []vec3
	FacetStart []int32
	VertStart  []int32

	Kind          []Kind
	Owner         []int32
	Normal        []vec3
	Area          []float64
	FacetCentroid []vec3
	Vert          []vec3

	stats         Stats
	blocks        []*block
	pArea         []float64 // pair's output, swapped with Area, Normal and FacetCentroid
	pNormal, pCen []vec3
	noPair        bool   // tests: leave the shared facets as measured
	noCopy        bool   // tests: measure every cell, even one no clip reaches
	noMerge       bool   // tests: keep the free surface's kept parts as meshed
	noSkip        bool   // tests: mesh the free surface's polygons wholly inside the ball too (see refine)
	remesh        bool   // tests: after skipping, mesh every cell again in full as a failed merge does
	measured      []bool // per cell: measured by emit, not copied from the diagram (see pair)
	pool          par.Pool
}

// New makes a Clipper.
func New(opt Options) (*Clipper, error) {
	if !(opt.Spacing > 0) || math.IsInf(opt.Spacing, 0) {
		return nil, fmt.Errorf("voronoi clip: spacing %g must be positive", opt.Spacing)
	}
	if opt.Radius < 0 || math.IsNaN(opt.Radius) || math.IsInf(opt.Radius, 0) {
		return nil, fmt.Errorf("voronoi clip: surface radius %g must be finite and not negative", opt.Radius)
	}
	if opt.TolRel == 0 {
		opt.TolRel = DefaultTolRel
	}
	if !(opt.TolRel > 0 && opt.TolRel < 0.1) {
		return nil, fmt.Errorf("voronoi clip: relative tolerance %g must lie in (0, 0.1)", opt.TolRel)
	}
	if opt.RefineRel == 0 {
		opt.RefineRel = DefaultRefineRel
	}
	if !(opt.RefineRel >= 0.05 && opt.RefineRel <= 2) {
		return nil, fmt.Errorf("voronoi clip: relative mesh size %g must lie in [0.05, 2]", opt.RefineRel)
	}
	if opt.MaxFacets == 0 {
		opt.MaxFacets = DefaultMaxFacets
	}
	if opt.MaxVerts == 0 {
		opt.MaxVerts = DefaultMaxVerts
	}
	if opt.MaxFacets < 4 || opt.MaxFacets > 1<<16 || opt.MaxVerts < 4 || opt.MaxVerts > 1<<16 {
		return nil, fmt.Errorf("voronoi clip: budgets of %d facets and %d vertices out of range", opt.MaxFacets,
			opt.MaxVerts)
	}
	return &Clipper{opt: opt, tol: opt.TolRel * opt.Spacing, pool: par.Pool{Workers: opt.Workers}}, nil
}

// Tol is the length to which crossing points are found.
func (c *Clipper) Tol() float64 { return c.tol }

// Stats returns the counts of the last Clip.
func (c *Clipper) Stats() Stats { return c.stats }

// NumCells is the number of cells of the last Clip.
func (c *Clipper) NumCells() int { return max(len(c.FacetStart)-1, 0) }

// Facets returns the range of facet indices of cell i.
func (c *Clipper) Facets(i int) (lo, hi int) { return int(c.FacetStart[i]), int(c.FacetStart[i+1]) }

// Vertices returns the range of vertex indices of cell i.
func (c *Clipper) Vertices(i int) (lo, hi int) { return int(c.VertStart[i]), int(c.VertStart[i+1]) }

// Clip clips every cell of d (built from pos) against the obstacles, in order, then against the free surface.
// The obstacle functions are called concurrently and must be safe for that.
func (c *Clipper) Clip(d *cell.Diagram, pos [][4]float32, obstacles []SDF) error {
	n := d.NumCells()
	if len(pos) != n {
		return fmt.Errorf("voronoi clip: %d positions for a diagram of %d cells", len(pos), n)
	}
	for k, o := range obstacles {
		if o == nil {
			return fmt.Errorf("voronoi clip: obstacle %d has no distance function", k)
		}
	}
	nb := (n + blockCells - 1) / blockCells
	for len(c.blocks) < nb {
		c.blocks = append(c.blocks, &block{})
	}
	c.pool.For(nb, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			c.clipBlock(c.blocks[k], d, pos, obstacles, k*blockCells, min((k+1)*blockCells, n))
		}
	})
	for _, b := range c.blocks[:nb] {
		if b.err != nil {
			c.reset(0)
			return b.err
		}
	}
	c.gather(n, nb)
	if c.opt.Radius > 0 && !c.noPair {
		c.pair()
	}
	return nil
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

func (c *Clipper) reset(n int) {
	c.State = resize(c.State, n)
	c.Volume = resize(c.Volume, n)
	c.Centroid = resize(c.Centroid, n)
	c.measured = resize(c.measured, n)
	c.FacetStart = resize(c.FacetStart, n+1)
	c.VertStart = resize(c.VertStart, n+1)
	c.FacetStart[0], c.VertStart[0] = 0, 0
	c.Kind, c.Owner, c.Normal, c.Area, c.FacetCentroid, c.Vert = c.Kind[:0], c.Owner[:0], c.Normal[:0], c.Area[:0],
		c.FacetCentroid[:0], c.Vert[:0]
	c.stats = Stats{}
}

func (c *Clipper) gather(n, nb int) {
	c.reset(n)
	nf, nv := 0, 0
	st := &c.stats
	for _, b := range c.blocks[:nb] {
		b.fBase, b.vBase = nf, nv
		nf += len(b.kind)
		nv += len(b.vert)
		st.Cut += b.stats.Cut
		st.Empty += b.stats.Empty
		st.Ballistic += b.stats.Ballistic
		st.Caps += b.stats.Caps
		st.MultiCap += b.stats.MultiCap
		st.Iterations += b.stats.Iterations
		st.Refined += b.stats.Refined
		st.Polygons += b.stats.Polygons
		st.Skipped += b.stats.Skipped
		st.Remeshed += b.stats.Remeshed
	}
	st.Facets, st.Vertices = nf, nv
	c.Kind = resize(c.Kind, nf)
	c.Owner = resize(c.Owner, nf)
	c.Normal = resize(c.Normal, nf)
	c.Area = resize(c.Area, nf)
	c.FacetCentroid = resize(c.FacetCentroid, nf)
	c.Vert = resize(c.Vert, nv)
	c.FacetStart[n], c.VertStart[n] = int32(nf), int32(nv)
	c.pool.For(nb, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			b := c.blocks[k]
			copy(c.Kind[b.fBase:], b.kind)
			copy(c.Owner[b.fBase:], b.owner)
			copy(c.Normal[b.fBase:], b.normal)
			copy(c.Area[b.fBase:], b.area)
			copy(c.FacetCentroid[b.fBase:], b.fcen)
			copy(c.Vert[b.vBase:], b.vert)
			copy(c.State[k*blockCells:], b.state)
			copy(c.Volume[k*blockCells:], b.vol)
			copy(c.Centroid[k*blockCells:], b.cen)
			copy(c.measured[k*blockCells:], b.meas)
			f, v := b.fBase, b.vBase
			for j := range b.nf {
				i := k*blockCells + j
				c.FacetStart[i], c.VertStart[i] = int32(f), int32(v)
				f += int(b.nf[j])
				v += int(b.nv[j])
			}
		}
	})
}
