package surface

import (
	"math"
	"math/rand"
	"strings"
	"testing"

	gl "github.com/go-gl/gl/v4.3-core/gl"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	csurface "github.com/slosh/slosh/sim/surface"
)

func TestMain(m *testing.M) { gltest.Main(m) }

const (
	spacing = 0.02
	radiusP = spacing / 2
)

var (
	unitLo = [3]float32{0, 0, 0}
	unitHi = [3]float32{1, 1, 1}
)

func newGPU(t testing.TB) *Anisotropy {
	t.Helper()
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx)
	a, err := New(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Delete)
	return a
}

func upload(t testing.TB, pos [][4]float32) *glh.Buffer {
	t.Helper()
	b, err := glh.NewBuffer(16*max(1, len(pos)), gl.DYNAMIC_DRAW)
	if err != nil {
		t.Fatal(err)
	}
	glh.Upload(b, 0, pos)
	t.Cleanup(b.Delete)
	return b
}

// damBreak is a jittered block of nx×ny×nz particles on the floor of the unit box and nSplash particles flying
// above it in clumps of one to four: bulk, faces, edges, corners and spray.
func damBreak(nx, ny, nz, nSplash int, seed int64) [][4]float32 {
	rng := rand.New(rand.NewSource(seed))
	jit := func() float32 { return (rng.Float32() - 0.5) * 0.2 * spacing }
	pos := make([][4]float32, 0, nx*ny*nz+nSplash)
	for k := 0; k < nz; k++ {
		for j := 0; j < ny; j++ {
			for i := 0; i < nx; i++ {
				pos = append(pos, [4]float32{0.05 + float32(i)*spacing + jit(), 0.01 + float32(j)*spacing + jit(), 0.05 + float32(k)*spacing + jit(), 0})
			}
		}
	}
	top := 0.01 + float32(ny)*spacing
	for len(pos) < nx*ny*nz+nSplash {
		c := [4]float32{0.1 + 0.8*rng.Float32(), top + 0.05 + 0.3*rng.Float32(), 0.1 + 0.8*rng.Float32(), 0}
		pos = append(pos, c)
		for extra := rng.Intn(4); extra > 0 && len(pos) < nx*ny*nz+nSplash; extra-- {
			pos = append(pos, [4]float32{c[0] + 1.5*spacing*(rng.Float32()-0.5), c[1] + 1.5*spacing*(rng.Float32()-0.5), c[2] + 1.5*spacing*(rng.Float32()-0.5), 0})
		}
	}
	return pos
}

// quadForm is Σ_k a_k a_kᵀ: the ellipsoid's shape, independent of the axes' signs and order.
func quadForm(e csurface.Ellipsoid) [3][3]float64 {
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

// borderline marks particles with a neighbour within float rounding of r, where the CPU and a GPU that fuses
// multiply-adds may legitimately disagree about the neighbour count.
func borderline(pos [][4]float32, r float32) []bool {
	out := make([]bool, len(pos))
	r2 := float64(r) * float64(r)
	for i := range pos {
		for j := range pos {
			d2 := 0.0
			for c := 0; c < 3; c++ {
				d := float64(pos[i][c]) - float64(pos[j][c])
				d2 += d * d
			}
			if math.Abs(d2/r2-1) < 1e-5 {
				out[i] = true
			}
		}
	}
	return out
}

func finite(e csurface.Ellipsoid) bool {
	for _, v := range append([][4]float32{e.Center}, e.Axes[:]...) {
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return false
			}
		}
	}
	return true
}

// runBoth computes the kernels on the CPU and the GPU under the same configuration.
func runBoth(t *testing.T, g *Anisotropy, cfg csurface.Config, pos [][4]float32) (cpu, gpu []csurface.Ellipsoid) {
	t.Helper()
	c := csurface.NewAnisotropy()
	c.Cfg = cfg
	cpu = make([]csurface.Ellipsoid, len(pos))
	if err := c.Compute(cpu, pos, radiusP, unitLo, unitHi); err != nil {
		t.Fatal(err)
	}
	g.Cfg = cfg
	if err := g.Compute(upload(t, pos), len(pos), radiusP, unitLo, unitHi); err != nil {
		t.Fatal(err)
	}
	if g.N() != len(pos) {
		t.Fatalf("N() = %d after computing %d particles", g.N(), len(pos))
	}
	gpu = make([]csurface.Ellipsoid, len(pos))
	glh.Read(g.Ellipsoids(), 0, gpu)
	return cpu, gpu
}

// compare checks the GPU's kernels against the CPU's: neighbour counts exactly, centres and quadratic forms to
// float rounding.
func compare(t *testing.T, what string, pos [][4]float32, cpu, gpu []csurface.Ellipsoid, skip []bool) {
	t.Helper()
	for i := range pos {
		if skip != nil && skip[i] {
			continue
		}
		c, g := cpu[i], gpu[i]
		if !finite(g) && finite(c) {
			t.Fatalf("%s: particle %d: GPU kernel %v is not finite (CPU %v)", what, i, g, c)
		}
		if g.Interior() != c.Interior() {
			t.Fatalf("%s: particle %d (%g neighbours): interior %v on the GPU, %v on the CPU", what, i, c.Center[3], g.Interior(), c.Interior())
		}
		if g.Center[3] != c.Center[3] {
			t.Fatalf("%s: particle %d has %g neighbours on the GPU, %g on the CPU", what, i, g.Center[3], c.Center[3])
		}
		for k := 0; k < 3; k++ {
			if d := math.Abs(float64(g.Center[k] - c.Center[k])); d > 2e-6 {
				t.Fatalf("%s: particle %d: centre %v on the GPU, %v on the CPU", what, i, g.Center, c.Center)
			}
		}
		qg, qc := quadForm(g), quadForm(c)
		for r := 0; r < 3; r++ {
			for k := 0; k < 3; k++ {
				if math.Abs(qg[r][k]-qc[r][k]) > 1e-4*radiusP*radiusP {
					t.Fatalf("%s: particle %d (%g neighbours): shape %v on the GPU, %v on the CPU", what, i, c.Center[3], qg, qc)
				}
			}
		}
	}
}

// sheet is one layer of n×n particles on a square lattice, tilted.
func sheet(n int) [][4]float32 {
	c, s := math.Cos(0.6), math.Sin(0.6)
	var pos [][4]float32
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			x, z := (float64(i)-float64(n)/2)*spacing, (float64(k)-float64(n)/2)*spacing
			pos = append(pos, [4]float32{float32(0.5 + x), float32(0.5 - s*z), float32(0.5 + c*z), 0})
		}
	}
	return pos
}

// The GPU pass computes what the CPU pass computes: a block with a splash under several configurations, and a
// tilted sheet (flat kernels, k_r : 1).
func TestMatchesCPU(t *testing.T) {
	g := newGPU(t)
	pos := damBreak(16, 8, 16, 300, 1)
	for _, tc := range []struct {
		name string
		set  func(c *csurface.Config)
	}{
		{"default", func(c *csurface.Config) {}},
		{"tuned", func(c *csurface.Config) { c.Radius, c.Kr, c.Ks, c.Kn, c.Neps, c.Lambda = 3, 2.5, 1.4, 0.7, 10, 0.5 }},
		{"disabled", func(c *csurface.Config) { c.Enabled = false }},
	} {
		cfg := csurface.DefaultConfig()
		tc.set(&cfg)
		cpu, gpu := runBoth(t, g, cfg, pos)
		dv, _ := csurface.Derive(&cfg, radiusP)
		skip := borderline(pos, dv.R)
		stretched, round, interior := 0, 0, 0
		for i, e := range cpu {
			if !skip[i] && e.Interior() {
				interior++
			}
			if !skip[i] && e.Center[3] > float32(cfg.Neps) {
				stretched++
			} else if !skip[i] {
				round++
			}
		}
		if stretched < len(pos)/2 || round < 100 {
			t.Fatalf("%s: %d stretched and %d round kernels: the cloud does not test both", tc.name, stretched, round)
		}
		if interior == 0 || interior > len(pos)/2 {
			t.Fatalf("%s: %d of %d particles interior: the cloud does not test the rule", tc.name, interior, len(pos))
		}
		compare(t, tc.name, pos, cpu, gpu, skip)
	}
	flat := sheet(20)
	cfg := csurface.DefaultConfig()
	cfg.Radius = 3.7 // no lattice neighbours at exactly r
	cpu, gpu := runBoth(t, g, cfg, flat)
	compare(t, "sheet", flat, cpu, gpu, nil)
	if err := glh.CheckError("gpu surface"); err != nil {
		t.Fatal(err)
	}
}

