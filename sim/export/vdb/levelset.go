// Package vdb writes OpenVDB files (file format 224; the tests read them with OpenVDB 10) in pure Go: sparse
// grids of the standard tree Tree<Root, Internal 5, Internal 4, Leaf 3> holding narrow-band level sets and fog
// volumes (float) and vectors on a level set's band (vec3s, three float32 a voxel, say a velocity), with OpenVDB's
// active-mask compression (each node's active values, its inactive ones told by ±background and a mask).
//
// The layout follows OpenVDB's io::Archive::write: a header (magic, format and library versions, a UUID), the
// file's metadata, then per grid a descriptor (name, type, the offsets of its parts), its compression flags, its
// metadata, its transform (a UniformScaleMap: voxel (i, j, k) is centred at voxel size × (i, j, k)), its topology
// (the root's background and children, each internal node's child and value masks and tile values, each leaf's
// value mask) and its leaves' values.
package vdb

import (
	"fmt"
	"math"
	"math/bits"
)

// Tree geometry: leaves of 8³ voxels, internal nodes of 16³ leaves (128³ voxels) under nodes of 32³ of those
// (4096³ voxels) under the root.
const (
	leafBits  = 3
	leafSide  = 1 << leafBits
	leafSize  = leafSide * leafSide * leafSide
	node4Bits = 4 + leafBits
	node5Bits = 5 + node4Bits
)

// HalfWidth is the narrow band's half width in voxels (OpenVDB's default, LEVEL_SET_HALF_WIDTH).
const HalfWidth = 3

// MaxLeaves bounds the leaves of one grid (2.1 kB each): as many blocks as sim/surface/field samples at most.
const MaxLeaves = 1 << 17

// maxCoord bounds voxel coordinates, well within OpenVDB's int32 coordinates.
const maxCoord = 1 << 30

// Grid is a named grid: a level set (LevelSet), whose leaves hold signed distances in world units (negative
// inside) within HalfWidth voxels of the surface and ±Background elsewhere; a fog volume (Fog), densities from 0
// outside to 1 inside; or a grid of vectors (Vectors) on a level set's band, (0, 0, 0) elsewhere.
type Grid struct {
	Name       string
	Voxel      float64 // the voxel size, m
	Background float32 // a level set's HalfWidth × Voxel; a fog volume's 0; each component of a vector grid's
	kind       kind
	leaves     []leaf
	vals       []float32  // leaf n's values, vals[n·leafSize·w : (n+1)·leafSize·w] for w = kind.width() a voxel
	inside     [][3]int32 // leaf-sized blocks wholly inside: inactive tiles of −Background, or a fog's active 1
}

// kind is what a grid holds, and so its value type and class.
type kind uint8

const (
	levelSet kind = iota
	fogVolume
	vector // vec3s, a velocity: OpenVDB's vector type "contravariant relative", class unknown
)

// width is the number of floats of each value.
func (k kind) width() int {
	if k == vector {
		return 3
	}
	return 1
}

// treeType is the tree's type name in the file, valueType its value's.
func (k kind) treeType() string {
	if k == vector {
		return "Tree_vec3s_5_4_3"
	}
	return "Tree_float_5_4_3"
}

// class is the grid's class as OpenVDB's metadata names it; "" for unknown, which OpenVDB leaves unwritten.
func (g *Grid) class() string {
	switch g.kind {
	case fogVolume:
		return "fog volume"
	case levelSet:
		return "level set"
	}
	return ""
}

// value is one voxel's value, its first width() components used.
type value [3]float32

// background is the grid's background value.
func (g *Grid) background() value {
	if g.kind == vector {
		return value{}
	}
	return value{g.Background}
}

// insideTile is the value of a tile wholly inside, and whether it is active.
func (g *Grid) insideTile() (value, bool) {
	switch g.kind {
	case fogVolume:
		return value{1}, true
	case levelSet:
		return value{-g.Background}, false
	}
	return g.background(), false
}

type leaf struct {
	origin [3]int32
	active [leafSize / 64]uint64 // bit n: voxel n = x<<6 | y<<3 | z is active
}

// leafVals is leaf n's values, in OpenVDB's order (x slowest), width() floats a voxel.
func (g *Grid) leafVals(n int) []float32 {
	w := g.kind.width() * leafSize
	return g.vals[n*w : (n+1)*w]
}

