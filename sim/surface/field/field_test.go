package field

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/surface/mc"
)

const spacing = 0.01

// A lone particle's φ is the signed distance to its sphere of radius r within R, and its mesh is that sphere:
// every vertex lies on it within the error of linear interpolation along the grid's edges.
func TestSphere(t *testing.T) {
	for _, correct := range []bool{false, true} {
		c := DefaultConfig(spacing)
		c.Correct = correct
		c.Smooth = 0
		c.Cell = c.Radius / 4
		o := [3]float64{0.123, -0.456, 0.789}
		pos := [][4]float32{{float32(o[0]), float32(o[1]), float32(o[2]), 0}}
		f, err := New(pos, c)
		if err != nil {
			t.Fatal(err)
		}
		x0 := vec([3]float32{pos[0][0], pos[0][1], pos[0][2]})
		for _, d := range []float64{0, 0.3, 0.9, 1.4, 1.9} {
			x := [3]float64{x0[0] + d*c.Radius*0.6, x0[1] - d*c.Radius*0.8, x0[2]}
			if got, want := f.At(x), d*c.Radius-c.Radius; math.Abs(got-want) > 1e-9 {
				t.Errorf("correct %v: φ at %g r from the particle is %g, want %g", correct, d, got, want)
			}
		}
		if got := f.At([3]float64{x0[0], x0[1], x0[2] + 1.01*c.Support}); got != c.Support-c.Radius {
			t.Errorf("correct %v: φ beyond R is %g, want R − r = %g", correct, got, c.Support-c.Radius)
		}
		m, _ := mesh(t, pos, c)
		checkClosed(t, m)
		if len(m.Positions) < 50 {
			t.Fatalf("correct %v: a sphere of %d vertices", correct, len(m.Positions))
		}
		// Linear interpolation of |x − x0| − r along an edge of length h puts the vertex at most h²/(2r) inside.
		tol := c.Cell * c.Cell / (2 * c.Radius)
		worst := 0.0
		for _, p := range m.Positions {
			worst = max(worst, math.Abs(norm(sub(vec(p), x0))-c.Radius))
		}
		if worst > tol {
			t.Errorf("correct %v: a vertex lies %g m off the sphere of radius %g m, want within %g", correct, worst, c.Radius, tol)
		}
		if v, want := m.Volume(), 4*math.Pi/3*math.Pow(c.Radius, 3); math.Abs(v-want) > 0.05*want {
			t.Errorf("correct %v: the sphere's volume is %g, want %g within 5%%", correct, v, want)
		}
	}
}

// FlatRadius puts a flat lattice's surface half a spacing above its top layer, with and without the correction.
func TestFlatRadius(t *testing.T) {
	for _, correct := range []bool{false, true} {
		c := DefaultConfig(spacing)
		c.Correct = correct
		r, err := FlatRadius(spacing, c)
		if err != nil {
			t.Fatal(err)
		}
		c.Radius = r
		pos := lattice([3]int{12, 12, 6}, spacing, [3]float64{}, 0, 1, nil)
		f, err := New(pos, c)
		if err != nil {
			t.Fatal(err)
		}
		for _, xy := range [][2]float64{{5, 5}, {5.5, 5.5}, {5.5, 5}, {5.25, 5.75}} {
			x := [3]float64{xy[0] * spacing, xy[1] * spacing, 5.5 * spacing}
			if phi := f.At(x); math.Abs(phi) > 0.05*spacing {
				t.Errorf("correct %v: φ half a spacing above the top layer at %v is %g, want 0 within 5%% of the spacing", correct, xy, phi)
			}
		}
	}
}

