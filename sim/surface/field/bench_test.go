package field

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// damBreak is a synthetic dam-break frame of about n particles spacing s apart: a jittered block collapsing into
// a wedge (full height at the back wall, thinning towards the front), a sheet two particles thick running ahead of
// it, and 2% of the particles as spray drops above the front.
func damBreak(n int, s float64, seed uint64) [][4]float32 {
	rng := rand.New(rand.NewPCG(seed, 99))
	spray := n / 50
	// wedge of length L, height L/2, width L/2: volume L³/8, plus the sheet L·0.4 × 2s × L/2
	l := 2 * math.Cbrt(float64(n-spray)) * s
	for range 3 { // settle the length so that the lattice holds about n − spray sites
		c := float64(sites(l, s, nil))
		l *= math.Cbrt(float64(n-spray) / c)
	}
	pos := make([][4]float32, 0, n)
	sites(l, s, func(x, y, z float64) {
		pos = append(pos, [4]float32{
			float32(x + 0.2*s*(2*rng.Float64()-1)),
			float32(y + 0.2*s*(2*rng.Float64()-1)),
			float32(z + 0.2*s*(2*rng.Float64()-1)), 0})
	})
	for range spray {
		pos = append(pos, [4]float32{
			float32(l * (0.8 + 0.6*rng.Float64())),
			float32(l / 2 * rng.Float64()),
			float32(l * (0.05 + 0.25*rng.Float64())), 0})
	}
	return pos
}

// sites visits the lattice sites of the wedge and its sheet, returning their number.
func sites(l, s float64, visit func(x, y, z float64)) int {
	n := 0
	for z := s / 2; z < l/2; z += s {
		for y := s / 2; y < l/2; y += s {
			for x := s / 2; x < 1.4*l; x += s {
				top := l / 2 * (1 - x/l)
				if x > l*0.9 {
					top = 2 * s
				}
				if z < top {
					n++
					if visit != nil {
						visit(x, y, z)
					}
				}
			}
		}
	}
	return n
}

func benchmarkMesh(b *testing.B, n int) {
	pos := damBreak(n, spacing, 1)
	c := DefaultConfig(spacing)
	m := NewMesher()
	var sum Stats
	b.ResetTimer()
	for range b.N {
		_, st, err := m.Mesh(pos, c)
		if err != nil {
			b.Fatal(err)
		}
		sum.Neighbours += st.Neighbours
		sum.Band += st.Band
		sum.Sample += st.Sample
		sum.Smooth += st.Smooth
		sum.March += st.March
		sum.Triangles = st.Triangles
		sum.Samples, sum.Blocks, sum.MeshedBlocks = st.Samples, st.Blocks, st.MeshedBlocks
	}
	ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(b.N) }
	b.ReportMetric(ms(sum.Neighbours), "ms-neighbours")
	b.ReportMetric(ms(sum.Band), "ms-band")
	b.ReportMetric(ms(sum.Sample), "ms-sample")
	b.ReportMetric(ms(sum.Smooth), "ms-smooth")
	b.ReportMetric(ms(sum.March), "ms-march")
	b.ReportMetric(float64(sum.Triangles), "triangles")
	b.ReportMetric(float64(sum.Samples), "samples")
	b.ReportMetric(float64(sum.MeshedBlocks)/float64(sum.Blocks), "meshed-block-share")
	b.ReportMetric(float64(len(pos)), "particles")
	b.ReportMetric(float64(sum.Triangles)*float64(b.N)/b.Elapsed().Seconds(), "triangles/s")
}

func BenchmarkMeshDamBreak10k(b *testing.B)  { benchmarkMesh(b, 10_000) }
func BenchmarkMeshDamBreak100k(b *testing.B) { benchmarkMesh(b, 100_000) }
