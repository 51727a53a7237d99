package render

import (
	"math"
	"testing"
	"unsafe"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
)

// depthImage is a synthetic fluid eye-depth image as the splat pass leaves it: metres, 0 without fluid, row 0 at
// the bottom (GL's order).
type depthImage struct {
	w, h int
	z    []float32
}

// planeDepth is the eye depth, at the centre of pixel (x, y) of a w×h view through cam, of the plane through the
// point at eye depth z0 on the view axis with the eye-space normal n: the depth the splats of a flat face of fluid
// would leave there (render_common.glsl's eyeRay: the pixel's ray with z = −1).
func planeDepth(cam Camera, w, h, x, y int, z0 float64, n mgl32.Vec3) float32 {
	ndcX := (float64(x)+0.5)/float64(w)*2 - 1
	ndcY := (float64(y)+0.5)/float64(h)*2 - 1
	ray := [3]float64{
		(ndcX + float64(cam.Proj.At(0, 2))) / float64(cam.Proj.At(0, 0)),
		(ndcY + float64(cam.Proj.At(1, 2))) / float64(cam.Proj.At(1, 1)),
		-1,
	}
	nd := [3]float64{float64(n[0]), float64(n[1]), float64(n[2])}
	return float32(-nd[2] * z0 / dot3(nd, ray)) // n·(z·ray) = n·(0, 0, −z0)
}

// smoothAndShade puts img into the splat image, runs the smoothing and the composite in the normals mode into out
// (an RGBA32F target), as a frame's passes would after the splats, and returns the smoothed depth and the world
// normals (top row first). r must have drawn a frame of size img.w×img.h with cam and p, so that its surface
// images and frame block are in place.
func smoothAndShade(t *testing.T, r *Renderer, out *target, cam Camera, p Particles, img depthImage) (depth []float32, normals []mgl32.Vec3) {
	t.Helper()
	splat := r.surf.splat
	gl.BindTexture(gl.TEXTURE_2D, splat.color.ID())
	gl.PixelStorei(gl.UNPACK_ALIGNMENT, 4)
	gl.TexSubImage2D(gl.TEXTURE_2D, 0, 0, 0, int32(img.w), int32(img.h), gl.RED, gl.FLOAT, unsafe.Pointer(&img.z[0]))
	gl.BindTexture(gl.TEXTURE_2D, 0)
	f := &frameState{vp: Viewport{img.w, img.h}, cam: cam, p: p, n: p.N, target: out.id, read: out.id,
		fluid: lookSurface, depth: splat, mode: ModeNormals}
	if r.smoothingOn() {
		r.drawSmooth(f)
	}
	r.drawComposite(f)
	if err := glh.CheckError("smoothing a planted depth image"); err != nil {
		t.Fatal(err)
	}
	depth = readRed(f.depth)
	for _, c := range readRGBA(out) {
		normals = append(normals, mgl32.Vec3{2*c[0] - 1, 2*c[1] - 1, 2*c[2] - 1})
	}
	return depth, normals
}

// angleDeg is the angle between two (near-unit) normals, degrees.
func angleDeg(a, b mgl32.Vec3) float64 {
	c := float64(a.Normalize().Dot(b.Normalize()))
	return math.Acos(math.Max(-1, math.Min(1, c))) * 180 / math.Pi
}

