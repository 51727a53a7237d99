package field

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Means against a brute-force sum over every particle, on jittered particles with random velocities, at grid
// points inside, at the surface, and beyond R of every particle (zero); the same on one worker and on four.
func TestMeansBruteForce(t *testing.T) {
	const s = 0.02
	pos := lattice([3]int{9, 7, 8}, s, [3]float64{0.1, -0.05, 0.3}, 0.3, 11, nil)
	rng := rand.New(rand.NewPCG(3, 5))
	vs := make([][4]float32, len(pos))
	for i := range vs {
		vs[i] = [4]float32{float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(2 * rng.NormFloat64()), 99}
	}
	cfg := DefaultConfig(s)
	f, err := New(pos, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var pts [][3]int32
	for k := int32(22); k < 53; k++ { // the particles span grid points 10–28, −5–9, 30–44; R is 4 cells
		for j := int32(-13); j < 18; j++ {
			for i := int32(2); i < 37; i += 2 {
				pts = append(pts, [3]int32{i, j, k})
			}
		}
	}
	got := make([][3]float32, len(pts))
	if err := f.Means(got, vs, pts); err != nil {
		t.Fatal(err)
	}
	// brute is the mean at x over every particle, and whether any is within R
	brute := func(x [3]float64) ([3]float64, bool) {
		var k float64
		var kv [3]float64
		for i, q := range pos {
			d := sub(vec([3]float32{q[0], q[1], q[2]}), x)
			if s2 := dot(d, d) / (cfg.Support * cfg.Support); s2 < 1 {
				w := (1 - s2) * (1 - s2) * (1 - s2)
				k += w
				for a := range 3 {
					kv[a] += w * float64(vs[i][a])
				}
			}
		}
		if !(k > 0) {
			return [3]float64{}, false
		}
		return [3]float64{kv[0] / k, kv[1] / k, kv[2] / k}, true
	}
	var zero, some int
	for n, p := range pts {
		want, ok := brute([3]float64{cfg.Cell * float64(p[0]), cfg.Cell * float64(p[1]), cfg.Cell * float64(p[2])})
		if ok {
			some++
		} else {
			zero++
		}
		for a := range 3 {
			if math.Abs(float64(got[n][a])-want[a]) > 1e-5*(1+math.Abs(want[a])) {
				t.Fatalf("point %v: mean %v, brute force %v", p, got[n], want)
			}
		}
	}
	if zero == 0 || some == 0 {
		t.Fatalf("%d points with neighbours, %d without: want both", some, zero)
	}
	t.Logf("%d points with neighbours, %d without", some, zero)

	cfg.Workers = 1
	one, err := New(pos, cfg)
	if err != nil {
		t.Fatal(err)
	}
	serial := make([][3]float32, len(pts))
	if err := one.Means(serial, vs, pts); err != nil {
		t.Fatal(err)
	}
	for n := range pts {
		if serial[n] != got[n] {
			t.Fatalf("point %v: %v on one worker, %v on several", pts[n], serial[n], got[n])
		}
	}
	// MeansAt at points that are not grid points (the grid points moved by a third of a cell) is the brute force
	// there too
	xs := make([][3]float32, len(pts))
	for n, p := range pts {
		xs[n] = [3]float32{float32(cfg.Cell * (float64(p[0]) + 1.0/3)), float32(cfg.Cell * float64(p[1])), float32(cfg.Cell * (float64(p[2]) - 1.0/3))}
	}
	at := make([][3]float32, len(pts))
	if err := f.MeansAt(at, vs, xs); err != nil {
		t.Fatal(err)
	}
	for n, x := range xs {
		want, _ := brute([3]float64{float64(x[0]), float64(x[1]), float64(x[2])})
		for a := range 3 {
			if math.Abs(float64(at[n][a])-want[a]) > 1e-5*(1+math.Abs(want[a])) {
				t.Fatalf("point %v: MeansAt %v, brute force %v", x, at[n], want)
			}
		}
	}
	if err := f.Means(got, vs[1:], pts); err == nil || !strings.Contains(err.Error(), "vectors for") {
		t.Errorf("one vector short: %v", err)
	}
	empty, err := New(nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	got[0] = [3]float32{1, 1, 1}
	if err := empty.Means(got, nil, pts); err != nil || got[0] != [3]float32{} {
		t.Errorf("no particles: %v, %v; want zero", err, got[0])
	}
}
