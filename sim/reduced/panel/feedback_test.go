package panel

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/par"
)

// scatter is a solved system of several bodies of the game's size on a 1×1 domain, some near walls.
func scatter(t testing.TB, pool par.Pool) *System {
	t.Helper()
	sq := mustPolygon(t, square(3*h), h)
	ci := mustCircle(t, 2*h, h)
	tri := mustPolygon(t, []Vec{{-2 * h, -h}, {2 * h, -h}, {0, 2 * h}}, h)
	opt := DefaultOptions(1, 1)
	opt.Pool = pool
	s := mustSystem(t, opt,
		Body{Shape: sq, Pos: Vec{0.3, 0.4}, Angle: 0.3, Vel: Vec{0.2, -0.5}},
		Body{Shape: ci, Pos: Vec{0.35, 0.45}, Omega: 5},
		Body{Shape: tri, Pos: Vec{0.8, 0.1}, Angle: 2, Vel: Vec{-0.4, 0}},
		Body{Shape: sq, Pos: Vec{0.05, 0.9}, Vel: Vec{0, 0.3}},
	)
	solveIn(t, s, func(p Vec) Vec {
		return Vec{math.Sin(math.Pi*p.X) * math.Cos(math.Pi*p.Y), -math.Cos(math.Pi*p.X) * math.Sin(math.Pi*p.Y)}
	})
	return s
}

// The naive feedback is the panels' velocity at each face, in the grid's layout.
func TestNaiveFeedbackLayout(t *testing.T) {
	g := Grid{NX: 13, NY: 9, Width: 1, Height: 1}
	s := scatter(t, par.Pool{})
	f, err := NewFeedback(g, h, par.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	u, v := make([]float64, g.USize()), make([]float64, g.VSize())
	if err := f.Naive(u, v, s); err != nil {
		t.Fatal(err)
	}
	dx, dy := 1.0/13, 1.0/9
	for _, ij := range [][2]int{{0, 0}, {13, 8}, {5, 3}, {7, 8}} {
		i, j := ij[0], ij[1]
		if want := s.velocityAt(Vec{float64(i) * dx, (float64(j) + 0.5) * dy}).X; u[i+j*14] != want {
			t.Errorf("u(%d,%d) = %g, want %g", i, j, u[i+j*14], want)
		}
	}
	for _, ij := range [][2]int{{0, 0}, {12, 9}, {5, 3}, {12, 0}} {
		i, j := ij[0], ij[1]
		if want := s.velocityAt(Vec{(float64(i) + 0.5) * dx, float64(j) * dy}).Y; v[i+j*13] != want {
			t.Errorf("v(%d,%d) = %g, want %g", i, j, v[i+j*13], want)
		}
	}
}

// As the threshold goes to zero the quadtree feedback approaches the naive one (and equals it at zero), while a
// larger threshold evaluates the panels fewer times. Its error stays within 10 × threshold (measured 1 to 6 ×:
// the metric bounds each panel's error, and the errors of many panels partly cancel).
func TestQuadtreeApproachesNaive(t *testing.T) {
	for _, g := range []Grid{{NX: 65, NY: 65, Width: 1, Height: 1}, {NX: 40, NY: 23, Width: 1, Height: 1}} {
		s := scatter(t, par.Pool{})
		f, err := NewFeedback(g, h, par.Pool{})
		if err != nil {
			t.Fatal(err)
		}
		un, vn := make([]float64, g.USize()), make([]float64, g.VSize())
		if err := f.Naive(un, vn, s); err != nil {
			t.Fatal(err)
		}
		var peak float64
		for _, x := range append(append([]float64(nil), un...), vn...) {
			peak = max(peak, math.Abs(x))
		}
		u, v := make([]float64, g.USize()), make([]float64, g.VSize())
		prevErr, prevEvals := math.Inf(1), 0
		for _, th := range []float64{1e-1, 1e-2, 1e-3, 1e-4, 1e-6, 0} {
			st, err := f.Quadtree(u, v, s, th)
			if err != nil {
				t.Fatal(err)
			}
			var e float64
			for k := range u {
				e = max(e, math.Abs(u[k]-un[k]))
			}
			for k := range v {
				e = max(e, math.Abs(v[k]-vn[k]))
			}
			evals := st.NodeEvals + st.FaceEvals
			t.Logf("%d×%d threshold %g: max error %.3g (peak %.3g), %d node and %d face evaluations", g.NX, g.NY, th, e, peak, st.NodeEvals, st.FaceEvals)
			if e > prevErr*(1+1e-9) || evals < prevEvals {
				t.Errorf("threshold %g: error %g after %g, evaluations %d after %d", th, e, prevErr, evals, prevEvals)
			}
			if e > 10*th {
				t.Errorf("threshold %g: error %g above 10 × threshold", th, e)
			}
			if th == 0 && e != 0 {
				t.Errorf("threshold 0: error %g, want exactly naive", e)
			}
			prevErr, prevEvals = e, evals
		}
		if prevEvals != (s.Panels()+s.Images())*(g.USize()+g.VSize()) {
			// threshold 0: every panel at every face (none has zero strength here)
			t.Errorf("threshold 0: %d evaluations, want %d", prevEvals, (s.Panels()+s.Images())*(g.USize()+g.VSize()))
		}
	}
}

// The quadtree's values do not depend on the number of workers.
func TestQuadtreeDeterministic(t *testing.T) {
	g := Grid{NX: 65, NY: 65, Width: 1, Height: 1}
	var ref []float64
	for _, w := range []int{1, 3, 8} {
		pool := par.Pool{Workers: w}
		s := scatter(t, pool)
		f, err := NewFeedback(g, h, pool)
		if err != nil {
			t.Fatal(err)
		}
		u, v := make([]float64, g.USize()), make([]float64, g.VSize())
		if _, err := f.Quadtree(u, v, s, 1e-3); err != nil {
			t.Fatal(err)
		}
		uv := append(u, v...)
		if ref == nil {
			ref = uv
			continue
		}
		for k := range uv {
			if uv[k] != ref[k] {
				t.Fatalf("%d workers: value %d is %v, with 1 worker %v", w, k, uv[k], ref[k])
			}
		}
	}
}
