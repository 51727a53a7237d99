package app

import (
	"flag"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/gltest"
)

var recordRenderMode = flag.String("recordmode", "surface", "render.mode for BenchmarkRecordingCost")

// BenchmarkRecordingCost measures what F9 costs the window: display frames of the dam break at 1280×720 (the
// window's default size) without recording and while recording an MP4 at full size and the simulation's rate,
// alternating blocks of frames so both see the same machine load. It reports both mean frame times and the
// recording's share of the frame time (the budget is 10 % on llvmpipe). Run with
//
//	go test -run XXX -bench RecordingCost -benchtime 120x ./app/ [-args -recordmode particles]
func BenchmarkRecordingCost(b *testing.B) {
	ctx := gltest.Acquire(b)
	v := openViewer(b, ctx, Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 8000, Sets: []string{"render.mode=" + *recordRenderMode}})
	v.captures = b.TempDir()
	ctx.Window.SetSize(1280, 720)
	for i := 0; i < 20; i++ { // the window takes its size, the runner warms up
		glfw.PollEvents()
		v.frame(time.Now())
	}
	fw, fh := v.win.GetFramebufferSize()
	b.Logf("framebuffer %d×%d, render.mode=%s, on %s", fw, fh, *recordRenderMode, ctx)
	const block = 10
	var plain, rec time.Duration
	var nPlain, nRec int
	b.ResetTimer()
	for done := 0; done < b.N; {
		recording := (done/block)%2 == 1
		if recording != (v.rec != nil) {
			v.toggleRecording()
			if recording && v.rec == nil {
				b.Fatalf("recording did not start: %s", v.status.msg)
			}
		}
		for k := 0; k < block && done < b.N; k, done = k+1, done+1 {
			start := time.Now()
			glfw.PollEvents()
			v.frame(start)
			d := time.Since(start)
			if recording {
				rec, nRec = rec+d, nRec+1
			} else {
				plain, nPlain = plain+d, nPlain+1
			}
		}
	}
	b.StopTimer()
	if v.rec != nil {
		v.toggleRecording()
	}
	if nPlain == 0 || nRec == 0 {
		return // too few frames to compare (the first run of a benchmark has b.N = 1); use -benchtime 120x
	}
	mp, mr := plain.Seconds()*1e3/float64(nPlain), rec.Seconds()*1e3/float64(nRec)
	b.ReportMetric(mp, "ms/frame-plain")
	b.ReportMetric(mr, "ms/frame-recording")
	b.ReportMetric(100*(mr-mp)/mp, "%-cost")
}
