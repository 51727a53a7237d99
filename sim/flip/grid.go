package flip

import "math"

// macGrid is the staggered grid: n cells of size h from lo; cell (i, j, k) is i + n0·(j + n1·k), and the faces
// normal to axis a form a grid of n with n[a]+1 along a, indexed the same way. Samples of a cell sit at its centre,
// samples of an a-face at the middle of the face.
type macGrid struct {
	n   [3]int
	h   float64
	inv float64 // 1/h
	lo  [3]float64
}

func newMACGrid(lo [3]float64, n [3]int, h float64) macGrid {
	return macGrid{n: n, h: h, inv: 1 / h, lo: lo}
}

// cells is the number of cells.
func (g *macGrid) cells() int { return g.n[0] * g.n[1] * g.n[2] }

// dims is the sample grid of kind k: cellKind for cells, 0..2 for the faces normal to that axis.
func (g *macGrid) dims(kind int) [3]int {
	d := g.n
	if kind < 3 {
		d[kind]++
	}
	return d
}

// cellStep is the index step between neighbouring cells along axis a.
func (g *macGrid) cellStep(a int) int { return [3]int{1, g.n[0], g.n[0] * g.n[1]}[a] }

// faces are the faces of axis a below (lo) and above (hi) cell ijk.
func (g *macGrid) faces(a int, ijk [3]int) (lo, hi int) {
	d := g.dims(a)
	lo = ijk[0] + d[0]*(ijk[1]+d[1]*ijk[2])
	return lo, lo + [3]int{1, d[0], d[0] * d[1]}[a]
}

// cellKind names the cell-centred samples among the face kinds 0, 1, 2.
const cellKind = 3

// offset is where sample (0,0,0) of kind lies, in cells from lo, along axis a.
func offset(kind, a int) float64 {
	if kind == a {
		return 0
	}
	return 0.5
}

// samplePos is the world position of sample (i, j, k) of kind.
func (g *macGrid) samplePos(kind, i, j, k int) [3]float64 {
	return [3]float64{
		g.lo[0] + (float64(i)+offset(kind, 0))*g.h,
		g.lo[1] + (float64(j)+offset(kind, 1))*g.h,
		g.lo[2] + (float64(k)+offset(kind, 2))*g.h,
	}
}

// gridCoords is a world position in cells from lo.
func (g *macGrid) gridCoords(p [4]float32) [3]float64 {
	return [3]float64{
		(float64(p[0]) - g.lo[0]) * g.inv,
		(float64(p[1]) - g.lo[1]) * g.inv,
		(float64(p[2]) - g.lo[2]) * g.inv,
	}
}

// cellOf is the cell holding grid coordinates gx, clamped into the grid.
func (g *macGrid) cellOf(gx [3]float64) int {
	var c [3]int
	for a := 0; a < 3; a++ {
		c[a] = min(max(int(math.Floor(gx[a])), 0), g.n[a]-1)
	}
	return c[0] + g.n[0]*(c[1]+g.n[1]*c[2])
}

// axisStencil is the 1D part of a trilinear stencil: the lower sample's index, clamped pairs of indices and
// weights with samples past the ends given weight 0.
type axisStencil struct {
	i0, i1 int
	w0, w1 float64
}

func axisAt(x float64, n int) axisStencil {
	// floor by truncation (math.Floor is a call on amd64 v1): positions lie within a cell of the grid
	i := int(x)
	if float64(i) > x {
		i--
	}
	t := x - float64(i)
	s := axisStencil{i0: i, i1: i + 1, w0: 1 - t, w1: t}
	if s.i0 < 0 || s.i0 >= n {
		s.i0, s.w0 = 0, 0
	}
	if s.i1 < 0 || s.i1 >= n {
		s.i1, s.w1 = 0, 0
	}
	return s
}

// axisClamped is axisAt for interpolation: a sample past the grid's ends gives its weight to the last sample
// inside, so a field is extended by its value at the ends. Within half a cell of a wall the tangential faces have
// one row on the wall's side only; with the row beyond weighted 0, PIC took about half the velocity there every step,
// and a block of sand sliding on a frictionless floor stopped in 0.5 s.
func axisClamped(x float64, n int) axisStencil {
	s := axisAt(x, n)
	switch {
	case s.w0 == 0 && s.w1 > 0 && s.i1 == 0:
		s.w1 = 1
	case s.w1 == 0 && s.w0 > 0 && s.i0 == n-1:
		s.w0 = 1
	}
	return s
}

// faceStencil holds, per axis, the 1D stencils at offset 0 (a face's own axis) and 0.5 (the others), so that the
// three components of a staggered field, or several staggered fields, are interpolated at one point from one set
// of stencils.
type faceStencil struct {
	ax [3][2]axisStencil
	d  [3][3]int // dims of each face kind
}

func (g *macGrid) faceStencilAt(gx [3]float64) faceStencil {
	var s faceStencil
	for a := 0; a < 3; a++ {
		s.ax[a][0] = axisClamped(gx[a], g.n[a]+1)
		s.ax[a][1] = axisClamped(gx[a]-0.5, g.n[a])
		s.d[a] = g.dims(a)
	}
	return s
}

// sample interpolates component kind of a staggered field.
func (s *faceStencil) sample(kind int, f []float64) float64 {
	sel := func(a int) *axisStencil {
		if a == kind {
			return &s.ax[a][0]
		}
		return &s.ax[a][1]
	}
	sx, sy, sz := sel(0), sel(1), sel(2)
	d := s.d[kind]
	r00 := d[0] * (sy.i0 + d[1]*sz.i0)
	r10 := d[0] * (sy.i1 + d[1]*sz.i0)
	r01 := d[0] * (sy.i0 + d[1]*sz.i1)
	r11 := d[0] * (sy.i1 + d[1]*sz.i1)
	lo := sz.w0 * (sy.w0*(sx.w0*f[r00+sx.i0]+sx.w1*f[r00+sx.i1]) + sy.w1*(sx.w0*f[r10+sx.i0]+sx.w1*f[r10+sx.i1]))
	hi := sz.w1 * (sy.w0*(sx.w0*f[r01+sx.i0]+sx.w1*f[r01+sx.i1]) + sy.w1*(sx.w0*f[r11+sx.i0]+sx.w1*f[r11+sx.i1]))
	return lo + hi
}

// vec interpolates a staggered field's three components.
func (s *faceStencil) vec(u *[3][]float64) [3]float64 {
	return [3]float64{s.sample(0, u[0]), s.sample(1, u[1]), s.sample(2, u[2])}
}
