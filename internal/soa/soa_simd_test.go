//go:build goexperiment.simd && amd64

package soa

import (
	"simd/archsimd"
	"testing"
)

// TestTranspose holds Transpose to its definition on sixteen quadruples whose every component differs.
func TestTranspose(t *testing.T) {
	if !archsimd.X86.AVX512() {
		t.Log("no AVX-512 on this CPU: nothing to test")
		return
	}
	var in [64]float32
	for k := range in {
		in[k] = float32(k) // quadruple k/4, component k%4
	}
	var v [4]archsimd.Float32x16
	for q := range v {
		v[q] = archsimd.LoadFloat32x16Slice(in[16*q : 16*q+16])
	}
	x, y, z, w := Transpose(v[0], v[1], v[2], v[3])
	for c, got := range []archsimd.Float32x16{x, y, z, w} {
		var out [16]float32
		got.Store(&out)
		for l, f := range out {
			if want := float32(4*l + c); f != want {
				t.Fatalf("component %d, lane %d: %g, want %g", c, l, f, want)
			}
		}
	}
}
