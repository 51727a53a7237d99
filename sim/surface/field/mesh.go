package field

import (
	"fmt"
	"math"
	"time"

	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/surface/mc"
)

// Blocks of the band: blockSide³ cells, each block holding the values at its cells' lowest corners.
const (
	blockBits   = 3
	blockSide   = 1 << blockBits
	blockMask   = blockSide - 1
	blockPoints = blockSide * blockSide * blockSide
)

// Budgets, checked before anything of their size is allocated.
const (
	// MaxSamples bounds the grid points sampled in one Mesh call (256 MiB of values).
	MaxSamples = 1 << 26
	// maxBlockBox bounds the box of blocks around the particles, which holds one index per block (32 MiB).
	maxBlockBox = 1 << 23
)

// Stats describes one Mesh call.
type Stats struct {
	Particles, Blocks, Samples, Triangles int
	// MeshedBlocks is the number of blocks with a sign change among their cells' corners, the ones marched.
	MeshedBlocks int
	// Times of the stages: the neighbour grid, finding the band's blocks, sampling φ, smoothing it, marching.
	Neighbours, Band, Sample, March, Smooth time.Duration
}

// Mesher meshes particles' surfaces, keeping its arrays between frames.
type Mesher struct {
	f     Field
	b0    [3]int    // the box of blocks: lowest block coordinates
	bd    [3]int    // and its size in blocks
	index []int32   // block box → band block number, −1 outside the band
	keys  [][3]int  // band blocks' coordinates, in z, y, x order
	vals  []float32 // φ at the band's grid points, blockPoints a block
	tmp   []float32 // the smoothing's second buffer
	lo    []float32 // per block: the least value of its points
	hi    []float32 // and the largest
	empty float32   // φ where no particle is within R
}

// NewMesher returns a mesher with no arrays yet.
func NewMesher() *Mesher { return &Mesher{} }

// Field is the implicit function of the last Mesh call's particles; it is rebuilt by the next call.
func (m *Mesher) Field() *Field { return &m.f }

// Mesh meshes the zero level set of the particles' implicit function (closed, manifold, counter-clockwise seen
// from outside). It refuses a bad config, non-finite positions and a band beyond MaxSamples.
func (m *Mesher) Mesh(pos [][4]float32, cfg Config) (*mc.Mesh, Stats, error) {
	st, err := m.Sample(pos, cfg)
	if err != nil {
		return nil, st, err
	}
	if len(pos) == 0 {
		return &mc.Mesh{}, st, nil
	}

	t := time.Now()
	b, err := mc.NewBuilder([3]float64{}, cfg.Cell)
	if err != nil {
		return nil, st, fmt.Errorf("field: %w", err)
	}
	var local [(blockSide + 1) * (blockSide + 1) * (blockSide + 1)]float32
	const n1 = blockSide + 1
	var base [3]int
	at := func(i, j, k int) float32 {
		return local[(i-base[0])+n1*((j-base[1])+n1*(k-base[2]))]
	}
	for bi, key := range m.keys {
		if !m.crossed(bi, key) {
			continue
		}
		st.MeshedBlocks++
		base = [3]int{key[0] << blockBits, key[1] << blockBits, key[2] << blockBits}
		for k := range n1 {
			for j := range n1 {
				for i := range n1 {
					var v float32
					if i < blockSide && j < blockSide && k < blockSide {
						v = m.vals[bi*blockPoints+(k<<(2*blockBits)|j<<blockBits|i)]
					} else {
						v = m.value(base[0]+i, base[1]+j, base[2]+k)
					}
					local[i+n1*(j+n1*k)] = v
				}
			}
		}
		hi := [3]int{base[0] + blockSide, base[1] + blockSide, base[2] + blockSide}
		if err := b.Cells(base, hi, at); err != nil {
			return nil, st, fmt.Errorf("field: block %v: %w", key, err)
		}
	}
	mesh := b.Finish()
	st.March = time.Since(t)
	st.Triangles = len(mesh.Triangles)
	return mesh, st, nil
}

