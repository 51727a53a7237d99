// Package grid is the uniform-grid neighbour search the particle solvers share (Green 2008, "CUDA particles"):
// particles are binned into cubic cells no smaller than the search radius, counting-sorted by cell, and each
// particle's neighbours are gathered from its own and the 26 adjacent cells.
//
// The sort is stable in a strong sense: the order depends only on the positions and particle ids, never on the
// input order or on thread timing — particles are ordered by (cell, id). The GPU builds the same order with atomic
// counting plus a per-cell sort, so CPU and GPU solvers traverse neighbours identically and a run is deterministic.
package grid

import (
	"fmt"
	"math"
	"sync/atomic"

	"github.com/slosh/slosh/sim/par"
)

// MaxCells bounds the grid's size; a finer grid for a domain is an error, not an allocation of gigabytes.
const MaxCells = 1 << 25

// Grid is a uniform grid over a box.
type Grid struct {
	Origin [3]float32
	Cell   float32 // cell side, ≥ the search radius
	Dims   [3]int32

	// After Build: the particles of cell c occupy sorted positions [Start[c], Start[c+1]).
	Start []int32
	// Order[k] is the input index of the particle that sorts to position k.
	Order []int32

	cellOf []int32
	count  []int32
	pool   par.Pool
}

// Dims is the number of cubic cells of side `cell` that cover [min, max] along each axis.
func Dims(min, max [3]float32, cell float32) ([3]int32, error) {
	var dims [3]int32
	if !(cell > 0) || math.IsInf(float64(cell), 0) {
		return dims, fmt.Errorf("grid: cell size %g must be positive", cell)
	}
	total := 1.0
	for c := 0; c < 3; c++ {
		ext := max[c] - min[c]
		if !(ext > 0) {
			return dims, fmt.Errorf("grid: empty extent %g along axis %d", ext, c)
		}
		n := math.Max(1, math.Ceil(float64(ext/cell)))
		total *= n
		if total > MaxCells {
			return dims, fmt.Errorf("grid: a %g m cell over a %v–%v box needs more than %d cells; use a larger kernel radius or particle spacing", cell, min, max, MaxCells)
		}
		dims[c] = int32(n)
	}
	return dims, nil
}

// New makes a grid of cubic cells of side `cell` covering [min, max].
func New(min, max [3]float32, cell float32) (*Grid, error) {
	dims, err := Dims(min, max, cell)
	if err != nil {
		return nil, err
	}
	g := &Grid{Origin: min, Cell: cell, Dims: dims}
	n := g.NumCells()
	g.Start = make([]int32, n+1)
	g.count = make([]int32, n)
	return g, nil
}

// NumCells is the number of cells.
func (g *Grid) NumCells() int { return int(g.Dims[0]) * int(g.Dims[1]) * int(g.Dims[2]) }

// Coord returns the integer cell coordinates of a point, clamped to the grid.
func (g *Grid) Coord(x, y, z float32) (int32, int32, int32) {
	inv := 1 / g.Cell
	return clamp(int32(floor((x-g.Origin[0])*inv)), g.Dims[0]), clamp(int32(floor((y-g.Origin[1])*inv)), g.Dims[1]),
		clamp(int32(floor((z-g.Origin[2])*inv)), g.Dims[2])
}

// floor avoids float64 conversions; positions are far from int32 limits after clamping.
func floor(x float32) float32 {
	if x != x { // NaN: put it in cell 0 rather than anywhere undefined
		return 0
	}
	if x < -1e9 {
		return -1e9
	}
	if x > 1e9 {
		return 1e9
	}
	i := float32(int64(x))
	if i > x {
		i--
	}
	return i
}

func clamp(i, n int32) int32 {
	if i < 0 {
		return 0
	}
	if i >= n {
		return n - 1
	}
	return i
}

// Index is the linear cell index of a point: x fastest, then y, then z.
func (g *Grid) Index(x, y, z float32) int32 {
	cx, cy, cz := g.Coord(x, y, z)
	return (cz*g.Dims[1]+cy)*g.Dims[0] + cx
}