// The analytic Jacobian agrees with finite differences of x̄, and is the identity inside a lattice.
func TestJacobian(t *testing.T) {
	c := DefaultConfig(spacing)
	pos := lattice([3]int{10, 10, 10}, spacing, [3]float64{}, 0.3, 3, func(i, j, k int) bool { return i < 5 || k < 5 })
	f, err := New(pos, c)
	if err != nil {
		t.Fatal(err)
	}
	xbar := func(x [3]float64) [3]float64 {
		s := f.gather(x, false)
		y := s.ybar()
		return [3]float64{x[0] + y[0], x[1] + y[1], x[2] + y[2]}
	}
	for _, x := range [][3]float64{{0.045, 0.05, 0.045}, {0.062, 0.051, 0.061}, {0.051, 0.093, 0.071}, {0.091, 0.02, 0.057}} {
		s := f.gather(x, true)
		j := f.jacobian(&s, s.ybar())
		const e = 1e-6
		for b := range 3 {
			xp, xm := x, x
			xp[b] += e
			xm[b] -= e
			p, m := xbar(xp), xbar(xm)
			for a := range 3 {
				if fd := (p[a] - m[a]) / (2 * e); math.Abs(fd-j[a][b]) > 1e-4*(1+math.Abs(fd)) {
					t.Errorf("at %v: J[%d][%d] = %g, finite differences %g", x, a, b, j[a][b], fd)
				}
			}
		}
	}
	s := f.gather([3]float64{0.025, 0.045, 0.025}, true) // deep in the lower arm, 2.5 spacings from its faces
	j := f.jacobian(&s, s.ybar())
	for a := range 3 {
		for b := range 3 {
			want := 0.0
			if a == b {
				want = 1
			}
			if math.Abs(j[a][b]-want) > 0.25 {
				t.Errorf("in the bulk J[%d][%d] = %g, want about %g", a, b, j[a][b], want)
			}
		}
	}
	// maxEigenSym: a root of the characteristic polynomial, and no Rayleigh quotient above it.
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100 {
		var e [6]float64
		for i := range e {
			e[i] = 4*rng.Float64() - 2
		}
		a := [3][3]float64{{e[0], e[3], e[4]}, {e[3], e[1], e[5]}, {e[4], e[5], e[2]}}
		ev := maxEigenSym(e[0], e[1], e[2], e[3], e[4], e[5])
		shifted := a
		for i := range 3 {
			shifted[i][i] -= ev
		}
		if d := det3(shifted); math.Abs(d) > 1e-9 {
			t.Errorf("maxEigenSym(%v) = %g: det(A − λI) = %g", e, ev, d)
		}
		for range 20 {
			u := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			au := [3]float64{dot(a[0], u), dot(a[1], u), dot(a[2], u)}
			if q := dot(u, au) / dot(u, u); q > ev+1e-9 {
				t.Errorf("maxEigenSym(%v) = %g, below the Rayleigh quotient %g", e, ev, q)
			}
		}
		// The symmetric part's largest eigenvalue bounds the real parts of a non-symmetric matrix's eigenvalues.
		ns := a
		ns[0][1] += 2*rng.Float64() - 1
		ns[2][0] += 2*rng.Float64() - 1
		sym := maxEigenSym(ns[0][0], ns[1][1], ns[2][2], (ns[0][1]+ns[1][0])/2, (ns[0][2]+ns[2][0])/2, (ns[1][2]+ns[2][1])/2)
		if re := maxEigenReal(ns); re > sym+1e-9 {
			t.Errorf("%v: an eigenvalue's real part %g exceeds the symmetric part's largest eigenvalue %g", ns, re, sym)
		}
	}
	for i, f := range []float64{factor(0.1, 0.4, 2), factor(0.4, 0.4, 2), factor(1.2, 0.4, 2), factor(2, 0.4, 2), factor(9, 0.4, 2)} {
		want := []float64{1, 1, 0.875, 0, 0}[i]
		if math.Abs(f-want) > 1e-12 {
			t.Errorf("factor %d = %g, want %g", i, f, want)
		}
	}
}

