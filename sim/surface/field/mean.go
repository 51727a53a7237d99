package field

import (
	"fmt"

	"github.com/slosh/slosh/sim/par"
)

// Means sets dst[n] to the kernel-weighted mean of the particles' vectors vs at grid point pts[n] (which lies at
// Cell·pts[n]): Σ k_i v_i / Σ k_i over the particles within R, with the kernel of φ's mean position,
// k_i = (1 − |x − x_i|²/R²)³, so that a velocity sampled on φ's voxels sees the very neighbours its surface does;
// zero where no particle is within R. vs holds one vector per particle of the field (the positions of the last
// New, Mesh or Sample), in their order (xyz; w is ignored). The points are shared among the Config's workers in
// chunks; the field must not change meanwhile.
func (f *Field) Means(dst [][3]float32, vs [][4]float32, pts [][3]int32) error {
	if len(dst) != len(pts) {
		panic(fmt.Sprintf("field: Means of %d points into %d", len(pts), len(dst)))
	}
	h := f.cfg.Cell
	return f.means(dst, vs, func(n int) [3]float64 {
		p := pts[n]
		return [3]float64{h * float64(p[0]), h * float64(p[1]), h * float64(p[2])}
	})
}

// MeansAt is Means at the positions xs, m (a mesh's vertices, say).
func (f *Field) MeansAt(dst [][3]float32, vs [][4]float32, xs [][3]float32) error {
	if len(dst) != len(xs) {
		panic(fmt.Sprintf("field: MeansAt of %d points into %d", len(xs), len(dst)))
	}
	return f.means(dst, vs, func(n int) [3]float64 {
		return [3]float64{float64(xs[n][0]), float64(xs[n][1]), float64(xs[n][2])}
	})
}

// means sets dst[n] to the mean at point at(n), for every n of dst.
func (f *Field) means(dst [][3]float32, vs [][4]float32, at func(n int) [3]float64) error {
	n := len(f.p) / 3
	if len(vs) != n {
		return fmt.Errorf("field: %d vectors for %d particles", len(vs), n)
	}
	if n == 0 {
		clear(dst)
		return nil
	}
	// The vectors in the neighbour grid's order, beside the positions f.p.
	if cap(f.v) < 3*n {
		f.v = make([]float32, 3*n)
	}
	f.v = f.v[:3*n]
	for k, i := range f.g.Order[:n] {
		f.v[3*k], f.v[3*k+1], f.v[3*k+2] = vs[i][0], vs[i][1], vs[i][2]
	}
	par.Pool{Workers: f.cfg.workers()}.For(len(dst), 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dst[k] = f.mean(at(k))
		}
	})
	return nil
}

// mean is the kernel-weighted mean of the vectors f.v at x (gather's neighbourhood and kernel), zero where no
// particle is within R.
func (f *Field) mean(x [3]float64) [3]float32 {
	g := f.g
	cx, cy, cz := g.Coord(float32(x[0]), float32(x[1]), float32(x[2]))
	var k float64
	var kv [3]float64
	for dz := int32(-1); dz <= 1; dz++ {
		for dy := int32(-1); dy <= 1; dy++ {
			b, e, ok := g.Row(cx, cy, cz, dy, dz)
			if !ok {
				continue
			}
			q, v := f.p[3*b:3*e], f.v[3*b:3*e]
			for i := 0; i+2 < len(q); i += 3 {
				y0, y1, y2 := float64(q[i])-x[0], float64(q[i+1])-x[1], float64(q[i+2])-x[2]
				t := 1 - (y0*y0+y1*y1+y2*y2)*f.inv2
				if t <= 0 {
					continue
				}
				w := t * t * t
				k += w
				kv[0] += w * float64(v[i])
				kv[1] += w * float64(v[i+1])
				kv[2] += w * float64(v[i+2])
			}
		}
	}
	if !(k > 0) {
		return [3]float32{}
	}
	return [3]float32{float32(kv[0] / k), float32(kv[1] / k), float32(kv[2] / k)}
}