// Degenerate input gives finite kernels on the GPU too, and the same as on the CPU: coincident particles, a line,
// a single particle, particles outside the box, and no particles at all.
func TestDegenerateInputs(t *testing.T) {
	g := newGPU(t)
	p := [4]float32{0.5, 0.5, 0.5, 0}
	coincident := make([][4]float32, 40)
	for i := range coincident {
		coincident[i] = p
	}
	var line, outside [][4]float32
	for i := 0; i < 60; i++ {
		s := float32(i-30) * spacing * 0.5
		line = append(line, [4]float32{0.5 + 0.6*s, 0.5 + 0.48*s, 0.5 + 0.64*s, 0})
	}
	for i := 0; i < 200; i++ {
		outside = append(outside, [4]float32{-0.05 + float32(i%6)*spacing, 0.95 + float32(i/6%6)*spacing, 1.01 + float32(i/36)*spacing, 0})
	}
	for _, tc := range []struct {
		name string
		pos  [][4]float32
	}{{"coincident", coincident}, {"line", line}, {"single", [][4]float32{p}}, {"outside the box", outside}} {
		for _, neps := range []int32{25, 0} {
			cfg := csurface.DefaultConfig()
			cfg.Neps = neps
			cpu, gpu := runBoth(t, g, cfg, tc.pos)
			for i, e := range gpu {
				if !finite(e) {
					t.Fatalf("%s, N_ε = %d: particle %d has a non-finite kernel %v", tc.name, neps, i, e)
				}
			}
			compare(t, tc.name, tc.pos, cpu, gpu, nil)
		}
	}
	// no particles: nothing to do, and no error
	if err := g.Compute(nil, 0, radiusP, unitLo, unitHi); err != nil {
		t.Errorf("an empty set: %v", err)
	}
	if g.N() != 0 {
		t.Errorf("N() = %d after an empty set", g.N())
	}
	if err := glh.CheckError("degenerate inputs"); err != nil {
		t.Fatal(err)
	}
}

func TestRejectsBadInput(t *testing.T) {
	g := newGPU(t)
	small := upload(t, make([][4]float32, 10))
	if err := g.Compute(small, 11, radiusP, unitLo, unitHi); err == nil {
		t.Error("11 particles in a buffer of 10 accepted")
	}
	if err := g.Compute(nil, 5, radiusP, unitLo, unitHi); err == nil {
		t.Error("a nil positions buffer accepted")
	}
	if err := g.Compute(small, 10, 0, unitLo, unitHi); err == nil {
		t.Error("a zero particle radius accepted")
	}
	if err := g.Compute(small, 10, 1e-6, unitLo, unitHi); err == nil || !strings.Contains(err.Error(), "gpu surface") {
		t.Errorf("a grid of too many cells: %v", err)
	}
	if _, err := New(nil); err == nil {
		t.Error("New without a context did not fail")
	}
	if _, err := NewWithPrograms(nil); err == nil {
		t.Error("NewWithPrograms without programs did not fail")
	}
	g.Delete()
	g.Delete() // safe twice
}

// Programs are shared: two passes on one set of programs, deleted separately, and timings arrive.
func TestSharedProgramsAndTimings(t *testing.T) {
	ctx := gltest.Acquire(t)
	gltest.RequireCompute(t, ctx)
	progs, err := CompilePrograms(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer progs.Delete()
	pos := damBreak(6, 4, 6, 20, 2)
	buf := upload(t, pos)
	var outs [2][]csurface.Ellipsoid
	for k := range outs {
		a, err := NewWithPrograms(progs)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Compute(buf, len(pos), radiusP, unitLo, unitHi); err != nil {
			t.Fatal(err)
		}
		gl.Finish()
		passes, total, ok := a.Timings()
		if !ok || len(passes) != 2 || !(total > 0) {
			t.Errorf("timings after a finished pass: %v, %g ms, ok %v", passes, total, ok)
		}
		outs[k] = make([]csurface.Ellipsoid, len(pos))
		glh.Read(a.Ellipsoids(), 0, outs[k])
		a.Delete()
	}
	for i := range pos {
		if outs[0][i] != outs[1][i] {
			t.Fatalf("particle %d: two passes on shared programs differ: %v, %v", i, outs[0][i], outs[1][i])
		}
	}
}

func BenchmarkAnisotropy32k(b *testing.B) {
	ctx := gltest.Acquire(b)
	gltest.RequireCompute(b, ctx)
	a, err := New(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer a.Delete()
	pos := damBreak(40, 20, 40, 768, 1)
	buf := upload(b, pos)
	run := func() {
		if err := a.Compute(buf, len(pos), radiusP, unitLo, unitHi); err != nil {
			b.Fatal(err)
		}
		gl.Finish()
	}
	run()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
	b.StopTimer()
	b.ReportMetric(float64(len(pos)*b.N)/b.Elapsed().Seconds(), "particles/s")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/pass")
	if passes, _, ok := a.Timings(); ok {
		for _, p := range passes {
			b.ReportMetric(p.Ms, "ms-"+strings.ReplaceAll(p.Name, " ", "-"))
		}
	}
}
