package mesh

import (
	"fmt"
	"math"
	"slices"
)

// SDF is a signed distance field sampled on a regular grid: Values[i + Dims[0]·(j + Dims[1]·k)] is the signed
// distance (negative inside) at the node Origin + Cell·(i, j, k). The layout is the one a 3D texture upload wants
// (x fastest); a texture sampled with linear filtering at texel coordinates (p − Origin)/Cell + ½ reproduces
// Distance inside the grid.
type SDF struct {
	Dims   [3]int
	Origin Vec3
	Cell   float64
	Values []float32
}

// MaxSDFNodes bounds a grid's size: 4M nodes (160³, 16 MiB of float32; building one needs about ten times that).
const MaxSDFNodes = 1 << 22

// exactCells is the width of the band (in cells) around the surface in which every node holds the exact distance
// to the nearest triangle; further out the distances come from sweeps.
const exactCells = 1.5

// scatterNodes is the most grid nodes a triangle measures itself against; around larger triangles the nodes ask
// a Locator for their nearest triangle.
const scatterNodes = 1000

// BuildSDF voxelises a closed mesh (see Validate) into signed distances on a grid of the given cell size that
// covers the mesh's bounding box with band cells to spare on every side. The sign comes from ray parity along the
// grid lines of all three axes (majority vote, exact decisions at edges and vertices; vertex normals play no
// part). The magnitude is the exact distance to the nearest triangle for nodes within 1.5 cells of the surface
// (small triangles measure the nodes around them; around large ones, nodes ask a Locator's hierarchy) and, further
// away, the distance to the triangle of the nearest surface point that fast sweeping brings from the neighbours —
// within a small fraction of a cell of the exact distance, and never below it.
func BuildSDF(m *Mesh, cell float64, band int) (*SDF, error) {
	if !(cell > 0) || math.IsInf(cell, 0) {
		return nil, fmt.Errorf("%s: SDF cell size %g must be a positive number", m.Name, cell)
	}
	if band < 1 {
		return nil, fmt.Errorf("%s: SDF band %d must be at least 1 cell", m.Name, band)
	}
	if len(m.Triangles) == 0 {
		return nil, fmt.Errorf("%s: no faces", m.Name)
	}
	lo, hi := m.Bounds()
	ext := hi.Sub(lo)
	s := &SDF{Cell: cell}
	total := 1.0
	for c := 0; c < 3; c++ {
		n := math.Ceil(ext[c]/cell) + float64(2*band) + 1
		total *= n
		if total > MaxSDFNodes {
			return nil, fmt.Errorf("%s: an SDF with cells of %g over a %g×%g×%g mesh needs more than %d nodes; use a larger cell",
				m.Name, cell, ext[0], ext[1], ext[2], MaxSDFNodes)
		}
		s.Dims[c] = int(n)
		// centre the grid on the bounding box
		s.Origin[c] = (lo[c]+hi[c])/2 - float64(s.Dims[c]-1)*cell/2
	}
	nodes := s.Dims[0] * s.Dims[1] * s.Dims[2]

	dist := make([]float64, nodes)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	closest := make([]int32, nodes) // the nearest triangle found so far, −1 for none
	for i := range closest {
		closest[i] = -1
	}
	cp := make([]Vec3, nodes) // the nearest surface point found so far
	// Every node within w of a triangle lies in that triangle's box grown by w. A small triangle measures its
	// distance to each node of that box directly; the nodes around a large one (whose box would hold many nodes
	// far from it) ask the hierarchy instead, searching only within w.
	near := make([]bool, nodes)
	w := exactCells * cell
	asked := false
	for ti, t := range m.Triangles {
		a, b, c := m.Vertices[t[0]], m.Vertices[t[1]], m.Vertices[t[2]]
		i0, i1, ok := s.nodeRange(a.Min(b).Min(c), a.Max(b).Max(c), w)
		if !ok {
			continue
		}
		large := (i1[0]-i0[0]+1)*(i1[1]-i0[1]+1)*(i1[2]-i0[2]+1) > scatterNodes
		asked = asked || large
		for k := i0[2]; k <= i1[2]; k++ {
			for j := i0[1]; j <= i1[1]; j++ {
				for i := i0[0]; i <= i1[0]; i++ {
					n := s.index(i, j, k)
					if large {
						near[n] = true
						continue
					}
					p := s.Node(i, j, k)
					q := closestOnTriangle(p, a, b, c)
					if d := q.Sub(p).Len(); d < dist[n] {
						dist[n], closest[n], cp[n] = d, int32(ti), q
					}
				}
			}
		}
	}
	if asked {
		loc := NewLocator(m)
		hint := -1
		for n := range near {
			if !near[n] {
				continue
			}
			// starting from the previous node's triangle prunes most of the hierarchy at once
			if d, t, q := loc.nearest(s.nodeAt(n), math.Min(w, dist[n]), hint); t >= 0 {
				dist[n], closest[n], cp[n], hint = d, int32(t), q, t
			}
		}
	}
	s.propagate(m, dist, closest, cp, w)
	var loc *Locator
	for n, d := range dist {
		if math.IsInf(d, 1) { // not reached by the sweeps (cannot happen with a surface in the grid): ask
			if loc == nil {
				loc = NewLocator(m)
			}
			dist[n], _, _ = loc.Nearest(s.nodeAt(n))
		}
	}

	inside := s.parity(m)
	s.Values = make([]float32, nodes)
	for n, d := range dist {
		if inside[n] {
			d = -d
		}
		s.Values[n] = float32(d)
	}
	return s, nil
}

