package panel

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/par"
)

// gameScene is Figure 5.6's setup: 15 bodies of a few cells each (145 panels; the paper has 147) on a 1×1 domain with a 65×65
// grid, panels about one cell long, in a swirling ambient flow.
func gameScene(b *testing.B) (*System, []Vec, Grid) {
	const n = 65
	sp := 1.0 / n
	box := mustPolygon(b, square(3*sp), sp)                                          // 12 panels
	tri := mustPolygon(b, []Vec{{-1.5 * sp, -sp}, {1.5 * sp, -sp}, {0, 2 * sp}}, sp) // 9 panels
	ci := mustCircle(b, 1.3*sp, sp)                                                  // 8 panels
	var bodies []Body
	for k := range 15 {
		sh := []*Shape{box, tri, ci}[k%3]
		x := 0.12 + 0.19*float64(k%5)
		y := 0.2 + 0.3*float64(k/5)
		bodies = append(bodies, Body{Shape: sh, Pos: Vec{x, y}, Angle: 0.4 * float64(k), Vel: Vec{0.1 * float64(k%3), -0.2}, Omega: float64(k%4) - 1.5})
	}
	opt := DefaultOptions(1, 1)
	s := mustSystem(b, opt, bodies...)
	pts := s.Collocation(nil)
	amb := make([]Vec, len(pts))
	for i, p := range pts {
		amb[i] = Vec{math.Sin(math.Pi*p.X) * math.Cos(math.Pi*p.Y), -math.Cos(math.Pi*p.X) * math.Sin(math.Pi*p.Y)}
	}
	return s, amb, Grid{NX: n, NY: n, Width: 1, Height: 1}
}

// BenchmarkPanelSolve is Table 5.1's "Panel Solves": the coupling matrix and the Schwarz sweeps for 15 bodies.
func BenchmarkPanelSolve(b *testing.B) {
	s, amb, _ := gameScene(b)
	var res Result
	for b.Loop() {
		var err error
		if res, err = s.Solve(amb); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Panels()), "panels")
	b.ReportMetric(float64(s.Images()), "images")
	b.ReportMetric(float64(res.Iterations), "sweeps")
}

func benchFeedback(b *testing.B, quad bool, threshold float64) {
	s, amb, g := gameScene(b)
	if _, err := s.Solve(amb); err != nil {
		b.Fatal(err)
	}
	f, err := NewFeedback(g, g.Width/float64(g.NX), par.Pool{})
	if err != nil {
		b.Fatal(err)
	}
	u, v := make([]float64, g.USize()), make([]float64, g.VSize())
	var st QuadStats
	for b.Loop() {
		if quad {
			st, err = f.Quadtree(u, v, s, threshold)
		} else {
			err = f.Naive(u, v, s)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if quad {
		b.ReportMetric(float64(st.NodeEvals+st.FaceEvals), "evals")
	}
}

// BenchmarkFeedbackNaive is Table 5.1's "Panel Feedback Naive".
func BenchmarkFeedbackNaive(b *testing.B) { benchFeedback(b, false, 0) }

// BenchmarkFeedbackQuadtree is Table 5.1's "Panel Feedback Quadtree" at thresholds 1e-2 and 1e-3 (velocity).
func BenchmarkFeedbackQuadtree(b *testing.B) {
	b.Run("1e-2", func(b *testing.B) { benchFeedback(b, true, 1e-2) })
	b.Run("1e-3", func(b *testing.B) { benchFeedback(b, true, 1e-3) })
}
