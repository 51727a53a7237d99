package surface

import (
	"math"
	"math/rand"
	"runtime"
	"testing"

	"github.com/slosh/slosh/sim/grid"
	"github.com/slosh/slosh/sim/param"
)

var (
	unitLo = [3]float32{0, 0, 0}
	unitHi = [3]float32{1, 1, 1}
)

const (
	spacing = 0.02
	radiusP = spacing / 2
)

func compute(t testing.TB, a *Anisotropy, pos [][4]float32) []Ellipsoid {
	t.Helper()
	dst := make([]Ellipsoid, len(pos))
	if err := a.Compute(dst, pos, radiusP, unitLo, unitHi); err != nil {
		t.Fatal(err)
	}
	return dst
}

func withConfig(f func(c *Config)) *Anisotropy {
	a := NewAnisotropy()
	f(&a.Cfg)
	return a
}

func norm(v [4]float32) float64 {
	return math.Sqrt(float64(v[0])*float64(v[0]) + float64(v[1])*float64(v[1]) + float64(v[2])*float64(v[2]))
}

func dot3(a [4]float32, b [3]float64) float64 {
	return float64(a[0])*b[0] + float64(a[1])*b[1] + float64(a[2])*b[2]
}

// lengths returns the semi-axis lengths of e.
func lengths(e Ellipsoid) [3]float64 {
	return [3]float64{norm(e.Axes[0]), norm(e.Axes[1]), norm(e.Axes[2])}
}

// checkShape checks that e is finite, its axes orthogonal and ordered longest first.
func checkShape(t *testing.T, what string, e Ellipsoid) {
	t.Helper()
	for _, v := range append([][4]float32{e.Center}, e.Axes[:]...) {
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("%s: non-finite ellipsoid %v", what, e)
			}
		}
	}
	l := lengths(e)
	if !(l[0] >= l[1]*(1-1e-5) && l[1] >= l[2]*(1-1e-5)) {
		t.Fatalf("%s: axes not ordered longest first: %v", what, l)
	}
	for p := 0; p < 3; p++ {
		for q := p + 1; q < 3; q++ {
			b := [3]float64{float64(e.Axes[q][0]), float64(e.Axes[q][1]), float64(e.Axes[q][2])}
			if c := dot3(e.Axes[p], b); math.Abs(c) > 1e-4*l[p]*l[q] {
				t.Fatalf("%s: axes %d and %d not orthogonal (cos %g): %v", what, p, q, c/(l[p]*l[q]), e.Axes)
			}
		}
	}
}

// checkRound checks that e is a sphere of radius rad.
func checkRound(t *testing.T, what string, e Ellipsoid, rad float64) {
	t.Helper()
	checkShape(t, what, e)
	for k, l := range lengths(e) {
		if math.Abs(l-rad) > 1e-5*rad {
			t.Fatalf("%s: axis %d has length %g, want a sphere of radius %g (%v)", what, k, l, rad, e.Axes)
		}
	}
}

// rotation returns the rotation by angle (degrees) about an axis, as rows.
func rotation(axis [3]float64, deg float64) [3][3]float64 {
	n := math.Sqrt(axis[0]*axis[0] + axis[1]*axis[1] + axis[2]*axis[2])
	x, y, z := axis[0]/n, axis[1]/n, axis[2]/n
	s, c := math.Sincos(deg * math.Pi / 180)
	C := 1 - c
	return [3][3]float64{
		{c + x*x*C, x*y*C - z*s, x*z*C + y*s},
		{y*x*C + z*s, c + y*y*C, y*z*C - x*s},
		{z*x*C - y*s, z*y*C + x*s, c + z*z*C},
	}
}

func apply(m [3][3]float64, v [3]float64) [3]float64 {
	return [3]float64{
		m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2],
		m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2],
		m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2],
	}
}

// lattice is a filled nx×ny×nz block of spacing `spacing` with its low corner at lo.
func lattice(nx, ny, nz int, lo [3]float32) [][4]float32 {
	var pos [][4]float32
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				pos = append(pos, [4]float32{lo[0] + float32(i)*spacing, lo[1] + float32(j)*spacing, lo[2] + float32(k)*spacing, 0})
			}
		}
	}
	return pos
}

