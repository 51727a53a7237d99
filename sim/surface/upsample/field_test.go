package upsample

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/surface/field"
)

// The refined points lie on the implicit surface the meshes are made from (sim/surface/field, Solenthaler's
// function with its defaults), shifted in to the surface particles: on a jittered block, a ball and a
// splashing-column frame, nine in ten points' φ are within a fifth of a spacing of the φ of the surface particle
// nearest to them (the particles sit a quarter to half a spacing inside the zero level), and every point within
// half a spacing. The rest are at edges and corners, where the implicit surface is rounded and the refinement
// keeps the edge (eq. 6.4's minimum), as the thesis intends.
func TestOnImplicitSurface(t *testing.T) {
	h := 0.05
	blk, blkID := block(10, 6, 10, h, 0.1, 3)
	ballPos, ballID := ball([3]float64{0, 0, 0}, 6*h, h)
	sp, spID := splash(8, 16, 0, h, 5)
	for _, c := range []struct {
		name string
		pos  [][4]float32
		id   []uint32
	}{{"block", blk, blkID}, {"ball", ballPos, ballID}, {"splash", sp, spID}} {
		f, err := field.New(c.pos, field.DefaultConfig(h))
		if err != nil {
			t.Fatal(err)
		}
		pts, st := run(t, New(), c.pos, c.id, 2*h, DefaultConfig())
		phi := func(p [3]float32) float64 { return f.At([3]float64{float64(p[0]), float64(p[1]), float64(p[2])}) }
		phi0 := make([]float64, st.Surface)
		for i, p := range pts.Pos[:st.Surface] {
			phi0[i] = phi(p)
		}
		worst, off := 0.0, 0
		for k, p := range pts.Pos[st.Surface:] {
			near, best := 0, math.Inf(1)
			for i, q := range pts.Pos[:st.Surface] {
				dx, dy, dz := p[0]-q[0], p[1]-q[1], p[2]-q[2]
				if d := float64(dx*dx + dy*dy + dz*dz); d < best {
					near, best = i, d
				}
			}
			d := math.Abs(phi(p) - phi0[near])
			worst = math.Max(worst, d)
			if d > 0.2*h {
				off++
			}
			if d > 0.5*h {
				t.Errorf("%s: point %d (level %d) at φ = %.3f spacings, its nearest surface particle at %.3f", c.name, k,
					pts.Level[st.Surface+k], phi(p)/h, phi0[near]/h)
			}
		}
		n := pts.Len() - st.Surface
		t.Logf("%s: %d points, %.1f%% more than 0.2 spacings off their nearest surface particle's φ, the farthest %.3f",
			c.name, n, 100*float64(off)/float64(n), worst/h)
		if off*10 > n {
			t.Errorf("%s: %d of %d points more than 0.2 spacings off their nearest surface particle's φ", c.name, off, n)
		}
	}
}
