package video

import (
	"encoding/binary"
	"image"
	"math"
)

// rgb is an opaque colour.
type rgb struct{ r, g, b uint8 }

func (c rgb) channel(axis int) uint8 {
	switch axis {
	case 0:
		return c.r
	case 1:
		return c.g
	}
	return c.b
}

// box is the part samples[lo:hi] of the samples a palette is built from, and the cut that splits it best.
type box struct {
	lo, hi int
	mean   rgb
	axis   int     // the channel the cut is on: 0 red, 1 green, 2 blue
	cut    uint8   // samples whose channel is at most cut go to the first half
	gain   float64 // how much the cut lowers the summed squared error; 0 when the box is one colour
}

// medianCut builds a palette of at most n colours for samples, into dst, by median cut (Heckbert 1982, "Color
// image quantization for frame buffer display") with two refinements: the box cut next is the one whose cut
// lowers the squared error most, and it is cut along its channel of largest variance where that leaves the least
// error, not at the median. The colours are the boxes' means. samples is reordered.
func medianCut(dst []rgb, samples []rgb, n int) []rgb {
	if len(samples) == 0 {
		return append(dst[:0], rgb{})
	}
	boxes := []box{analyse(samples, 0, len(samples))}
	for len(boxes) < n {
		best := -1
		for i := range boxes {
			if boxes[i].gain > 0 && (best < 0 || boxes[i].gain > boxes[best].gain) {
				best = i
			}
		}
		if best < 0 {
			break // every box is a single colour
		}
		b := boxes[best]
		mid := b.lo + partition(samples[b.lo:b.hi], b.axis, b.cut)
		boxes[best] = analyse(samples, b.lo, mid)
		boxes = append(boxes, analyse(samples, mid, b.hi))
	}
	pal := dst[:0]
	for _, b := range boxes {
		pal = append(pal, b.mean)
	}
	return pal
}

// analyse finds the mean of samples[lo:hi] and its best cut along the channel of largest variance.
func analyse(samples []rgb, lo, hi int) box {
	b := box{lo: lo, hi: hi}
	var sum, sq [3]float64
	for _, c := range samples[lo:hi] {
		for a, v := range [3]float64{float64(c.r), float64(c.g), float64(c.b)} {
			sum[a] += v
			sq[a] += v * v
		}
	}
	n := float64(hi - lo)
	b.mean = rgb{round8(sum[0] / n), round8(sum[1] / n), round8(sum[2] / n)}
	best := 0.0
	for a := range 3 {
		if v := sq[a] - sum[a]*sum[a]/n; v > best {
			best, b.axis = v, a
		}
	}
	if best < 0.5 { // one colour (or as good as one)
		return b
	}
	// per value of the axis channel: how many samples, and their channel sums
	var count [256]float64
	var sums [256][3]float64
	for _, c := range samples[lo:hi] {
		v := c.channel(b.axis)
		count[v]++
		sums[v][0] += float64(c.r)
		sums[v][1] += float64(c.g)
		sums[v][2] += float64(c.b)
	}
	// the squared error is Σsq − Σ_c S_c²/n over each half: cut where Σ_c L_c²/nL + R_c²/nR is largest
	base := (sum[0]*sum[0] + sum[1]*sum[1] + sum[2]*sum[2]) / n
	var nl float64
	var l [3]float64
	for v := range 255 {
		if count[v] == 0 {
			continue
		}
		nl += count[v]
		for a := range 3 {
			l[a] += sums[v][a]
		}
		nr := n - nl
		if nr == 0 {
			break
		}
		score := 0.0
		for a := range 3 {
			r := sum[a] - l[a]
			score += l[a]*l[a]/nl + r*r/nr
		}
		if g := score - base; g > b.gain {
			b.gain, b.cut = g, uint8(v)
		}
	}
	return b
}

func round8(v float64) uint8 { return uint8(min(255, max(0, v+0.5))) }

// partition puts the samples whose axis channel is at most cut first and says how many there are.
func partition(s []rgb, axis int, cut uint8) int {
	i, j := 0, len(s)-1
	for {
		for i <= j && s[i].channel(axis) <= cut {
			i++
		}
		for i <= j && s[j].channel(axis) > cut {
			j--
		}
		if i >= j {
			return i
		}
		s[i], s[j] = s[j], s[i]
	}
}

