package reduced

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/slosh/slosh/sim/par"
)

func TestProjector(t *testing.T) {
	g, err := NewGrid(1.3, 0.9, 40, 30)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewProjector(g, par.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	f := g.NewField()
	for k := range f.U {
		f.U[k] = rng.NormFloat64()
	}
	for k := range f.V {
		f.V[k] = rng.NormFloat64()
	}
	if err := p.Project(f); err != nil {
		t.Fatal(err)
	}
	if d := maxDivergence(g, f); d > 1e-12 {
		t.Errorf("relative divergence %.3g after the projection", d)
	}
	// a second projection changes nothing
	before := Field{U: append([]float64(nil), f.U...), V: append([]float64(nil), f.V...)}
	if err := p.Project(f); err != nil {
		t.Fatal(err)
	}
	for k := range f.U {
		if math.Abs(f.U[k]-before.U[k]) > 1e-12 {
			t.Fatalf("projection is not idempotent at u %d", k)
		}
	}
	if err := p.Project(Field{U: f.U}); err == nil {
		t.Error("a field of the wrong shape was accepted")
	}
}

func TestSampleAndPaint(t *testing.T) {
	g, _ := NewGrid(2, 1, 20, 10)
	f := g.NewField()
	for j := 0; j < g.NY; j++ {
		for i := 0; i <= g.NX; i++ {
			x, y := g.UPos(i, j)
			f.U[g.UIndex(i, j)] = 3*x - 2*y + 1
		}
	}
	for j := 0; j <= g.NY; j++ {
		for i := 0; i < g.NX; i++ {
			x, y := g.VPos(i, j)
			f.V[g.VIndex(i, j)] = x + 4*y
		}
	}
	// bilinear reproduces linear fields inside
	for _, q := range [][2]float64{{0.3, 0.4}, {1.71, 0.52}, {1.0, 0.5}} {
		u, v := g.Sample(f, q[0], q[1])
		if math.Abs(u-(3*q[0]-2*q[1]+1)) > 1e-12 || math.Abs(v-(q[0]+4*q[1])) > 1e-12 {
			t.Errorf("sample at %v: (%g, %g)", q, u, v)
		}
	}
	if u, v := g.Sample(f, math.NaN(), 5); math.IsNaN(u) || math.IsNaN(v) {
		t.Error("a NaN position gave a NaN velocity")
	}

	p := g.NewField()
	if err := g.PaintStroke(p, []StrokePoint{{X: 0.5, Y: 0.55, VX: 2, VY: -1}, {X: 1.5, Y: 0.55, VX: 4, VY: -1}}, 0.2); err != nil {
		t.Fatal(err)
	}
	// a u face on the stroke's line (y = 0.55) at x = 1: weight 1, velocity halfway
	if got := p.U[g.UIndex(10, 5)]; math.Abs(got-3) > 1e-12 {
		t.Errorf("u on the stroke %g, want 3", got)
	}
	if got := p.U[g.UIndex(10, 0)]; got != 0 {
		t.Errorf("u far from the stroke %g", got)
	}
	// a brush larger than the box paints every face, the nearest point's velocity weighted by about one
	huge := g.NewField()
	if err := g.PaintStroke(huge, []StrokePoint{{X: 1, Y: 0.5, VX: 1, VY: 2}}, 1e300); err != nil {
		t.Fatal(err)
	}
	for k := range huge.U {
		if math.Abs(huge.U[k]-1) > 1e-9 {
			t.Fatalf("a huge brush painted u %d with %g", k, huge.U[k])
		}
	}
	for _, bad := range []struct {
		pts []StrokePoint
		r   float64
	}{
		{nil, 0.1},
		{[]StrokePoint{{X: 1}}, 0},
		{[]StrokePoint{{X: 1}}, math.Inf(1)},
		{[]StrokePoint{{X: math.NaN()}}, 0.1},
		{[]StrokePoint{{X: 1e300}}, 0.1},
	} {
		if err := g.PaintStroke(p, bad.pts, bad.r); err == nil {
			t.Errorf("stroke %v radius %g accepted", bad.pts, bad.r)
		}
	}
}