func (s *SDF) index(i, j, k int) int { return i + s.Dims[0]*(j+s.Dims[1]*k) }

// nodeAt is the position of the node with flat index n.
func (s *SDF) nodeAt(n int) Vec3 {
	return s.Node(n%s.Dims[0], n/s.Dims[0]%s.Dims[1], n/(s.Dims[0]*s.Dims[1]))
}

// Node is the position of grid node (i, j, k).
func (s *SDF) Node(i, j, k int) Vec3 {
	return Vec3{s.Origin[0] + float64(i)*s.Cell, s.Origin[1] + float64(j)*s.Cell, s.Origin[2] + float64(k)*s.Cell}
}

// At is the value at node (i, j, k).
func (s *SDF) At(i, j, k int) float32 { return s.Values[s.index(i, j, k)] }

// Bounds returns the corners of the grid: the first and the last node.
func (s *SDF) Bounds() (lo, hi Vec3) {
	return s.Origin, s.Node(s.Dims[0]-1, s.Dims[1]-1, s.Dims[2]-1)
}

// nodeRange is the range of nodes in the box [lo−w, hi+w], clamped to the grid; ok is false when it is empty.
func (s *SDF) nodeRange(lo, hi Vec3, w float64) (i0, i1 [3]int, ok bool) {
	for c := 0; c < 3; c++ {
		i0[c] = max(0, int(math.Ceil((lo[c]-w-s.Origin[c])/s.Cell)))
		i1[c] = min(s.Dims[c]-1, int(math.Floor((hi[c]+w-s.Origin[c])/s.Cell)))
		if i0[c] > i1[c] {
			return i0, i1, false
		}
	}
	return i0, i1, true
}

// propagate gives every node further than w from the surface the nearest of its upwind neighbours' nearest
// surface points, sweeping the grid in the eight diagonal orders (a vector distance transform, as in Danielsson's
// and Bridson's makelevelset3 sweeps), then measures each such node's distance to the whole triangle its point
// lies on. The distances are distances to real triangles, so they never undershoot, and they stay within a small
// fraction of a cell of the true ones.
func (s *SDF) propagate(m *Mesh, dist []float64, closest []int32, cp []Vec3, w float64) {
	nx, ny, nz := s.Dims[0], s.Dims[1], s.Dims[2]
	for dir := 0; dir < 8; dir++ {
		i0, i1, di := 0, nx, 1
		if dir&1 != 0 {
			i0, i1, di = nx-1, -1, -1
		}
		j0, j1, dj := 0, ny, 1
		if dir&2 != 0 {
			j0, j1, dj = ny-1, -1, -1
		}
		k0, k1, dk := 0, nz, 1
		if dir&4 != 0 {
			k0, k1, dk = nz-1, -1, -1
		}
		// the upwind neighbours: one step back along each axis
		sx, sy, sz := -di, -dj*nx, -dk*nx*ny
		for k := k0; k != k1; k += dk {
			z := s.Origin[2] + float64(k)*s.Cell
			for j := j0; j != j1; j += dj {
				y := s.Origin[1] + float64(j)*s.Cell
				for i := i0; i != i1; i += di {
					n := i + nx*(j+ny*k)
					best := dist[n]
					if best <= w {
						continue // exact already
					}
					p := Vec3{s.Origin[0] + float64(i)*s.Cell, y, z}
					best2, from := best*best, -1
					try := func(m int) {
						if closest[m] < 0 {
							return
						}
						q := cp[m]
						dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
						if d2 := dx*dx + dy*dy + dz*dz; d2 < best2 {
							best2, from = d2, m
						}
					}
					if i != i0 {
						try(n + sx)
					}
					if j != j0 {
						try(n + sy)
					}
					if k != k0 {
						try(n + sz)
					}
					if from >= 0 {
						dist[n], cp[n], closest[n] = math.Sqrt(best2), cp[from], closest[from]
					}
				}
			}
		}
	}
	for n, t := range closest {
		if t < 0 || dist[n] <= w {
			continue
		}
		p := s.nodeAt(n)
		tr := m.Triangles[t]
		q := closestOnTriangle(p, m.Vertices[tr[0]], m.Vertices[tr[1]], m.Vertices[tr[2]])
		dist[n] = math.Min(dist[n], q.Sub(p).Len())
	}
}

