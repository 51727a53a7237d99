package upsample

import (
	"testing"
)

// benchmarkUpdate upsamples a splashing-column frame (a w×ht×w jittered column, a spreading sheet at its foot,
// loose drops) and reports output points per second (the thesis' Table 6.1 measure: P3 over the refinement time,
// here detection included) and the time of each phase.
func benchmarkUpdate(b *testing.B, w, ht, drops, workers int) {
	h := 0.02
	pos, id := splash(w, ht, drops, h, 42)
	u := New()
	cfg := DefaultConfig()
	cfg.Workers = workers
	var st Stats
	var detect, refine float64
	for b.Loop() {
		var err error
		_, st, err = u.Update(pos, id, len(pos), 2*h, cfg)
		if err != nil {
			b.Fatal(err)
		}
		detect += st.Detect.Seconds()
		refine += st.Refine.Seconds()
	}
	n := float64(b.N)
	b.ReportMetric(float64(st.Points)*n/b.Elapsed().Seconds(), "points/s")
	b.ReportMetric(float64(st.Points)*n/refine, "refined-points/s")
	b.ReportMetric(float64(len(pos)), "particles")
	b.ReportMetric(float64(st.Surface), "P0")
	b.ReportMetric(float64(st.Points), "P3")
	b.ReportMetric(detect/n*1e3, "detect-ms")
	b.ReportMetric(refine/n*1e3, "refine-ms")
}

// About the thesis' 3k-particle column (P0 ≈ 1.2–1.9k).
func BenchmarkSplash3k(b *testing.B)   { benchmarkUpdate(b, 10, 24, 60, 0) }
func BenchmarkSplash3k1w(b *testing.B) { benchmarkUpdate(b, 10, 24, 60, 1) }

// The 10k-particle simulation.
func BenchmarkSplash10k(b *testing.B) { benchmarkUpdate(b, 14, 45, 150, 0) }
