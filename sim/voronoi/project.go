package voronoi

import (
	"math"
	"slices"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim/voronoi/clip"
)

// projection is the per-step work of §3.3 and §3.4 on the clipped diagram, and what it measured.
type projection struct {
	state []clip.State // per particle, the clipped cell's state (the clipper's, until the next clip)
	comp  []int32      // per particle, its connected component's lowest particle
	k     int          // neighbour-list stride
	nb    []int32      // per particle, its MLS neighbours (itself first), nearest first
	nbc   []int32      // their counts
	nbr   []float32    // the distance to the farthest of them, m

	// the operator: liquid particle i's row is col/coef[start[i]:end[i]] (sorted by column, one entry per
	// neighbour), diag[i] its diagonal (the row's coefficients plus its air facets'); sym is scratch
	start, end []int32
	col        []int32
	coef, sym  []float64
	diag       []float64
	div        []float64    // V∇·u* of each liquid cell (eq. 7)
	vol        []float64    // V0 − V of each inner liquid cell (no air facet), m³: the volume correction's target
	b          []float64    // a solve's right-hand side
	r, z, q, w []float64    // CG vectors
	part       []float64    // per block of the CG vectors: a dot product's partial sum
	parts      [][2]float64 // per block: r·z and max |r|
	grad       [][3]float64
	qv         []float64    // the volume correction's potential, m²
	shift      [][3]float64 // the volume correction's displacement of each particle (none when off)
	xn         [][4]float32 // the advected positions

	// what the step measured
	iters      int
	missed     bool
	residual   float64 // the largest |residual| after the solve over the largest |divergence| before
	divMax     float64 // the largest |residual_i|/V_i, 1/s
	volume     float64 // Σ V_i of the liquid cells, m³
	components int
	ballistic  int
}

// project is §3.3: the cells' states and components, the MLS neighbourhoods, the divergence, the solve and the
// velocity update u = u* − ∇p.
func (s *Solver) project() {
	pr := &s.proj
	n := len(s.x)
	c := s.clp
	pr.state = c.State
	s.components()
	s.neighbours()
	s.timer.Mark("neighbours")
	s.divergence()
	s.timer.Mark("divergence")
	s.pressure()
	s.timer.Mark("solve")
	pr.grad = grow.Resize(pr.grad, n)
	s.gradient(s.p, pr.grad)
	for i := range s.x {
		if pr.state[i] != clip.Liquid {
			continue
		}
		g := pr.grad[i]
		s.v[i][0] -= float32(g[0])
		s.v[i][1] -= float32(g[1])
		s.v[i][2] -= float32(g[2])
	}
	s.timer.Mark("gradient")
	s.correctVolume()
	s.timer.Mark("volume")
}

// components labels the liquid cells joined through Voronoi facets (§3.4: not through facets made by clipping)
// with the lowest particle of their component; every other particle is a component of its own.
func (s *Solver) components() {
	pr := &s.proj
	n := len(s.x)
	c := s.clp
	pr.comp = grow.Resize(pr.comp, n)
	for i := range pr.comp {
		pr.comp[i] = int32(i)
	}
	find := func(i int32) int32 {
		for pr.comp[i] != i {
			pr.comp[i] = pr.comp[pr.comp[i]]
			i = pr.comp[i]
		}
		return i
	}
	pr.ballistic, pr.volume = 0, 0
	for i := 0; i < n; i++ {
		switch pr.state[i] {
		case clip.Ballistic:
			pr.ballistic++
			continue
		case clip.Empty:
			continue
		}
		pr.volume += c.Volume[i]
		lo, hi := c.Facets(i)
		for f := lo; f < hi; f++ {
			j := c.Owner[f]
			if c.Kind[f] != clip.Voronoi || int(j) <= i || pr.state[j] != clip.Liquid {
				continue
			}
			a, b := find(int32(i)), find(j)
			if a != b {
				pr.comp[max(a, b)] = min(a, b)
			}
		}
	}
	pr.components = 0
	for i := range pr.comp {
		pr.comp[i] = find(int32(i))
		if pr.comp[i] == int32(i) && pr.state[i] == clip.Liquid {
			pr.components++
		}
	}
}