// DamBreak is a jittered block of nx×ny×nz particles on the floor of the unit box and nSplash sparse particles
// flying above it: bulk, faces, edges, corners and spray.
func damBreak(nx, ny, nz, nSplash int, seed int64) [][4]float32 {
	rng := rand.New(rand.NewSource(seed))
	pos := make([][4]float32, 0, nx*ny*nz+nSplash)
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				jit := func() float32 { return (rng.Float32() - 0.5) * 0.2 * spacing }
				pos = append(pos, [4]float32{0.05 + float32(i)*spacing + jit(), 0.01 + float32(j)*spacing + jit(), 0.05 + float32(k)*spacing + jit(), 0})
			}
		}
	}
	top := 0.01 + float32(ny)*spacing
	for s := 0; s < nSplash; s++ {
		// a thin jet in clumps of a few particles, and single drops
		c := [3]float32{0.1 + 0.8*rng.Float32(), top + 0.05 + 0.3*rng.Float32(), 0.1 + 0.8*rng.Float32()}
		pos = append(pos, [4]float32{c[0], c[1], c[2], 0})
		for extra := rng.Intn(4); extra > 0 && s+1 < nSplash; extra-- {
			s++
			pos = append(pos, [4]float32{c[0] + 1.5*spacing*(rng.Float32()-0.5), c[1] + 1.5*spacing*(rng.Float32()-0.5), c[2] + 1.5*spacing*(rng.Float32()-0.5), 0})
		}
	}
	return pos
}

// The eigen decomposition reconstructs the matrix with orthonormal eigenvectors and descending eigenvalues.
func TestEigen(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	cases := []sym3{
		{}, {1, 1, 1, 0, 0, 0}, {3, 2, 1, 0, 0, 0}, {1, 2, 3, 0, 0, 0}, {1, 1, 0, 1, 0, 0}, {0, 0, 0, 1e-35, 0, 0},
		{1, 1, 1, 1, 1, 1}, {2, 1, 2, 0, 1e-20, 0}, {1e-8, 2e-8, 3e-8, 1e-8, 0, 1e-9},
	}
	for i := 0; i < 200; i++ {
		r := func() float32 { return 2*rng.Float32() - 1 }
		cases = append(cases, sym3{r(), r(), r(), r(), r(), r()})
	}
	for _, m := range cases {
		val, vec := eigen(m)
		if !(val[0] >= val[1] && val[1] >= val[2]) {
			t.Fatalf("%v: eigenvalues %v not descending", m, val)
		}
		scale := math.Abs(float64(m.xx)) + math.Abs(float64(m.yy)) + math.Abs(float64(m.zz)) +
			math.Abs(float64(m.xy)) + math.Abs(float64(m.xz)) + math.Abs(float64(m.yz))
		full := [3][3]float64{
			{float64(m.xx), float64(m.xy), float64(m.xz)},
			{float64(m.xy), float64(m.yy), float64(m.yz)},
			{float64(m.xz), float64(m.yz), float64(m.zz)},
		}
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				var s, o float64
				for k := 0; k < 3; k++ {
					s += float64(val[k]) * float64(vec[k][r]) * float64(vec[k][c])
					o += float64(vec[r][k]) * float64(vec[c][k])
				}
				if math.Abs(s-full[r][c]) > 2e-6*scale+1e-29 { // entries below 1e-30 are not rotated away
					t.Fatalf("%v: R diag Rᵀ [%d][%d] = %g, want %g", m, r, c, s, full[r][c])
				}
				want := 0.0
				if r == c {
					want = 1
				}
				if math.Abs(o-want) > 1e-5 {
					t.Fatalf("%v: eigenvectors not orthonormal: %v", m, vec)
				}
			}
		}
	}
}

func TestDerive(t *testing.T) {
	c := DefaultConfig()
	dv, err := Derive(&c, radiusP)
	if err != nil {
		t.Fatal(err)
	}
	if dv.R != 4*spacing || dv.ParticleRadius != radiusP {
		t.Errorf("r = %g, R_p = %g; want %g and %g", dv.R, dv.ParticleRadius, 4*spacing, radiusP)
	}
	// the continuum limit of Σ w x² / Σ w over a ball of radius r with w = 1 − (ρ/r)³ is 0.15 r²
	if rel := float64(dv.SigmaRef)/(0.15*float64(dv.R)*float64(dv.R)) - 1; math.Abs(rel) > 0.05 {
		t.Errorf("σ_ref = %g, %.1f%% off the continuum value", dv.SigmaRef, 100*rel)
	}
	if math.Abs(float64(dv.SigmaRef*dv.InvSigmaRef)-1) > 1e-6 {
		t.Errorf("σ_ref = %g but 1/σ_ref = %g", dv.SigmaRef, dv.InvSigmaRef)
	}
	// the lattice points strictly inside a ball of 4 spacings, less the centre
	if dv.LatticeNeighbours != 250 {
		t.Errorf("%d lattice neighbours within 4 spacings, want 250", dv.LatticeNeighbours)
	}
	for _, r := range []float64{0, -1, math.NaN(), math.Inf(1), 1e30} {
		if _, err := Derive(&c, r); err == nil {
			t.Errorf("particle radius %g accepted", r)
		}
	}
	c.Radius = 1
	if _, err := Derive(&c, radiusP); err == nil {
		t.Error("a neighbourhood of one spacing (no neighbours on a lattice) accepted")
	}
}