// TestPinholesLeaveNoStreaks plants single-pixel pinholes (and two two-pixel ones) in the eye depth of a flat,
// tilted face of fluid, as gaps between ellipsoid splats leave them where the fluid behind shows through (issue
// 26, item 13: in dam-obstacle under FLIP the narrow-range filter's y pass smeared each into a vertical streak;
// curvature flow left a dot). With either smoothing method, the normals everywhere, the vertical lines through the
// holes included, must match those of the same face smoothed without holes to within 0.5° (the face is a plane,
// so the reference is the plane's own normal up to the smoothing's handling of the silhouette, which both images
// share). A real depth step, a face in front of another one far behind it, keeps its edge: the smoothed depth
// jumps across it by at least the step less the range δ (the narrow-range filter pulls a surface at most δ
// toward what lies behind its edge, Truong & Yuksel 2018; curvature flow not at all), and the far face's pixels
// at the edge keep their depth.
func TestPinholesLeaveNoStreaks(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 160, 120
	r := newTestRenderer(t)
	out, err := newTarget(w, h, gl.RGBA32F, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(out.Delete)

	// a few particles so that a frame takes the surface path and sizes its images; the test's own depth images
	// replace their splats
	const radius = 0.02
	fs := &fluidScene{radius: radius}
	fs.add(mgl32.Vec3{0, 0, 0}, sphereKernel(mgl32.Vec3{0, 0, 0}, 1.2*radius, 30))
	p := fs.upload(t)
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0, 0, 1}, mgl32.Vec3{0, 0, 0}, 45)
	cam := oc.Camera(float32(w) / h)
	setParam(t, r, "render.mode", "normals")
	delta := float64(r.set.depthThreshold * radius * r.set.splatScale) // δ, the smoothing's depth range

	const z0 = 0.8
	n := mgl32.Vec3{0.35, 0.25, 1}.Normalize() // eye space, facing the eye, tilted both ways
	face := depthImage{w, h, make([]float32, w*h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if y < h-14 && x >= 10 { // sky above and to the left: a silhouette
				face.z[y*w+x] = planeDepth(cam, w, h, x, y, z0, n)
			}
		}
	}
	holes := depthImage{w, h, append([]float32(nil), face.z...)}
	type hole struct {
		x, y   int
		dx, dy int     // a second pixel at (x+dx, y+dy), or 0, 0
		deep   float64 // how far behind the face, m
	}
	planted := []hole{
		{30, 20, 0, 0, 1.5 * radius}, {60, 25, 0, 0, 0.5 * delta}, {90, 20, 0, 0, 2 * delta}, {125, 30, 0, 0, 12 * delta},
		{40, 60, 0, 0, 1.2 * delta}, {75, 70, 0, 0, 4 * delta}, {110, 55, 1, 0, 3 * delta}, {140, 80, 0, 1, 3 * delta},
		{25, 90, 0, 0, 8 * delta}, {100, 95, 0, 0, 2.5 * delta},
	}
	for _, o := range planted {
		for _, q := range [][2]int{{o.x, o.y}, {o.x + o.dx, o.y + o.dy}} {
			i := q[1]*w + q[0]
			holes.z[i] += float32(o.deep)
		}
	}

	// a real step: the left part of the face, and, right of column stepX, the same face 6δ farther
	const stepX = 80
	step := depthImage{w, h, append([]float32(nil), face.z...)}
	stepBy := 6 * delta
	for y := 0; y < h; y++ {
		for x := stepX; x < w; x++ {
			if step.z[y*w+x] > 0 {
				step.z[y*w+x] += float32(stepBy)
			}
		}
	}

	// gaps wider than a pinhole, which the fill leaves alone: the narrow-range filter must not streak them either
	gaps := depthImage{w, h, append([]float32(nil), face.z...)}
	gapPixels := [][2]int{{50, 40}, {51, 40}, {50, 41}, {51, 41}, {120, 100}, {121, 100}, {122, 100}}
	nearGap := make([]bool, w*h) // the gaps and the pixels next to them, whose normals see the gap
	for _, q := range gapPixels {
		gaps.z[q[1]*w+q[0]] += float32(3 * delta)
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				nearGap[(q[1]+dy)*w+q[0]+dx] = true
			}
		}
	}

	// compare counts the fluid pixels (but those skip names, by GL row-first index) whose normals in got are over
	// 0.5° from ref's, and finds the worst one
	compare := func(what string, got, ref []mgl32.Vec3, skip []bool) {
		t.Helper()
		worst, wx, wy, bad := 0.0, 0, 0, 0
		for y := 0; y < h; y++ { // top row first
			for x := 0; x < w; x++ {
				row := h - 1 - y
				if face.z[row*w+x] == 0 || (skip != nil && skip[row*w+x]) {
					continue
				}
				a := angleDeg(got[y*w+x], ref[y*w+x])
				if a > 0.5 {
					bad++
				}
				if a > worst {
					worst, wx, wy = a, x, row
				}
			}
		}
		t.Logf("%s: worst normal %.2f° from the face's at pixel (%d, %d) (GL rows); %d pixels over 0.5°",
			what, worst, wx, wy, bad)
		if bad > 0 {
			t.Errorf("%s: %d pixels' normals differ from the face's by over 0.5° (worst %.1f° at (%d, %d))",
				what, bad, worst, wx, wy)
		}
	}

	for _, sm := range []string{"narrow-range", "curvature-flow"} { // not t.Run: GL is current on this thread only
		setParam(t, r, "render.smoothing", sm)
		out.bind()
		r.Draw(Viewport{w, h}, cam, p)
		if r.surf.splat == nil {
			t.Fatalf("%s: the frame did not draw a surface: %v", sm, r.Err())
		}
		_, ref := smoothAndShade(t, r, out, cam, p, face)
		_, got := smoothAndShade(t, r, out, cam, p, holes)
		compare(sm+": pinholes", got, ref, nil)
		if sm == "narrow-range" {
			_, got = smoothAndShade(t, r, out, cam, p, gaps)
			compare(sm+": two- and three-pixel gaps", got, ref, nearGap)
		}

		depth, _ := smoothAndShade(t, r, out, cam, p, step)
		for y := 20; y < h-30; y += 10 {
			row := h - 1 - y // GL's row: depth is top row first
			near, far := float64(depth[y*w+stepX-1]), float64(depth[y*w+stepX])
			farRaw := float64(step.z[row*w+stepX])
			nearRaw := float64(step.z[row*w+stepX-1])
			if far-near < stepBy-delta-1e-4 {
				t.Errorf("%s: row %d: the step of %.3f m between columns %d and %d is %.3f m after smoothing",
					sm, row, stepBy, stepX-1, stepX, far-near)
			}
			if math.Abs(far-farRaw) > 0.25*delta {
				t.Errorf("%s: row %d: the far face at the edge moved from %.4f to %.4f m", sm, row, farRaw, far)
			}
			if near < nearRaw-0.25*delta {
				t.Errorf("%s: row %d: the near face at the edge came forward from %.4f to %.4f m", sm, row, nearRaw, near)
			}
		}
	}
}
