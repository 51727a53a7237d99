package clip

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/slosh/slosh/sim/voronoi/cell"
)

// damBreak makes about n particles on a cubic lattice at spacing h with a jitter of 10 % of h, filling a block
// of 2:1:2 in the corner of a domain four times as long, and the domain's box.
func damBreak(n int) ([][4]float32, cell.Box, float64) {
	const h = 0.02
	k := math.Cbrt(float64(n) / 4)
	nx, ny, nz := int(2*k+0.5), int(k+0.5), int(2*k+0.5)
	rng := rand.New(rand.NewSource(1))
	pos := make([][4]float32, 0, nx*ny*nz)
	for z := range nz {
		for y := range ny {
			for x := range nx {
				var p [4]float32
				for a, c := range [3]int{x, y, z} {
					p[a] = float32((float64(c) + 0.5 + 0.1*(rng.Float64()-0.5)) * h)
				}
				pos = append(pos, p)
			}
		}
	}
	return pos, cell.Box{Max: [3]float64{4 * float64(nx) * h, 1.5 * float64(ny) * h, float64(nz) * h}}, h
}

// BenchmarkClip clips the diagram of a dam break's block (r = h, Reach = r) against its free surface and a
// tilted floor obstacle that cuts the bottom layer; BenchmarkClip/build-… times cell.Build on the same input.
func BenchmarkClip(b *testing.B) {
	for _, n := range []int{13000, 35000} {
		pos, box, h := damBreak(n)
		r := h
		d, err := cell.New(cell.Options{Spacing: h, Reach: r})
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Build(pos, box); err != nil {
			b.Fatal(err)
		}
		floor := func(p [3]float64) float64 { return p[1] - 0.3*h - 0.01*p[0] }
		b.Run(fmt.Sprintf("build-%dk", len(pos)/1000), func(b *testing.B) {
			for range b.N {
				if err := d.Build(pos, box); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(len(pos)), "ns/cell")
		})
		b.Run(fmt.Sprintf("clip-%dk", len(pos)/1000), func(b *testing.B) {
			c, err := New(Options{Spacing: h, Radius: r})
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Clip(d, pos, []SDF{floor}); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := c.Clip(d, pos, []SDF{floor}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			st := c.Stats()
			b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(len(pos)), "ns/cell")
			b.ReportMetric(float64(st.Refined)/float64(len(pos)), "refined/cell")
			b.ReportMetric(float64(st.Cut)/float64(len(pos)), "cut/cell")
			b.ReportMetric(float64(st.Facets)/float64(len(pos)), "facets/cell")
			b.ReportMetric(float64(st.Vertices)/float64(len(pos)), "verts/cell")
			b.ReportMetric(float64(st.Polygons)/float64(max(st.Refined, 1)), "polys/refined")
		})
	}
}