// neighbours finds each particle's MLS neighbourhood: itself and the nearest others of its component within
// voronoi.reach, k in all (§3.4), nearest first (ties by index), and the distance to the farthest.
func (s *Solver) neighbours() {
	pr := &s.proj
	n := len(s.x)
	k := int(min(max(s.Cfg.Neighbours, 1), MaxNeighbours))
	pr.k = k
	pr.nb = grow.Resize(pr.nb, n*k)
	pr.nbc = grow.Resize(pr.nbc, n)
	pr.nbr = grow.Resize(pr.nbr, n)
	g := s.grid // sorted by removeClose at the step's start; the particles have not moved since
	reach2 := s.gridH * s.gridH
	s.pool.For(n, 256, func(lo, hi int) {
		d2 := make([]float32, k)
		for i := lo; i < hi; i++ {
			list := pr.nb[i*k : i*k+k]
			list[0], d2[0] = int32(i), 0
			m := 1
			if pr.state[i] == clip.Liquid {
				xi := s.x[i]
				ci := pr.comp[i]
				cx, cy, cz := g.Coord(xi[0], xi[1], xi[2])
				for dz := int32(-1); dz <= 1; dz++ {
					for dy := int32(-1); dy <= 1; dy++ {
						b, e, ok := g.Row(cx, cy, cz, dy, dz)
						if !ok {
							continue
						}
						for _, j := range g.Order[b:e] {
							if int(j) == i || pr.comp[j] != ci {
								continue
							}
							xj := s.x[j]
							dx, dy, dz := xj[0]-xi[0], xj[1]-xi[1], xj[2]-xi[2]
							q := dx*dx + dy*dy + dz*dz
							if q >= reach2 || (m == k && !closer(q, j, d2[k-1], list[k-1])) {
								continue
							}
							// insert in order of (distance, index)
							p := min(m, k-1)
							for p > 1 && closer(q, j, d2[p-1], list[p-1]) {
								if p < k {
									d2[p], list[p] = d2[p-1], list[p-1]
								}
								p--
							}
							d2[p], list[p] = q, j
							m = min(m+1, k)
						}
					}
				}
			}
			pr.nbc[i] = int32(m)
			pr.nbr[i] = float32(math.Sqrt(float64(d2[m-1])))
		}
	})
}

// closer orders candidates by distance, then index.
func closer(q float32, j int32, q2 float32, j2 int32) bool { return q < q2 || (q == q2 && j < j2) }

// weight is the quartic spline of eq. 13 at s̄ = distance / support.
func weight(sb float64) float64 {
	if sb >= 1 {
		return 0
	}
	s2 := sb * sb
	return 1 - 6*s2 + 8*s2*sb - 3*s2*s2
}

// fitVelocity is the constant MLS fit of eq. 12 at y over particle i's neighbourhood, distances normalised by the
// farthest neighbour's distance from y; i's own velocity when all weights vanish.
func (s *Solver) fitVelocity(i int, y [3]float64) [3]float64 {
	pr := &s.proj
	list := pr.nb[i*pr.k : i*pr.k+int(pr.nbc[i])]
	var dist [MaxNeighbours]float64
	far := 0.0
	for a, j := range list {
		xj := s.x[j]
		dx, dy, dz := float64(xj[0])-y[0], float64(xj[1])-y[1], float64(xj[2])-y[2]
		dist[a] = math.Sqrt(dx*dx + dy*dy + dz*dz)
		far = math.Max(far, dist[a])
	}
	var u [3]float64
	ws := 0.0
	if far > 0 {
		for a, j := range list {
			w := weight(dist[a] / far)
			if w == 0 {
				continue
			}
			vj := s.v[j]
			u[0] += w * float64(vj[0])
			u[1] += w * float64(vj[1])
			u[2] += w * float64(vj[2])
			ws += w
		}
	}
	if !(ws > 0) {
		vi := s.v[i]
		return [3]float64{float64(vi[0]), float64(vi[1]), float64(vi[2])}
	}
	return [3]float64{u[0] / ws, u[1] / ws, u[2] / ws}
}

