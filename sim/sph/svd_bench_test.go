package sph

import (
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

func BenchmarkSVD3(b *testing.B) {
	f := scene.Mat3{{1.01, 0.02, -0.005}, {0.003, 0.99, 0.01}, {-0.02, 0.005, 1.005}}
	for i := 0; i < b.N; i++ {
		f[0][0] += 1e-12
		svd3(f)
	}
}