// A slab whose top layer is complete (lightly jittered) but whose interior misses a fifth of its particles at random
// has a flat top under φ, which follows the particles' mean, and a bumpy one under the blobby sum of the same
// kernel, which follows their number (002 §5, Figure 4); its threshold puts a full lattice's surface at the same
// height.
func TestFlatSlab(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: fields over a large slab; make test runs it")
	}
	c := DefaultConfig(spacing)
	n := [3]int{16, 16, 5}
	rng := rand.New(rand.NewPCG(3, 4))
	pos := lattice(n, spacing, [3]float64{}, 0.1, 11, func(i, j, k int) bool { return k == n[2]-1 || rng.Float64() > 0.2 })
	m, _ := mesh(t, pos, c)
	checkClosed(t, m)
	mean, rms, spread := topHeights(m, n)
	if want := float64(n[2]) - 0.5; math.Abs(mean-want) > 0.1 {
		t.Errorf("the top is at %g spacings, want %g", mean, want)
	}

	// The blobby: B(x) = T − Σ k(|x − x_i|/R), with T the sum half a spacing above a perfect lattice's top.
	k := func(pos [][4]float32, x [3]float64) float64 {
		sum := 0.0
		for _, p := range pos {
			d := sub(x, vec([3]float32{p[0], p[1], p[2]}))
			if t := 1 - dot(d, d)/(c.Support*c.Support); t > 0 {
				sum += t * t * t
			}
		}
		return sum
	}
	perfect := lattice(n, spacing, [3]float64{}, 0, 1, nil)
	T := k(perfect, [3]float64{7.25 * spacing, 7.25 * spacing, (float64(n[2]) - 0.5) * spacing})
	g := mc.Grid{Origin: [3]float64{-3 * spacing, -3 * spacing, -3 * spacing}, H: c.Cell}
	for a := range 3 {
		g.Dims[a] = int((float64(n[a])+5)*spacing/c.Cell) + 1
	}
	g.Values = make([]float32, g.Dims[0]*g.Dims[1]*g.Dims[2])
	for kk := range g.Dims[2] {
		for j := range g.Dims[1] {
			for i := range g.Dims[0] {
				x := [3]float64{g.Origin[0] + c.Cell*float64(i), g.Origin[1] + c.Cell*float64(j), g.Origin[2] + c.Cell*float64(kk)}
				g.Values[i+g.Dims[0]*(j+g.Dims[1]*kk)] = float32(T - k(pos, x))
			}
		}
	}
	bm, err := mc.MeshGrid(g)
	if err != nil {
		t.Fatal(err)
	}
	_, brms, bspread := topHeights(bm, n)
	t.Logf("the top's heights in spacings: φ RMS %.3g, max − min %.3g; blobby RMS %.3g, max − min %.3g", rms, spread, brms, bspread)
	if rms > 0.06 || spread > 0.3 {
		t.Errorf("φ's top: RMS %g, max − min %g spacings, want under 0.06 and 0.3", rms, spread)
	}
	if brms < 3*rms {
		t.Errorf("the blobby's top: RMS %g spacings, φ's %g: want φ's under a third", brms, rms)
	}
}

// topHeights are the mean, RMS deviation and max − min of the heights, in spacings, of the upward-facing vertices
// over the middle of a slab of n sites.
func topHeights(m *mc.Mesh, n [3]int) (mean, rms, spread float64) {
	var zs []float64
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, p := range m.Positions {
		x, y, z := float64(p[0])/spacing, float64(p[1])/spacing, float64(p[2])/spacing
		if m.Normals[i][2] < 0.8 || x < 3 || y < 3 || x > float64(n[0])-4 || y > float64(n[1])-4 {
			continue
		}
		zs = append(zs, z)
		mean += z
		lo, hi = min(lo, z), max(hi, z)
	}
	mean /= float64(len(zs))
	for _, z := range zs {
		rms += (z - mean) * (z - mean)
	}
	return mean, math.Sqrt(rms / float64(len(zs))), hi - lo
}

// Two particles three spacings apart (Figure 6.8 of 004: separated by about the influence radius) grow a spurious
// third blob between them under the plain function; the correction removes it.
func TestSeparatedParticles(t *testing.T) {
	pos := [][4]float32{{0, 0, 0, 0}, {3 * spacing, 0, 0, 0}}
	for _, tc := range []struct {
		correct bool
		want    int
	}{{false, 3}, {true, 2}} {
		c := DefaultConfig(spacing)
		c.Correct = tc.correct
		m, _ := mesh(t, pos, c)
		checkClosed(t, m)
		if got := m.Components(); got != tc.want {
			t.Errorf("correct %v: %d pieces, want %d", tc.correct, got, tc.want)
		}
	}
}

