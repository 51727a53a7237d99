package flip

import (
	"math"
	"math/rand/v2"
	"testing"
)

// interpFast agrees with interp everywhere, past the grid's ends included.
func TestInterpFastAgrees(t *testing.T) {
	g := newMACGrid([3]float64{0, 0, 0}, [3]int{5, 4, 3}, 0.1)
	rng := rand.New(rand.NewPCG(1, 2))
	for kind := 0; kind <= cellKind; kind++ {
		d := g.dims(kind)
		f := make([]float64, d[0]*d[1]*d[2])
		for i := range f {
			f[i] = rng.Float64()
		}
		for k := 0; k < 2000; k++ {
			gx := [3]float64{rng.Float64()*7 - 1, rng.Float64()*6 - 1, rng.Float64()*5 - 1}
			a, b := g.interp(kind, f, gx), g.interpFast(kind, f, gx)
			if d := a - b; d > 1e-12 || d < -1e-12 {
				t.Fatalf("kind %d at %v: interp %g, interpFast %g", kind, gx, a, b)
			}
		}
	}
}

// faceStencil agrees with interp for every component.
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
			if want := g.interp(a, u[a], gx); math.Abs(got[a]-want) > 1e-12 {
				t.Fatalf("component %d at %v: %g, want %g", a, gx, got[a], want)
			}
		}
	}
}
