package flat

import (
	"math"

	"github.com/slosh/slosh/sim"
)

// vertex is one corner of the triangles that draw shapes and lines (attributes attrPos, attrColor, attrEdge).
type vertex struct {
	pos   [2]float32 // world, m
	color [4]float32
	edge  [2]float32 // signed distance from a line's centre, px; the line's half width, px
}

// fillEdge marks a filled polygon's vertices: a half width no fragment comes near, so coverage is 1.
var fillEdge = [2]float32{0, 1e4}

const (
	miterLimit = 4 // a joint's offset is at most this many half widths: sharper turns are cut short
	// minSegment is the shortest segment a line keeps, px: shorter ones have no direction and are dropped.
	minSegment = 1e-3
)

// tessellator turns a frame's shapes and lines into triangles. Its slices are reused from frame to frame.
type tessellator struct {
	verts []vertex
	pts   [][2]float32 // a polyline's points without repeats
	miter [][2]float32 // per point: the offset direction to the line's left, scaled so its edges stay parallel
}

// build tessellates the frame's shapes (each filled, then outlined with outline px) and lines at s pixels per
// metre, in the frame's order.
func (t *tessellator) build(f *sim.FlatFrame, s, outline float32) {
	t.verts = t.verts[:0]
	for i := range f.Shapes {
		sh := &f.Shapes[i]
		if sh.Fill[3] > 0 {
			t.fill(sh.Points, sh.Fill, s)
		}
		if sh.Line[3] > 0 {
			t.polyline(sh.Points, true, sh.Line, outline, s)
		}
	}
	for i := range f.Lines {
		l := &f.Lines[i]
		t.polyline(l.Points, false, l.Color, l.Width, s)
	}
}

// clean copies the finite points of pts into t.pts, dropping any closer than minSegment pixels to the one before
// (and, for a closed polygon, a last point that repeats the first).
func (t *tessellator) clean(pts [][2]float32, closed bool, s float32) [][2]float32 {
	p := t.pts[:0]
	eps := float64(minSegment / s)
	for _, q := range pts {
		if !finite(q[0]) || !finite(q[1]) {
			continue
		}
		if n := len(p); n > 0 && dist(p[n-1], q) < eps {
			continue
		}
		p = append(p, q)
	}
	if n := len(p); closed && n > 2 && dist(p[0], p[n-1]) < eps {
		p = p[:n-1]
	}
	t.pts = p
	return p
}

// fill adds a convex polygon as a fan of triangles.
func (t *tessellator) fill(pts [][2]float32, c [4]float32, s float32) {
	p := t.clean(pts, true, s)
	for i := 1; i+1 < len(p); i++ {
		t.verts = append(t.verts,
			vertex{p[0], c, fillEdge}, vertex{p[i], c, fillEdge}, vertex{p[i+1], c, fillEdge})
	}
}

// polyline adds a line width pixels wide through pts (around them and back to the first when closed) as one quad
// per segment. Neighbouring quads share the joint's edge, placed along the bisector of the two segments' normals
// (a miter), so joints have no gaps or overlaps; each quad reaches a pixel beyond the line's half width for the
// antialiased edge.
func (t *tessellator) polyline(pts [][2]float32, closed bool, c [4]float32, width, s float32) {
	if !(width > 0) || math.IsInf(float64(width), 0) {
		return
	}
	p := t.clean(pts, closed, s)
	n := len(p)
	if n < 2 {
		return
	}
	if n < 3 {
		closed = false
	}
	segs := n - 1
	if closed {
		segs = n
	}
	// each point's offset: the left normal of its one segment at an open end; at a joint, the bisector of the
	// two normals lengthened by 1/cos of the half angle so the offset edges stay a half width from both segments
	m := t.miter[:0]
	for i := 0; i < n; i++ {
		in, out := i-1, i // the segments into and out of point i
		if closed && in < 0 {
			in = n - 1
		}
		if !closed && out == n-1 {
			out = -1
		}
		var nrm [2]float64
		switch {
		case in < 0:
			nrm = normal(p[out], p[(out+1)%n])
		case out < 0:
			nrm = normal(p[in], p[(in+1)%n])
		default:
			a, b := normal(p[in], p[(in+1)%n]), normal(p[out], p[(out+1)%n])
			bis := [2]float64{a[0] + b[0], a[1] + b[1]}
			l := math.Hypot(bis[0], bis[1])
			if l < 1e-9 { // the line turns back on itself
				nrm = b
				break
			}
			bis = [2]float64{bis[0] / l, bis[1] / l}
			k := min(1/(bis[0]*b[0]+bis[1]*b[1]), miterLimit)
			nrm = [2]float64{bis[0] * k, bis[1] * k}
		}
		m = append(m, [2]float32{float32(nrm[0]), float32(nrm[1])})
	}
	t.miter = m
	hw := width / 2
	reach := hw + 1 // px: one more for the antialiased edge
	off := reach / s
	left, right := [2]float32{reach, hw}, [2]float32{-reach, hw}
	for k := 0; k < segs; k++ {
		i, j := k, (k+1)%n
		li := vertex{[2]float32{p[i][0] + m[i][0]*off, p[i][1] + m[i][1]*off}, c, left}
		ri := vertex{[2]float32{p[i][0] - m[i][0]*off, p[i][1] - m[i][1]*off}, c, right}
		lj := vertex{[2]float32{p[j][0] + m[j][0]*off, p[j][1] + m[j][1]*off}, c, left}
		rj := vertex{[2]float32{p[j][0] - m[j][0]*off, p[j][1] - m[j][1]*off}, c, right}
		t.verts = append(t.verts, li, ri, lj, ri, rj, lj)
	}
}

// normal is the unit normal to the left of the segment from a to b (not of zero length).
func normal(a, b [2]float32) [2]float64 {
	dx, dy := float64(b[0]-a[0]), float64(b[1]-a[1])
	l := math.Hypot(dx, dy)
	return [2]float64{-dy / l, dx / l}
}

func dist(a, b [2]float32) float64 {
	return math.Hypot(float64(b[0]-a[0]), float64(b[1]-a[1]))
}

func finite(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }
