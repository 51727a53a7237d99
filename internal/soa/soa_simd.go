//go:build goexperiment.simd && amd64

package soa

import "simd/archsimd"

// perm is Transpose's four permutations (ConcatPermute's indices into two vectors of four quadruples): the x then
// y of eight quadruples, their z then w, and the lower and upper halves of two vectors. A table, never written.
var perm = [4][16]uint32{
	{0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29},
	{2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27, 31},
	{0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23},
	{8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31},
}

// Transpose turns four vectors that hold sixteen (x, y, z, w) quadruples, in order, into the vectors of their
// sixteen x, y, z and w: six permutations of two vectors each (eight with w; a w left unused is not computed).
func Transpose(v0, v1, v2, v3 archsimd.Float32x16) (x, y, z, w archsimd.Float32x16) {
	xy, zw := archsimd.LoadUint32x16(&perm[0]), archsimd.LoadUint32x16(&perm[1])
	lo, hi := archsimd.LoadUint32x16(&perm[2]), archsimd.LoadUint32x16(&perm[3])
	a, c := v0.ConcatPermute(v1, xy), v2.ConcatPermute(v3, xy) // x then y of quadruples 0–7, of 8–15
	b, d := v0.ConcatPermute(v1, zw), v2.ConcatPermute(v3, zw) // z then w
	return a.ConcatPermute(c, lo), a.ConcatPermute(c, hi), b.ConcatPermute(d, lo), b.ConcatPermute(d, hi)
}
