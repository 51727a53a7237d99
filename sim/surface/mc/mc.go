// Package mc extracts the zero level set of a scalar field sampled on a regular grid as a triangle mesh, by
// marching cubes (W. E. Lorensen and H. E. Cline, "Marching cubes: a high resolution 3D surface construction
// algorithm", SIGGRAPH 1987), for the meshes of issue 16.
//
// The field is negative inside. A value of exactly 0 counts as outside, everywhere, so every crossed grid edge
// joins a strictly negative and a non-negative value. The case table is derived at start-up from one rule per
// cube face (buildCases): a face whose inside corners sit on a diagonal is cut so that they stay apart. Two cubes
// sharing a face therefore cut it alike, and the mesh has no cracks: it is closed, every edge is shared by exactly
// two triangles traversing it in opposite directions, and the triangles' right-hand normals point out of the inside
// region (toward positive values).
//
// A vertex sits on each crossed grid edge, at the linear interpolation of the zero between the edge's two values,
// and is shared by the (up to four) cells around the edge through the edge's global key, also across blocks meshed
// separately into the same Builder. Each loop of a cube is fanned from a vertex whose diagonals never join two
// vertices on one face of the cube, which the neighbour across that face could join too (appendLoop). Vertex
// normals are the area-weighted means of the normals of the triangles around each vertex, so they agree with the
// mesh's orientation by construction.
//
// MeshGrid meshes a dense grid and counts the values beyond it as outside, so its meshes are always closed; a
// sparse field meshes its blocks of cells one at a time through Builder.Cells.
package mc

import (
	"errors"
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/trimesh"
)

// Mesh is the triangle mesh every part of slosh passes around (sim/trimesh).
type Mesh = trimesh.Mesh

// MaxPoints bounds the grid points of one MeshGrid call (1024³), checked before anything is allocated.
const MaxPoints = 1 << 30

// keyBits is the width of each grid coordinate in an edge key; coordinates run from −keyOffset to keyOffset−1.
const (
	keyBits   = 20
	keyOffset = 1 << (keyBits - 1)
)

// tEps keeps vertices a little away from the grid points, so that a zero at a grid point, shared by several
// crossed edges, does not put several vertices at one place (zero-length mesh edges, zero-area triangles).
const tEps = 1e-5

// Grid is a dense field sampled at Origin + H·(i, j, k) for 0 ≤ i < Dims[0] etc., with i fastest in Values.
type Grid struct {
	Dims   [3]int
	Origin [3]float64
	H      float64
	Values []float32
}

// MeshGrid meshes the zero level set of a dense grid. Values outside the grid count as positive (outside), so
// the cells straddling the grid's boundary close the mesh: a field negative up to the boundary is capped there,
// and the mesh is always closed. Non-finite values are refused.
func MeshGrid(g Grid) (*Mesh, error) {
	n := 1
	for a, d := range g.Dims {
		if d < 1 || d > keyOffset-2 {
			return nil, fmt.Errorf("mc: grid dimension %d is %d, want 1 to %d", a, d, keyOffset-2)
		}
		if n > MaxPoints/d {
			return nil, fmt.Errorf("mc: grid %v exceeds MaxPoints (%d grid points)", g.Dims, MaxPoints)
		}
		n *= d
	}
	if len(g.Values) != n {
		return nil, fmt.Errorf("mc: grid %v needs %d values, got %d", g.Dims, n, len(g.Values))
	}
	for i, v := range g.Values {
		if v-v != 0 { // NaN or ±Inf
			return nil, fmt.Errorf("mc: value %d (grid point %d, %d, %d) is %v", i,
				i%g.Dims[0], i/g.Dims[0]%g.Dims[1], i/(g.Dims[0]*g.Dims[1]), v)
		}
	}
	b, err := NewBuilder(g.Origin, g.H)
	if err != nil {
		return nil, err
	}
	nx, ny, nz := g.Dims[0], g.Dims[1], g.Dims[2]
	at := func(i, j, k int) float32 {
		if uint(i) >= uint(nx) || uint(j) >= uint(ny) || uint(k) >= uint(nz) {
			return 1
		}
		return g.Values[i+nx*(j+ny*k)]
	}
	if err := b.Cells([3]int{-1, -1, -1}, [3]int{nx, ny, nz}, at); err != nil {
		return nil, err
	}
	return b.Finish(), nil
}

// Builder meshes cells, one block of them at a time, into one mesh: vertices on grid edges shared by two blocks
// are shared through the edge's key. Each cell must be meshed once.
type Builder struct {
	origin [3]float64
	h      float64
	verts  map[uint64]int32 // nil once finished
	m      Mesh
}