// divergence computes each liquid cell's V∇·u* (eq. 7) and the operator's coefficients (eq. 5, 6, 11).
func (s *Solver) divergence() {
	pr := &s.proj
	n := len(s.x)
	c := s.clp
	eps := float64(s.Cfg.Epsilon) * s.spacing
	v0 := s.spacing * s.spacing * s.spacing
	pr.vol = grow.Resize(pr.vol, n)
	pr.start = grow.Resize(pr.start, n+1)
	pr.end = grow.Resize(pr.end, n)
	pr.diag = grow.Resize(pr.diag, n)
	pr.div = grow.Resize(pr.div, n)
	// the rows' lengths first, so each cell writes its own part of col and coef
	pr.start[0] = 0
	for i := 0; i < n; i++ {
		m := 0
		if pr.state[i] == clip.Liquid {
			lo, hi := c.Facets(i)
			for f := lo; f < hi; f++ {
				if c.Kind[f] == clip.Voronoi && pr.state[c.Owner[f]] == clip.Liquid {
					m++
				}
			}
		}
		pr.start[i+1] = pr.start[i] + int32(m)
	}
	nz := int(pr.start[n])
	pr.col = grow.Resize(pr.col, nz)
	pr.coef = grow.Resize(pr.coef, nz)
	s.pool.For(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			pr.diag[i], pr.div[i], pr.end[i], pr.vol[i] = 0, 0, pr.start[i], 0
			if pr.state[i] != clip.Liquid {
				continue
			}
			xi := s.x[i]
			at := pr.start[i]
			air := 0.0
			div := 0.0
			flo, fhi := c.Facets(i)
			for f := flo; f < fhi; f++ {
				a := c.Area[f]
				nf := c.Normal[f]
				xf := c.FacetCentroid[f]
				var u [3]float64
				switch c.Kind[f] {
				case clip.Wall:
					continue // a still wall: no flux, no gradient
				case clip.Obstacle:
					u = s.solids[c.Owner[f]].velocity(xf) // no gradient: the solid's velocity (eq. 7)
				case clip.Voronoi:
					if j := c.Owner[f]; pr.state[j] == clip.Liquid {
						xj := s.x[j]
						dx, dy, dz := float64(xj[0]-xi[0]), float64(xj[1]-xi[1]), float64(xj[2]-xi[2])
						pr.col[at] = j
						pr.coef[at] = a / (math.Sqrt(dx*dx+dy*dy+dz*dz) + eps) // eq. 5
						at++
						u = s.fitVelocity(i, xf)
						break
					}
					fallthrough // a neighbour flying free: air between them
				default: // Air (and Far, which a surface radius within the reach leaves none of)
					d := (xf[0]-float64(xi[0]))*nf[0] + (xf[1]-float64(xi[1]))*nf[1] + (xf[2]-float64(xi[2]))*nf[2]
					air += a / (2*math.Max(d, 0) + eps) // eq. 11
					u = s.fitVelocity(i, xf)
				}
				div += a * (u[0]*nf[0] + u[1]*nf[1] + u[2]*nf[2])
			}
			pr.div[i] = div
			// the volume correction's target (correct): an inner cell's departure from a particle's rest volume
			pr.vol[i] = 0
			if air == 0 {
				pr.vol[i] = v0 - c.Volume[i]
			}
			pr.diag[i] = air
			pr.end[i] = pr.start[i] + int32(sortRow(pr.col[pr.start[i]:at], pr.coef[pr.start[i]:at]))
		}
	})
	// symmetric coefficients: the mean of the two cells' measurements of their facet (a facet one of them lost to
	// clipping, or as a sliver, counts as 0 there)
	pr.sym = grow.Resize(pr.sym, nz)
	s.pool.For(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for e := pr.start[i]; e < pr.end[i]; e++ {
				cj := 0.0
				if t, ok := pr.find(pr.col[e], int32(i)); ok {
					cj = pr.coef[t]
				}
				pr.sym[e] = 0.5 * (pr.coef[e] + cj)
			}
		}
	})
	pr.coef, pr.sym = pr.sym, pr.coef
	s.pool.For(n, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for e := pr.start[i]; e < pr.end[i]; e++ {
				pr.diag[i] += pr.coef[e]
			}
		}
	})
}