// An L-shaped block: one piece either way, but the plain function fills the concave corner with a fillet the
// correction mostly removes. The fill is how far the surface reaches into the notch beyond both of its faces.
func TestConcaveCorner(t *testing.T) {
	const a = 6 // the arms' thickness in sites
	pos := lattice([3]int{2 * a, 8, 2 * a}, spacing, [3]float64{}, 0, 1, func(i, j, k int) bool { return i < a || k < a })
	corner := (a - 0.5) * spacing // the notch's faces: x and z half a spacing beyond the last sites
	fill := func(m *mc.Mesh) float64 {
		worst := 0.0
		for _, p := range m.Positions {
			if y := float64(p[1]) / spacing; y < 3 || y > 4 {
				continue
			}
			worst = max(worst, min(float64(p[0])-corner, float64(p[2])-corner))
		}
		return worst
	}
	var fills [2]float64
	for i, correct := range []bool{false, true} {
		c := DefaultConfig(spacing)
		c.Correct = correct
		m, _ := mesh(t, pos, c)
		checkClosed(t, m)
		if n := m.Components(); n != 1 {
			t.Errorf("correct %v: %d pieces, want 1", correct, n)
		}
		fills[i] = fill(m)
	}
	t.Logf("the corner's fill: %.3g spacings plain, %.3g corrected", fills[0]/spacing, fills[1]/spacing)
	if fills[0] < 0.25*spacing {
		t.Errorf("the plain function fills the corner by %g m, want the fillet (over 0.25 spacings)", fills[0])
	}
	if fills[1] > 0.5*fills[0] {
		t.Errorf("the corrected function fills the corner by %g m, the plain one by %g m: want under half", fills[1], fills[0])
	}
}

// A block's mesh encloses its particles' volume N·spacing³ within a few per cent, is closed, and has no
// self-intersections; a dam-break-like frame too.
func TestVolumeAndWatertight(t *testing.T) {
	block := lattice([3]int{14, 10, 12}, spacing, [3]float64{0.2, -0.1, 0.05}, 0.1, 5, nil)
	for _, correct := range []bool{false, true} {
		c := DefaultConfig(spacing)
		c.Correct = correct
		m, st := mesh(t, block, c)
		checkClosed(t, m)
		if n := m.Crossings(); n != 0 {
			t.Errorf("correct %v: %d intersecting triangle pairs", correct, n)
		}
		want := float64(len(block)) * spacing * spacing * spacing
		if v := m.Volume(); math.Abs(v-want) > 0.04*want {
			t.Errorf("correct %v: volume %g, want %g within 4%%", correct, v, want)
		} else {
			t.Logf("correct %v: volume %.4g of %.4g (%+.2f%%), %d triangles, %d of %d blocks meshed", correct, v, want,
				100*(v-want)/want, st.Triangles, st.MeshedBlocks, st.Blocks)
		}
	}
	frame := damBreak(3000, spacing, 9)
	m, _ := mesh(t, frame, DefaultConfig(spacing))
	checkClosed(t, m)
	if n := m.Crossings(); n != 0 {
		t.Errorf("dam break: %d intersecting triangle pairs", n)
	}
}

// The mesh is the same, to the bit, on any number of workers.
func TestWorkers(t *testing.T) {
	frame := damBreak(4000, spacing, 2)
	var ref *mc.Mesh
	for _, w := range []int{1, 2, 3, 8} {
		c := DefaultConfig(spacing)
		c.Workers = w
		c.Smooth = 2
		m, _ := mesh(t, frame, c)
		if ref == nil {
			ref = m
			continue
		}
		if !slices.Equal(m.Positions, ref.Positions) || !slices.Equal(m.Triangles, ref.Triangles) || !slices.Equal(m.Normals, ref.Normals) {
			t.Errorf("%d workers: the mesh differs from one worker's", w)
		}
	}
	// A reused Mesher gives what a fresh one does.
	ms := NewMesher()
	c := DefaultConfig(spacing)
	c.Smooth = 2
	if _, _, err := ms.Mesh(lattice([3]int{30, 3, 3}, spacing, [3]float64{}, 0, 1, nil), c); err != nil {
		t.Fatal(err)
	}
	m, _, err := ms.Mesh(frame, c)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Positions, ref.Positions) || !slices.Equal(m.Triangles, ref.Triangles) {
		t.Error("a reused Mesher's mesh differs from a fresh one's")
	}
}