// Sample samples the particles' implicit function on its band of blocks, as Mesh does before marching, for
// Blocks; it refuses what Mesh refuses.
func (m *Mesher) Sample(pos [][4]float32, cfg Config) (Stats, error) {
	st := Stats{Particles: len(pos)}
	t := time.Now()
	if err := m.f.reset(pos, cfg); err != nil {
		return st, err
	}
	st.Neighbours = time.Since(t)
	if len(pos) == 0 {
		m.keys = m.keys[:0] // Blocks reports no band
		return st, nil
	}
	m.empty = float32(m.f.empty())
	pool := par.Pool{Workers: cfg.workers()}

	t = time.Now()
	if err := m.band(); err != nil {
		return st, err
	}
	st.Band = time.Since(t)
	st.Blocks = len(m.keys)
	st.Samples = len(m.keys) * blockPoints

	t = time.Now()
	m.sample(pool)
	st.Sample = time.Since(t)

	t = time.Now()
	for range cfg.Smooth {
		m.smooth(pool)
	}
	m.ranges(pool)
	st.Smooth = time.Since(t)
	return st, nil
}

// band finds the blocks holding a grid point within R + margin cells of some particle, where margin covers the
// cells around such a point and the smoothing's reach. Every point where φ may be negative is within R of a
// particle, so every cell with a negative corner, and every cell beside it, lies in the band.
func (m *Mesher) band() error {
	cfg := m.f.cfg
	h, r := cfg.Cell, cfg.Support
	margin := 2 + cfg.Smooth
	p := m.f.p
	rng := func(x float32) (int, int) {
		lo := int(math.Floor((float64(x)-r)/h)) - margin
		hi := int(math.Floor((float64(x)+r)/h)) + margin
		return lo >> blockBits, hi >> blockBits
	}
	var b0, b1 [3]int
	for a := range 3 {
		b0[a], b1[a] = math.MaxInt, math.MinInt
	}
	for i := 0; i < len(p); i += 3 {
		for a := range 3 {
			lo, hi := rng(p[i+a])
			b0[a] = min(b0[a], lo)
			b1[a] = max(b1[a], hi)
		}
	}
	box := 1
	for a := range 3 {
		m.bd[a] = b1[a] - b0[a] + 1
		box *= m.bd[a]
		if box > maxBlockBox {
			return fmt.Errorf("field: the particles span more than %d blocks of %d³ cells of %g m; use a larger Cell", maxBlockBox, blockSide, h)
		}
	}
	m.b0 = b0
	if cap(m.index) < box {
		m.index = make([]int32, box)
	}
	m.index = m.index[:box]
	for i := range m.index {
		m.index[i] = -1
	}
	bd := m.bd
	var last [6]int
	for i := 0; i < len(p); i += 3 {
		var cur [6]int
		for a := range 3 {
			cur[2*a], cur[2*a+1] = rng(p[i+a])
		}
		if i > 0 && cur == last { // neighbours in the grid's order often cover the same blocks
			continue
		}
		last = cur
		for z := cur[4]; z <= cur[5]; z++ {
			for y := cur[2]; y <= cur[3]; y++ {
				row := ((z-b0[2])*bd[1] + (y - b0[1])) * bd[0]
				for x := cur[0]; x <= cur[1]; x++ {
					m.index[row+x-b0[0]] = 0
				}
			}
		}
	}
	n := 0
	for _, v := range m.index {
		if v == 0 {
			n++
		}
	}
	if n > MaxSamples/blockPoints {
		return fmt.Errorf("field: the band needs %d samples (%d blocks of %d³ cells of %g m), more than MaxSamples = %d; use a larger Cell",
			n*blockPoints, n, blockSide, h, MaxSamples)
	}
	m.keys = m.keys[:0]
	for z := range bd[2] {
		for y := range bd[1] {
			for x := range bd[0] {
				c := (z*bd[1]+y)*bd[0] + x
				if m.index[c] == 0 {
					m.index[c] = int32(len(m.keys))
					m.keys = append(m.keys, [3]int{x + b0[0], y + b0[1], z + b0[2]})
				}
			}
		}
	}
	grow := func(s []float32, n int) []float32 {
		if cap(s) < n {
			return make([]float32, n)
		}
		return s[:n]
	}
	m.vals = grow(m.vals, n*blockPoints)
	m.lo = grow(m.lo, n)
	m.hi = grow(m.hi, n)
	if m.f.cfg.Smooth > 0 {
		m.tmp = grow(m.tmp, n*blockPoints)
	}
	return nil
}

// sample evaluates φ at every point of the band's blocks, a block per task.
func (m *Mesher) sample(pool par.Pool) {
	h, r := m.f.cfg.Cell, m.f.cfg.Radius
	empty := m.empty
	pool.For(len(m.keys), 1, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			key := m.keys[bi]
			v := m.vals[bi*blockPoints : (bi+1)*blockPoints]
			for k := range blockSide {
				for j := range blockSide {
					for i := range blockSide {
						x := [3]float64{
							h * float64(key[0]<<blockBits+i),
							h * float64(key[1]<<blockBits+j),
							h * float64(key[2]<<blockBits+k)}
						d, fac, ok := m.f.eval(x)
						phi := empty
						if ok {
							phi = float32(d - r*fac)
						}
						v[k<<(2*blockBits)|j<<blockBits|i] = phi
					}
				}
			}
		}
	})
}

