package reduced

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func newModel(t testing.TB, edit func(*Params)) *Model {
	t.Helper()
	p := DefaultParams()
	if edit != nil {
		edit(&p)
	}
	m, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func maxAbs(a []float64) float64 {
	var x float64
	for _, v := range a {
		x = max(x, math.Abs(v))
	}
	return x
}

// maxDivergence is max |∇·f| over the cells, relative to max |f| / min(DX, DY).
func maxDivergence(g Grid, f Field) float64 {
	div := make([]float64, g.Cells())
	g.Divergence(div, f)
	return maxAbs(div) * math.Min(g.DX, g.DY) / math.Max(maxAbs(f.U), maxAbs(f.V))
}

// checkBasis: every field divergence free to rounding, no flow through the walls, the Gram matrix the identity.
func checkBasis(t *testing.T, m *Model) {
	t.Helper()
	g := m.Grid()
	for k := 0; k < m.Modes(); k++ {
		b := m.Basis(k)
		if d := maxDivergence(g, b); d > 1e-12 {
			t.Errorf("mode %d (%+v): relative divergence %.3g", k, m.Mode(k), d)
		}
		for j := 0; j < g.NY; j++ {
			if b.U[g.UIndex(0, j)] != 0 || b.U[g.UIndex(g.NX, j)] != 0 {
				t.Fatalf("mode %d flows through a side wall", k)
			}
		}
		for i := 0; i < g.NX; i++ {
			if b.V[g.VIndex(i, 0)] != 0 || b.V[g.VIndex(i, g.NY)] != 0 {
				t.Fatalf("mode %d flows through the floor or the lid", k)
			}
		}
	}
	var worst float64
	for a := 0; a < m.Modes(); a++ {
		for b := a; b < m.Modes(); b++ {
			want := 0.0
			if a == b {
				want = 1
			}
			worst = max(worst, math.Abs(g.Dot(m.Basis(a), m.Basis(b))-want))
		}
	}
	if worst > 1e-12 {
		t.Errorf("Gram matrix differs from the identity by %.3g", worst)
	}
}

func TestBasisDivergenceFreeAndOrthonormal(t *testing.T) {
	for _, edit := range []func(*Params){
		nil,
		func(p *Params) { p.Width, p.Height, p.NX, p.NY, p.Modes = 2, 1, 80, 40, 64 },
	} {
		m := newModel(t, edit)
		if m.Modes() != m.Params().Modes {
			t.Fatalf("%d modes, asked %d", m.Modes(), m.Params().Modes)
		}
		checkBasis(t, m)
	}
}

// The eigenfunctions are the first by |eigenvalue|, sorted, and each is an exact eigenvector of the grid's
// vector Laplacian (so drawn modes, orthogonal to them, do not couple with them through viscosity).
func TestEigenfunctions(t *testing.T) {
	m := newModel(t, nil)
	g := m.Grid()
	seen := map[[2]int]bool{}
	top := 0.0
	for k := 0; k < m.Modes(); k++ {
		md := m.Mode(k)
		seen[[2]int{md.K1, md.K2}] = true
		if -md.Eigenvalue < top {
			t.Fatalf("mode %d is out of order", k)
		}
		top = -md.Eigenvalue
		lb := g.NewField()
		g.Laplacian(lb, m.Basis(k))
		a, b := float64(md.K1)*math.Pi/g.W, float64(md.K2)*math.Pi/g.H
		sa, sb := 2*math.Sin(a*g.DX/2)/g.DX, 2*math.Sin(b*g.DY/2)/g.DY
		want := -(sa*sa + sb*sb)
		for f, x := range append(append([]float64(nil), lb.U...), lb.V...) {
			var y float64
			if f < len(lb.U) {
				y = m.Basis(k).U[f]
			} else {
				y = m.Basis(k).V[f-len(lb.U)]
			}
			if math.Abs(x-want*y) > 1e-9*math.Abs(want) {
				t.Fatalf("mode %d: L b ≠ λ̃ b at face %d: %g vs %g", k, f, x, want*y)
			}
		}
	}
	// every (k1,k2) with an eigenvalue below the last one taken is in the basis
	for k1 := 1; k1 < 20; k1++ {
		for k2 := 1; k2 < 20; k2++ {
			a, b := float64(k1)*math.Pi/g.W, float64(k2)*math.Pi/g.H
			if a*a+b*b < top*(1-1e-12) && !seen[[2]int{k1, k2}] {
				t.Errorf("(%d,%d) has a lower eigenvalue than the last mode but is missing", k1, k2)
			}
		}
	}
}

func TestProjectionOfABasisModeIsItsUnitVector(t *testing.T) {
	m := newModel(t, nil)
	r := make([]float64, m.Modes())
	for k := 0; k < m.Modes(); k++ {
		if err := m.Project(r, m.Basis(k)); err != nil {
			t.Fatal(err)
		}
		for j, x := range r {
			want := 0.0
			if j == k {
				want = 1
			}
			if math.Abs(x-want) > 1e-12 {
				t.Fatalf("projection of mode %d: coefficient %d is %g", k, j, x)
			}
		}
	}
	// and Velocity reconstructs B r, whose projection is r again
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range r {
		r[k] = rng.NormFloat64()
	}
	if err := m.SetCoefficients(r); err != nil {
		t.Fatal(err)
	}
	f := m.Grid().NewField()
	if err := m.Velocity(f); err != nil {
		t.Fatal(err)
	}
	back := make([]float64, m.Modes())
	if err := m.Project(back, f); err != nil {
		t.Fatal(err)
	}
	for k := range r {
		if math.Abs(back[k]-r[k]) > 1e-12 {
			t.Fatalf("coefficient %d: %g back for %g", k, back[k], r[k])
		}
	}
}

// Energy is the kinetic energy ½∫|u|² dA of the velocity on the grid, measured independently by the midpoint
// rule over Grid.Sample on a finer lattice.
func TestEnergyIsKineticEnergy(t *testing.T) {
	m := newModel(t, func(p *Params) { p.Width, p.Height, p.NX, p.NY = 1.6, 0.8, 96, 48 })
	g := m.Grid()
	if err := m.SetCoefficients(randomState(m, 11, 0.3)); err != nil {
		t.Fatal(err)
	}
	f := g.NewField()
	if err := m.Velocity(f); err != nil {
		t.Fatal(err)
	}
	const sub = 4
	nx, ny := sub*g.NX, sub*g.NY
	hx, hy := g.W/float64(nx), g.H/float64(ny)
	var e float64
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			u, v := g.Sample(f, (float64(i)+0.5)*hx, (float64(j)+0.5)*hy)
			e += 0.5 * (u*u + v*v) * hx * hy
		}
	}
	if d := math.Abs(e/m.Energy() - 1); d > 0.02 {
		t.Errorf("Energy %g, ½∫|u|² %g (relative difference %.3g)", m.Energy(), e, d)
	}
}

