package vdb

import (
	"io"
	"testing"

	"github.com/slosh/slosh/sim/surface/field"
)

// countWriter counts the bytes of a file without keeping them.
type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)

// benchmarkLevelSet builds the level set of φ on blocks and writes it, reporting the file's bytes and leaves.
func benchmarkLevelSet(b *testing.B, voxel float64, origins [][3]int, phi []float32, outside float32) {
	b.ReportAllocs()
	var size int64
	var leaves int
	for b.Loop() {
		g, err := LevelSet("surface", voxel, origins, phi, outside)
		if err != nil {
			b.Fatal(err)
		}
		var c countWriter
		if err := Write(&c, g); err != nil {
			b.Fatal(err)
		}
		size, leaves = c.n, g.Leaves()
	}
	b.ReportMetric(float64(size), "bytes")
	b.ReportMetric(float64(leaves), "leaves")
}

// A sphere of 40 voxels' radius.
func BenchmarkSphere40(b *testing.B) {
	origins, phi := sphere([3]float64{0.013, -0.021, 0.37}, 1, 0.025)
	benchmarkLevelSet(b, 0.025, origins, phi, 0.1)
}

// A block of 40³ fluid particles, sampled by sim/surface/field at its default cell of half a spacing (the sampling
// is not timed).
func BenchmarkFluidBlock64k(b *testing.B) {
	const s = 0.02
	var pos [][4]float32
	for k := range 40 {
		for j := range 40 {
			for i := range 40 {
				pos = append(pos, [4]float32{float32(0.1 + s*float64(i)), float32(0.05 + s*float64(j)), float32(0.2 + s*float64(k))})
			}
		}
	}
	cfg := field.DefaultConfig(s)
	var m field.Mesher
	if _, _, err := m.Mesh(pos, cfg); err != nil {
		b.Fatal(err)
	}
	var origins [][3]int
	var phi []float32
	outside := m.Blocks(func(o [3]int, v []float32) {
		origins = append(origins, o)
		phi = append(phi, v...)
	})
	benchmarkLevelSet(b, cfg.Cell, origins, phi, outside)
}
