package vdb

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
)

// The file format: OPENVDB_MAGIC, OPENVDB_FILE_VERSION 224 (per-grid compression flags, node masks before
// values), and the library version written beside it.
const (
	magic        = 0x56444220
	fileVersion  = 224
	libraryMajor = 10
	libraryMinor = 0
	// io::COMPRESS_ACTIVE_MASK: a node's values are its active ones, its inactive ones told by at most two values
	// and a mask choosing between them (io::writeCompressedValues).
	compressActiveMask = 2
)

// The metadata byte before a node's values (io::writeCompressedValues), saying how its inactive values are told.
const (
	noMaskOrInactiveVals    = iota // all +background
	noMaskAndMinusBG               // all −background
	noMaskAndOneInactiveVal        // all one other value, which follows
	maskAndNoInactiveVals          // −background or +background, by a mask
	maskAndOneInactiveVal          // one other value or +background, by a mask
	maskAndTwoInactiveVals         // two other values, by a mask
	noMaskAndAllVals               // more than two: every value follows
)

// node4 is an internal node of 16³ slots of 8³ voxels; node5 one of 32³ slots of node4s.
type node4 struct {
	origin [3]int32
	leaves []int32 // into Grid.leaves, in slot order
	slots  []int32 // their slots
	inside []int32 // slots wholly inside
}

type node5 struct {
	origin   [3]int32
	children []node4 // in slot order
}

// tree sorts a grid's leaves into its nodes, in the order OpenVDB writes and reads them: the root's children by
// origin (x, then y, then z), each internal node's children by slot.
func (g *Grid) tree() []node5 {
	type entry struct {
		o5, o4 [3]int32
		slot   int32
		leaf   int32 // −1 for an inside tile
	}
	es := make([]entry, 0, len(g.leaves)+len(g.inside))
	add := func(o [3]int32, leaf int32) {
		var o5, o4 [3]int32
		for a := range 3 {
			o5[a] = o[a] &^ (1<<node5Bits - 1)
			o4[a] = o[a] &^ (1<<node4Bits - 1)
		}
		es = append(es, entry{o5, o4, slot4(o), leaf})
	}
	for i := range g.leaves {
		add(g.leaves[i].origin, int32(i))
	}
	for _, o := range g.inside {
		add(o, -1)
	}
	slices.SortFunc(es, func(a, b entry) int {
		if c := cmpCoord(a.o5, b.o5); c != 0 {
			return c
		}
		if c := int(slot5(a.o4)) - int(slot5(b.o4)); c != 0 {
			return c
		}
		return int(a.slot) - int(b.slot)
	})
	var ns []node5
	for _, e := range es {
		if len(ns) == 0 || ns[len(ns)-1].origin != e.o5 {
			ns = append(ns, node5{origin: e.o5})
		}
		n5 := &ns[len(ns)-1]
		if len(n5.children) == 0 || n5.children[len(n5.children)-1].origin != e.o4 {
			n5.children = append(n5.children, node4{origin: e.o4})
		}
		n4 := &n5.children[len(n5.children)-1]
		if e.leaf < 0 {
			n4.inside = append(n4.inside, e.slot)
		} else {
			n4.leaves = append(n4.leaves, e.leaf)
			n4.slots = append(n4.slots, e.slot)
		}
	}
	return ns
}

