// Package cell computes the Voronoi diagram of a set of particles clipped to a box, one convex polyhedron per
// particle, for the Voronoi fluid (Sin, Bargteil & Hodgins 2009, "A point-based method for animating
// incompressible flow", §3.1; the paper calls qhull, this package builds the cells itself). Clipping against
// obstacles and the free surface (§3.2) and the projection (§3.3) are built on top of it elsewhere.
//
// # Algorithm
//
// Every cell is built on its own ("cell-by-cell half-space clipping", as Voro++ does): it starts as the box and is
// clipped by the bisector plane of each neighbour, nearest first. Neighbours come from the uniform grid of
// sim/grid (cells about the particle spacing) visited in shells of growing Chebyshev distance around the site's
// grid cell; the candidates of a shell are sorted by (distance, index) and clipped in that order as long as they
// are nearer than anything the unvisited shells can hold. The search stops at the security radius: a neighbour at
// distance d can only cut the cell if d/2 is less than R, the largest distance from the site to a vertex of the
// current cell, so once the next candidate (or the nearest point of the next shell) is at least 2R away the cell
// is final. A typical cell tests 30–60 planes. Cells are built in blocks of consecutive particles on a sim/par
// pool; each cell depends on the input only, and blocks are gathered in order, so the output is bit-identical for
// any number of workers.
//
// A cut classifies each vertex once, with the signed distance d to the plane: outside when d > Eps, inside
// otherwise. Each facet's loop keeps its inside vertices and gains one vertex on each edge that crosses; that
// vertex is the inside end itself when it lies within Eps of the plane (it is snapped, not duplicated), else the
// intersection computed from the inside end, so the two facets sharing the edge share the vertex. The new facet
// (the "cap") follows the crossing edges around: each crossing edge is an exit in one facet and an entry in the
// other, so they always close into loops. A facet squeezed to fewer than three distinct vertices is dropped. With
// this rule a cubic lattice, whose cells have many co-spherical neighbours whose bisectors only touch the cube at
// an edge or a corner, gets exact cubes: those planes have no vertex farther than Eps outside and change nothing.
//
// A cut costs what it touches: facets the plane misses keep their loops in place, vertices are never renumbered
// while a cell is built (the cell's vertices are numbered once, when it is emitted, in the order they were made),
// and the geometry is written out by component. ref_test.go keeps the first, simpler implementation of these rules
// (every loop rebuilt and the vertices compacted after each cut); the tests hold the builder to it bit for bit.
//
// # Tolerances
//
// Eps = max(EpsRel·Spacing, 2⁻²²·M), M the largest |coordinate| of the box (see Options). Positions are float32
// and all geometry is float64 relative to the site (differences of float32 values are exact), so the second term
// only covers input rounding: a float32 lattice is a lattice to within half an ulp. Consequences, all bounded by
// Eps: a vertex may lie up to Eps outside a bisector; two particles closer than Eps are duplicates (below). After
// the cell is final, facets with an area below SliverArea = Eps·Spacing are dropped from the output (counted in
// Stats.Slivers); their volume stays in the cell's volume and centroid, so Σ area·normal over a cell is zero up to
// the dropped area.
//
// # Duplicates, the boundary, the outside
//
// A particle within Eps of a lower-numbered one is a duplicate: Dup[i] names the lowest such particle, its cell
// is empty (no facets, no vertices, volume 0, centroid at the particle) and it is nobody's neighbour, so the other
// cells tile the box without it. A site on the box's boundary gets the part of its Voronoi region inside the box,
// which has the site on its boundary. A site outside the box gets the part of its region inside the box, which
// may be empty (Stats.Empty) and does not contain the site; the cells still tile the box. Non-finite positions
// are an error.
//
// # Layout and conventions
//
// A Diagram owns all cells in flat arrays reused from Build to Build (nothing is allocated once they have grown):
// cell i has facets [FacetStart[i], FacetStart[i+1]) and vertices [VertStart[i], VertStart[i+1]) in world
// coordinates (a vertex shared by neighbouring cells is stored once per cell), Volume[i] and Centroid[i]. Facet f
// has its vertex loop Loop[LoopStart[f]:LoopStart[f+1]] (indices into Vert, counter-clockwise seen from outside
// the cell, so the loop's area vector points along the normal), Normal[f] (the unit outward normal of the plane
// that made it: for a neighbour j, the direction from site i to site j), Area[f], FacetCentroid[f], and Owner[f]:
// the neighbour particle j ≥ 0 whose bisector it lies on, or a wall WallXMin…WallZMax (< 0). Twin[f] is the facet
// of cell j owned by i, the same polygon seen from the other side (opposite normal), or −1 for walls and for the
// rare facet whose twin was dropped as a sliver or snapped away (Stats.Unpaired). Each cell measures its polygons
// itself, and the two measurements of a shared facet agree to rounding unless a vertex within Eps of a third
// plane was snapped in one cell only (then to O(Eps), more where many bisectors nearly meet); so that a system
// built from either side is symmetric, a mutual pair stores the mean of the two areas and centroids, bit-identical
// in both cells. In rare near-degenerate cases one neighbour may own two facets of a cell; Twin then names the
// first, and only mutual pairs are averaged. With Options.Reach each side of a shared facet is also cut by its own
// site's cube, so the two polygons differ where they meet a Far facet; Twin still pairs them, each keeps its own
// measurement, and clipping both by spheres of one radius ≤ Reach (§3.2) makes them the same polygon again.
package cell