// Build sorts the particles by (cell, id): afterwards Order and Start describe the sorted arrangement.
func (g *Grid) Build(pos [][4]float32, id []uint32) {
	n := len(pos)
	if len(id) != n {
		panic("grid: Build with mismatched pos and id lengths")
	}
	if cap(g.cellOf) < n { // a growing count (an emitter) gets room to grow into, not a new array every build
		c := max(n, cap(g.cellOf)*3/2)
		g.cellOf = make([]int32, n, c)
		g.Order = make([]int32, n, c)
	}
	g.cellOf, g.Order = g.cellOf[:n], g.Order[:n]
	g.pool.For(n, 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			g.cellOf[i] = g.Index(pos[i][0], pos[i][1], pos[i][2])
		}
	})
	clear(g.count)
	for _, c := range g.cellOf {
		g.count[c]++
	}
	// exclusive prefix sum
	sum := int32(0)
	for c, k := range g.count {
		g.Start[c] = sum
		sum += k
	}
	g.Start[len(g.count)] = sum
	// scatter, then restore id order within each cell (cells hold a handful of particles, and the input is
	// usually last step's sorted order, so insertion sort does almost nothing)
	clear(g.count)
	for i, c := range g.cellOf {
		g.Order[g.Start[c]+g.count[c]] = int32(i)
		g.count[c]++
	}
	g.pool.For(len(g.count), 8192, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			seg := g.Order[g.Start[c]:g.Start[c+1]]
			for a := 1; a < len(seg); a++ {
				v := seg[a]
				b := a - 1
				for ; b >= 0 && id[seg[b]] > id[v]; b-- {
					seg[b+1] = seg[b]
				}
				seg[b+1] = v
			}
		}
	})
}

// Row returns the sorted positions [begin, end) of the row of (up to) three cells x−1..x+1 at offset (dy, dz) from
// cell (cx, cy, cz): the three are contiguous in sorted order. ok is false when the row lies outside the grid.
// Visiting dz, then dy, from −1 to 1 covers the 27 cells around a cell in the order the GPU's nsRow uses.
func (g *Grid) Row(cx, cy, cz, dy, dz int32) (begin, end int32, ok bool) {
	z, y := cz+dz, cy+dy
	if z < 0 || z >= g.Dims[2] || y < 0 || y >= g.Dims[1] {
		return 0, 0, false
	}
	row := (z*g.Dims[1] + y) * g.Dims[0]
	return g.Start[row+max(cx-1, 0)], g.Start[row+min(cx+1, g.Dims[0]-1)+1], true
}

// faces are a point's distances to the faces of its cell, low and high along each axis, made shorter by a
// thousandth of a cell (never below 0) so that float rounding in them never culls a cell that holds a neighbour; a
// point outside its cell (clamped into the grid) is at distance 0 from the faces it lies beyond.
type faces struct{ lo, hi [3]float32 }

func (g *Grid) faces(cx, cy, cz int32, x, y, z float32) faces {
	m := 1e-3 * g.Cell
	var f faces
	c := [3]int32{cx, cy, cz}
	p := [3]float32{x, y, z}
	for k := range 3 {
		d := p[k] - (g.Origin[k] + float32(c[k])*g.Cell)
		f.lo[k] = max(d-m, 0)
		f.hi[k] = max(g.Cell-d-m, 0)
	}
	return f
}

// reachableRow is Row cut to the cells a sphere of squared radius r2 about the point of faces f can reach: none
// when the row's nearest edge is beyond r, and the row's end cells only when the sphere reaches across the faces
// to them. Against the 27 whole cells this tests about a quarter fewer candidates, and finds the same neighbours
// in the same order.
func (g *Grid) reachableRow(cx, cy, cz, dy, dz int32, f *faces, r2 float32) (begin, end int32, ok bool) {
	z, y := cz+dz, cy+dy
	if z < 0 || z >= g.Dims[2] || y < 0 || y >= g.Dims[1] {
		return 0, 0, false
	}
	var d2 float32 // the squared distance to the row's nearest edge or face
	switch dy {
	case -1:
		d2 += f.lo[1] * f.lo[1]
	case 1:
		d2 += f.hi[1] * f.hi[1]
	}
	switch dz {
	case -1:
		d2 += f.lo[2] * f.lo[2]
	case 1:
		d2 += f.hi[2] * f.hi[2]
	}
	if d2 >= r2 {
		return 0, 0, false
	}
	x0, x1 := cx, cx
	if rx2 := r2 - d2; f.lo[0]*f.lo[0] < rx2 {
		x0 = max(cx-1, 0)
	}
	if rx2 := r2 - d2; f.hi[0]*f.hi[0] < rx2 {
		x1 = min(cx+1, g.Dims[0]-1)
	}
	row := (z*g.Dims[1] + y) * g.Dims[0]
	return g.Start[row+x0], g.Start[row+x1+1], true
}

