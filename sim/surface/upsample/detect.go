package upsample

import (
	"fmt"
	"github.com/slosh/slosh/internal/sym3"
	"math"

	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/par"
)

// blobRatio: a neighbourhood whose two smallest covariance eigenvalues are closer than this ratio has no dominant
// plane, and the normal falls back to the centre-of-mass direction.
const blobRatio = 0.5

// detect marks the surface particles (eq. 6.1 with hysteresis), computes their normals, appends them to u.out as
// level 0 (in input order), lists the interior particles, and gives the refiner the initial neighbourhoods: the
// surface neighbours within r of each surface particle.
func (u *Upsampler) detect(pool par.Pool, pos [][4]float32, id []uint32, r float32, cfg Config) error {
	n := len(pos)
	out := &u.out
	maxID := uint32(0)
	for _, v := range id {
		maxID = max(maxID, v)
	}
	words := 0
	if n > 0 {
		words = int(maxID/64) + 1
	}
	u.isSurface = grow(u.isSurface, max(words, len(u.wasSurface)), math.MaxInt)
	clear(u.isSurface)
	if n == 0 {
		u.ref.start = append(u.ref.start[:0], 0)
		u.ref.list = u.ref.list[:0]
		u.wasSurface, u.isSurface = u.isSurface, u.wasSurface
		return nil
	}
	if err := u.binParticles(pos, id, r); err != nil {
		return err
	}
	g := u.grid
	u.sorted = grow(u.sorted, n, math.MaxInt)
	u.rank = grow(u.rank, n, math.MaxInt)
	for k, i := range g.Order {
		u.sorted[k] = pos[i]
		u.rank[i] = int32(k)
	}
	u.nbr = grow(u.nbr, n*physStride, math.MaxInt)
	u.cnt = grow(u.cnt, n, math.MaxInt)
	g.Neighbors(u.sorted, r, physStride, u.nbr, u.cnt)

	u.surf = grow(u.surf, n, math.MaxInt)
	u.snrm = grow(u.snrm, n, math.MaxInt)
	detect, keep := float32(cfg.Detect)*r, float32(cfg.Keep)*r
	pool.For(n, 256, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			list := u.nbr[k*physStride : k*physStride+int(u.cnt[k])]
			was := bit(u.wasSurface, id[g.Order[k]])
			u.surf[k], u.snrm[k] = classify(u.sorted, k, list, r, detect, keep, was)
		}
	})

	// level 0 in input order; the interior list ascending
	surface := 0
	for _, s := range u.surf[:n] {
		if s {
			surface++
		}
	}
	if surface > cfg.MaxPoints {
		return fmt.Errorf("%w: %d surface particles, budget %d", errEmptyBudget, surface, cfg.MaxPoints)
	}
	out.Pos = grow(out.Pos, surface, cfg.MaxPoints)
	out.Normal = grow(out.Normal, surface, cfg.MaxPoints)
	out.Level = grow(out.Level, surface, cfg.MaxPoints)
	out.Interior = grow(out.Interior, n-surface, n)
	u.pointOf = grow(u.pointOf, n, math.MaxInt)
	f := &u.ref
	f.w = grow(f.w, surface, cfg.MaxPoints)
	f.src = grow(f.src, surface, math.MaxInt)
	p, q := 0, 0
	for i := 0; i < n; i++ {
		k := u.rank[i]
		if !u.surf[k] {
			u.pointOf[k] = -1
			out.Interior[q] = int32(i)
			q++
			continue
		}
		u.pointOf[k] = int32(p)
		x := pos[i]
		out.Pos[p] = [3]float32{x[0], x[1], x[2]}
		out.Normal[p] = u.snrm[k]
		out.Level[p] = 0
		f.w[p] = 0 // unused: the particles do not move
		f.src[p] = k
		u.isSurface[id[i]/64] |= 1 << (id[i] % 64)
		p++
	}

	// initial neighbourhoods: N_i^surface ⊂ N_i, the physics neighbours that are surface (§6.2.2)
	f.start = grow(f.start, surface+1, math.MaxInt)
	f.count = grow(f.count, surface, math.MaxInt)
	pool.For(surface, 512, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			k := f.src[p]
			c := int32(0)
			for _, j := range u.nbr[int(k)*physStride : int(k)*physStride+int(u.cnt[k])] {
				if u.pointOf[j] >= 0 {
					c++
				}
			}
			f.count[p] = c
		}
	})
	f.start[0] = 0
	for p := 0; p < surface; p++ {
		f.start[p+1] = f.start[p] + f.count[p]
	}
	f.list = grow(f.list, int(f.start[surface]), math.MaxInt)
	pool.For(surface, 512, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			k := f.src[p]
			dst := f.list[f.start[p]:f.start[p+1]]
			c := 0
			for _, j := range u.nbr[int(k)*physStride : int(k)*physStride+int(u.cnt[k])] {
				if q := u.pointOf[j]; q >= 0 {
					dst[c] = q
					c++
				}
			}
			sortInt32(dst)
		}
	})
	u.wasSurface, u.isSurface = u.isSurface, u.wasSurface // this frame's state, kept only when the frame succeeds
	return nil
}