func TestParameters(t *testing.T) {
	c := DefaultConfig()
	s := param.NewSet()
	c.Register(s)
	want := map[string]float64{"surface.radius": 4, "surface.kr": 4, "surface.ks": 1, "surface.kn": 0.5, "surface.neps": 25, "surface.lambda": float64(float32(0.9))}
	for name, v := range want {
		p, ok := s.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		if p.Default().F != v || p.Desc == "" || p.Min >= p.Max {
			t.Errorf("%s: default %v (want %v), desc %q, bounds [%g, %g]", name, p.Default().F, v, p.Desc, p.Min, p.Max)
		}
		// every value within the hard bounds derives
		for _, bound := range []float64{p.Min, p.Max} {
			cc := c
			q := param.NewSet()
			cc.Register(q)
			pp, _ := q.Lookup(name)
			if err := pp.Set(param.Value{F: bound}); err != nil {
				t.Fatal(err)
			}
			if _, err := Derive(&cc, radiusP); err != nil {
				t.Errorf("%s=%g: %v", name, bound, err)
			}
		}
	}
	if p, ok := s.Lookup("surface.enabled"); !ok || !p.Default().B {
		t.Error("surface.enabled is not a parameter defaulting to true")
	}
	if err := s.Assign("surface.kr=0.5"); err == nil {
		t.Error("k_r below 1 accepted")
	}
}

// A flat sheet of particles: inside it, the shortest axis is the sheet's normal and the longest is k_r times the
// shortest — the covariance is flat, and the clamp decides the thickness.
func TestFlatSheet(t *testing.T) {
	const n = 24
	orientations := []struct {
		axis [3]float64
		deg  float64
	}{{[3]float64{1, 0, 0}, 0}, {[3]float64{1, 0, 0}, 30}, {[3]float64{1, 1, 0}, 37}, {[3]float64{0, 1, 0.3}, 90}, {[3]float64{2, -1, 3}, 123}}
	for _, o := range orientations {
		rot := rotation(o.axis, o.deg)
		normal := apply(rot, [3]float64{0, 1, 0}) // the sheet lies in the local xz plane
		var pos [][4]float32
		var interior []int
		for k := 0; k < n; k++ {
			for i := 0; i < n; i++ {
				local := [3]float64{(float64(i) - n/2) * spacing, 0, (float64(k) - n/2) * spacing}
				w := apply(rot, local)
				if i >= 5 && i < n-5 && k >= 5 && k < n-5 {
					interior = append(interior, len(pos))
				}
				pos = append(pos, [4]float32{float32(0.5 + w[0]), float32(0.5 + w[1]), float32(0.5 + w[2]), 0})
			}
		}
		for _, kr := range []float32{4, 2, 7} {
			a := withConfig(func(c *Config) { c.Kr = kr })
			out := compute(t, a, pos)
			for _, i := range interior {
				e := out[i]
				checkShape(t, "sheet", e)
				l := lengths(e)
				if ratio := l[0] / l[2]; math.Abs(ratio-float64(kr)) > 1e-3*float64(kr) {
					t.Fatalf("%v° about %v, k_r = %g: particle %d axes %v, ratio %g", o.deg, o.axis, kr, i, l, ratio)
				}
				if math.Abs(l[0]-l[1]) > 1e-3*l[0] {
					t.Fatalf("%v° about %v: in-plane axes %g and %g differ on a square lattice", o.deg, o.axis, l[0], l[1])
				}
				if c := math.Abs(dot3(e.Axes[2], normal)) / l[2]; c < math.Cos(2*math.Pi/180) {
					t.Fatalf("%v° about %v: shortest axis %v is %.1f° off the normal %v", o.deg, o.axis, e.Axes[2],
						math.Acos(math.Min(1, c))*180/math.Pi, normal)
				}
				if e.Center[3] < 40 {
					t.Fatalf("interior particle %d has %g neighbours in a sheet", i, e.Center[3])
				}
			}
		}
	}
}

