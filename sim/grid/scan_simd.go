//go:build goexperiment.simd && amd64

package grid

import (
	"math/bits"
	"simd/archsimd"
	"unsafe"
)

// scanSlack is the room the scan needs in its buffer past the candidates: a compressed store writes 16 lanes.
const scanSlack = 16

// scanner is the neighbour search's candidate test, 16 candidates at a time with AVX-512 where the CPU has it
// (scanRows, one at a time, where it does not). It finds the same neighbours in the same order as scanRows, bit for
// bit: each candidate's squared distance is the same three products summed in the same order, and a compressed
// store keeps the lanes' order.
type scanner struct {
	avx512 bool
	// The permutations that turn four vectors of four particles' (x, y, z, w) into one of 16 x, one of 16 y and
	// one of 16 z (transposed: ConcatPermute's indices), and the lane numbers.
	xy8, z8, lo, hi [16]uint32
	lane            [16]int32
}

// newScanner is the scanner for this CPU.
func newScanner() scanner {
	s := scanner{avx512: archsimd.X86.AVX512()}
	for l := range 8 {
		s.xy8[l], s.xy8[8+l] = uint32(4*l), uint32(4*l+1) // x of particles 0–7, then their y
		s.z8[l], s.z8[8+l] = uint32(4*l+2), uint32(4*l+2)
		s.lo[l], s.lo[8+l] = uint32(l), uint32(16+l) // the lower halves of two vectors
		s.hi[l], s.hi[8+l] = uint32(8+l), uint32(24+l)
	}
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
	xy8, z8 := archsimd.LoadUint32x16(&s.xy8), archsimd.LoadUint32x16(&s.z8)
	lo, hi := archsimd.LoadUint32x16(&s.lo), archsimd.LoadUint32x16(&s.hi)
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
			a, c := v0.ConcatPermute(v1, xy8), v2.ConcatPermute(v3, xy8) // x then y of particles 0–7, 8–15
			za, zc := v0.ConcatPermute(v1, z8), v2.ConcatPermute(v3, z8)
			ex := px.Sub(a.ConcatPermute(c, lo))
			ey := py.Sub(a.ConcatPermute(c, hi))
			ez := pz.Sub(za.ConcatPermute(zc, lo))
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
