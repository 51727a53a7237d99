package flat

import (
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"

	"github.com/slosh/slosh/gpu/glh"
)

// BenchmarkDraw draws the reduced game's worst case at 1280×720: a 65×65 image that changes every frame (so it
// is uploaded every frame), 15 twelve-sided shapes with outlines, 5 lines of 40 points and 20k tracers, waiting
// for the GPU each frame. On llvmpipe the number says little more than that the path runs.
func BenchmarkDraw(b *testing.B) {
	r := newTest(b)
	const w, h = 1280, 720
	fb, err := glh.NewFramebuffer(w, h)
	if err != nil {
		b.Fatal(err)
	}
	defer fb.Delete()
	f := benchFrame(20000)
	fb.Bind()
	r.Draw(f, w, h) // grow the buffers, make the texture
	gl.Finish()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		changeImage(f, i)
		r.Draw(f, w, h)
		gl.Finish()
	}
	b.StopTimer()
	b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/frame")
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	if err := glh.CheckError("drawing the benchmark frame"); err != nil {
		b.Fatal(err)
	}
}