// A particle alone, or with fewer than N_ε neighbours, is a sphere of radius k_n·R_p at its own position.
func TestSparseParticlesStayRound(t *testing.T) {
	p := [4]float32{0.3, 0.4, 0.5, 0}
	for _, kn := range []float32{0.5, 0.8} {
		a := withConfig(func(c *Config) { c.Kn = kn })
		e := compute(t, a, [][4]float32{p})[0]
		checkRound(t, "isolated", e, float64(kn)*radiusP)
		if [3]float32(e.Center[:3]) != [3]float32(p[:3]) || e.Center[3] != 0 {
			t.Errorf("isolated particle at %v has its kernel at %v", p, e.Center)
		}
	}
	// a particle with its six lattice neighbours (a symmetric cluster, so the weighted mean is the particle)
	cluster := [][4]float32{p}
	for ax := 0; ax < 3; ax++ {
		for _, s := range []float32{-1, 1} {
			q := p
			q[ax] += s * spacing
			cluster = append(cluster, q)
		}
	}
	e := compute(t, NewAnisotropy(), cluster)[0]
	checkRound(t, "six neighbours", e, 0.5*radiusP)
	if e.Center[3] != 6 {
		t.Errorf("the cluster's centre particle has %g neighbours, want 6", e.Center[3])
	}
	for c := 0; c < 3; c++ {
		if math.Abs(float64(e.Center[c]-p[c])) > 1e-6 {
			t.Errorf("the cluster's centre particle at %v has its kernel at %v", p, e.Center)
		}
	}
	// N_ε is a strict threshold: with N_ε = 6 it stays round, with 5 its kernel comes from the covariance
	e = compute(t, withConfig(func(c *Config) { c.Neps = 6 }), cluster)[0]
	checkRound(t, "six neighbours, N_ε = 6", e, 0.5*radiusP)
	e = compute(t, withConfig(func(c *Config) { c.Neps = 5 }), cluster)[0]
	checkShape(t, "six neighbours, N_ε = 5", e)
	if l := lengths(e); math.Abs(l[0]-0.5*radiusP) < 0.01*radiusP {
		t.Errorf("with N_ε = 5 a particle with 6 neighbours still has the round radius: %v", l)
	}
}

// Inside a filled lattice the kernel is a sphere of radius k_s·R_p: the σ_ref normalisation.
func TestFilledLatticeIsParticleSphere(t *testing.T) {
	pos := lattice(16, 16, 16, [3]float32{0.2, 0.2, 0.2})
	centre := (8*16+8)*16 + 8
	for _, radius := range []float32{4, 2.5} {
		for _, ks := range []float32{1, 1.7} {
			a := withConfig(func(c *Config) { c.Ks, c.Radius = ks, radius })
			e := compute(t, a, pos)[centre]
			l := lengths(e)
			for k := range l {
				if math.Abs(l[k]-float64(ks)*radiusP) > 2e-4*float64(ks)*radiusP {
					t.Fatalf("r = %g, k_s = %g: the lattice particle's axes are %v, want %g", radius, ks, l, ks*radiusP)
				}
			}
			dv := a.Derived()
			if n := int(e.Center[3]); n < dv.LatticeNeighbours || n > dv.LatticeNeighbours+6 {
				t.Errorf("r = %g: %d neighbours, want %d (or up to 6 more at exactly r, where w = 0)", radius, n, dv.LatticeNeighbours)
			}
		}
	}
}

