package vdb

import (
	"io"
	"slices"
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
	pos := particleBlock(40, 40, 40, 0.02)
	cfg := field.DefaultConfig(0.02)
	var m field.Mesher
	if _, _, err := m.Mesh(pos, cfg); err != nil {
		b.Fatal(err)
	}
	origins, phi, outside := sampledBlocks(&m)
	benchmarkLevelSet(b, cfg.Cell, origins, phi, outside)
}

// A block of 47³ (about 100k) fluid particles moving as a rigid rotation: the costs of a frame's file, stage by
// stage, so the velocity grid's can be set against the level set's: sampling φ on the band (sim/surface/field),
// building and writing the level set, and sampling the velocities at its band's voxels (field.Field.Means),
// building and writing their grid.
func BenchmarkFluidBlockVelocity100k(b *testing.B) {
	const s, n = 0.02, 47
	var pos, vel [][4]float32
	for k := range n {
		for j := range n {
			for i := range n {
				x, y, z := s*float32(i-n/2), s*float32(j-n/2), s*float32(k-n/2)
				pos = append(pos, [4]float32{x, y, z})
				vel = append(vel, [4]float32{-y, x, 0.5})
			}
		}
	}
	cfg := field.DefaultConfig(s)
	m := field.NewMesher()
	var origins [][3]int
	var phi []float32
	var outside float32
	sample := func() {
		if _, err := m.Sample(pos, cfg); err != nil {
			b.Fatal(err)
		}
		origins, phi = origins[:0], phi[:0]
		outside = m.Blocks(func(o [3]int, v []float32) {
			origins = append(origins, o)
			phi = append(phi, v...)
		})
	}
	sample()
	ls, err := LevelSet("surface", cfg.Cell, origins, phi, outside)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("sample", func(b *testing.B) {
		for b.Loop() {
			sample()
		}
	})
	b.Run("levelset", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			g, err := LevelSet("surface", cfg.Cell, origins, phi, outside)
			if err != nil {
				b.Fatal(err)
			}
			if err := Write(&countWriter{}, g); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(ls.ActiveVoxels()), "voxels")
	})
	b.Run("velocity", func(b *testing.B) {
		b.ReportAllocs()
		var voxels [][3]int32
		var vs [][3]float32
		var size int64
		for b.Loop() {
			voxels = ls.ActiveLeafVoxels(voxels[:0])
			vs = slices.Grow(vs[:0], len(voxels))[:len(voxels)]
			if err := m.Field().Means(vs, vel, voxels); err != nil {
				b.Fatal(err)
			}
			g, err := Vectors(ls, "velocity", vs)
			if err != nil {
				b.Fatal(err)
			}
			var c countWriter
			if err := Write(&c, g); err != nil {
				b.Fatal(err)
			}
			size = c.n
		}
		b.ReportMetric(float64(size), "bytes")
	})
}