// Neighbors fills fixed-stride neighbour lists for particles already in sorted order (Build, then reorder by
// Order): for particle i, nbr[i*stride : i*stride+count[i]] holds every j ≠ i with |x_i − x_j|² < r², visiting
// cells z-major (dz, then dy, then dx from −1 to 1; a row's three cells as one contiguous range) and particles within
// a cell in sorted order — so each list is ascending in j. Lists longer than stride are cut; the number of particles
// cut short is returned.
//
// The test of each candidate is branch-free: its index is written to a scratch list, and the list's length
// advances by the comparison. About one candidate in seven is a neighbour; on a lattice the hits come in a pattern a
// branch predictor learns, but in a flow they do not, and a branch per candidate then cost twice the search
// (issue 30's 97k dam break after 20 frames: 42 ms a search with a branch, 20 ms without; on its starting lattice
// 21 against 23–27 ms). Rows and end cells the search sphere cannot reach are not visited (reachableRow): 16 %
// fewer instructions on BenchmarkNeighbors, counted by cachegrind. Where Go's SIMD package is built in
// (GOEXPERIMENT=simd) and the CPU has AVX-512, 16 candidates are tested at once (scan_simd.go), with the same
// lists as a result: BenchmarkNeighbors 11.0–11.1 → 6.5–7.0 ms.
func (g *Grid) Neighbors(pos [][4]float32, r float32, stride int, nbr, count []int32) (clipped int) {
	return g.search(pos, r, stride, nbr, count, false, nil)
}

// Block is the number of consecutive particles NeighborsThen lays out side by side and hands to its callback at
// once.
const Block = 16

// Slot is where NeighborsThen puts particle i's k-th neighbour (k < stride) in its lists: the blocks of Block
// particles that start at multiples of Block keep their particles' k-th neighbours side by side, so a pass that
// works on a block's particles side by side (16 lanes) reads a block's k-th neighbours with one load.
func Slot(i, k, stride int) int { return i/Block*Block*stride + k*Block + i%Block }

// BlockedLen is the length of NeighborsThen's lists for n particles.
func BlockedLen(n, stride int) int { return (n + Block - 1) / Block * Block * stride }

// NeighborsThen finds Neighbors' lists, in order, but lays them out by Slot in nbr (BlockedLen long), and calls
// then(lo, hi) as soon as the lists of particles [lo, hi) are finished, on the worker that found them, before it
// searches for the next: a pass over the lists fused into the search finds the neighbours' positions still in the
// cache the search brought them into. The ranges are the blocks of Block particles that start at multiples of
// Block (the last may be shorter), and no two workers share a block. Within a block every list is padded to the
// block's longest with the particle's own index, and the lanes of a last, short block past the last particle
// hold that particle's index, so each of a block's Block lanes holds a particle's index up to its longest list.
func (g *Grid) NeighborsThen(pos [][4]float32, r float32, stride int, nbr, count []int32, then func(lo, hi int)) (clipped int) {
	return g.search(pos, r, stride, nbr, count, true, then)
}

