package cell

import (
	"math"
	"math/rand"
	"testing"
)

// damBreak makes about n particles on a cubic lattice at spacing h with a jitter of 1% of h, filling a block of
// 2:2:1 in the corner of a domain four times as long: the dam break's start, and the domain's box.
func damBreak(n int, seed int64) ([][4]float32, Box, float64) { return damBreakJitter(n, seed, 0.01) }

// damBreakJitter is damBreak with a jitter of the given fraction of h.
func damBreakJitter(n int, seed int64, jitter float64) ([][4]float32, Box, float64) {
	const h = 0.02
	k := math.Cbrt(float64(n) / 4) // block of 2k × 2k × k
	nx, ny, nz := int(2*k+0.5), int(k+0.5), int(2*k+0.5)
	rng := rand.New(rand.NewSource(seed))
	pos := make([][4]float32, 0, nx*ny*nz)
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				p := [4]float32{}
				for a, c := range [3]int{x, y, z} {
					p[a] = float32((float64(c) + 0.5 + jitter*(rng.Float64()-0.5)) * h)
				}
				pos = append(pos, p)
			}
		}
	}
	box := Box{Max: [3]float64{4 * float64(nx) * h, 1.5 * float64(ny) * h, float64(nz) * h}}
	return pos, box, h
}

func benchmarkBuild(b *testing.B, pos [][4]float32, box Box, h, reach float64) {
	d, err := New(Options{Spacing: h, Reach: reach})
	if err != nil {
		b.Fatal(err)
	}
	if err := d.Build(pos, box); err != nil { // grow the buffers
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := d.Build(pos, box); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	st := d.Stats()
	n := float64(len(pos))
	b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/build")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/n, "ns/cell")
	b.ReportMetric(float64(st.Planes)/n, "planes/cell")
	b.ReportMetric(float64(st.Examined)/n, "examined/cell")
	b.ReportMetric(float64(st.Facets)/n, "facets/cell")
	b.ReportMetric(float64(st.MaxFacets), "maxfacets")
}

// benchmarkDamBreak builds the block's diagram with a reach of reach·h (0: none, when the cells of the block's
// surface particles reach across the empty domain and must be cut by every particle within twice that).
func benchmarkDamBreak(b *testing.B, n int, reach float64) {
	pos, box, h := damBreak(n, 1)
	benchmarkBuild(b, pos, box, h, reach*h)
}

// BenchmarkSolver35k is the solver's case: a 10 %-jittered block with Reach = r = h.
func BenchmarkSolver35k(b *testing.B) {
	pos, box, h := damBreakJitter(35000, 1, 0.1)
	benchmarkBuild(b, pos, box, h, h)
}

func benchmarkRandom(b *testing.B, n int) {
	box := Box{Max: [3]float64{2, 1, 1}}
	benchmarkBuild(b, random(n, box, 1), box, spacingOf(n, box), 0)
}

func BenchmarkDamBreak13k(b *testing.B)        { benchmarkDamBreak(b, 13000, 2) }
func BenchmarkDamBreak35k(b *testing.B)        { benchmarkDamBreak(b, 35000, 2) }
func BenchmarkDamBreak100k(b *testing.B)       { benchmarkDamBreak(b, 100000, 2) }
func BenchmarkDamBreakNoReach13k(b *testing.B) { benchmarkDamBreak(b, 13000, 0) }
func BenchmarkRandom13k(b *testing.B)          { benchmarkRandom(b, 13000) }
func BenchmarkRandom35k(b *testing.B)          { benchmarkRandom(b, 35000) }
func BenchmarkRandom100k(b *testing.B)         { benchmarkRandom(b, 100000) }