// sortRow sorts a row's entries by column with insertion sort (rows are short), adds up the entries of one column
// (the parts of a facet clipping split) and returns the row's new length.
func sortRow(col []int32, coef []float64) int {
	for a := 1; a < len(col); a++ {
		for b := a; b > 0 && col[b] < col[b-1]; b-- {
			col[b], col[b-1] = col[b-1], col[b]
			coef[b], coef[b-1] = coef[b-1], coef[b]
		}
	}
	m := 0
	for a := range col {
		if m > 0 && col[m-1] == col[a] {
			coef[m-1] += coef[a]
			continue
		}
		col[m], coef[m] = col[a], coef[a]
		m++
	}
	return m
}

// find returns the entry of row i for column j.
func (pr *projection) find(i, j int32) (int32, bool) {
	row := pr.col[pr.start[i]:pr.end[i]]
	a, ok := slices.BinarySearch(row, j)
	return pr.start[i] + int32(a), ok
}

// block is the size of the fixed blocks reductions are summed in, so sums do not depend on the number of workers.
const block = 4096

// apply computes w = A q, A = −L the operator of eq. 6 with eq. 5 and 11 (symmetric, positive definite where a
// component touches air).
func (pr *projection) apply(s *Solver, q, w []float64) {
	s.pool.For(len(q), 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			sum := pr.diag[i] * q[i]
			for e := pr.start[i]; e < pr.end[i]; e++ {
				sum -= pr.coef[e] * q[pr.col[e]]
			}
			w[i] = sum
		}
	})
}

// applyDot computes w = A q and returns q·w, summed in fixed blocks.
func (pr *projection) applyDot(s *Solver, q, w []float64, part []float64) float64 {
	n := len(q)
	s.pool.For(len(part), 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			dot := 0.0
			for i := k * block; i < min(n, (k+1)*block); i++ {
				sum := pr.diag[i] * q[i]
				for e := pr.start[i]; e < pr.end[i]; e++ {
					sum -= pr.coef[e] * q[pr.col[e]]
				}
				w[i] = sum
				dot += q[i] * sum
			}
			part[k] = dot
		}
	})
	sum := 0.0
	for _, x := range part {
		sum += x
	}
	return sum
}

// dot is Σ a_i b_i, summed in fixed blocks.
func (s *Solver) dot(a, b []float64, part []float64) float64 {
	nb := len(part)
	s.pool.For(nb, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			sum := 0.0
			for i := k * block; i < min(len(a), (k+1)*block); i++ {
				sum += a[i] * b[i]
			}
			part[k] = sum
		}
	})
	sum := 0.0
	for _, x := range part {
		sum += x
	}
	return sum
}

// precondition is z = M⁻¹ r with the Jacobi preconditioner; rows without a diagonal (no liquid neighbour and no
// air: a cell closed off by solids) get 0.
func (pr *projection) precondition(s *Solver, r, z []float64) {
	s.pool.For(len(r), 4096, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if d := pr.diag[i]; d > 0 {
				z[i] = r[i] / d
			} else {
				z[i] = 0
			}
		}
	})
}

// maxAbs is the largest |r_i|.
func maxAbs(r []float64) float64 {
	m := 0.0
	for _, x := range r {
		if x < 0 {
			x = -x
		}
		if x > m || x != x {
			m = x
		}
	}
	return m
}