// Leaves is the number of leaf nodes stored.
func (g *Grid) Leaves() int { return len(g.leaves) }

// ActiveVoxels is the number of active voxels: a level set's band, a fog volume's inside, a vector grid's band.
func (g *Grid) ActiveVoxels() int64 {
	var n int64
	if _, on := g.insideTile(); on {
		n = int64(len(g.inside)) * leafSize
	}
	for i := range g.leaves {
		for _, w := range g.leaves[i].active {
			n += int64(popcount(w))
		}
	}
	return n
}

// ActiveLeafVoxels appends to dst the coordinates of the active voxels of g's leaves — all of a level set's or a
// vector grid's active voxels, a fog volume's but for its inside tiles — in the order Vectors takes values in.
func (g *Grid) ActiveLeafVoxels(dst [][3]int32) [][3]int32 {
	for i := range g.leaves {
		l := &g.leaves[i]
		for w, m := range l.active {
			for ; m != 0; m &= m - 1 {
				n := int32(w<<6 | trailingZeros(m))
				dst = append(dst, [3]int32{l.origin[0] + n>>6, l.origin[1] + n>>3&7, l.origin[2] + n&7})
			}
		}
	}
	return dst
}

// at is the grid's value at voxel (i, j, k) and whether it is active.
func (g *Grid) at(c [3]int) (value, bool) {
	o := [3]int32{int32(c[0] &^ (leafSide - 1)), int32(c[1] &^ (leafSide - 1)), int32(c[2] &^ (leafSide - 1))}
	w := g.kind.width()
	for i := range g.leaves {
		if l := &g.leaves[i]; l.origin == o {
			n := (c[0]&(leafSide-1))<<(2*leafBits) | (c[1]&(leafSide-1))<<leafBits | c[2]&(leafSide-1)
			var v value
			copy(v[:w], g.leafVals(i)[n*w:])
			return v, l.active[n>>6]>>(n&63)&1 == 1
		}
	}
	for _, in := range g.inside {
		if in == o {
			return g.insideTile()
		}
	}
	return g.background(), false
}

// Value is a float grid's value at voxel (i, j, k) and whether it is active (for tests and checks); a vector
// grid's x component.
func (g *Grid) Value(c [3]int) (float32, bool) {
	v, on := g.at(c)
	return v[0], on
}

// Vector is a vector grid's value at voxel (i, j, k) and whether it is active (for tests and checks).
func (g *Grid) Vector(c [3]int) ([3]float32, bool) {
	v, on := g.at(c)
	return v, on
}

// checkName refuses a grid name OpenVDB would not take back.
func checkName(name string) error {
	if name == "" || len(name) > 256 {
		return fmt.Errorf("vdb: grid name %q must have 1 to 256 bytes", name)
	}
	return nil
}

// Fog is level set g as a fog volume named name, as OpenVDB's tools::sdfToFogVolume makes one: 0 outside (inactive,
// the background), −φ/Background inside the band and 1 beyond it, all of the inside active.
func Fog(g *Grid, name string) (*Grid, error) {
	if g.kind != levelSet {
		return nil, fmt.Errorf("vdb: grid %q is not a level set", g.Name)
	}
	if err := checkName(name); err != nil {
		return nil, err
	}
	f := &Grid{Name: name, Voxel: g.Voxel, kind: fogVolume, inside: append([][3]int32(nil), g.inside...)}
	f.leaves = make([]leaf, 0, len(g.leaves))
	f.vals = make([]float32, 0, len(g.vals))
	for i := range g.leaves {
		src := g.leafVals(i)
		l := leaf{origin: g.leaves[i].origin}
		var d [leafSize]float32
		any := false
		for n, v := range src {
			if v >= 0 {
				continue // outside: 0, inactive
			}
			d[n] = min(1, -v/g.Background)
			l.active[n>>6] |= 1 << (n & 63)
			any = true
		}
		if any {
			f.leaves = append(f.leaves, l)
			f.vals = append(f.vals, d[:]...)
		}
	}
	return f, nil
}