// triple against Simpson quadrature, for products with an even and an odd number of sines.
func TestTripleIntegral(t *testing.T) {
	const l = 1.7
	for _, c := range [][3]trig{
		{{true, 2}, {true, 3}, {false, 5}},
		{{true, 2}, {true, 3}, {false, 1}},
		{{false, 4}, {false, 1}, {false, 3}},
		{{false, 0}, {false, 2}, {false, 2}},
		{{true, 3}, {false, 1}, {true, 4}},
		{{true, 1}, {true, 2}, {true, 4}}, // odd: dense
		{{true, 3}, {false, 2}, {false, 4}},
	} {
		f := func(x float64) float64 {
			p := 1.0
			for _, tr := range c {
				th := float64(tr.n) * math.Pi * x / l
				if tr.sin {
					p *= math.Sin(th)
				} else {
					p *= math.Cos(th)
				}
			}
			return p
		}
		const n = 2000
		h := l / n
		s := f(0) + f(l)
		for i := 1; i < n; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			s += w * f(float64(i)*h)
		}
		want := s * h / 3
		if got := triple(l, c[0], c[1], c[2]); math.Abs(got-want) > 1e-9 {
			t.Errorf("%v: %g, quadrature %g", c, got, want)
		}
	}
}

// The closed-form coefficients: non-zero only where eigenCoupled says, skew (C_i[k][j] = −C_i[j][k]), and
// close to the same integrals computed on a fine grid.
func TestEigenCoefficients(t *testing.T) {
	m := newModel(t, func(p *Params) { p.Width, p.Height, p.NX, p.NY, p.Modes = 1.5, 1, 192, 128, 20 })
	g := m.Grid()
	n := m.Modes()
	ks := make([][2]int, n)
	for k := range ks {
		ks[k] = [2]int{m.Mode(k).K1, m.Mode(k).K2}
	}
	dense := make([]float64, n*n*n) // [i][k][j] of C
	for i, cs := range m.c {
		for _, e := range cs {
			dense[(i*n+int(e.k))*n+int(e.j)] = e.v
		}
	}
	var top float64
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			for j := 0; j < n; j++ {
				full := -eigenAdvection(g.W, g.H, ks[k], ks[i], ks[j])
				top = max(top, math.Abs(full))
				if d := dense[(i*n+k)*n+j]; math.Abs(d-full) > 1e-12*math.Max(1, math.Abs(full)) {
					t.Fatalf("C_%d[%d][%d]: stored %g, all-triples closed form %g", i, k, j, d, full)
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			for j := 0; j < n; j++ {
				if s := dense[(i*n+k)*n+j] + dense[(i*n+j)*n+k]; math.Abs(s) > 1e-12*top {
					t.Fatalf("C_%d not skew at (%d,%d): sum %g", i, k, j, s)
				}
			}
		}
	}
	if nz := m.NonZeros(); nz == 0 || nz > 4*n*n {
		t.Errorf("%d non-zeros for %d modes", nz, n)
	}
	// on the grid, −⟨b_k, (b_i·∇)b_j⟩ with the grid's advection operator
	tmp := g.NewField()
	var worst float64
	for i := 0; i < n; i += 3 {
		for j := 0; j < n; j += 2 {
			g.Advection(tmp, m.Basis(i), m.Basis(j))
			for k := 0; k < n; k++ {
				worst = max(worst, math.Abs(-g.Dot(m.Basis(k), tmp)-dense[(i*n+k)*n+j]))
			}
		}
	}
	t.Logf("grid vs closed form: %.3g of the largest coefficient %.3g; %d non-zeros", worst/top, top, m.NonZeros())
	if worst > 0.02*top {
		t.Errorf("grid and closed form differ by %.3g (largest coefficient %.3g)", worst, top)
	}
}

func randomState(m *Model, seed uint64, energy float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	r := make([]float64, m.Modes())
	for k := range r {
		r[k] = rng.NormFloat64() / math.Sqrt(-m.Mode(min(k, m.Params().Modes-1)).Eigenvalue)
	}
	s := math.Sqrt(2 * energy / dot(r, r))
	for k := range r {
		r[k] *= s
	}
	return r
}

// Zero viscosity: over 2000 steps the energy stays within 1e-9 of its start without any renormalisation, while
// advection moves it between modes.
func TestAdvectionConservesEnergy(t *testing.T) {
	m := newModel(t, func(p *Params) { p.KeepEnergy = false })
	r0 := randomState(m, 3, 0.5)
	if err := m.SetCoefficients(r0); err != nil {
		t.Fatal(err)
	}
	e0 := m.Energy()
	for s := 0; s < 2000; s++ {
		if err := m.Step(1.0 / 60); err != nil {
			t.Fatal(err)
		}
	}
	d := math.Abs(m.Energy()/e0 - 1)
	r := m.Coefficients()
	t.Logf("energy drift %.3g over 2000 steps, cosine to the start %.3f", d, dot(r, r0)/(2*e0))
	if d > 1e-9 {
		t.Errorf("energy drifted by %.3g over 2000 steps", d)
	}
	if c := dot(r, r0) / (2 * e0); c > 0.9 {
		t.Errorf("the state barely moved (cosine %.3f): advection did nothing", c)
	}
}

// With viscosity, a single eigenfunction is a steady Euler flow (its self-advection is a gradient, which the
// projection removes), so its energy decays as exp(2νλt).
func TestViscousDecayOfOneMode(t *testing.T) {
	m := newModel(t, func(p *Params) { p.Viscosity, p.KeepEnergy = 0.01, false })
	for _, k := range []int{0, 5, 40} {
		r := make([]float64, m.Modes())
		r[k] = 0.7
		if err := m.SetCoefficients(r); err != nil {
			t.Fatal(err)
		}
		e0 := m.Energy()
		const dt, steps = 0.01, 300
		for s := 0; s < steps; s++ {
			if err := m.Step(dt); err != nil {
				t.Fatal(err)
			}
		}
		want := e0 * math.Exp(2*m.Params().Viscosity*m.Mode(k).Eigenvalue*dt*steps)
		if d := math.Abs(m.Energy()/want - 1); d > 1e-9 {
			t.Errorf("mode %d: energy %g, predicted %g (relative error %.3g)", k, m.Energy(), want, d)
		}
	}
}