// solve runs preconditioned conjugate gradients on A x = b, A = −L, from x (zeroed outside liquid cells and
// everywhere unless warm) until the largest residual is below tol times the largest |b| (or floor, when larger), or
// voronoi.max_iterations. It returns the iterations, the largest residual left and whether it stopped short; the
// residual is left in pr.r.
func (s *Solver) solve(b, x []float64, warm bool, tol, floor float64) (iters int, rmax float64, missed bool) {
	pr := &s.proj
	n := len(s.x)
	pr.r = grow.Resize(pr.r, n)
	pr.z = grow.Resize(pr.z, n)
	pr.q = grow.Resize(pr.q, n)
	pr.w = grow.Resize(pr.w, n)
	pr.part = grow.Resize(pr.part, (n+block-1)/block)
	pr.parts = grow.Resize(pr.parts, len(pr.part))
	part, parts := pr.part, pr.parts
	for i := range x {
		if !warm || pr.state[i] != clip.Liquid || !(pr.diag[i] > 0) {
			x[i] = 0
		}
	}
	target := tol * math.Max(maxAbs(b), floor)
	pr.apply(s, x, pr.w)
	for i := range pr.r {
		pr.r[i] = b[i] - pr.w[i]
	}
	rmax = maxAbs(pr.r)
	if rmax <= target {
		return 0, rmax, false
	}
	pr.precondition(s, pr.r, pr.z)
	copy(pr.q, pr.z)
	rz := s.dot(pr.r, pr.z, part)
	for rmax > target {
		if iters >= int(s.Cfg.MaxIter) {
			return iters, rmax, true
		}
		iters++
		qw := pr.applyDot(s, pr.q, pr.w, part)
		if !(qw > 0) {
			break // a null direction: what is left lies in a closed component's constant pressures
		}
		alpha := rz / qw
		// x += αq, r −= αw, z = M⁻¹r, and the block sums of r·z and max |r|, in one pass
		s.pool.For(len(parts), 1, func(lo, hi int) {
			for k := lo; k < hi; k++ {
				rz, m := 0.0, 0.0
				for i := k * block; i < min(n, (k+1)*block); i++ {
					x[i] += alpha * pr.q[i]
					r := pr.r[i] - alpha*pr.w[i]
					pr.r[i] = r
					z := 0.0
					if d := pr.diag[i]; d > 0 {
						z = r / d
					}
					pr.z[i] = z
					rz += r * z
					if r < 0 {
						r = -r
					}
					if r > m {
						m = r
					}
				}
				parts[k] = [2]float64{rz, m}
			}
		})
		rz2 := 0.0
		rmax = 0
		for _, p := range parts {
			rz2 += p[0]
			rmax = math.Max(rmax, p[1])
		}
		beta := rz2 / rz
		rz = rz2
		s.pool.For(n, 4096, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				pr.q[i] = pr.z[i] + beta*pr.q[i]
			}
		})
	}
	return iters, rmax, false
}

// pressure solves the projection's system A p = −V∇·u* to voronoi.tolerance of the largest divergence and
// measures what is left.
func (s *Solver) pressure() {
	pr := &s.proj
	n := len(s.x)
	pr.b = grow.Resize(pr.b, n)
	for i := range pr.b {
		pr.b[i] = -pr.div[i]
	}
	// the divergence gravity gives a cell of a spacing in a step, a millionth of it: below this there is nothing
	// to solve
	g := s.Cfg.Gravity
	floor := 1e-6 * s.spacing * s.spacing * s.spacing * math.Sqrt(float64(g[0]*g[0]+g[1]*g[1]+g[2]*g[2])+1) * s.dtLast
	var rmax float64
	pr.iters, rmax, pr.missed = s.solve(pr.b, s.p, s.Cfg.WarmStart, float64(s.Cfg.Tolerance), floor)
	pr.residual = 0
	if bmax := maxAbs(pr.b); bmax > 0 {
		pr.residual = rmax / bmax
	}
	pr.divMax = 0
	for i, r := range pr.r {
		if pr.state[i] == clip.Liquid && s.clp.Volume[i] > 0 {
			pr.divMax = math.Max(pr.divMax, math.Abs(r)/s.clp.Volume[i])
		}
	}
}

// volumeTolerance is the volume correction's solve tolerance, relative to its largest target.
const volumeTolerance = 1e-2

// correctVolume is the volume correction (a departure from the paper, voronoi.volume_correction): inner cells
// squeezed below or stretched beyond a particle's rest volume V0 = d³ ask for a share β of the difference back,
// A q = β (V0 − V), and the particles are moved — not their velocities — by −∇q. With q a displacement potential
// the cells' volumes change by −L q to first order, so the liquid's compression does not accumulate step after step.
func (s *Solver) correctVolume() {
	pr := &s.proj
	beta := float64(s.Cfg.VolumeCorrection)
	pr.shift = pr.shift[:0]
	if !(beta > 0) {
		return
	}
	n := len(s.x)
	pr.b = grow.Resize(pr.b, n)
	pr.qv = grow.Resize(pr.qv, n)
	for i := range pr.b {
		pr.b[i] = beta * pr.vol[i]
	}
	// a correction, not a constraint: a percent of the target is plenty
	h := s.spacing
	s.solve(pr.b, pr.qv, false, math.Max(float64(s.Cfg.Tolerance), volumeTolerance), 1e-6*h*h*h)
	pr.shift = grow.Resize(pr.shift, n)
	s.gradient(pr.qv, pr.shift)
}