// matcher finds the palette colour nearest to a colour (squared RGB distance), exactly and fast: colour space is
// cut into 16×16×16 cells, and the first time a cell is asked about it gets the list of palette colours that can
// be nearest to some colour in it (Heckbert 1982's locally sorted search): those no farther from the cell than
// the smallest distance any colour has to the cell's far corner. A search then tries only those, a handful.
type matcher struct {
	pal   []rgb
	start []int32 // per cell, where its candidates begin in cands; -1 before the cell is first asked about
	count []uint16
	cands []uint8
	near  [256]int32 // fill's scratch
}

const cellBits = 4 // 16 cells a channel

func (m *matcher) reset(pal []rgb) {
	m.pal = pal
	if m.start == nil {
		m.start = make([]int32, 1<<(3*cellBits))
		m.count = make([]uint16, 1<<(3*cellBits))
	}
	for i := range m.start {
		m.start[i] = -1
	}
	m.cands = m.cands[:0]
}

// nearest is the index of the palette colour nearest to (r, g, b), each in [0, 255].
func (m *matcher) nearest(r, g, b int32) int {
	cell := r>>(8-cellBits)<<(2*cellBits) | g>>(8-cellBits)<<cellBits | b>>(8-cellBits)
	s := m.start[cell]
	if s < 0 {
		s = m.fill(cell)
	}
	cands := m.cands[s : s+int32(m.count[cell])]
	best, bestD := int(cands[0]), dist(m.pal[cands[0]], r, g, b)
	for _, i := range cands[1:] {
		if d := dist(m.pal[i], r, g, b); d < bestD {
			best, bestD = int(i), d
		}
	}
	return best
}

// fill lists the candidates of a cell and returns where they begin.
func (m *matcher) fill(cell int32) int32 {
	const side = 1 << (8 - cellBits)
	mask := int32(1<<cellBits - 1)
	r0, g0, b0 := (cell>>(2*cellBits))*side, (cell>>cellBits&mask)*side, (cell&mask)*side
	// in doubled coordinates the cell's centre is whole, and the cell reaches side−1 from it along each channel:
	// a colour |v−centre| away along a channel is that + side−1 from the far side, that − (side−1) from the near
	cr, cg, cb := 2*r0+side-1, 2*g0+side-1, 2*b0+side-1
	far := int32(math.MaxInt32) // the smallest distance to the far corner
	near := m.near[:len(m.pal)]
	for i, p := range m.pal {
		dr, dg, db := abs32(2*int32(p.r)-cr), abs32(2*int32(p.g)-cg), abs32(2*int32(p.b)-cb)
		fr, fg, fb := dr+side-1, dg+side-1, db+side-1
		far = min(far, fr*fr+fg*fg+fb*fb)
		nr, ng, nb := max(0, dr-(side-1)), max(0, dg-(side-1)), max(0, db-(side-1))
		near[i] = nr*nr + ng*ng + nb*nb
	}
	s := int32(len(m.cands))
	for i, d := range near {
		if d <= far {
			m.cands = append(m.cands, uint8(i))
		}
	}
	m.start[cell] = s
	m.count[cell] = uint16(int32(len(m.cands)) - s)
	return s
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

func dist(c rgb, r, g, b int32) int32 {
	dr, dg, db := int32(c.r)-r, int32(c.g)-g, int32(c.b)-b
	return dr*dr + dg*dg + db*db
}

// changed finds the pixels of src (RGBA, stride 4w) that differ from prev in red, green or blue: their bounding
// box and how many there are. With prev nil every pixel has changed.
func changed(src, prev []byte, w, h int) (image.Rectangle, int) {
	if prev == nil {
		return image.Rect(0, 0, w, h), w * h
	}
	r, n := image.Rectangle{}, 0
	for y := range h {
		row := y * 4 * w
		x0, x1 := -1, -1
		for x := range w {
			if differs(src, prev, row+4*x) {
				if x0 < 0 {
					x0 = x
				}
				x1 = x
				n++
			}
		}
		if x0 >= 0 {
			r = r.Union(image.Rect(x0, y, x1+1, y+1))
		}
	}
	return r, n
}

func differs(src, prev []byte, o int) bool {
	return (binary.LittleEndian.Uint32(src[o:])^binary.LittleEndian.Uint32(prev[o:]))&0xffffff != 0
}

// rng is a xorshift generator for sampling: cheap, and the same sequence every run.
type rng uint64

func (s *rng) next() uint64 {
	x := uint64(*s)
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	*s = rng(x)
	return x
}

// sample collects about n of the count changed pixels of src (stride 4w) in r, one from each of n equal runs
// of them at a random place in the run, into dst.
func sample(dst []rgb, src, prev []byte, w int, r image.Rectangle, count, n int, rnd *rng) []rgb {
	dst = dst[:0]
	step := max(1, count/n)
	next := int(rnd.next() % uint64(step)) // the number of the changed pixel to take next
	k := 0                                 // changed pixels seen
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			o := 4 * (y*w + x)
			if prev != nil && !differs(src, prev, o) {
				continue
			}
			if k == next {
				dst = append(dst, rgb{src[o], src[o+1], src[o+2]})
				next = (k/step+1)*step + int(rnd.next()%uint64(step))
			}
			k++
		}
	}
	return dst
}