func TestBadParameters(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*Params)
		want string
	}{
		{"negative width", func(p *Params) { p.Width = -1 }, "rectangle"},
		{"NaN height", func(p *Params) { p.Height = math.NaN() }, "rectangle"},
		{"infinite width", func(p *Params) { p.Width = math.Inf(1) }, "rectangle"},
		{"negative grid", func(p *Params) { p.NX = -65 }, "grid"},
		{"one cell", func(p *Params) { p.NY = 1 }, "grid"},
		{"huge grid", func(p *Params) { p.NX, p.NY = 1<<30, 1<<30 }, "grid"},
		{"no modes", func(p *Params) { p.Modes = 0 }, "modes: must be in [1, 1024]"},
		{"huge mode count", func(p *Params) { p.Modes = 1 << 40 }, "modes: must be in [1, 1024]"},
		{"negative drawn", func(p *Params) { p.MaxDrawn = -1 }, "drawn"},
		{"drawn over the mode budget", func(p *Params) { p.MaxDrawn = MaxModes }, "drawn"},
		{"basis over budget", func(p *Params) { p.NX, p.NY, p.Modes, p.MaxDrawn = 1024, 1024, 64, 0 }, "budget"},
		{"coupling over budget", func(p *Params) { p.Modes, p.MaxDrawn = 600, 400 }, "budget"},
		{"grid too coarse", func(p *Params) { p.NX, p.NY = 8, 8 }, "resolves"},
		{"grid too coarse in x", func(p *Params) { p.Width, p.NX, p.NY = 4, 8, 64 }, "too coarse in x"},
		{"negative viscosity", func(p *Params) { p.Viscosity = -1 }, "viscosity"},
		{"zero tolerance", func(p *Params) { p.EnrichTolerance = 0 }, "tolerance"},
		{"negative workers", func(p *Params) { p.Workers = -2 }, "workers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := DefaultParams()
			c.edit(&p)
			m, err := New(p)
			if err == nil || m != nil {
				t.Fatalf("accepted %+v", p)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
}

func TestBadCalls(t *testing.T) {
	m := newModel(t, func(p *Params) { p.MaxDrawn = 1 })
	g := m.Grid()
	for _, dt := range []float64{-1, math.NaN(), math.Inf(1)} {
		if m.Step(dt) == nil {
			t.Errorf("Step(%g) accepted", dt)
		}
	}
	if m.SetCoefficients(make([]float64, 3)) == nil {
		t.Error("SetCoefficients with the wrong length accepted")
	}
	r := make([]float64, m.Modes())
	r[2] = math.NaN()
	if m.SetCoefficients(r) == nil {
		t.Error("a NaN coefficient accepted")
	}
	if m.Excite(-1, 1) == nil || m.Excite(m.Modes(), 1) == nil || m.Excite(0, math.Inf(1)) == nil {
		t.Error("a bad Excite accepted")
	}
	if m.ExciteCurrent(0, 1) == nil {
		t.Error("ExciteCurrent with no currents accepted")
	}
	if _, err := m.Enrich(); err == nil {
		t.Error("Enrich of nothing accepted")
	}
	if _, err := m.Enrich(g.NewField()); err == nil {
		t.Error("Enrich of a zero field accepted")
	}
	grad := g.NewField() // a pure gradient: nothing divergence free in it
	for j := 0; j < g.NY; j++ {
		for i := 1; i < g.NX; i++ {
			grad.U[g.UIndex(i, j)] = 1
		}
	}
	if _, err := m.Enrich(grad); err == nil {
		t.Error("Enrich of a gradient accepted")
	}
	if _, err := m.Enrich(Field{U: grad.U}); err == nil {
		t.Error("Enrich of a misshapen field accepted")
	}
	if res, err := m.Enrich(jet(t, g, 0.5), jet(t, g, 0.2)); err == nil {
		t.Errorf("two new modes with room for one accepted: %+v", res)
	}
	if m.Modes() != m.Params().Modes || m.Currents() != 0 {
		t.Errorf("a failed Enrich changed the model: %d modes, %d currents", m.Modes(), m.Currents())
	}
}