// Laplacian smoothing: λ = 0 leaves the centres on the particles; λ > 0 draws the surface particles of a block
// inwards and leaves the bulk where it is.
func TestSmoothing(t *testing.T) {
	const n = 12
	pos := lattice(n, n, n, [3]float32{0.3, 0.3, 0.3})
	mid := 0.3 + float32(n-1)*spacing/2
	out := compute(t, withConfig(func(c *Config) { c.Lambda = 0 }), pos)
	for i, e := range out {
		if [3]float32(e.Center[:3]) != [3]float32(pos[i][:3]) {
			t.Fatalf("λ = 0: particle %d at %v has its kernel at %v", i, pos[i], e.Center)
		}
	}
	for _, lambda := range []float32{0.5, 0.9} {
		out = compute(t, withConfig(func(c *Config) { c.Lambda = lambda }), pos)
		moved := 0
		for idx, e := range out {
			i, j, k := idx%n, idx/n%n, idx/(n*n)
			var d, outward [3]float64
			for c := 0; c < 3; c++ {
				d[c] = float64(e.Center[c] - pos[idx][c])
				outward[c] = float64(pos[idx][c] - mid)
			}
			dist := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
			inner := func(x int) bool { return x >= 4 && x < n-4 }
			switch {
			case inner(i) && inner(j) && inner(k): // r = 4 spacings from every face: a symmetric neighbourhood
				if dist > 1e-6 {
					t.Fatalf("λ = %g: bulk particle (%d,%d,%d) moved by %g", lambda, i, j, k, dist)
				}
			case i == 0 || j == 0 || k == 0 || i == n-1 || j == n-1 || k == n-1:
				if in := -(d[0]*outward[0] + d[1]*outward[1] + d[2]*outward[2]); !(in > 0) || dist < 0.1*spacing*float64(lambda) {
					t.Fatalf("λ = %g: surface particle (%d,%d,%d) moved by %v, not inwards", lambda, i, j, k, d)
				}
				moved++
			}
		}
		if moved != n*n*n-(n-2)*(n-2)*(n-2) {
			t.Errorf("λ = %g: %d surface particles checked", lambda, moved)
		}
	}
	// a face particle moves along the face's inward normal, by λ times its mean offset
	face := (n/2*n+n-1)*n + n/2 // i = n/2, j = n−1 (the top), k = n/2
	a := withConfig(func(c *Config) { c.Lambda = 0.9 })
	e := compute(t, a, pos)[face]
	if dy := e.Center[1] - pos[face][1]; !(dy < -0.2*spacing) || math.Abs(float64(e.Center[0]-pos[face][0])) > 1e-6 || math.Abs(float64(e.Center[2]-pos[face][2])) > 1e-6 {
		t.Errorf("top face particle moved by (%g, %g, %g), want straight down", e.Center[0]-pos[face][0], dy, e.Center[2]-pos[face][2])
	}
	// two lone particles (spray) are drawn together by λ w/(1 + w) of their distance, w = 1 − (1/4)³
	pair := [][4]float32{{0.5, 0.5, 0.5, 0}, {0.5 + spacing, 0.5, 0.5, 0}}
	out = compute(t, withConfig(func(c *Config) { c.Lambda = 0.9 }), pair)
	w := 1 - 1.0/64
	want := 0.9 * w / (1 + w) * spacing
	if got := float64(out[0].Center[0] - pair[0][0]); math.Abs(got-want) > 1e-6 {
		t.Errorf("lone pair: centre moved by %g, want %g", got, want)
	}
	checkRound(t, "lone pair", out[0], 0.5*radiusP)
}

// surface.enabled = false: spheres of radius k_s·R_p at the particles; the neighbour counts remain.
func TestDisabled(t *testing.T) {
	pos := damBreak(10, 6, 10, 50, 3)
	a := withConfig(func(c *Config) { c.Enabled, c.Ks = false, 1.3 })
	out := compute(t, a, pos)
	ref := compute(t, NewAnisotropy(), pos)
	for i, e := range out {
		checkRound(t, "disabled", e, 1.3*radiusP)
		if [3]float32(e.Center[:3]) != [3]float32(pos[i][:3]) {
			t.Fatalf("disabled: particle %d at %v has its kernel at %v", i, pos[i], e.Center)
		}
		if e.Center[3] != ref[i].Center[3] {
			t.Fatalf("disabled: particle %d has %g neighbours, %g when enabled", i, e.Center[3], ref[i].Center[3])
		}
	}
}

// quadForm is Σ_k a_k a_kᵀ, the ellipsoid's shape independent of the axes' signs and order.
func quadForm(e Ellipsoid) [3][3]float64 {
	var q [3][3]float64
	for _, a := range e.Axes {
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				q[r][c] += float64(a[r]) * float64(a[c])
			}
		}
	}
	return q
}