// Vectors is a grid of vectors named name on level set g's band, as OpenVDB keeps a velocity beside a level set:
// its active voxels are g's, voxel n of g.ActiveLeafVoxels holding vs[n], and every other voxel is (0, 0, 0),
// inactive (the background). The values must be finite.
func Vectors(g *Grid, name string, vs [][3]float32) (*Grid, error) {
	if g.kind != levelSet {
		return nil, fmt.Errorf("vdb: grid %q is not a level set", g.Name)
	}
	if err := checkName(name); err != nil {
		return nil, err
	}
	if n := g.ActiveVoxels(); int64(len(vs)) != n {
		return nil, fmt.Errorf("vdb: %d vectors for the %d active voxels of %q", len(vs), n, g.Name)
	}
	for i, v := range vs {
		for a, c := range v {
			if math.IsNaN(float64(c)) || math.IsInf(float64(c), 0) {
				return nil, fmt.Errorf("vdb: vector %d's component %d is %g, want finite", i, a, c)
			}
		}
	}
	// g's leaves are at most MaxLeaves, so these are at most 3 × 4 bytes × its voxels.
	f := &Grid{Name: name, Voxel: g.Voxel, kind: vector, leaves: append([]leaf(nil), g.leaves...)}
	f.vals = make([]float32, len(f.leaves)*leafSize*3)
	k := 0
	for i := range f.leaves {
		d := f.leafVals(i)
		for w, m := range f.leaves[i].active {
			for ; m != 0; m &= m - 1 {
				n := w<<6 | trailingZeros(m)
				copy(d[3*n:3*n+3], vs[k][:])
				k++
			}
		}
	}
	return f, nil
}