func cmpCoord(a, b [3]int32) int {
	for i := range 3 {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// slot4 is a leaf's slot in its node4 (x slowest), slot5 a node4's in its node5.
func slot4(o [3]int32) int32 {
	const m = 1<<node4Bits - 1
	return (o[0]&m)>>leafBits<<8 | (o[1]&m)>>leafBits<<4 | (o[2]&m)>>leafBits
}

func slot5(o [3]int32) int32 {
	const m = 1<<node5Bits - 1
	return (o[0]&m)>>node4Bits<<10 | (o[1]&m)>>node4Bits<<5 | (o[2]&m)>>node4Bits
}

// Write writes one OpenVDB file holding grids, whose names must differ. Offsets in the file count from w's first
// byte written here. The file's UUID is a hash of its grids, so equal grids make equal files.
func Write(w io.Writer, grids ...*Grid) error {
	names := map[string]bool{}
	for _, g := range grids {
		if g == nil {
			return fmt.Errorf("vdb: a nil grid")
		}
		if names[g.Name] {
			return fmt.Errorf("vdb: two grids named %q", g.Name)
		}
		names[g.Name] = true
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	e := &enc{w: bw}

	// Header (io::Archive::writeHeader): magic as int64, format version, library version, "has grid offsets",
	// then the UUID as 36 characters.
	e.u64(magic)
	e.u32(fileVersion)
	e.u32(libraryMajor)
	e.u32(libraryMinor)
	e.u8(1)
	e.bytes([]byte(uuid(grids)))
	e.u32(1) // the file's metadata
	e.metaString("creator", "slosh")
	e.u32(uint32(len(grids)))

	var body bytes.Buffer
	for _, g := range grids {
		ns := g.tree()
		body.Reset()
		he := &enc{w: &body} // the grid after its descriptor
		he.u32(compressActiveMask)
		g.meta(he)
		he.str("UniformScaleMap")
		// ScaleMap::write: the scale, the voxel size, the inverse scale, its square and its half, as Vec3d.
		inv := 1 / g.Voxel
		for _, v := range []float64{g.Voxel, g.Voxel, inv, inv * inv, inv / 2} {
			for range 3 {
				he.f64(v)
			}
		}
		g.topology(he, ns)
		blocks := he.n
		g.buffers(he, ns)

		// Descriptor (io::GridDescriptor::writeHeader, writeStreamPos): name, type, instance parent, then the
		// offsets of the grid, of its leaf buffers and of its end.
		e.str(g.Name)
		e.str(g.kind.treeType())
		e.str("")
		gridPos := e.n + 3*8
		e.u64(uint64(gridPos))
		e.u64(uint64(gridPos + blocks))
		e.u64(uint64(gridPos + he.n))
		e.bytes(body.Bytes())
	}
	if e.err != nil {
		return fmt.Errorf("vdb: %w", e.err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("vdb: %w", err)
	}
	return nil
}

// meta writes the grid's metadata (GridBase::writeMeta, with the statistics addStatsMetadata adds).
func (g *Grid) meta(e *enc) {
	n := int64(0)
	lo := [3]int32{math.MaxInt32, math.MaxInt32, math.MaxInt32}
	hi := [3]int32{math.MinInt32, math.MinInt32, math.MinInt32}
	for i := range g.leaves {
		l := &g.leaves[i]
		for v := range leafSize {
			if l.active[v>>6]>>(v&63)&1 == 0 {
				continue
			}
			n++
			c := [3]int32{l.origin[0] + int32(v>>6), l.origin[1] + int32(v>>3&7), l.origin[2] + int32(v&7)}
			for a := range 3 {
				lo[a], hi[a] = min(lo[a], c[a]), max(hi[a], c[a])
			}
		}
	}
	if _, on := g.insideTile(); on {
		for _, o := range g.inside {
			n += leafSize
			for a := range 3 {
				lo[a], hi[a] = min(lo[a], o[a]), max(hi[a], o[a]+leafSide-1)
			}
		}
	}
	count := uint32(4)
	if n > 0 {
		count += 2
	}
	class := g.class()
	if class != "" {
		count++
	}
	if g.kind == vector {
		count++
	}
	e.u32(count)
	if class != "" {
		e.metaString("class", class)
	}
	if n > 0 {
		e.metaVec3i("file_bbox_max", hi)
		e.metaVec3i("file_bbox_min", lo)
	}
	e.metaString("file_compression", "active values")
	e.str("file_voxel_count")
	e.str("int64")
	e.u32(8)
	e.u64(uint64(n))
	e.str("is_saved_as_half_float")
	e.str("bool")
	e.u32(1)
	e.u8(0)
	e.metaString("name", g.Name)
	if g.kind == vector {
		// GridBase::META_VECTOR_TYPE: a velocity transforms as a displacement does (VEC_CONTRAVARIANT_RELATIVE).
		e.metaString("vector_type", "contravariant relative")
	}
}

// topology writes Tree::writeTopology: one buffer, the root's background, no tiles, its children (each with its
// masks and tile values), and each leaf's value mask.
func (g *Grid) topology(e *enc, ns []node5) {
	w := g.kind.width()
	bg := g.background()
	e.u32(1)
	e.value(bg, w)
	e.u32(0)
	e.u32(uint32(len(ns)))
	for _, n5 := range ns {
		for a := range 3 {
			e.u32(uint32(n5.origin[a]))
		}
		var child [1 << 15 / 64]uint64
		for _, n4 := range n5.children {
			s := slot5(n4.origin)
			child[s>>6] |= 1 << (s & 63)
		}
		e.words(child[:])
		var none [len(child)]uint64 // no active tiles
		e.words(none[:])
		vals := make([]float32, w<<15)
		for s := range 1 << 15 {
			if child[s>>6]>>(s&63)&1 == 0 {
				copy(vals[w*s:w*s+w], bg[:w])
			}
		}
		e.values(vals, w, none[:], child[:], bg)
		for _, n4 := range n5.children {
			var child, in [1 << 12 / 64]uint64
			for _, s := range n4.slots {
				child[s>>6] |= 1 << (s & 63)
			}
			for _, s := range n4.inside {
				in[s>>6] |= 1 << (s & 63)
			}
			tile, on := g.insideTile()
			var active [len(child)]uint64 // a fog volume's inside tiles
			if on {
				active = in
			}
			e.words(child[:])
			e.words(active[:])
			vals := make([]float32, w<<12)
			for s := range 1 << 12 {
				switch {
				case child[s>>6]>>(s&63)&1 == 1:
				case in[s>>6]>>(s&63)&1 == 1:
					copy(vals[w*s:w*s+w], tile[:w])
				default:
					copy(vals[w*s:w*s+w], bg[:w])
				}
			}
			e.values(vals, w, active[:], child[:], bg)
			for _, l := range n4.leaves {
				e.words(g.leaves[l].active[:])
			}
		}
	}
}

// buffers writes each leaf's value mask and values (LeafNode::writeBuffers) in the topology's order.
func (g *Grid) buffers(e *enc, ns []node5) {
	w, bg := g.kind.width(), g.background()
	for _, n5 := range ns {
		for _, n4 := range n5.children {
			for _, li := range n4.leaves {
				l := &g.leaves[li]
				e.words(l.active[:])
				e.values(g.leafVals(int(li)), w, l.active[:], nil, bg)
			}
		}
	}
}

// uuid is a version-4-shaped UUID from a hash of the grids.
func uuid(grids []*Grid) string {
	h := sha256.New()
	var b [8]byte
	for _, g := range grids {
		h.Write([]byte(g.Name + "\x00" + g.kind.treeType() + "\x00" + g.class()))
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(g.Voxel))
		h.Write(b[:])
		for i := range g.leaves {
			l := &g.leaves[i]
			binary.Write(h, binary.LittleEndian, l.origin)
			binary.Write(h, binary.LittleEndian, l.active)
			binary.Write(h, binary.LittleEndian, g.leafVals(i))
		}
		binary.Write(h, binary.LittleEndian, g.inside)
	}
	s := h.Sum(nil)
	s[6] = s[6]&0x0f | 0x40
	s[8] = s[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", s[0:4], s[4:6], s[6:8], s[8:10], s[10:16])
}

// enc writes little-endian values, counting bytes and keeping the first error.
type enc struct {
	w   io.Writer
	n   int64
	err error
	buf [4 * leafSize]byte
}

func (e *enc) bytes(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += int64(n)
	e.err = err
}

func (e *enc) u8(v uint8) { e.buf[0] = v; e.bytes(e.buf[:1]) }

func (e *enc) u32(v uint32) { binary.LittleEndian.PutUint32(e.buf[:], v); e.bytes(e.buf[:4]) }

func (e *enc) u64(v uint64) { binary.LittleEndian.PutUint64(e.buf[:], v); e.bytes(e.buf[:8]) }

func (e *enc) f32(v float32) { e.u32(math.Float32bits(v)) }

func (e *enc) f64(v float64) { e.u64(math.Float64bits(v)) }

func (e *enc) words(ws []uint64) {
	for _, w := range ws {
		e.u64(w)
	}
}

// floats writes vs, a buffer at a time.
func (e *enc) floats(vs []float32) {
	for len(vs) > 0 {
		k := min(len(vs), len(e.buf)/4)
		for i, v := range vs[:k] {
			binary.LittleEndian.PutUint32(e.buf[4*i:], math.Float32bits(v))
		}
		e.bytes(e.buf[:4*k])
		vs = vs[k:]
	}
}

// value writes v's first w components.
func (e *enc) value(v value, w int) {
	for _, c := range v[:w] {
		e.f32(c)
	}
}

// values writes a node's values, w floats each, as io::writeCompressedValues does under COMPRESS_ACTIVE_MASK: the
// metadata byte (io::MaskCompress's choice), the inactive values it needs, the mask choosing between two, then the
// active values. Slots of child nodes (child, nil for leaves) are neither. Values compare as OpenVDB's do, exactly
// and componentwise, so −0 is 0 and a vector grid's −background is its background.
func (e *enc) values(vals []float32, w int, active, child []uint64, bg value) {
	on := func(m []uint64, i int) bool { return m != nil && m[i>>6]>>(i&63)&1 == 1 }
	get := func(i int) value {
		var v value
		copy(v[:w], vals[w*i:w*i+w])
		return v
	}
	var minusBG value
	for a := range w {
		minusBG[a] = -bg[a]
	}
	inactive := [2]value{bg, bg}
	n := 0
	for i := range len(vals) / w {
		if on(active, i) || on(child, i) {
			continue
		}
		v := get(i)
		if n > 0 && v == inactive[0] || n > 1 && v == inactive[1] {
			continue
		}
		if n < 2 {
			inactive[n] = v
		}
		if n++; n > 2 {
			break
		}
	}
	meta := uint8(noMaskOrInactiveVals)
	switch {
	case n == 1 && inactive[0] == bg:
	case n == 1 && inactive[0] == minusBG:
		meta = noMaskAndMinusBG
	case n == 1:
		meta = noMaskAndOneInactiveVal
	case n == 2 && inactive[0] != bg && inactive[1] != bg:
		meta = maskAndTwoInactiveVals
	case n == 2 && inactive[1] == bg && inactive[0] == minusBG:
		meta = maskAndNoInactiveVals
	case n == 2 && inactive[1] == bg:
		meta = maskAndOneInactiveVal
	case n == 2: // inactive[0] is the background: the other value comes first
		inactive[0], inactive[1] = inactive[1], inactive[0]
		meta = maskAndOneInactiveVal
		if inactive[0] == minusBG {
			meta = maskAndNoInactiveVals
		}
	case n > 2:
		meta = noMaskAndAllVals
	}
	e.u8(meta)
	switch meta {
	case noMaskAndOneInactiveVal, maskAndOneInactiveVal:
		e.value(inactive[0], w)
	case maskAndTwoInactiveVals:
		e.value(inactive[0], w)
		e.value(inactive[1], w)
	case noMaskAndAllVals:
		e.floats(vals)
		return
	}
	if meta >= maskAndNoInactiveVals {
		sel := make([]uint64, (len(vals)/w+63)/64)
		for i := range len(vals) / w {
			if !on(active, i) && get(i) == inactive[1] {
				sel[i>>6] |= 1 << (i & 63)
			}
		}
		e.words(sel)
	}
	buf := e.buf[:0:len(e.buf)]
	for i := range len(vals) / w {
		if !on(active, i) {
			continue
		}
		if len(buf)+4*w > cap(buf) {
			e.bytes(buf)
			buf = buf[:0]
		}
		for _, c := range vals[w*i : w*i+w] {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(c))
		}
	}
	e.bytes(buf)
}

// str writes a string as its length (uint32) and bytes (io::writeString).
func (e *enc) str(s string) {
	e.u32(uint32(len(s)))
	e.bytes([]byte(s))
}

// metaString writes a metadata entry: name, type name, the value's size and the value (Metadata::write).
func (e *enc) metaString(name, v string) {
	e.str(name)
	e.str("string")
	e.str(v)
}

func (e *enc) metaVec3i(name string, v [3]int32) {
	e.str(name)
	e.str("vec3i")
	e.u32(12)
	for _, c := range v {
		e.u32(uint32(c))
	}
}