// binParticles bins the particles into a grid of cell r over their bounding box (padded by a cell and snapped to
// whole cells, so that a box that moves little reuses the grid).
func (u *Upsampler) binParticles(pos [][4]float32, id []uint32, r float32) error {
	lo := [3]float32{pos[0][0], pos[0][1], pos[0][2]}
	hi := lo
	for _, p := range pos {
		for c := 0; c < 3; c++ {
			lo[c] = min(lo[c], p[c])
			hi[c] = max(hi[c], p[c])
		}
	}
	for c := 0; c < 3; c++ {
		lo[c] = float32(math.Floor(float64(lo[c]/r))-1) * r
		hi[c] = float32(math.Ceil(float64(hi[c]/r))+1) * r
	}
	if u.grid == nil || lo != u.gridLo || hi != u.gridHi || u.grid.Cell != r {
		g, err := grid.New(lo, hi, r)
		if err != nil {
			return fmt.Errorf("upsample: binning the particles: %w", err)
		}
		u.grid, u.gridLo, u.gridHi = g, lo, hi
	}
	u.grid.Build(pos, id)
	return nil
}

func bit(set []uint64, id uint32) bool {
	w := int(id / 64)
	return w < len(set) && set[w]&(1<<(id%64)) != 0
}

// classify decides whether the sorted particle k is surface (eq. 6.1 with the two thresholds) and, if it is,
// computes its normal by weighted covariance analysis.
func classify(x [][4]float32, k int, list []int32, r, detect, keep float32, was bool) (bool, [3]float32) {
	if len(list) == 0 { // isolated: surface by definition (§6.2.1)
		return true, [3]float32{0, 1, 0}
	}
	xi := x[k]
	// g = x_i − x_cm = Σ_j (x_i − x_j) / N  (equal masses)
	var g [3]float64
	for _, j := range list {
		for c := 0; c < 3; c++ {
			g[c] += float64(xi[c] - x[j][c])
		}
	}
	inv := 1 / float64(len(list))
	g = [3]float64{g[0] * inv, g[1] * inv, g[2] * inv}
	dcm := math.Sqrt(g[0]*g[0] + g[1]*g[1] + g[2]*g[2])
	thr := detect
	if was {
		thr = keep
	}
	if !(dcm > float64(thr)) {
		return false, [3]float32{}
	}
	return true, pcaNormal(x, k, list, r, g, dcm)
}

// pcaNormal is the normal of particle k: the least-variance direction of its neighbourhood, weights
// (1 − d²/r²)³ with the particle itself at weight 1, oriented along g = x_i − x_cm. Offsets from x_i keep float
// precision far from the origin.
func pcaNormal(x [][4]float32, k int, list []int32, r float32, g [3]float64, dcm float64) [3]float32 {
	fallback := [3]float32{float32(g[0] / dcm), float32(g[1] / dcm), float32(g[2] / dcm)}
	if len(list) < 2 {
		return fallback
	}
	xi := x[k]
	inv2 := 1 / (float64(r) * float64(r))
	sw := 1.0 // the particle itself, at offset 0
	var s1 [3]float64
	var s2 [6]float64 // xx xy xz yy yz zz
	for _, j := range list {
		y := [3]float64{float64(x[j][0] - xi[0]), float64(x[j][1] - xi[1]), float64(x[j][2] - xi[2])}
		q := 1 - (y[0]*y[0]+y[1]*y[1]+y[2]*y[2])*inv2
		if q <= 0 {
			continue
		}
		w := q * q * q
		sw += w
		for c := 0; c < 3; c++ {
			s1[c] += w * y[c]
		}
		s2[0] += w * y[0] * y[0]
		s2[1] += w * y[0] * y[1]
		s2[2] += w * y[0] * y[2]
		s2[3] += w * y[1] * y[1]
		s2[4] += w * y[1] * y[2]
		s2[5] += w * y[2] * y[2]
	}
	m := [3]float64{s1[0] / sw, s1[1] / sw, s1[2] / sw}
	cov := [3][3]float64{
		{s2[0]/sw - m[0]*m[0], s2[1]/sw - m[0]*m[1], s2[2]/sw - m[0]*m[2]},
		{0, s2[3]/sw - m[1]*m[1], s2[4]/sw - m[1]*m[2]},
		{0, 0, s2[5]/sw - m[2]*m[2]},
	}
	cov[1][0], cov[2][0], cov[2][1] = cov[0][1], cov[0][2], cov[1][2]
	lam, v := smallestEigen(cov)
	if !(lam[0] < blobRatio*lam[1]) {
		return fallback
	}
	if v[0]*g[0]+v[1]*g[1]+v[2]*g[2] < 0 {
		v = [3]float64{-v[0], -v[1], -v[2]}
	}
	return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])}
}

// smallestEigen decomposes a symmetric 3×3 by cyclic Jacobi rotations (internal/sym3) and returns its eigenvalues
// in ascending order and the unit eigenvector of the smallest.
func smallestEigen(a [3][3]float64) ([3]float64, [3]float64) {
	d, v := sym3.Eigen(a)
	a = [3][3]float64{{d[0], 0, 0}, {0, d[1], 0}, {0, 0, d[2]}}
	idx := [3]int{0, 1, 2}
	for i := 1; i < 3; i++ {
		for j := i; j > 0 && a[idx[j]][idx[j]] < a[idx[j-1]][idx[j-1]]; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	lam := [3]float64{a[idx[0]][idx[0]], a[idx[1]][idx[1]], a[idx[2]][idx[2]]}
	c := idx[0]
	vec := [3]float64{v[0][c], v[1][c], v[2][c]}
	l := math.Sqrt(vec[0]*vec[0] + vec[1]*vec[1] + vec[2]*vec[2])
	return lam, [3]float64{vec[0] / l, vec[1] / l, vec[2] / l}
}

// sortInt32 sorts a short list in place (insertion sort: neighbour lists hold tens of entries).
func sortInt32(s []int32) {
	for a := 1; a < len(s); a++ {
		v := s[a]
		b := a - 1
		for ; b >= 0 && s[b] > v; b-- {
			s[b+1] = s[b]
		}
		s[b+1] = v
	}
}
