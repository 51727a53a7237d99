package pbf

import (
	"math"
	"testing"
)

// TestWidePassesMatchScalar holds the pair passes that take 16 particles side by side (wide_simd.go: λ, with the
// neighbour search, and Δp) to the scalar passes: a dam break of 3,000 particles run both ways for 90 steps (0.75 s), as
// its column falls and splashes against the far wall (lists of every length, blocks cut short at the array's end,
// neighbours that move beyond h between the search and the second iteration), must agree bit for bit in every
// position, velocity and density after every step. Where this build or CPU has no SIMD passes (wideCPU) both runs
// are scalar, and the test says so.
func TestWidePassesMatchScalar(t *testing.T) {
	if !wideCPU() {
		t.Log("this build or CPU has no SIMD passes (GOEXPERIMENT=simd and AVX-512): both runs are scalar")
	}
	mk := func(wide bool) *Solver {
		s := New()
		s.Cfg.Particles = 3000
		if err := s.Reset(builtin(t, "dambreak")); err != nil {
			t.Fatal(err)
		}
		s.wide = wide && wideCPU()
		return s
	}
	a, b := mk(true), mk(false)
	bits := func(v [][4]float32, i int) [4]uint32 {
		return [4]uint32{math.Float32bits(v[i][0]), math.Float32bits(v[i][1]), math.Float32bits(v[i][2]), math.Float32bits(v[i][3])}
	}
	for step := 0; step < 90; step++ {
		for _, s := range []*Solver{a, b} {
			if err := s.Step(frameDt / 2); err != nil {
				t.Fatal(err)
			}
		}
		if len(a.x) != len(b.x) {
			t.Fatalf("step %d: %d particles against %d", step, len(a.x), len(b.x))
		}
		for i := range a.x {
			if bits(a.x, i) != bits(b.x, i) || bits(a.v, i) != bits(b.v, i) || math.Float32bits(a.rho[i]) != math.Float32bits(b.rho[i]) {
				t.Fatalf("step %d, particle %d (id %d): SIMD x %v v %v ρ %v, scalar x %v v %v ρ %v", step, i, a.id[i],
					a.x[i], a.v[i], a.rho[i], b.x[i], b.v[i], b.rho[i])
			}
		}
	}
}