// Smoothing only lowers φ: the volume never drops, and it does smooth a jittered block's surface.
func TestSmoothDoesNotShrink(t *testing.T) {
	pos := lattice([3]int{10, 10, 10}, spacing, [3]float64{}, 0.3, 8, nil)
	prev, first := 0.0, 0.0
	for passes := range 5 {
		c := DefaultConfig(spacing)
		c.Smooth = passes
		m, _ := mesh(t, pos, c)
		checkClosed(t, m)
		v := m.Volume()
		if passes > 0 && v < prev {
			t.Errorf("%d passes: volume %g, below %d passes' %g", passes, v, passes-1, prev)
		}
		if passes == 0 {
			first = v
		}
		prev = v
	}
	if !(prev > first) {
		t.Errorf("4 passes: volume %g, no more than no smoothing's %g: the smoothing does nothing", prev, first)
	}
}

// Bad configurations and positions are refused with errors that name the culprit.
func TestRefused(t *testing.T) {
	good := DefaultConfig(spacing)
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Radius = nan }, "Radius"},
		{func(c *Config) { c.Radius = -1 }, "Radius"},
		{func(c *Config) { c.Support = math.Inf(1) }, "Support"},
		{func(c *Config) { c.Support = c.Radius }, "Support"},
		{func(c *Config) { c.Cell = 0 }, "Cell"},
		{func(c *Config) { c.Cell = c.Support }, "Cell"},
		{func(c *Config) { c.Cell = c.Support / 100 }, "Support"},
		{func(c *Config) { c.TLow = -1 }, "TLow"},
		{func(c *Config) { c.THigh = c.TLow }, "THigh"},
		{func(c *Config) { c.TLow = nan }, "TLow"},
		{func(c *Config) { c.Smooth = -1 }, "Smooth"},
		{func(c *Config) { c.Smooth = MaxSmooth + 1 }, "Smooth"},
		{func(c *Config) { c.Workers = -2 }, "Workers"},
	} {
		c := good
		tc.edit(&c)
		_, _, err := NewMesher().Mesh([][4]float32{{0, 0, 0, 0}}, c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config %+v: error %v, want one naming %s", c, err, tc.want)
		}
	}
	if err := DefaultConfig(nan).Check(); err == nil {
		t.Error("DefaultConfig(NaN) passes Check")
	}
	for _, p := range [][4]float32{{float32(nan), 0, 0, 0}, {0, float32(math.Inf(-1)), 0, 0}, {0, 0, 1e9, 0}} {
		pos := [][4]float32{{0, 0, 0, 0}, p}
		if _, _, err := NewMesher().Mesh(pos, good); err == nil || !strings.Contains(err.Error(), "particle 1") {
			t.Errorf("position %v: error %v, want one naming particle 1", p, err)
		}
		if _, err := New(pos, good); err == nil {
			t.Errorf("New with position %v: no error", p)
		}
	}
	// Particles spread far apart need more blocks than the budget allows.
	far := [][4]float32{{-1000, -1000, -1000, 0}, {1000, 1000, 1000, 0}}
	if _, _, err := NewMesher().Mesh(far, good); err == nil {
		t.Error("particles 3.5 km apart at a 5 mm grid: no error")
	}
	// No particles: an empty mesh.
	m, _, err := NewMesher().Mesh(nil, good)
	if err != nil || len(m.Triangles) != 0 {
		t.Errorf("no particles: %d triangles, error %v", len(m.Triangles), err)
	}
}