// search is Neighbors (blocked false) and NeighborsThen (blocked true).
func (g *Grid) search(pos [][4]float32, r float32, stride int, nbr, count []int32, blocked bool, then func(lo, hi int)) (clipped int) {
	n := len(pos)
	if size := n * stride; len(count) < n || len(nbr) < size || blocked && len(nbr) < BlockedLen(n, stride) {
		panic("grid: neighbour buffers too small")
	}
	if r > g.Cell*1.0001 {
		panic(fmt.Sprintf("grid: search radius %g exceeds cell size %g", r, g.Cell))
	}
	r2 := r * r
	var total atomic.Int64
	g.pool.For((n+Block-1)/Block, 1024/Block, func(lo, hi int) {
		local := int64(0)
		var scratch []int32 // the candidates' indices, the hits first
		sc := newScanner()
		for i := lo * Block; i < min(hi*Block, n); i++ {
			px, py, pz := pos[i][0], pos[i][1], pos[i][2]
			cx, cy, cz := g.Coord(px, py, pz)
			fl := g.faces(cx, cy, cz, px, py, pz)
			var rows [9][2]int32 // the reachable rows' sorted ranges
			nr, cand := 0, 0
			for dz := int32(-1); dz <= 1; dz++ {
				for dy := int32(-1); dy <= 1; dy++ {
					b, e, ok := g.reachableRow(cx, cy, cz, dy, dz, &fl, r2)
					if !ok {
						continue
					}
					rows[nr] = [2]int32{b, e}
					nr++
					cand += int(e - b)
				}
			}
			if cap(scratch) < cand+scanSlack {
				scratch = make([]int32, cand+scanSlack, 2*cand+64)
			}
			k := sc.scan(pos, rows[:nr], int32(i), r2, scratch[:cand+scanSlack])
			if k > stride {
				k = stride
				local++
			}
			count[i] = int32(k)
			if !blocked {
				copy(nbr[i*stride:i*stride+k], scratch[:k])
				continue
			}
			slots := nbr[Slot(i, 0, stride):]
			for kk, j := range scratch[:k] {
				slots[Block*kk] = j
			}
			if (i+1)%Block == 0 || i == n-1 {
				b := i / Block * Block
				pad(nbr, count, b, i+1, stride)
				if then != nil {
					then(b, i+1)
				}
			}
		}
		total.Add(local)
	})
	return int(total.Load())
}

// pad fills the block [lo, hi)'s lists to its longest with each particle's own index, and the lanes past hi with
// hi−1's (NeighborsThen's layout).
func pad(nbr, count []int32, lo, hi, stride int) {
	most := int32(0)
	for i := lo; i < hi; i++ {
		most = max(most, count[i])
	}
	for l := range Block {
		i, k0 := lo+l, int32(0)
		if i < hi {
			k0 = count[i]
		}
		slots := nbr[Slot(lo, 0, stride)+l:]
		for k := k0; k < most; k++ {
			slots[Block*int(k)] = int32(min(i, hi-1))
		}
	}
}

// Brute finds the same neighbour sets by testing every pair; for tests.
func Brute(pos [][4]float32, r float32) [][]int32 {
	out := make([][]int32, len(pos))
	r2 := r * r
	for i := range pos {
		for j := range pos {
			if i == j {
				continue
			}
			ex, ey, ez := pos[i][0]-pos[j][0], pos[i][1]-pos[j][1], pos[i][2]-pos[j][2]
			if ex*ex+ey*ey+ez*ez < r2 {
				out[i] = append(out[i], int32(j))
			}
		}
	}
	return out
}

// scanRows is the search's inner loop, one candidate at a time: it writes to buf, in order, the indices of the
// particles of rows (sorted ranges of pos) closer than √r2 to particle self, self left out, and returns their
// count. buf holds every candidate. The test is branch-free: each candidate's index is written, and the count
// advances by the comparison. The row that holds self is scanned in two parts around it.
func scanRows(pos [][4]float32, rows [][2]int32, self int32, r2 float32, buf []int32) int {
	px, py, pz := pos[self][0], pos[self][1], pos[self][2]
	k := 0
	for _, row := range rows {
		b, e := row[0], row[1]
		if b <= self && self < e {
			k = scanRow(pos, b, self, px, py, pz, r2, buf, k)
			b = self + 1
		}
		k = scanRow(pos, b, e, px, py, pz, r2, buf, k)
	}
	return k
}

// scanRow is scanRows for the one range [b, e), appending at buf[k].
func scanRow(pos [][4]float32, b, e int32, px, py, pz, r2 float32, buf []int32, k int) int {
	c := pos[b:e]
	for j := range c {
		ex, ey, ez := px-c[j][0], py-c[j][1], pz-c[j][2]
		buf[k] = b + int32(j)
		if ex*ex+ey*ey+ez*ez < r2 {
			k++
		}
	}
	return k
}