// ditherer maps frames to palette indices.
type ditherer struct {
	cur, next []int32 // the error diffused into this row and the next, ×16, three channels a pixel, one pixel of margin each side
}

// remap writes into dst (packed, r.Dx() wide) the palette index for each pixel of src (stride 4w) in r; a pixel
// that is the same as in prev gets index tr. With dither the quantisation error is diffused (Floyd and Steinberg
// 1976: 7/16 ahead, 3/16, 5/16 and 1/16 below) in serpentine order, which keeps the error from drifting one way;
// pixels left transparent neither take nor pass on error.
func (d *ditherer) remap(dst []byte, src, prev []byte, w int, r image.Rectangle, m *matcher, dither bool, tr byte) {
	rw := r.Dx()
	if !dither {
		for y := r.Min.Y; y < r.Max.Y; y++ {
			out := dst[(y-r.Min.Y)*rw:]
			for x := r.Min.X; x < r.Max.X; x++ {
				o := 4 * (y*w + x)
				if prev != nil && !differs(src, prev, o) {
					out[x-r.Min.X] = tr
					continue
				}
				out[x-r.Min.X] = byte(m.nearest(int32(src[o]), int32(src[o+1]), int32(src[o+2])))
			}
		}
		return
	}
	n := 3 * (rw + 2)
	if cap(d.cur) < n {
		d.cur, d.next = make([]int32, n), make([]int32, n)
	}
	cur, next := d.cur[:n], d.next[:n]
	clear(cur)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		clear(next)
		out := dst[(y-r.Min.Y)*rw:]
		x, end, dx := 0, rw, 1
		if (y-r.Min.Y)&1 == 1 {
			x, end, dx = rw-1, -1, -1
		}
		for ; x != end; x += dx {
			o := 4 * (y*w + r.Min.X + x)
			if prev != nil && !differs(src, prev, o) {
				out[x] = tr
				continue
			}
			e := 3 * (x + 1)
			cr := clamp8(int32(src[o]) + (cur[e]+8)>>4)
			cg := clamp8(int32(src[o+1]) + (cur[e+1]+8)>>4)
			cb := clamp8(int32(src[o+2]) + (cur[e+2]+8)>>4)
			i := m.nearest(cr, cg, cb)
			out[x] = byte(i)
			p := m.pal[i]
			ahead, behind := e+3*dx, e-3*dx
			for c, err := range [3]int32{cr - int32(p.r), cg - int32(p.g), cb - int32(p.b)} {
				cur[ahead+c] += 7 * err
				next[behind+c] += 3 * err
				next[e+c] += 5 * err
				next[ahead+c] += err
			}
		}
		cur, next = next, cur
	}
	d.cur, d.next = cur, next
}

func clamp8(v int32) int32 { return min(255, max(0, v)) }
