package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/gltest"
)

// BenchmarkWindowFrame times the window's display frames at 1280×720 with the panel shown (issue 31: the window
// holds its frame rate on any machine), each finished (glFinish) before the next: the panel, the view's render
// passes, and the surface's kernels, computed again every frame as when the simulation runs. The simulation is
// paused, so that its steps do not share the cores with the rendering: what is measured is what a frame of the
// window costs the GL thread. It reports the median frame's milliseconds. Run it one configuration at a time
// (-bench 'WindowFrame/8k/surface-0.5'); on llvmpipe each frame of the surface takes a while.
func BenchmarkWindowFrame(b *testing.B) {
	for _, n := range []int{200, 2000, 4000, 8000, 30000} {
		for _, c := range []struct {
			name string
			sets []string
		}{
			{"surface-1", nil},
			{"surface-0.75", []string{"render.scale=0.75"}},
			{"surface-0.5", []string{"render.scale=0.5"}},
			{"surface-0.5-spheres", []string{"render.scale=0.5", "surface.enabled=false", "render.spray_neighbors=0"}},
			{"surface-0.25", []string{"render.scale=0.25"}},
			{"surface-0.25-spheres", []string{"render.scale=0.25", "surface.enabled=false", "render.spray_neighbors=0"}},
			{"particles", []string{"render.mode=particles"}},
		} {
			b.Run(fmt.Sprintf("%d/%s", n, c.name), func(b *testing.B) { benchmarkWindowFrame(b, n, c.sets) })
		}
	}
}

func benchmarkWindowFrame(b *testing.B, particles int, sets []string) {
	ctx := gltest.Acquire(b)
	ctx.Window.SetSize(1280, 720)
	b.Cleanup(func() { ctx.Window.SetSize(256, 256) })
	v := openViewer(b, ctx, Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: particles, Sets: sets})
	deadline := time.Now().Add(hangGuard)
	for v.drv.Particles().N < particles/2 || v.drv.Stats().Steps < 1 {
		if time.Now().After(deadline) {
			b.Fatalf("no particles after %v (status %q)", hangGuard, v.status.msg)
		}
		glfw.PollEvents()
		v.frame(time.Now())
	}
	v.drv.SetPaused(true)
	frame := func() time.Duration {
		v.surf.done.src = nil // the kernels are made again, as for a new frame of the simulation
		glfw.PollEvents()
		start := time.Now()
		v.frame(start)
		gl.Finish()
		return time.Since(start)
	}
	for range 3 {
		frame() // the panel's layout, the targets, the background image
	}
	var ms []float64
	b.ResetTimer()
	for range b.N {
		ms = append(ms, float64(frame().Nanoseconds())/1e6)
	}
	b.StopTimer()
	slices.Sort(ms)
	b.ReportMetric(ms[len(ms)/2], "frame-ms")
	b.ReportMetric(ms[0], "best-ms")
	vr, _, _ := v.viewPixels()
	b.Logf("view %dx%d, %d particles, %s", vr.W, vr.H, v.drv.Particles().N, strings.Join(sets, " "))
}
