package flip

import (
	"math"
	"math/rand/v2"
	"testing"
)

// faceStencil agrees with interpClamped for every component.
func TestFaceStencilAgrees(t *testing.T) {
	g := newMACGrid([3]float64{0, 0, 0}, [3]int{5, 4, 3}, 0.1)
	rng := rand.New(rand.NewPCG(3, 4))
	var u [3][]float64
	for a := 0; a < 3; a++ {
		d := g.dims(a)
		u[a] = make([]float64, d[0]*d[1]*d[2])
		for i := range u[a] {
			u[a][i] = rng.Float64()
		}
	}
	for k := 0; k < 2000; k++ {
		gx := [3]float64{rng.Float64()*7 - 1, rng.Float64()*6 - 1, rng.Float64()*5 - 1}
		st := g.faceStencilAt(gx)
		got := st.vec(&u)
		for a := 0; a < 3; a++ {
			if want := g.interpClamped(a, u[a], gx); math.Abs(got[a]-want) > 1e-12 {
				t.Fatalf("component %d at %v: %g, want %g", a, gx, got[a], want)
			}
		}
	}
}

// The reference the fast paths are checked against: the trilinear stencil written out plainly.

// stencil is the trilinear stencil of a point for one kind of sample: the lower corner's indices and the weights
// of the lower and upper sample along each axis. Indices may lie outside the sample grid; callers skip those.
type stencil struct {
	i [3]int
	w [3][2]float64
}

// stencilAt is the trilinear stencil of the point at grid coordinates gx (in cells from lo) for kind.
func stencilAt(kind int, gx [3]float64) stencil {
	var s stencil
	for a := 0; a < 3; a++ {
		x := gx[a] - offset(kind, a)
		f := math.Floor(x)
		t := x - f
		s.i[a] = int(f)
		s.w[a] = [2]float64{1 - t, t}
	}
	return s
}

// interpClamped is interp with the field extended by its end samples: where one sample of an axis lies outside the
// grid and the other inside, the inside one takes both weights.
func (g *macGrid) interpClamped(kind int, f []float64, gx [3]float64) float64 {
	s := stencilAt(kind, gx)
	d := g.dims(kind)
	for a := 0; a < 3; a++ {
		lo, hi := s.i[a], s.i[a]+1
		switch {
		case (lo < 0 || lo >= d[a]) && hi == 0:
			s.w[a] = [2]float64{0, 1}
		case (hi < 0 || hi >= d[a]) && lo == d[a]-1:
			s.w[a] = [2]float64{1, 0}
		}
	}
	var sum float64
	for dz := 0; dz < 2; dz++ {
		z := s.i[2] + dz
		if z < 0 || z >= d[2] {
			continue
		}
		for dy := 0; dy < 2; dy++ {
			y := s.i[1] + dy
			if y < 0 || y >= d[1] {
				continue
			}
			wyz := s.w[2][dz] * s.w[1][dy]
			row := d[0] * (y + d[1]*z)
			for dx := 0; dx < 2; dx++ {
				x := s.i[0] + dx
				if x < 0 || x >= d[0] {
					continue
				}
				sum += wyz * s.w[0][dx] * f[row+x]
			}
		}
	}
	return sum
}
