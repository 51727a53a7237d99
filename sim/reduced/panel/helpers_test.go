package panel

import (
	"math"
	"testing"
)

// square is a side×side square about the origin.
func square(side float64) []Vec {
	h := side / 2
	return []Vec{{-h, -h}, {h, -h}, {h, h}, {-h, h}}
}

func mustPolygon(t testing.TB, verts []Vec, spacing float64) *Shape {
	t.Helper()
	s, err := NewPolygon(verts, spacing)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustCircle(t testing.TB, r, spacing float64) *Shape {
	t.Helper()
	s, err := NewCircle(r, spacing)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustSystem(t testing.TB, opt Options, bodies ...Body) *System {
	t.Helper()
	s, err := NewSystem(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetBodies(bodies); err != nil {
		t.Fatal(err)
	}
	return s
}

// solveIn solves s with the ambient field f sampled at the collocation points.
func solveIn(t testing.TB, s *System, f func(Vec) Vec) Result {
	t.Helper()
	pts := s.Collocation(nil)
	amb := make([]Vec, len(pts))
	for i, p := range pts {
		amb[i] = f(p)
	}
	res, err := s.Solve(amb)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// boundaryError samples body i's outline at fractions 1/16, 2/16, …, 15/16 of every panel (the panels' ends,
// where constant-strength panels meet with a logarithmic singularity, left out) and returns the largest and the
// mean |(u_ambient + u_panels - u_body)·n| there.
func boundaryError(t testing.TB, s *System, i int, f func(Vec) Vec) (worst, mean float64) {
	t.Helper()
	b := s.bodies[i]
	c, sn := math.Cos(b.Angle), math.Sin(b.Angle)
	var pts, nrm []Vec
	for k := 0; k < b.Shape.Panels(); k++ {
		a, e, _, n, _ := b.Shape.Panel(k)
		for q := 1; q < 16; q++ {
			p := a.add(e.sub(a).scale(float64(q) / 16))
			pts = append(pts, p.rotate(c, sn).add(b.Pos))
			nrm = append(nrm, n.rotate(c, sn))
		}
	}
	vel := make([]Vec, len(pts))
	if err := s.Velocity(vel, pts); err != nil {
		t.Fatal(err)
	}
	for k, p := range pts {
		r := p.sub(b.Pos)
		body := Vec{b.Vel.X - b.Omega*r.Y, b.Vel.Y + b.Omega*r.X} // v + ω × r
		u := vel[k].add(f(p)).sub(body)
		d := math.Abs(u.dot(nrm[k]))
		worst = max(worst, d)
		mean += d
	}
	return worst, mean / float64(len(pts))
}