// gradient is each liquid particle's pressure gradient, the linear terms of a linear MLS fit of the pressures of
// its neighbourhood (eq. 8–10), in coordinates relative to the particle and scaled by the spacing.
func (s *Solver) gradient(p []float64, grad [][3]float64) {
	pr := &s.proj
	n := len(s.x)
	h := s.spacing
	eps := float64(s.Cfg.Epsilon) * s.spacing
	s.pool.For(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			grad[i] = [3]float64{}
			if pr.state[i] != clip.Liquid {
				continue
			}
			list := pr.nb[i*pr.k : i*pr.k+int(pr.nbc[i])]
			far := float64(pr.nbr[i])
			if len(list) < minFit || !(far > 0) {
				grad[i] = s.cellGradient(i, p)
				continue
			}
			var m [4][5]float64 // XᵀX | Xᵀp
			xi := s.x[i]
			add := func(dx, dy, dz, p float64) {
				a := [4]float64{1, dx / h, dy / h, dz / h}
				w := weight(math.Sqrt(dx*dx+dy*dy+dz*dz) / far)
				w2 := w * w
				if w2 == 0 {
					return
				}
				for r := 0; r < 4; r++ {
					for c := 0; c < 4; c++ {
						m[r][c] += w2 * a[r] * a[c]
					}
					m[r][4] += w2 * a[r] * p
				}
			}
			// the free surface's condition as a sample at p = 0 at the mirror of the site in its air boundary, where
			// eq. 11 puts it: the air facets taken together (their vector area and centroid), since the surface clip
			// makes one air piece of every facet that reached beyond the ball, tilted as the sphere is there, and a
			// sample for each would lean sideways wherever the pieces are not symmetric (a cell against a wall). The
			// solids' facets get none: the fit is one-sided there, exact for a hydrostatic pressure, where a
			// mirrored p_i would cancel the gradient that holds the liquid up.
			var ghost [3]float64
			hasGhost := false
			if s.Cfg.Gradient == GradientGhosts {
				c := s.clp
				var av, ac [3]float64
				at := 0.0
				flo, fhi := c.Facets(i)
				for f := flo; f < fhi; f++ {
					k := c.Kind[f]
					if k == clip.Wall || k == clip.Obstacle || (k == clip.Voronoi && pr.state[c.Owner[f]] == clip.Liquid) {
						continue
					}
					a, nf, xf := c.Area[f], c.Normal[f], c.FacetCentroid[f]
					for q := 0; q < 3; q++ {
						av[q] += a * nf[q]
						ac[q] += a * xf[q]
					}
					at += a
				}
				// only where the air lies on one side (a surface, not a sheet or a drop with air all round, whose
				// summed normal is a cancellation's leftover), and no nearer than half a spacing
				if ln := math.Sqrt(av[0]*av[0] + av[1]*av[1] + av[2]*av[2]); at > 0 && ln > 0.5*at {
					nf := [3]float64{av[0] / ln, av[1] / ln, av[2] / ln}
					d := (ac[0]/at-float64(xi[0]))*nf[0] + (ac[1]/at-float64(xi[1]))*nf[1] + (ac[2]/at-float64(xi[2]))*nf[2]
					d = math.Max(2*d, 0.5*h) + eps
					ghost, hasGhost = [3]float64{d * nf[0], d * nf[1], d * nf[2]}, true
					far = math.Max(far, d*1.0001)
				}
			}
			for _, j := range list {
				xj := s.x[j]
				add(float64(xj[0]-xi[0]), float64(xj[1]-xi[1]), float64(xj[2]-xi[2]), p[j])
			}
			if hasGhost {
				add(ghost[0], ghost[1], ghost[2], 0)
			}
			// a ridge far below a neighbourhood's own terms keeps a flat or linear neighbourhood solvable
			for r := 1; r < 4; r++ {
				m[r][r] += 1e-6 * m[0][0]
			}
			sol, ok := solve4(&m)
			g := [3]float64{sol[1] / h, sol[2] / h, sol[3] / h}
			if !ok || math.IsNaN(g[0]+g[1]+g[2]) || math.IsInf(g[0]+g[1]+g[2], 0) {
				g = s.cellGradient(i, p)
			}
			grad[i] = g
		}
	})
}