// oracle computes one kernel the plain way: brute-force neighbours, float64 sums of absolute positions, the
// two-pass covariance about the mean, and the paper's clamps.
func oracle(c *Config, dv Derived, pos [][4]float32, i int) (centre [3]float64, q [3][3]float64, nb int, borderline bool) {
	r := float64(dv.R)
	var xi [3]float64
	for k := range xi {
		xi[k] = float64(pos[i][k])
	}
	var ws float64
	var mean [3]float64
	type nw struct {
		x [3]float64
		w float64
	}
	var nbrs []nw
	for j := range pos {
		var xj [3]float64
		d2 := 0.0
		for k := range xj {
			xj[k] = float64(pos[j][k])
			d2 += (xj[k] - xi[k]) * (xj[k] - xi[k])
		}
		if math.Abs(d2/(r*r)-1) < 1e-5 {
			borderline = true
		}
		if d2 >= r*r {
			continue
		}
		if j != i {
			nb++
		}
		s := math.Sqrt(d2) / r
		w := 1 - s*s*s
		nbrs = append(nbrs, nw{xj, w})
		ws += w
		for k := range mean {
			mean[k] += w * xj[k]
		}
	}
	for k := range mean {
		mean[k] /= ws
		centre[k] = (1-float64(c.Lambda))*xi[k] + float64(c.Lambda)*mean[k]
	}
	var cov [3][3]float64
	for _, n := range nbrs {
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				cov[a][b] += n.w * (n.x[a] - mean[a]) * (n.x[b] - mean[b]) / ws
			}
		}
	}
	rp := float64(dv.ParticleRadius)
	if nb <= int(c.Neps) {
		kn := float64(c.Kn) * rp
		return centre, [3][3]float64{{kn * kn}, {0, kn * kn}, {0, 0, kn * kn}}, nb, borderline
	}
	sr := float64(dv.SigmaRef)
	val, vec := eigen(sym3{float32(cov[0][0] / sr), float32(cov[1][1] / sr), float32(cov[2][2] / sr),
		float32(cov[0][1] / sr), float32(cov[0][2] / sr), float32(cov[1][2] / sr)})
	s1 := float64(val[0])
	sig := [3]float64{s1, math.Max(float64(val[1]), s1/float64(c.Kr)), math.Max(float64(val[2]), s1/float64(c.Kr))}
	for k := 0; k < 3; k++ {
		ak := rp * float64(c.Ks) * sig[k]
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				q[a][b] += ak * ak * float64(vec[k][a]) * float64(vec[k][b])
			}
		}
	}
	return centre, q, nb, borderline
}

// The grid-based float32 pass agrees with the plain float64 computation on a cloud with bulk, surface and spray.
func TestMatchesOracle(t *testing.T) {
	pos := damBreak(12, 8, 10, 120, 5)
	for _, cfg := range []func(c *Config){func(c *Config) {}, func(c *Config) { c.Radius, c.Kr, c.Ks, c.Lambda, c.Neps = 3, 2.5, 1.4, 0.5, 10 }} {
		a := withConfig(cfg)
		out := compute(t, a, pos)
		dv := a.Derived()
		skipped, spray := 0, 0
		for i, e := range out {
			checkShape(t, "cloud", e)
			centre, q, nb, borderline := oracle(&a.Cfg, dv, pos, i)
			if borderline {
				skipped++
				continue
			}
			if nb <= int(a.Cfg.Neps) {
				spray++
			}
			if int(e.Center[3]) != nb {
				t.Fatalf("particle %d: %g neighbours, the oracle finds %d", i, e.Center[3], nb)
			}
			for c := 0; c < 3; c++ {
				if math.Abs(float64(e.Center[c])-centre[c]) > 1e-6 {
					t.Fatalf("particle %d: centre %v, the oracle's %v", i, e.Center, centre)
				}
			}
			got := quadForm(e)
			scale := float64(dv.ParticleRadius) * float64(dv.ParticleRadius)
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					if math.Abs(got[r][c]-q[r][c]) > 1e-3*scale {
						t.Fatalf("particle %d (%d neighbours): shape %v, the oracle's %v", i, nb, got, q)
					}
				}
			}
		}
		t.Logf("%d particles, %d borderline, %d spray", len(pos), skipped, spray)
		if skipped > len(pos)/100 || spray < 50 {
			t.Errorf("%d particles skipped as borderline, %d spray particles: the cloud does not test what it should", skipped, spray)
		}
	}
}