// LevelSet builds the narrow-band level set named name from φ sampled at the voxels of 8³ blocks: block b has its
// lowest voxel at origins[b] (multiples of 8) and its values at phi[512b:512(b+1)], i fastest, then j, then k; φ is
// negative inside, in world units, and outside (positive) at every voxel of no block. A voxel is active where
// |φ| < HalfWidth·voxel and a voxel whose sign differs from a face neighbour's lies within HalfWidth voxels of it
// along each axis; inactive voxels hold ±Background by their sign. Blocks with no active voxel and one sign are
// dropped (inside ones become tiles of −Background), so the grid grows with the surface, not the volume.
func LevelSet(name string, voxel float64, origins [][3]int, phi []float32, outside float32) (*Grid, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	switch {
	case !(voxel > 0) || math.IsInf(voxel, 1):
		return nil, fmt.Errorf("vdb: voxel size %g must be positive and finite", voxel)
	case len(origins) > MaxLeaves:
		return nil, fmt.Errorf("vdb: %d blocks, more than MaxLeaves = %d", len(origins), MaxLeaves)
	case len(phi) != len(origins)*leafSize:
		return nil, fmt.Errorf("vdb: %d values for %d blocks of %d", len(phi), len(origins), leafSize)
	case !(outside > 0):
		return nil, fmt.Errorf("vdb: the outside value %g must be positive", outside)
	}
	bg := float32(HalfWidth * voxel)
	if math.IsInf(float64(bg), 0) {
		return nil, fmt.Errorf("vdb: voxel size %g overflows the background", voxel)
	}
	index := make(map[[3]int]int32, len(origins))
	for b, o := range origins {
		for a := range 3 {
			if o[a]%leafSide != 0 || o[a] < -maxCoord || o[a] >= maxCoord {
				return nil, fmt.Errorf("vdb: block %d's origin %v is not a multiple of %d within ±%d", b, o, leafSide, maxCoord)
			}
		}
		if _, dup := index[o]; dup {
			return nil, fmt.Errorf("vdb: block %d's origin %v given twice", b, o)
		}
		index[o] = int32(b)
	}
	for i, v := range phi {
		if math.IsNaN(float64(v)) {
			return nil, fmt.Errorf("vdb: φ of block %d, voxel %d is NaN", i/leafSize, i%leafSize)
		}
	}

	// Per block, rows of bits along x (row y + 8z): the inside voxels, then those beside a sign change.
	nb := len(origins)
	near := make([][27]int32, nb) // the 27 blocks around each (itself at 13), −1 where none
	for b, o := range origins {
		for d := range 27 {
			k := [3]int{o[0] + (d%3-1)*leafSide, o[1] + (d/3%3-1)*leafSide, o[2] + (d/9-1)*leafSide}
			if n, ok := index[k]; ok {
				near[b][d] = n
			} else {
				near[b][d] = -1
			}
		}
	}
	in := make([][64]uint8, nb)
	for b := range nb {
		v := phi[b*leafSize : (b+1)*leafSize]
		for r := range 64 {
			var bits uint8
			for i := range leafSide {
				if v[r*leafSide+i] < 0 {
					bits |= 1 << i
				}
			}
			in[b][r] = bits
		}
	}
	cross := make([][64]uint8, nb)
	var pad [16][16]uint16
	for b := range nb {
		padded(in, &near[b], 1, &pad)
		for z := range leafSide {
			for y := range leafSide {
				s := pad[z+1][y+1]
				c := s >> 1 & 0xff
				d := (c ^ s&0xff) | (c ^ s>>2&0xff) |
					(c ^ pad[z+1][y]>>1&0xff) | (c ^ pad[z+1][y+2]>>1&0xff) |
					(c ^ pad[z][y+1]>>1&0xff) | (c ^ pad[z+2][y+1]>>1&0xff)
				cross[b][y+leafSide*z] = uint8(d)
			}
		}
	}

	g := &Grid{Name: name, Voxel: voxel, Background: bg}
	const p = HalfWidth
	const span = leafSide + 2*p
	var xy [span][leafSide]uint16
	for b := range nb {
		// Voxels within HalfWidth of a crossing voxel along each axis: dilate the padded rows in x, y, then z.
		padded(cross, &near[b], p, &pad)
		for z := range span {
			for y := range leafSide {
				var r uint16
				for d := range 2*p + 1 {
					r |= pad[z][y+d]
				}
				var x uint16
				for d := range 2*p + 1 {
					x |= r >> d
				}
				xy[z][y] = x & 0xff
			}
		}
		var l leaf
		var vals [leafSize]float32
		var any, allIn, allOut = false, true, true
		v := phi[b*leafSize : (b+1)*leafSize]
		for k := range leafSide {
			for j := range leafSide {
				var band uint16
				for d := range 2*p + 1 {
					band |= xy[k+d][j]
				}
				for i := range leafSide {
					f := v[i+leafSide*(j+leafSide*k)]
					n := i<<(2*leafBits) | j<<leafBits | k
					switch {
					case band>>i&1 == 1 && f > -bg && f < bg:
						vals[n] = f
						l.active[n>>6] |= 1 << (n & 63)
						any = true
					case f < 0:
						vals[n] = -bg
					default:
						vals[n] = bg
					}
					if f < 0 {
						allOut = false
					} else {
						allIn = false
					}
				}
			}
		}
		o := origins[b]
		l.origin = [3]int32{int32(o[0]), int32(o[1]), int32(o[2])}
		switch {
		case any || !allIn && !allOut:
			g.leaves = append(g.leaves, l)
			g.vals = append(g.vals, vals[:]...)
		case allIn:
			g.inside = append(g.inside, l.origin)
		}
	}
	return g, nil
}

// padded fills pad[z][y] for z, y in [0, 8+2p) with the bits of the voxels x in [−p, 8+p) (bit x+p) around the
// block whose neighbours are near, from per-block rows of bits; voxels of no block are 0. p is at most 4.
func padded(bits [][64]uint8, near *[27]int32, p int, pad *[16][16]uint16) {
	for z := range leafSide + 2*p {
		bz, lz := split(z - p)
		for y := range leafSide + 2*p {
			by, ly := split(y - p)
			row := ly + leafSide*lz
			get := func(bx int) uint16 {
				n := near[bx+1+3*(by+1)+9*(bz+1)]
				if n < 0 {
					return 0
				}
				return uint16(bits[n][row])
			}
			pad[z][y] = get(-1)>>(leafSide-p) | get(0)<<p | get(1)<<(leafSide+p)
		}
	}
}

// split is a coordinate in [−8, 16) as a block offset in {−1, 0, 1} and a coordinate within it.
func split(c int) (int, int) {
	switch {
	case c < 0:
		return -1, c + leafSide
	case c >= leafSide:
		return 1, c - leafSide
	}
	return 0, c
}

func popcount(w uint64) int { return bits.OnesCount64(w) }

func trailingZeros(w uint64) int { return bits.TrailingZeros64(w) }