// The parameters register under their names and turn into DefaultConfig.
func TestSettings(t *testing.T) {
	s := DefaultSettings()
	ps := param.NewSet()
	s.Register(ps)
	for _, name := range []string{"mesh.support", "mesh.cell", "mesh.correct", "mesh.t_low", "mesh.t_high", "mesh.smooth"} {
		if _, ok := ps.Lookup(name); !ok {
			t.Errorf("parameter %s not registered", name)
		}
	}
	c, err := s.Config(spacing, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := DefaultConfig(spacing); c != want {
		t.Errorf("default settings give %+v, want %+v", c, want)
	}
	if err := ps.Assign("mesh.cell=1"); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Config(spacing, 0); err != nil || c.Cell != spacing {
		t.Errorf("mesh.cell=1 gives Cell %g (error %v), want %g", c.Cell, err, spacing)
	}
	s.Support = 0.6 // below the radius
	if _, err := s.Config(spacing, 0); err == nil {
		t.Error("a support of 0.6 spacings is accepted")
	}
}

// The settings' rule says what is wrong in the parameters' own names, through the set (as --set checks them before
// anything is simulated) and through Config: "THigh 1 must exceed TLow 1" was all an export said, after a frame.
func TestSettingsRuleNamesTheParameters(t *testing.T) {
	for _, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"mesh.t_low=1", "mesh.t_high=1"}, "mesh.t_high 1 must exceed mesh.t_low 1"},
		{[]string{"mesh.t_low=0", "mesh.t_high=0.1"}, "at mesh.support 2 and mesh.t_high 0.1 the correction removes a flat surface"},
		{[]string{"mesh.correct=false", "mesh.support=1.2", "mesh.cell=1"}, "mesh.cell 1 spacings is more than mesh.support − r"},
	} {
		s := DefaultSettings()
		ps := param.NewSet()
		s.Register(ps)
		if err := ps.Check(); err != nil {
			t.Fatalf("the defaults: %v", err)
		}
		for _, a := range c.sets {
			if err := ps.Assign(a); err != nil {
				t.Fatal(err)
			}
		}
		err := ps.Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.sets, err, c.want)
		}
		if _, cerr := s.Config(spacing, 0); cerr == nil || err == nil || cerr.Error() != err.Error() {
			t.Errorf("%v: Config says %v, the rule %v", c.sets, cerr, err)
		}
	}
	s := DefaultSettings()
	s.Correct, s.TLow, s.THigh = false, 1, 1 // the thresholds do not matter without the correction
	if err := s.Check(); err != nil {
		t.Errorf("thresholds out of order without the correction: %v", err)
	}
}

// maxEigenReal is the largest real part of the eigenvalues of j, from its characteristic cubic.
func maxEigenReal(j [3][3]float64) float64 {
	tr := j[0][0] + j[1][1] + j[2][2]
	c2 := j[0][0]*j[1][1] - j[0][1]*j[1][0] + j[0][0]*j[2][2] - j[0][2]*j[2][0] + j[1][1]*j[2][2] - j[1][2]*j[2][1]
	det := j[0][0]*(j[1][1]*j[2][2]-j[1][2]*j[2][1]) - j[0][1]*(j[1][0]*j[2][2]-j[1][2]*j[2][0]) +
		j[0][2]*(j[1][0]*j[2][1]-j[1][1]*j[2][0])
	// λ³ + aλ² + bλ + c with λ = t − a/3: t³ + pt + q = 0
	a, b, c := -tr, c2, -det
	p := b - a*a/3
	q := 2*a*a*a/27 - a*b/3 + c
	disc := q*q/4 + p*p*p/27
	var t float64
	if disc > 0 { // one real root, and a complex pair whose real part is −t/2
		sq := math.Sqrt(disc)
		t = math.Cbrt(-q/2+sq) + math.Cbrt(-q/2-sq)
		t = max(t, -t/2)
	} else if p < 0 {
		arg := 3 * q / (2 * p) * math.Sqrt(-3/p)
		t = 2 * math.Sqrt(-p/3) * math.Cos(math.Acos(max(-1, min(1, arg)))/3)
	}
	return t - a/3
}

func det3(a [3][3]float64) float64 {
	return a[0][0]*(a[1][1]*a[2][2]-a[1][2]*a[2][1]) - a[0][1]*(a[1][0]*a[2][2]-a[1][2]*a[2][0]) +
		a[0][2]*(a[1][0]*a[2][1]-a[1][1]*a[2][0])
}
