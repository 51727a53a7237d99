package panel

import (
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/par"
)

func TestShapeErrors(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name  string
		make  func() (*Shape, error)
		wants string
	}{
		{"two vertices", func() (*Shape, error) { return NewPolygon([]Vec{{0, 0}, {1, 0}}, 0.1) }, "at least 3"},
		{"collinear", func() (*Shape, error) { return NewPolygon([]Vec{{0, 0}, {1, 0}, {2, 0}}, 0.1) }, "zero area"},
		{"repeated vertex", func() (*Shape, error) { return NewPolygon([]Vec{{0, 0}, {1, 0}, {1, 0}, {0, 1}}, 0.1) }, "zero length"},
		{"bow tie", func() (*Shape, error) { return NewPolygon([]Vec{{0, 0}, {2, 2}, {2, 0}, {0, 1}}, 0.1) }, "cross"},
		{"NaN vertex", func() (*Shape, error) { return NewPolygon([]Vec{{0, 0}, {1, nan}, {0, 1}}, 0.1) }, "not finite"},
		{"NaN spacing", func() (*Shape, error) { return NewPolygon(square(1), nan) }, "spacing"},
		{"zero spacing", func() (*Shape, error) { return NewPolygon(square(1), 0) }, "spacing"},
		{"too many panels", func() (*Shape, error) { return NewPolygon(square(1), 1e-3) }, "more than"},
		{"huge side", func() (*Shape, error) { return NewPolygon([]Vec{{0, 0}, {1e10, 0}, {0, 1}}, 1e-3) }, "more than"},
		{"circle radius", func() (*Shape, error) { return NewCircle(-1, 0.1) }, "radius"},
		{"circle NaN", func() (*Shape, error) { return NewCircle(nan, 0.1) }, "radius"},
		{"circle too many", func() (*Shape, error) { return NewCircle(1, 1e-3) }, "more than"},
	} {
		s, err := tc.make()
		if err == nil || s != nil || !strings.Contains(err.Error(), tc.wants) {
			t.Errorf("%s: %v, %v; want an error about %q", tc.name, s, err, tc.wants)
		}
	}
	// a clockwise outline is turned around, not refused
	cw := []Vec{{0, 0}, {0, 1}, {1, 1}, {1, 0}}
	s, err := NewPolygon(cw, 0.3)
	if err != nil || s.Area() <= 0 {
		t.Errorf("clockwise square: %v, area %v", err, s)
	}
}

func TestSystemErrors(t *testing.T) {
	nan := math.NaN()
	sh := mustPolygon(t, square(4*h), h)
	for _, opt := range []Options{{Width: 0, Height: 1}, {Width: 1, Height: nan}, {Width: 1, Height: 1, Tolerance: -1}, {Width: 1, Height: 1, MaxIterations: -1}, {Width: 1, Height: 1, ImageThreshold: nan}} {
		if _, err := NewSystem(opt); err == nil {
			t.Errorf("options %+v accepted", opt)
		}
	}
	s, err := NewSystem(DefaultOptions(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []Body{{}, {Shape: sh, Pos: Vec{nan, 0}}, {Shape: sh, Angle: math.Inf(1)}, {Shape: sh, Omega: nan}, {Shape: sh, Vel: Vec{0, nan}}} {
		if err := s.SetBodies([]Body{{Shape: sh, Pos: Vec{0.5, 0.5}}, b}); err == nil || s.Panels() != 0 || s.Bodies() != 0 {
			t.Errorf("body %+v: %v, %d panels left", b, err, s.Panels())
		}
	}
	big := mustCircle(t, 1, 2*math.Pi/250)
	many := make([]Body, 9)
	for i := range many {
		many[i] = Body{Shape: big, Pos: Vec{0.5, 0.5}}
	}
	if err := s.SetBodies(many); err == nil || !strings.Contains(err.Error(), "more than") {
		t.Errorf("%d panels accepted: %v", 9*big.Panels(), err)
	}
	if err := s.SetBodies([]Body{{Shape: sh, Pos: Vec{0.5, 0.5}}}); err != nil {
		t.Fatal(err)
	}
	amb := make([]Vec, len(s.Collocation(nil)))
	if _, err := s.Solve(amb[1:]); err == nil {
		t.Error("short ambient accepted")
	}
	amb[3].X = nan
	if _, err := s.Solve(amb); err == nil {
		t.Error("NaN ambient accepted")
	}
	if err := s.Velocity(make([]Vec, 1), []Vec{{nan, 0}}); err == nil {
		t.Error("NaN point accepted")
	}
	if err := s.Velocity(make([]Vec, 2), []Vec{{0, 0}}); err == nil {
		t.Error("mismatched lengths accepted")
	}
	if _, err := s.Forces(nil, nan, 1); err == nil {
		t.Error("NaN density accepted")
	}
	if _, err := s.Forces(nil, 1, -1); err == nil {
		t.Error("negative gravity accepted")
	}
}

func TestFeedbackErrors(t *testing.T) {
	for _, g := range []Grid{{0, 5, 1, 1}, {5, 5, 0, 1}, {5, 5, 1, math.NaN()}, {1 << 12, 1 << 12, 1, 1}} {
		if _, err := NewFeedback(g, h, par.Pool{}); err == nil {
			t.Errorf("grid %+v accepted", g)
		}
	}
	g := Grid{NX: 8, NY: 8, Width: 1, Height: 1}
	if _, err := NewFeedback(g, math.NaN(), par.Pool{}); err == nil {
		t.Error("NaN panel length accepted")
	}
	f, err := NewFeedback(g, h, par.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	s := mustSystem(t, DefaultOptions(1, 1), Body{Shape: mustCircle(t, 2*h, h), Pos: Vec{0.5, 0.5}})
	u, v := make([]float64, g.USize()), make([]float64, g.VSize())
	if err := f.Naive(u[1:], v, s); err == nil {
		t.Error("short u accepted")
	}
	if _, err := f.Quadtree(u, v, s, math.NaN()); err == nil {
		t.Error("NaN threshold accepted")
	}
	s2 := mustSystem(t, DefaultOptions(2, 1))
	if _, err := f.Quadtree(u, v, s2, 0.1); err == nil {
		t.Error("a system on another domain accepted")
	}
}