// value is φ at grid point (i, j, k): its sample in the band, outside beyond it.
func (m *Mesher) value(i, j, k int) float32 {
	x, y, z := i>>blockBits-m.b0[0], j>>blockBits-m.b0[1], k>>blockBits-m.b0[2]
	if uint(x) >= uint(m.bd[0]) || uint(y) >= uint(m.bd[1]) || uint(z) >= uint(m.bd[2]) {
		return m.empty
	}
	b := m.index[(z*m.bd[1]+y)*m.bd[0]+x]
	if b < 0 {
		return m.empty
	}
	return m.vals[int(b)*blockPoints+(k&blockMask)<<(2*blockBits)|(j&blockMask)<<blockBits|i&blockMask]
}

// smooth is one pass of 002's grid smoothing restricted to decreasing φ: each value moves half way to the mean of
// its six neighbours when that mean is lower, so the inside only grows and features are not eroded.
func (m *Mesher) smooth(pool par.Pool) {
	pool.For(len(m.keys), 1, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			key := m.keys[bi]
			base := [3]int{key[0] << blockBits, key[1] << blockBits, key[2] << blockBits}
			src := m.vals[bi*blockPoints : (bi+1)*blockPoints]
			dst := m.tmp[bi*blockPoints : (bi+1)*blockPoints]
			for k := range blockSide {
				for j := range blockSide {
					for i := range blockSide {
						c := k<<(2*blockBits) | j<<blockBits | i
						var s float32
						if i > 0 && i < blockMask && j > 0 && j < blockMask && k > 0 && k < blockMask {
							s = src[c-1] + src[c+1] + src[c-blockSide] + src[c+blockSide] +
								src[c-blockSide*blockSide] + src[c+blockSide*blockSide]
						} else {
							x, y, z := base[0]+i, base[1]+j, base[2]+k
							s = m.value(x-1, y, z) + m.value(x+1, y, z) + m.value(x, y-1, z) + m.value(x, y+1, z) +
								m.value(x, y, z-1) + m.value(x, y, z+1)
						}
						v := src[c]
						if mean := s / 6; mean < v {
							v += 0.5 * (mean - v)
						}
						dst[c] = v
					}
				}
			}
		}
	})
	m.vals, m.tmp = m.tmp, m.vals
}

// ranges records each block's least and largest value.
func (m *Mesher) ranges(pool par.Pool) {
	pool.For(len(m.keys), 16, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			a, b := float32(math.Inf(1)), float32(math.Inf(-1))
			for _, v := range m.vals[bi*blockPoints : (bi+1)*blockPoints] {
				a = min(a, v)
				b = max(b, v)
			}
			m.lo[bi], m.hi[bi] = a, b
		}
	})
}

// crossed reports whether some cell of block bi may have corners on both sides of zero: its corners lie in it and
// the blocks just above it along each axis (those outside the band are outside).
func (m *Mesher) crossed(bi int, key [3]int) bool {
	lo, hi := m.lo[bi], m.hi[bi]
	for d := 1; d < 8; d++ {
		x, y, z := key[0]+d&1-m.b0[0], key[1]+d>>1&1-m.b0[1], key[2]+d>>2&1-m.b0[2]
		b := int32(-1)
		if x < m.bd[0] && y < m.bd[1] && z < m.bd[2] {
			b = m.index[(z*m.bd[1]+y)*m.bd[0]+x]
		}
		if b < 0 {
			hi = max(hi, m.empty)
			continue
		}
		lo = min(lo, m.lo[b])
		hi = max(hi, m.hi[b])
	}
	return lo < 0 && hi >= 0
}

// Blocks calls fn for each block of the last Mesh call's band, in z, y, x order: origin is its lowest grid point
// (grid point (i, j, k) lies at Cell·(i, j, k)) and phi its 8³ values with i fastest, then j, then k; phi is the
// mesher's own array, valid until the next Mesh call. Outside is φ at every grid point beyond the band.
func (m *Mesher) Blocks(fn func(origin [3]int, phi []float32)) (outside float32) {
	for bi, key := range m.keys {
		fn([3]int{key[0] << blockBits, key[1] << blockBits, key[2] << blockBits}, m.vals[bi*blockPoints:(bi+1)*blockPoints])
	}
	return m.empty
}
