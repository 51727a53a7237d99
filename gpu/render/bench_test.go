package render

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/scene"
)

// wallTimings times the benchmarks' passes by the wall clock, each finished first (Renderer.SetWallTimings): on
// llvmpipe the timer queries give one pass's work to another.
var wallTimings = flag.Bool("wall", false, "time the benchmarks' render passes by the wall clock (for llvmpipe)")

// benchmarkSurface draws a block of n³ particles with ellipsoids in a tank at w×h with the given render
// parameters (name=value; the surface mode unless they say otherwise), and reports the milliseconds of each pass
// (GL timer queries, or with -wall the wall clock) as metrics, and their sum.
func benchmarkSurface(b *testing.B, n, w, h int, set ...string) {
	gltest.Acquire(b)
	r, err := New()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Delete()
	r.SetWallTimings(*wallTimings)
	out, err := newTarget(w, h, gl.RGBA8, true)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Delete()
	for _, nv := range set {
		name, value, _ := strings.Cut(nv, "=")
		if err := r.Params().SetString(name, value); err != nil {
			b.Fatal(err)
		}
	}
	const spacing = 0.02
	side := float32(n) * spacing
	r.SetScene(&scene.Scene{Domain: scene.Box{Max: scene.Vec3{2 * float64(side), 1.5 * float64(side), float64(side) + 0.1}}})
	fs := &fluidScene{radius: spacing / 2}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for k := 0; k < n; k++ {
				p := mgl32.Vec3{float32(i), float32(j), float32(k)}.Mul(spacing).Add(mgl32.Vec3{spacing, spacing / 2, spacing})
				fs.add(p, sphereKernel(p, 0.6*spacing, 30))
			}
		}
	}
	var fb FrameBuffers
	defer fb.Delete()
	p, err := fb.Upload(fs.frame())
	if err == nil {
		p, err = fb.UploadEllipsoids(p, fs.flat())
	}
	if err != nil {
		b.Fatal(err)
	}
	oc := NewOrbitCamera()
	oc.Frame(mgl32.Vec3{}, mgl32.Vec3{2 * side, 1.5 * side, side + 0.1})
	cam := oc.Camera(float32(w) / float32(h))

	frame := func() {
		out.bind()
		r.Draw(Viewport{w, h}, cam, p)
		gl.Finish()
	}
	frame() // warm up: targets, shader variants
	// each pass's times, and the frames' wall times: their medians are reported, which a machine shared with
	// other work disturbs less than their means
	times := map[string][]float64{}
	var names []string
	var walls []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		frame()
		walls = append(walls, float64(time.Since(start).Nanoseconds())/1e6)
		passes, ok := r.Timings()
		if !ok {
			continue
		}
		for _, ps := range passes {
			if _, seen := times[ps.Name]; !seen {
				names = append(names, ps.Name)
			}
			times[ps.Name] = append(times[ps.Name], ps.Ms)
		}
	}
	b.StopTimer()
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	var total float64
	for _, name := range names {
		ms := median(times[name])
		total += ms
		b.ReportMetric(ms, strings.ReplaceAll(name, " ", "_")+"-ms")
	}
	b.ReportMetric(total, "passes-ms")
	b.ReportMetric(median(walls), "frame-ms")
}

// median is the middle value of xs (the mean of the two middle ones for an even count), 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// 32³ = 32768 particles at 1280×720, as in the renderer's performance notes.
func BenchmarkSurface32kNarrowRange(b *testing.B) {
	benchmarkSurface(b, 32, 1280, 720, "render.smoothing=narrow-range")
}
func BenchmarkSurface32kCurvatureFlow(b *testing.B) {
	benchmarkSurface(b, 32, 1280, 720, "render.smoothing=curvature-flow")
}

// BenchmarkSurfaceScale draws 20³ = 8000 and 32³ particles at 1280×720 at render.scale 1, 0.75 and 0.5, and as
// particles: issue 31's table (run it with -wall on llvmpipe).
func BenchmarkSurfaceScale(b *testing.B) {
	for _, n := range []int{20, 32} {
		for _, set := range [][]string{{"render.scale=1"}, {"render.scale=0.75"}, {"render.scale=0.5"}, {"render.mode=particles"}} {
			b.Run(fmt.Sprintf("%dk/%s", n*n*n/1000, strings.TrimPrefix(set[0], "render.")), func(b *testing.B) {
				benchmarkSurface(b, n, 1280, 720, set...)
			})
		}
	}
}