// Coincident particles, a line, a plane, a single point, an empty set, particles outside the box and a stray NaN:
// every kernel of a finite particle is finite.
func TestDegenerateInputs(t *testing.T) {
	p := [4]float32{0.5, 0.5, 0.5, 0}
	coincident := make([][4]float32, 40)
	for i := range coincident {
		coincident[i] = p
	}
	var line, pairs, outside [][4]float32
	dir := [3]float32{0.6, 0.48, 0.64}
	for i := 0; i < 60; i++ {
		s := float32(i-30) * spacing * 0.5
		line = append(line, [4]float32{0.5 + s*dir[0], 0.5 + s*dir[1], 0.5 + s*dir[2], 0})
	}
	for _, q := range lattice(6, 6, 6, [3]float32{0.4, 0.4, 0.4}) {
		pairs = append(pairs, q, q)
	}
	for _, q := range lattice(8, 8, 8, [3]float32{-0.05, 0.9, 0.95}) {
		outside = append(outside, q)
	}
	withNaN := lattice(6, 6, 6, [3]float32{0.4, 0.4, 0.4})
	withNaN[100] = [4]float32{float32(math.NaN()), 0.5, 0.5, 0}
	withNaN[101] = [4]float32{float32(math.Inf(1)), 0.5, 0.5, 0}
	tiny := make([][4]float32, 0, 64)
	for i := 0; i < 64; i++ {
		tiny = append(tiny, [4]float32{0.5 + float32(i%4)*1e-7, 0.5 + float32(i/4%4)*1e-7, 0.5 + float32(i/16)*1e-7, 0})
	}
	for _, tc := range []struct {
		name string
		pos  [][4]float32
		skip map[int]bool
	}{
		{"coincident", coincident, nil}, {"line", line, nil}, {"coincident pairs", pairs, nil},
		{"outside the box", outside, nil}, {"NaN and Inf", withNaN, map[int]bool{100: true, 101: true}},
		{"sub-ulp cluster", tiny, nil}, {"single", [][4]float32{p}, nil}, {"empty", nil, nil},
	} {
		for _, neps := range []int32{25, 0} {
			a := withConfig(func(c *Config) { c.Neps = neps })
			out := compute(t, a, tc.pos)
			for i, e := range out {
				if tc.skip[i] {
					for _, v := range e.Axes {
						for _, x := range v {
							if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
								t.Fatalf("%s: the non-finite particle %d has non-finite axes %v", tc.name, i, e.Axes)
							}
						}
					}
					continue
				}
				checkShape(t, tc.name, e)
			}
		}
	}
	// the coincident particles have no extent: round, at the point
	out := compute(t, NewAnisotropy(), coincident)
	checkRound(t, "coincident", out[0], 0.5*radiusP)
	if out[0].Center[3] != 39 {
		t.Errorf("coincident: %g neighbours, want 39", out[0].Center[3])
	}
	// with N_ε = 0 the line's kernels are needles along the line, k_r : 1
	out = compute(t, withConfig(func(c *Config) { c.Neps = 0 }), line)
	e := out[30]
	l := lengths(e)
	if c := math.Abs(dot3(e.Axes[0], [3]float64{0.6, 0.48, 0.64})) / l[0]; c < 0.9999 || math.Abs(l[0]/l[2]-4) > 1e-3 {
		t.Errorf("line: axes %v (lengths %v), want the longest along the line, 4 times the others", e.Axes, l)
	}
	if err := NewAnisotropy().Compute(make([]Ellipsoid, 1), coincident, radiusP, unitLo, unitHi); err == nil {
		t.Error("a destination too short accepted")
	}
	if err := NewAnisotropy().Compute(make([]Ellipsoid, 40), coincident, 0, unitLo, unitHi); err == nil {
		t.Error("a zero particle radius accepted")
	}
	if err := NewAnisotropy().Compute(make([]Ellipsoid, 40), coincident, 1e-6, unitLo, unitHi); err == nil {
		t.Error("a grid of more than grid.MaxCells cells accepted")
	}
}