// minFit is the fewest particles (the particle itself included) a linear MLS fit of the pressure is made over:
// a smaller neighbourhood (a drop of a few particles) cannot fix a gradient in three dimensions, and its fit's
// gradient along the directions it does not span is the ridge's guess.
const minFit = 5

// cellGradient is the pressure gradient of cell i by the divergence theorem over its facets, for neighbourhoods too
// small to fit: ∇p ≈ (1/V) Σ_f a_f n_f (p_f − p_i), with p_f the mean of the two sites' pressures on a facet between
// liquid cells, half p_i on an air facet (p falls to 0 at twice the facet's distance, as eq. 11 has it) and p_i on a
// solid's (no normal gradient).
func (s *Solver) cellGradient(i int, p []float64) [3]float64 {
	c := s.clp
	pr := &s.proj
	v := c.Volume[i]
	if !(v > 0) {
		return [3]float64{}
	}
	var g [3]float64
	lo, hi := c.Facets(i)
	for f := lo; f < hi; f++ {
		var dp float64
		switch k, j := c.Kind[f], c.Owner[f]; {
		case k == clip.Wall || k == clip.Obstacle:
			continue
		case k == clip.Voronoi && pr.state[j] == clip.Liquid:
			dp = 0.5 * (p[j] - p[i])
		default:
			dp = -0.5 * p[i]
		}
		a, n := c.Area[f], c.Normal[f]
		for q := 0; q < 3; q++ {
			g[q] += a * n[q] * dp
		}
	}
	return [3]float64{g[0] / v, g[1] / v, g[2] / v}
}

// solve4 solves a 4×4 system in augmented form by Gaussian elimination with partial pivoting.
func solve4(m *[4][5]float64) ([4]float64, bool) {
	for c := 0; c < 4; c++ {
		p := c
		for r := c + 1; r < 4; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		if !(math.Abs(m[p][c]) > 1e-300) {
			return [4]float64{}, false
		}
		m[c], m[p] = m[p], m[c]
		for r := c + 1; r < 4; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k < 5; k++ {
				m[r][k] -= f * m[c][k]
			}
		}
	}
	var x [4]float64
	for r := 3; r >= 0; r-- {
		sum := m[r][4]
		for k := r + 1; k < 4; k++ {
			sum -= m[r][k] * x[k]
		}
		x[r] = sum / m[r][r]
	}
	return x, true
}

// advect moves the particles (§3.4): a liquid particle through the constant MLS fit of its neighbourhood's
// velocities by the midpoint rule, the others with their own velocities.
func (s *Solver) advect(dt float64) {
	pr := &s.proj
	n := len(s.x)
	pr.xn = grow.Resize(pr.xn, n)
	s.pool.For(n, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			x := s.x[i]
			xi := [3]float64{float64(x[0]), float64(x[1]), float64(x[2])}
			var u [3]float64
			if pr.state[i] == clip.Liquid {
				u0 := s.fitVelocity(i, xi)
				mid := [3]float64{xi[0] + 0.5*dt*u0[0], xi[1] + 0.5*dt*u0[1], xi[2] + 0.5*dt*u0[2]}
				u = s.fitVelocity(i, mid)
			} else {
				v := s.v[i]
				u = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
			}
			var d [3]float64
			if len(pr.shift) == n {
				g := pr.shift[i]
				d = [3]float64{-g[0], -g[1], -g[2]}
			}
			pr.xn[i] = [4]float32{float32(xi[0] + dt*u[0] + d[0]), float32(xi[1] + dt*u[1] + d[1]), float32(xi[2] + dt*u[2] + d[2]), 0}
		}
	})
	s.x, pr.xn = pr.xn, s.x
}
