package render

import (
	"strings"
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/scene"
)

// benchmarkSurface draws a block of n³ particles with ellipsoids in a tank at w×h in the surface mode with the
// given smoothing, and reports the GPU milliseconds of each pass (GL timer queries) as metrics.
func benchmarkSurface(b *testing.B, n, w, h int, smoothing string) {
	gltest.Acquire(b)
	r, err := New()
	if err != nil {
		b.Fatal(err)
	}
	defer r.Delete()
	out, err := newTarget(w, h, gl.RGBA8, true)
	if err != nil {
		b.Fatal(err)
	}
	defer out.Delete()
	if err := r.Params().SetString("render.smoothing", smoothing); err != nil {
		b.Fatal(err)
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
	sums := map[string]float64{}
	var names []string
	frames := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		frame()
		passes, ok := r.Timings()
		if !ok {
			continue
		}
		frames++
		for _, ps := range passes {
			if _, seen := sums[ps.Name]; !seen {
				names = append(names, ps.Name)
			}
			sums[ps.Name] += ps.Ms
		}
	}
	b.StopTimer()
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if frames == 0 {
		return
	}
	var total float64
	for _, name := range names {
		ms := sums[name] / float64(frames)
		total += ms
		b.ReportMetric(ms, strings.ReplaceAll(name, " ", "_")+"-ms")
	}
	b.ReportMetric(total, "gpu-ms")
}

// 32³ = 32768 particles at 1280×720, as in the renderer's performance notes.
func BenchmarkSurface32kNarrowRange(b *testing.B) { benchmarkSurface(b, 32, 1280, 720, "narrow-range") }
func BenchmarkSurface32kCurvatureFlow(b *testing.B) {
	benchmarkSurface(b, 32, 1280, 720, "curvature-flow")
}