// Far from the origin and at very small or large spacings, float32 keeps its precision: offsets are accumulated
// relative to the particle, and the covariance is normalised by σ_ref before the eigen decomposition.
func TestScaleInvariance(t *testing.T) {
	pos := damBreak(8, 6, 8, 30, 9)
	ref := compute(t, NewAnisotropy(), pos)
	for _, tc := range []struct {
		scale, shift float64
	}{{1e-3, 0}, {1e3, 0}, {1, 500}} {
		moved := make([][4]float32, len(pos))
		for i, p := range pos {
			for c := 0; c < 3; c++ {
				moved[i][c] = float32(float64(p[c])*tc.scale + tc.shift)
			}
		}
		lo := [3]float32{float32(tc.shift), float32(tc.shift), float32(tc.shift)}
		hi := [3]float32{float32(tc.scale + tc.shift), float32(tc.scale + tc.shift), float32(tc.scale + tc.shift)}
		dst := make([]Ellipsoid, len(pos))
		if err := NewAnisotropy().Compute(dst, moved, float32(radiusP*tc.scale), lo, hi); err != nil {
			t.Fatal(err)
		}
		tol := 2e-3
		if tc.shift != 0 {
			tol = 0.05 // positions near 500 m carry 3e-5 m of rounding against a 2 cm spacing
		}
		for i := range dst {
			checkShape(t, "scaled", dst[i])
			if dst[i].Center[3] != ref[i].Center[3] && tc.shift == 0 {
				t.Fatalf("scale %g: particle %d has %g neighbours, %g at unit scale", tc.scale, i, dst[i].Center[3], ref[i].Center[3])
			}
			a, b := quadForm(dst[i]), quadForm(ref[i])
			s2 := tc.scale * tc.scale
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					if math.Abs(a[r][c]/s2-b[r][c]) > tol*radiusP*radiusP {
						t.Fatalf("scale %g, shift %g: particle %d shape %v, %v at unit scale", tc.scale, tc.shift, i, a, b)
					}
				}
			}
		}
	}
}

// Once the buffers have grown, a pass allocates nothing of its own: on a single worker, exactly what
// grid.Build allocates (its worker-pool closures, a few dozen bytes), and on several only the pool's bookkeeping.
func TestNoAllocations(t *testing.T) {
	pos := damBreak(10, 6, 10, 50, 3)
	a := NewAnisotropy()
	dst := make([]Ellipsoid, len(pos))
	run := func() {
		if err := a.Compute(dst, pos, radiusP, unitLo, unitHi); err != nil {
			t.Fatal(err)
		}
	}
	run()
	g, err := grid.New(unitLo, unitHi, a.Derived().R)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]uint32, len(pos))
	build := func() { g.Build(pos, ids) }
	build()
	prev := runtime.GOMAXPROCS(1)
	allocs, gridAllocs := testing.AllocsPerRun(5, run), testing.AllocsPerRun(5, build)
	runtime.GOMAXPROCS(prev)
	if allocs > gridAllocs {
		t.Errorf("%g allocations per pass on one worker, %g of them in grid.Build", allocs, gridAllocs)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := 0; i < 10; i++ {
		run()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > 4096 {
		t.Errorf("%d bytes allocated per pass on %d workers", per, prev)
	}
}

func BenchmarkAnisotropy32k(b *testing.B) {
	pos := damBreak(40, 20, 40, 768, 1)
	a := NewAnisotropy()
	dst := make([]Ellipsoid, len(pos))
	if err := a.Compute(dst, pos, radiusP, unitLo, unitHi); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := a.Compute(dst, pos, radiusP, unitLo, unitHi); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pos)*b.N)/b.Elapsed().Seconds(), "particles/s")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/pass")
}

// The interior rule on a filled 16³ lattice: a particle is interior exactly when it lies deeper than the rule's
// depth below every face (the outer two layers, where some lattice neighbour is missing, never are), and the flag
// does not depend on the kernels being enabled.
func TestInterior(t *testing.T) {
	pos := lattice(16, 16, 16, [3]float32{0.2, 0.2, 0.2})
	for _, enabled := range []bool{true, false} {
		a := withConfig(func(c *Config) { c.Enabled = enabled })
		es := compute(t, a, pos)
		interior := 0
		for i, e := range es {
			x, y, z := i%16, i/16%16, i/256
			depth := min(x, y, z, 15-x, 15-y, 15-z) // layers above it towards the nearest face
			if depth < 2 && e.Interior() {
				t.Fatalf("enabled %v: particle (%d, %d, %d), %d layers deep, is interior", enabled, x, y, z, depth)
			}
			if depth >= 4 && !e.Interior() {
				t.Fatalf("enabled %v: particle (%d, %d, %d) with a full neighbourhood is not interior", enabled, x, y, z)
			}
			if e.Interior() {
				interior++
			}
		}
		if interior < 8*8*8 {
			t.Fatalf("enabled %v: %d interior particles", enabled, interior)
		}
	}
}
