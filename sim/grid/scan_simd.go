//go:build goexperiment.simd && amd64

package grid

import (
	"math/bits"
	"simd/archsimd"
	"unsafe"

	"github.com/slosh/slosh/internal/soa"
)

// scanSlack is the room the scan needs in its buffer past the candidates: a compressed store writes 16 lanes.
const scanSlack = 16

// scanner is the neighbour search's candidate test, 16 candidates at a time with AVX-512 where the CPU has it
// (scanRows, one at a time, where it does not). It finds the same neighbours in the same order as scanRows, bit for
// bit: each candidate's squared distance is the same three products summed in the same order, and a compressed
// store keeps the lanes' order.
type scanner struct {
	avx512 bool
	lane   [16]int32 // the lane numbers
}

// newScanner is the scanner for this CPU.
func newScanner() scanner {
	s := scanner{avx512: archsimd.X86.AVX512()}
	for l := range 16 {
		s.lane[l] = int32(l)
	}
	return s
}

// scalarScanner is the scanner without SIMD, for tests.
func scalarScanner() scanner { return scanner{} }

// scan is scanRows.
func (s *scanner) scan(pos [][4]float32, rows [][2]int32, self int32, r2 float32, buf []int32) int {
	if !s.avx512 {
		return scanRows(pos, rows, self, r2, buf)
	}
	flat := unsafe.Slice(&pos[0][0], 4*len(pos))
	p := pos[self]
	px, py, pz := archsimd.BroadcastFloat32x16(p[0]), archsimd.BroadcastFloat32x16(p[1]), archsimd.BroadcastFloat32x16(p[2])
	rr := archsimd.BroadcastFloat32x16(r2)
	lane, me := archsimd.LoadInt32x16(&s.lane), archsimd.BroadcastInt32x16(self)
	k := 0
	for _, row := range rows {
		for b := row[0]; b < row[1]; b += 16 {
			var v0, v1, v2, v3 archsimd.Float32x16
			if f := flat[4*int(b):]; len(f) >= 64 {
				v0 = archsimd.LoadFloat32x16Slice(f[0:16])
				v1 = archsimd.LoadFloat32x16Slice(f[16:32])
				v2 = archsimd.LoadFloat32x16Slice(f[32:48])
				v3 = archsimd.LoadFloat32x16Slice(f[48:64])
			} else { // the last particles of the array: lanes past its end read zeros, and are masked below
				v0 = archsimd.LoadFloat32x16SlicePart(f)
				v1 = archsimd.LoadFloat32x16SlicePart(f[min(16, len(f)):])
				v2 = archsimd.LoadFloat32x16SlicePart(f[min(32, len(f)):])
				v3 = archsimd.LoadFloat32x16SlicePart(f[min(48, len(f)):])
			}
			x, y, z, _ := soa.Transpose(v0, v1, v2, v3)
			ex, ey, ez := px.Sub(x), py.Sub(y), pz.Sub(z)
			d2 := ex.Mul(ex).Add(ey.Mul(ey)).Add(ez.Mul(ez))
			idx := lane.Add(archsimd.BroadcastInt32x16(b))
			in := d2.Less(rr).And(idx.NotEqual(me))
			if m := row[1] - b; m < 16 {
				in = in.And(archsimd.Mask32x16FromBits(uint16(1)<<m - 1))
			}
			idx.Compress(in).StoreSlice(buf[k : k+16])
			k += bits.OnesCount16(in.ToBits())
		}
	}
	// The scalar code that follows (Go's float arithmetic is SSE) would otherwise wait on the vector registers'
	// upper halves: without this the search's first λ pass took 40 % longer and the step as a whole was slower
	// than without SIMD.
	archsimd.ClearAVXUpperBits()
	return k
}
