package game

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/slosh/slosh/sim/reduced"
)

// paintReference is the dye's painting as it was: every cell in the polyline's box measured against every
// segment. dyeField.paint visits only the cells near each segment and must paint exactly the same.
func paintReference(d *dyeField, pts [][2]float32, radius float64, col [3]float32) {
	lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		for k := range 2 {
			lo[k], hi[k] = min(lo[k], float64(p[k])-radius), max(hi[k], float64(p[k])+radius)
		}
	}
	i0, i1 := max(int(lo[0]/d.dx), 0), min(int(hi[0]/d.dx)+1, d.nx)
	j0, j1 := max(int(lo[1]/d.dy), 0), min(int(hi[1]/d.dy)+1, d.ny)
	for j := j0; j < j1; j++ {
		for i := i0; i < i1; i++ {
			x, y := (float64(i)+0.5)*d.dx, (float64(j)+0.5)*d.dy
			dist := math.Inf(1)
			for k := range pts {
				ax, ay := float64(pts[k][0]), float64(pts[k][1])
				bx, by := ax, ay
				if k+1 < len(pts) {
					bx, by = float64(pts[k+1][0]), float64(pts[k+1][1])
				}
				ex, ey := bx-ax, by-ay
				t := 0.0
				if l2 := ex*ex + ey*ey; l2 > 0 {
					t = min(max(((x-ax)*ex+(y-ay)*ey)/l2, 0), 1)
				}
				dist = min(dist, math.Hypot(x-ax-t*ex, y-ay-t*ey))
			}
			if dist >= radius {
				continue
			}
			a := float32(1 - dist/radius)
			c := &d.c[j*d.nx+i]
			for k := range c {
				c[k] += a * (col[k] - c[k])
			}
		}
	}
}

func TestDyePaintMatchesReference(t *testing.T) {
	g, err := reduced.NewGrid(2, 1.2, 65, 39)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20; trial++ {
		var a, b dyeField
		a.reset(g)
		b.reset(g)
		n := 1 + rng.IntN(40)
		pts := make([][2]float32, n)
		for k := range pts {
			pts[k] = [2]float32{float32(-0.2 + 2.4*rng.Float64()), float32(-0.2 + 1.6*rng.Float64())}
			if k > 0 && rng.IntN(4) == 0 {
				pts[k] = pts[k-1] // a repeated point
			}
		}
		radius := 0.01 + 0.5*rng.Float64()
		col := [3]float32{0.9, 0.2, 0.4}
		a.paint(pts, radius, col)
		paintReference(&b, pts, radius, col)
		for k := range a.c {
			if a.c[k] != b.c[k] {
				t.Fatalf("trial %d: cell %d painted %v, the reference %v", trial, k, a.c[k], b.c[k])
			}
		}
	}
}
