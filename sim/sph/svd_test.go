package sph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/slosh/slosh/sim/mesh"
	"github.com/slosh/slosh/sim/scene"
)

// svd3 reconstructs F = U diag(σ) Vᵀ to 1e-12 of its size with U and V rotations and σ₀ ≥ σ₁ ≥ |σ₂|, σ₂ negative
// exactly where F inverts: for random matrices, near-identities, rotations, mirrors, repeated singular values and
// ranks 2, 1 and 0.
func TestSVD3(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := []scene.Mat3{
		{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		{{-1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		{{2, 0, 0}, {0, 2, 0}, {0, 0, 1}},
		{{1, 2, 3}, {2, 4, 6}, {1, 0, 1}},
		{{1, 2, 3}, {2, 4, 6}, {3, 6, 9}},
		{},
		mesh.Rotation(scene.Vec3{25, -30, 20}),
		{{1.01, 0.02, -0.005}, {0.003, 0.99, 0.01}, {-0.02, 0.005, 1.005}},
	}
	for range 200 {
		var m scene.Mat3
		for r := range 3 {
			for c := range 3 {
				m[r][c] = 2*rng.Float64() - 1
			}
		}
		cases = append(cases, m)
	}
	id := scene.Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for _, f := range cases {
		u, sg, v := svd3(f)
		size := 0.0
		for r := range 3 {
			for c := range 3 {
				size = math.Max(size, math.Abs(f[r][c]))
			}
		}
		if e := maxDiff(recompose(u, sg, v), f); e > 1e-12*math.Max(size, 1) {
			t.Errorf("%v: U diag(σ) Vᵀ is off by %.3g", f, e)
		}
		if maxDiff(u.Transpose().Mul(u), id) > 1e-12 || maxDiff(v.Transpose().Mul(v), id) > 1e-12 || math.Abs(det3(u)-1) > 1e-12 || math.Abs(det3(v)-1) > 1e-12 {
			t.Errorf("%v: U or V is not a rotation: %v %v", f, u, v)
		}
		if !(sg[0] >= sg[1]-1e-12 && sg[1] >= math.Abs(sg[2])-1e-12) || (det3(f) < -1e-12) != (sg[2] < 0) {
			t.Errorf("%v (det %g): σ = %v", f, det3(f), sg)
		}
	}
}

// BenchmarkSVD3 times the SVD of a deformation gradient near the identity, as the elastoplastic pass meets them.
func BenchmarkSVD3(b *testing.B) {
	f := scene.Mat3{{1.01, 0.02, -0.005}, {0.003, 0.99, 0.01}, {-0.02, 0.005, 1.005}}
	for i := 0; i < b.N; i++ {
		f[0][0] += 1e-12
		svd3(f)
	}
}
