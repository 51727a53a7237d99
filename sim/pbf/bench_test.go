package pbf

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSharedDamBreak is issue 30's PBF row: the peers' 97,200-particle dam break (bench-dambreak) at 2
// iterations and 17 steps a frame (Δt = 0.98 ms), measured after the first frame, when the column has begun to
// fall. `slosh bench --scene bench-dambreak --mode pbf-cpu` with the same settings (docs/bench/peers.sh) measures
// the 510 steps the peers were timed on. Besides the wall clock it reports the process's CPU time a step, which
// other work on a shared machine disturbs far less (run it with -cpu 1 to compare code, not scheduling).
func BenchmarkSharedDamBreak(b *testing.B) {
	s := New()
	assignAll(b, s, "pbf.iterations=2", "pbf.substeps=17", "pbf.substeps_max=17")
	if err := s.Reset(builtin(b, "bench-dambreak")); err != nil {
		b.Fatal(err)
	}
	run(b, s, benchFrames)
	dt := frameDt / 17
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Step(dt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/step")
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/step")
}

// benchFrames is how many frames BenchmarkSharedDamBreak runs before it measures: 1, or SLOSH_BENCH_FRAMES (20: the
// splash against the far wall, where a step costs the most).
var benchFrames = func() int {
	if n, err := strconv.Atoi(os.Getenv("SLOSH_BENCH_FRAMES")); err == nil && n >= 0 {
		return n
	}
	return 1
}()

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