// parity decides for every node whether it is inside: along each axis, the grid line through the node is crossed
// by some triangles (found by rasterising each triangle's projection, decided exactly at shared edges and
// vertices); an odd number of crossings before the node votes inside, and two votes of three decide.
func (s *SDF) parity(m *Mesh) []bool {
	nodes := len(s.Values)
	if nodes == 0 {
		nodes = s.Dims[0] * s.Dims[1] * s.Dims[2]
	}
	votes := make([]uint8, nodes)
	type crossing struct {
		row int32
		x   float64 // in cells from the origin along the axis
	}
	var xs []crossing
	for axis := 0; axis < 3; axis++ {
		u, v := (axis+1)%3, (axis+2)%3
		nu := s.Dims[u]
		xs = xs[:0]
		for _, t := range m.Triangles {
			a, b, c := m.Vertices[t[0]], m.Vertices[t[1]], m.Vertices[t[2]]
			lo, hi := a.Min(b).Min(c), a.Max(b).Max(c)
			ju0 := max(0, int(math.Ceil((lo[u]-s.Origin[u])/s.Cell)))
			ju1 := min(s.Dims[u]-1, int(math.Floor((hi[u]-s.Origin[u])/s.Cell)))
			jv0 := max(0, int(math.Ceil((lo[v]-s.Origin[v])/s.Cell)))
			jv1 := min(s.Dims[v]-1, int(math.Floor((hi[v]-s.Origin[v])/s.Cell)))
			for jv := jv0; jv <= jv1; jv++ {
				pv := s.Origin[v] + float64(jv)*s.Cell
				for ju := ju0; ju <= ju1; ju++ {
					pu := s.Origin[u] + float64(ju)*s.Cell
					if x, ok := rayHit(pu, pv, a, b, c, axis, u, v); ok {
						xs = append(xs, crossing{int32(ju + nu*jv), (x - s.Origin[axis]) / s.Cell})
					}
				}
			}
		}
		slices.SortFunc(xs, func(p, q crossing) int {
			switch {
			case p.row != q.row:
				return int(p.row - q.row)
			case p.x < q.x:
				return -1
			case p.x > q.x:
				return 1
			}
			return 0
		})
		var stride [3]int
		stride[0], stride[1], stride[2] = 1, s.Dims[0], s.Dims[0]*s.Dims[1]
		for r := 0; r < len(xs); {
			e := r
			for e < len(xs) && xs[e].row == xs[r].row {
				e++
			}
			ju, jv := int(xs[r].row)%nu, int(xs[r].row)/nu
			base := ju*stride[u] + jv*stride[v]
			in, next := false, r
			for i := 0; i < s.Dims[axis]; i++ {
				for next < e && xs[next].x < float64(i) {
					in = !in
					next++
				}
				if in {
					votes[base+i*stride[axis]]++
				}
			}
			r = e
		}
	}
	inside := make([]bool, nodes)
	for n, c := range votes {
		inside[n] = c >= 2
	}
	return inside
}

// Distance is the signed distance at p, interpolated trilinearly between the grid's nodes. Outside the grid it is
// the distance to the grid's box plus the value at the nearest point of the box (an upper bound of the true
// distance), so it can be called anywhere.
func (s *SDF) Distance(p Vec3) float64 {
	lo, hi := s.Bounds()
	q := p.Max(lo).Min(hi)
	d := s.trilinear(q)
	if q != p {
		d += p.Sub(q).Len()
	}
	return d
}

// Normal is the direction in which Distance grows fastest at p (central differences half a cell apart), a unit
// vector: the outward normal near the surface. Where the field is flat it returns (0, 1, 0).
func (s *SDF) Normal(p Vec3) Vec3 {
	h := s.Cell / 2
	var g Vec3
	for c := 0; c < 3; c++ {
		a, b := p, p
		a[c] += h
		b[c] -= h
		g[c] = s.Distance(a) - s.Distance(b)
	}
	l := g.Len()
	if !(l > 0) {
		return Vec3{0, 1, 0}
	}
	return g.Scale(1 / l)
}

func (s *SDF) trilinear(p Vec3) float64 {
	var i [3]int
	var f [3]float64
	for c := 0; c < 3; c++ {
		x := (p[c] - s.Origin[c]) / s.Cell
		i[c] = min(max(int(math.Floor(x)), 0), s.Dims[c]-2)
		f[c] = x - float64(i[c])
	}
	nx, nxy := s.Dims[0], s.Dims[0]*s.Dims[1]
	n := i[0] + nx*i[1] + nxy*i[2]
	v := s.Values
	c00 := lerp(float64(v[n]), float64(v[n+1]), f[0])
	c10 := lerp(float64(v[n+nx]), float64(v[n+nx+1]), f[0])
	c01 := lerp(float64(v[n+nxy]), float64(v[n+nxy+1]), f[0])
	c11 := lerp(float64(v[n+nx+nxy]), float64(v[n+nx+nxy+1]), f[0])
	return lerp(lerp(c00, c10, f[1]), lerp(c01, c11, f[1]), f[2])
}

func lerp(a, b, t float64) float64 { return a + (b-a)*t }
