package field

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/slosh/slosh/sim/surface/mc"
)

// lattice returns particles on a cubic lattice of spacing s over n[0]×n[1]×n[2] sites from origin o, moved by up to
// jitter·s along each axis, keeping the sites where keep is nil or true.
func lattice(n [3]int, s float64, o [3]float64, jitter float64, seed uint64, keep func(i, j, k int) bool) [][4]float32 {
	rng := rand.New(rand.NewPCG(seed, 7))
	var pos [][4]float32
	for k := range n[2] {
		for j := range n[1] {
			for i := range n[0] {
				if keep != nil && !keep(i, j, k) {
					continue
				}
				var p [4]float32
				for a, c := range [3]int{i, j, k} {
					p[a] = float32(o[a] + s*(float64(c)+jitter*(2*rng.Float64()-1)))
				}
				pos = append(pos, p)
			}
		}
	}
	return pos
}

// checkClosed fails unless every directed edge of m appears once and its reverse once (closed, manifold at its
// edges, consistently oriented), no triangle repeats a vertex, and every vertex is used.
func checkClosed(t *testing.T, m *mc.Mesh) {
	t.Helper()
	if _, err := m.CheckClosed(); err != nil {
		t.Fatal(err)
	}
}

func vec(p [3]float32) [3]float64 { return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])} }
func sub(a, b [3]float64) [3]float64 {
	return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]}
}
func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func norm(a [3]float64) float64   { return math.Sqrt(dot(a, a)) }

// mesh meshes pos with cfg on a fresh Mesher, failing the test on an error.
func mesh(t *testing.T, pos [][4]float32, cfg Config) (*mc.Mesh, Stats) {
	t.Helper()
	m, st, err := NewMesher().Mesh(pos, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m, st
}