// NewBuilder starts a mesh of a grid whose point (i, j, k) is at origin + h·(i, j, k).
func NewBuilder(origin [3]float64, h float64) (*Builder, error) {
	if !(h > 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("mc: grid spacing %v is not positive and finite", h)
	}
	for a, o := range origin {
		if math.IsNaN(o) || math.IsInf(o, 0) {
			return nil, fmt.Errorf("mc: origin coordinate %d is %v", a, o)
		}
	}
	return &Builder{origin: origin, h: h, verts: make(map[uint64]int32)}, nil
}

// Cells meshes the cells whose lowest corners (i, j, k) run over lo ≤ (i, j, k) < hi; at gives the field at any
// grid point of those cells (its values should be finite: a NaN counts as outside). Grid coordinates must lie
// within ±2¹⁹.
func (b *Builder) Cells(lo, hi [3]int, at func(i, j, k int) float32) error {
	for a := range 3 {
		if lo[a] < -keyOffset || hi[a] >= keyOffset || lo[a] > hi[a] {
			return fmt.Errorf("mc: cells %v to %v outside the grid coordinates ±%d", lo, hi, keyOffset)
		}
	}
	if at == nil {
		return errors.New("mc: no field")
	}
	if b.verts == nil {
		return errors.New("mc: cells added to a finished mesh")
	}
	var v [8]float32
	var idx [12]int32
	for k := lo[2]; k < hi[2]; k++ {
		for j := lo[1]; j < hi[1]; j++ {
			for c := 0; c < 8; c += 2 { // the row's first x layer; each cell then reads only its upper one
				v[c+1] = at(lo[0], j+c>>1&1, k+c>>2&1)
			}
			for i := lo[0]; i < hi[0]; i++ {
				mask := 0
				for c := 0; c < 8; c += 2 {
					v[c] = v[c+1]
					v[c+1] = at(i+1, j+c>>1&1, k+c>>2&1)
				}
				for c := range 8 {
					if v[c] < 0 {
						mask |= 1 << c
					}
				}
				tris := caseTris[mask]
				if len(tris) == 0 {
					continue
				}
				for e := range idx {
					idx[e] = -1
				}
				edgeVertex := func(e int8) int32 {
					if idx[e] < 0 {
						ce := cubeEdges[e]
						idx[e] = b.vertex(i+ce.corner&1, j+ce.corner>>1&1, k+ce.corner>>2&1, ce.axis,
							v[ce.corner], v[ce.corner|1<<ce.axis])
					}
					return idx[e]
				}
				for _, t := range tris {
					b.m.Triangles = append(b.m.Triangles, [3]int32{edgeVertex(t[0]), edgeVertex(t[1]), edgeVertex(t[2])})
				}
			}
		}
	}
	return nil
}

// vertex returns the index of the vertex on the grid edge from point (i, j, k) along axis, whose end values are
// v0 and v1 (of opposite signs), adding it on first use.
func (b *Builder) vertex(i, j, k, axis int, v0, v1 float32) int32 {
	key := uint64(i+keyOffset)<<(2*keyBits+2) | uint64(j+keyOffset)<<(keyBits+2) | uint64(k+keyOffset)<<2 | uint64(axis)
	if id, ok := b.verts[key]; ok {
		return id
	}
	t := float64(v0) / (float64(v0) - float64(v1))
	if math.IsNaN(t) { // a NaN or infinite value at the edge's end
		t = 0.5
	}
	t = max(tEps, min(1-tEps, t))
	p := [3]float64{float64(i), float64(j), float64(k)}
	p[axis] += t
	id := int32(len(b.m.Positions))
	b.m.Positions = append(b.m.Positions, [3]float32{
		float32(b.origin[0] + b.h*p[0]), float32(b.origin[1] + b.h*p[1]), float32(b.origin[2] + b.h*p[2])})
	b.verts[key] = id
	return id
}

// Finish computes the vertex normals and returns the mesh; the Builder takes no cells afterwards, and a second
// Finish returns the same mesh.
func (b *Builder) Finish() *Mesh {
	m := &b.m
	if b.verts == nil {
		return m
	}
	acc := make([][3]float64, len(m.Positions))
	pos := func(i int32) [3]float64 {
		p := m.Positions[i]
		return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	for _, t := range m.Triangles {
		p0 := pos(t[0])
		n := cross(sub(pos(t[1]), p0), sub(pos(t[2]), p0)) // twice the area times the unit normal
		for _, i := range t {
			acc[i][0] += n[0]
			acc[i][1] += n[1]
			acc[i][2] += n[2]
		}
	}
	m.Normals = make([][3]float32, len(acc))
	for i, n := range acc {
		l := math.Sqrt(dot(n, n))
		if l > 0 {
			m.Normals[i] = [3]float32{float32(n[0] / l), float32(n[1] / l), float32(n[2] / l)}
		}
	}
	b.verts = nil
	return m
}
