package render

import (
	"cmp"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	csurface "github.com/slosh/slosh/sim/surface"
)

// kernel is one particle's ellipsoid as Particles.Ellipsoids holds it.
type kernel struct {
	centre    mgl32.Vec3
	neighbors float32
	axes      [3]mgl32.Vec3
}

// fluidScene is a synthetic set of particles with ellipsoids, for the surface tests.
type fluidScene struct {
	radius  float32
	pos     []mgl32.Vec3
	kernels []kernel
}

func (s *fluidScene) add(p mgl32.Vec3, k kernel) {
	s.pos = append(s.pos, p)
	s.kernels = append(s.kernels, k)
}

// frame is the particles as a solver frame, at rest.
func (s *fluidScene) frame() *sim.Frame {
	f := &sim.Frame{Radius: s.radius}
	f.Resize(len(s.pos))
	for i, p := range s.pos {
		f.Pos[i] = [4]float32{p[0], p[1], p[2], 0}
		f.Rho[i] = 1
		f.ID[i] = uint32(i)
	}
	return f
}

// flat returns the kernels as the CPU anisotropy pass gives them.
func (s *fluidScene) flat() []csurface.Ellipsoid {
	out := make([]csurface.Ellipsoid, len(s.kernels))
	for i, k := range s.kernels {
		out[i].Center = [4]float32{k.centre[0], k.centre[1], k.centre[2], k.neighbors}
		for j, a := range k.axes {
			out[i].Axes[j] = [4]float32{a[0], a[1], a[2], 0}
		}
	}
	return out
}

// upload puts the scene into buffers owned by the test.
func (s *fluidScene) upload(t *testing.T) Particles {
	t.Helper()
	var fb FrameBuffers
	t.Cleanup(fb.Delete)
	p, err := fb.Upload(s.frame())
	if err != nil {
		t.Fatal(err)
	}
	if p, err = fb.UploadEllipsoids(p, s.flat()); err != nil {
		t.Fatal(err)
	}
	return p
}

func sphereKernel(c mgl32.Vec3, r, neighbors float32) kernel {
	return kernel{c, neighbors, [3]mgl32.Vec3{{r, 0, 0}, {0, r, 0}, {0, 0, r}}}
}

// pool is an nx×ny×nz lattice of spacing h with its lowest corner particle at origin: spheres of radius h/2·1.2
// inside, and flattened ellipsoids (wide in x and z, thin in y) in the top layer, as Yu & Turk's kernels are at a
// resting surface.
func pool(nx, ny, nz int, origin mgl32.Vec3, h float32) *fluidScene {
	s := &fluidScene{radius: h / 2}
	r := 0.6 * h
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			for k := 0; k < nz; k++ {
				p := origin.Add(mgl32.Vec3{float32(i), float32(j), float32(k)}.Mul(h))
				kr := sphereKernel(p, r, 30)
				if j == ny-1 {
					kr.axes = [3]mgl32.Vec3{{1.4 * r, 0, 0}, {0, 0.55 * r, 0}, {0, 0, 1.4 * r}}
				}
				s.add(p, kr)
			}
		}
	}
	return s
}

// poolSetup is the resting-pool test scene: the pool in a tank, seen from the front and above (yaw 0, so the
// pool's far top edge is a horizontal line in the image).
func poolSetup(t *testing.T, r *Renderer) (*fluidScene, Camera) {
	t.Helper()
	const h = 0.05
	sc := &scene.Scene{Domain: scene.Box{Min: scene.Vec3{0, 0, 0}, Max: scene.Vec3{1.3, 0.8, 1.3}}}
	r.SetScene(sc)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	fs := pool(24, 6, 24, mgl32.Vec3{0.05 + h/2, h / 2, 0.05 + h/2}, h)
	oc := NewOrbitCamera()
	oc.Yaw, oc.Pitch = 0, 0.5
	oc.Frame(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1.3, 0.8, 1.3})
	return fs, oc.Camera(4.0 / 3)
}

// readRed reads the red channel of a target's colour texture as floats, top row first.
func readRed(tg *target) []float32 {
	return glh.ReadFloats[float32](tg.id, gl.COLOR_ATTACHMENT0, gl.RED, tg.w, tg.h)
}

// readRGBA reads a float RGBA target, top row first.
func readRGBA(tg *target) [][4]float32 {
	return glh.ReadFloats[[4]float32](tg.id, gl.COLOR_ATTACHMENT0, gl.RGBA, tg.w, tg.h)
}

// eyeEllipsoid is an ellipsoid in eye space as the shaders see it: centre c and the rows of A⁻¹.
type eyeEllipsoid struct {
	c    [3]float64
	rows [3][3]float64
}

func toEye(cam Camera, k kernel) eyeEllipsoid {
	e := eyeEllipsoid{c: eyeSpace(cam, k.centre)}
	for i, a := range k.axes {
		q := cam.View.Mul4x1(a.Vec4(0))
		l2 := float64(q[0])*float64(q[0]) + float64(q[1])*float64(q[1]) + float64(q[2])*float64(q[2])
		e.rows[i] = [3]float64{float64(q[0]) / l2, float64(q[1]) / l2, float64(q[2]) / l2}
	}
	return e
}

func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// hit intersects the ray t·d (d.z = −1) with the ellipsoid: the entry depth t0, and h2 = 1 − (distance of the
// ray from the centre in the unit-sphere frame)², positive on a hit (1 through the centre).
func (e eyeEllipsoid) hit(d [3]float64) (t0, h2 float64) {
	var D, C [3]float64
	for i := range e.rows {
		D[i], C[i] = dot3(e.rows[i], d), dot3(e.rows[i], e.c)
	}
	a := dot3(D, D)
	tc := dot3(D, C) / a
	var off [3]float64
	for i := range off {
		off[i] = tc*D[i] - C[i]
	}
	h2 = 1 - dot3(off, off)
	return tc - math.Sqrt(math.Max(h2, 0)/a), h2
}

func rotatedAxes(m mgl32.Mat3, radii mgl32.Vec3) [3]mgl32.Vec3 {
	return [3]mgl32.Vec3{m.Col(0).Mul(radii[0]), m.Col(1).Mul(radii[1]), m.Col(2).Mul(radii[2])}
}

// TestEllipsoidSplatDepth draws rotated ellipsoids with unequal radii (one long and thin near the image's edge)
// and compares the fluid eye-depth image with the exact ray–ellipsoid intersection at every pixel: pixels well
// inside a silhouette must hold the nearest entry depth, pixels well outside all of them must stay background.
// The ellipsoids must be drawn at their kernel centres, not at the particle positions. The same with spheres:
// particles without ellipsoids.
func TestEllipsoidSplatDepth(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 320, 240
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	setParam(t, r, "render.smoothing", "none")
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0.4, 0.5, 3.4}, mgl32.Vec3{0.1, 0.2, 0}, 40)
	cam := oc.Camera(float32(w) / h)

	fs := &fluidScene{radius: 0.1}
	for _, k := range []kernel{
		{mgl32.Vec3{-0.8, 0.3, 0}, 30, rotatedAxes(mgl32.Rotate3DZ(0.5).Mul3(mgl32.Rotate3DY(0.35)), mgl32.Vec3{0.5, 0.2, 0.3})},
		{mgl32.Vec3{0.7, -0.25, -0.5}, 30, rotatedAxes(mgl32.Rotate3DX(0.7), mgl32.Vec3{0.25, 0.45, 0.15})},
		{mgl32.Vec3{0.9, 1.05, 0.4}, 30, rotatedAxes(mgl32.Rotate3DZ(1.2).Mul3(mgl32.Rotate3DX(0.4)), mgl32.Vec3{0.6, 0.08, 0.12})},
		{mgl32.Vec3{0.35, 0.25, 0.8}, 30, rotatedAxes(mgl32.Rotate3DY(-0.6).Mul3(mgl32.Rotate3DZ(0.3)), mgl32.Vec3{0.18, 0.1, 0.35})},
	} {
		fs.add(k.centre.Add(mgl32.Vec3{0.3, -0.2, 0}), k) // Pos is off the kernel centre on purpose
	}
	check := func(name string, p Particles, shapes []eyeEllipsoid) {
		t.Helper()
		save(t, draw(t, r, fb, cam, p), "splat_"+name)
		if r.surf.splat.w != w || r.surf.splat.h != h {
			t.Fatalf("%s: the depth image is %dx%d, want %dx%d", name, r.surf.splat.w, r.surf.splat.h, w, h)
		}
		depth := readRed(r.surf.splat)
		var hits, misses, badHits, badMisses int
		worst := 0.0
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				d := pixelRay(cam, w, h, x, y)
				best, margin, near := math.Inf(1), 0.0, false
				for _, e := range shapes {
					t0, h2 := e.hit(d)
					if h2 > -0.1 {
						near = true
					}
					if h2 > 0 && t0 < best {
						best, margin = t0, h2
					}
				}
				got := float64(depth[y*w+x])
				switch {
				case margin > 0.1:
					hits++
					if err := math.Abs(got - best); err > 2e-4*best {
						badHits++
						if badHits <= 5 {
							t.Errorf("%s: pixel (%d, %d): eye depth %.5f, want the ray–ellipsoid entry %.5f", name, x, y, got, best)
						}
					} else {
						worst = math.Max(worst, err/best)
					}
				case !near:
					misses++
					if got != 0 {
						badMisses++
						if badMisses <= 5 {
							t.Errorf("%s: pixel (%d, %d) away from every ellipsoid has depth %g, want background 0", name, x, y, got)
						}
					}
				}
			}
		}
		if hits < 3000 || misses < 20000 {
			t.Fatalf("%s: %d pixels inside and %d outside the ellipsoids; the test scene is framed wrong", name, hits, misses)
		}
		if badHits > 0 || badMisses > 0 {
			t.Errorf("%s: %d of %d pixels on ellipsoids have the wrong depth, %d of %d pixels off them are not background",
				name, badHits, hits, badMisses, misses)
		}
		t.Logf("%s: %d pixels on ellipsoids, largest relative depth error %.2g", name, hits, worst)
	}

	var shapes []eyeEllipsoid
	for _, k := range fs.kernels {
		shapes = append(shapes, toEye(cam, k))
	}
	check("ellipsoids", fs.upload(t), shapes)

	// without ellipsoids: spheres of Radius (times render.splat_scale) at Pos
	setParam(t, r, "render.splat_scale", "2.5")
	p := fs.upload(t)
	p.Ellipsoids = nil
	shapes = shapes[:0]
	for _, q := range fs.pos {
		shapes = append(shapes, toEye(cam, sphereKernel(q, 2.5*fs.radius, 0)))
	}
	check("spheres", p, shapes)
}

// tinted is the colour class of the water surface: clearly blue. The scene around it (tank, ground, the sky near
// the horizon) is neutral.
func tinted(img *image.RGBA, x, y int) bool {
	cr, cg, cb := rgb(img, x, y)
	return cb > cr+40 && cb > 1.15*cg
}

// components labels the 4-connected regions of mask (w wide) and returns the label of every pixel (−1 outside the
// mask) and each region's size.
func components(mask []bool, w int) (labels []int, sizes []int) {
	labels = make([]int, len(mask))
	for i := range labels {
		labels[i] = -1
	}
	h := len(mask) / w
	var stack []int
	for start, in := range mask {
		if !in || labels[start] >= 0 {
			continue
		}
		id := len(sizes)
		sizes = append(sizes, 0)
		labels[start] = id
		stack = append(stack[:0], start)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			sizes[id]++
			x, y := i%w, i/w
			for _, n := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if n[0] < 0 || n[1] < 0 || n[0] >= w || n[1] >= h {
					continue
				}
				j := n[1]*w + n[0]
				if mask[j] && labels[j] < 0 {
					labels[j] = id
					stack = append(stack, j)
				}
			}
		}
	}
	return labels, sizes
}

// screenRect is the screen bounding box of the world box [lo, hi], pixels, top row 0.
func screenRect(cam Camera, w, h int, lo, hi mgl32.Vec3) image.Rectangle {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for i := 0; i < 8; i++ {
		p := mgl32.Vec3{pick(i&1 != 0, lo[0], hi[0]), pick(i&2 != 0, lo[1], hi[1]), pick(i&4 != 0, lo[2], hi[2])}
		q := ndc(cam, p)
		x, y := (float64(q[0])+1)/2*float64(w), (1-float64(q[1]))/2*float64(h)
		x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
	}
	return image.Rect(int(math.Ceil(x0)), int(math.Ceil(y0)), int(math.Floor(x1)), int(math.Floor(y1)))
}

// poolTop is the screen box, inside the image of the pool's top face, well away from its edges.
func poolTop(cam Camera, w, h int) image.Rectangle {
	const top = 0.025 + 5*0.05 // the top layer's centres
	return screenRect(cam, w, h, mgl32.Vec3{0.35, top, 0.35}, mgl32.Vec3{0.95, top, 0.95})
}

// tilt is the mean of |n − (n·ŷ)ŷ|, the sine of the angle from straight up, over the pixels of rect in a
// normals-mode image: 0 for a flat, level surface.
func tilt(img *image.RGBA, rect image.Rectangle) float64 {
	var sum float64
	var n int
	for y := rect.Min.Y; y < rect.Max.Y; y++ {
		for x := rect.Min.X; x < rect.Max.X; x++ {
			cr, _, cb := rgb(img, x, y)
			nx, nz := (cr+0.5)/127.5-1, (cb+0.5)/127.5-1
			sum += math.Hypot(nx, nz)
			n++
		}
	}
	return sum / float64(n)
}

// TestRestingPool renders a resting pool of 24×6×24 particles in the surface mode: the water is one connected
// region of water colour without holes, exactly where the fluid is; its far top edge is a straight line; and both
// smoothing methods flatten the top surface: its normals tilt much less than without smoothing.
func TestRestingPool(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 320, 240
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	fs, cam := poolSetup(t, r)
	p := fs.upload(t)
	img := draw(t, r, fb, cam, p)
	save(t, img, "pool_surface")
	depth := readRed(r.surf.splat)

	mask := make([]bool, w*h)
	var fluid, fluidTinted, strayTinted, total int
	bounds := image.Rectangle{Min: image.Pt(w, h)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			mask[i] = tinted(img, x, y)
			if mask[i] {
				total++
			}
			if depth[i] > 0 {
				fluid++
				bounds = bounds.Union(image.Rect(x, y, x+1, y+1))
				if mask[i] {
					fluidTinted++
				}
			} else if mask[i] {
				strayTinted++
			}
		}
	}
	if fluid < 10000 {
		t.Fatalf("the pool covers %d pixels; the test scene is framed wrong", fluid)
	}
	if fluidTinted < fluid*95/100 || strayTinted > 0 {
		t.Errorf("%d of %d fluid pixels have the water colour, and %d pixels without fluid", fluidTinted, fluid, strayTinted)
	}
	_, sizes := components(mask, w)
	largest := 0
	for _, s := range sizes {
		largest = max(largest, s)
	}
	if largest < total*99/100 {
		t.Errorf("the water is %d regions; the largest has %d of its %d pixels", len(sizes), largest, total)
	}
	// holes: pixels that are not water but cannot reach the image border without crossing water
	outside := make([]bool, w*h)
	for i := range mask {
		outside[i] = !mask[i]
	}
	labels, _ := components(outside, w)
	border := map[int]bool{}
	for x := 0; x < w; x++ {
		border[labels[x]], border[labels[(h-1)*w+x]] = true, true
	}
	for y := 0; y < h; y++ {
		border[labels[y*w]], border[labels[y*w+w-1]] = true, true
	}
	holes := 0
	for i, l := range labels {
		if outside[i] && !border[l] {
			holes++
		}
	}
	if holes > 0 {
		t.Errorf("%d pixels inside the water are not water-coloured", holes)
	}

	// The far top edge is a horizontal line (yaw 0): the first water row of each column along the middle 80% of it.
	const topY = 0.025 + 5*0.05 // the top layer's centres
	far := screenRect(cam, w, h, mgl32.Vec3{0.075, topY, 0.075}, mgl32.Vec3{1.225, topY, 0.075})
	lo, hi := math.MaxInt, math.MinInt
	for x := far.Min.X + far.Dx()/10; x < far.Max.X-far.Dx()/10; x++ {
		for y := 0; y < h; y++ {
			if mask[y*w+x] {
				lo, hi = min(lo, y), max(hi, y)
				break
			}
		}
	}
	if hi-lo > 2 {
		t.Errorf("the pool's top edge spans rows %d to %d; want it flat within 2 pixels", lo, hi)
	}

	// Smoothing: normals over the top face.
	top := poolTop(cam, w, h)
	if top.Dx() < 60 || top.Dy() < 20 {
		t.Fatalf("the pool's top face covers %v", top)
	}
	setParam(t, r, "render.mode", "normals")
	tilts := map[string]float64{}
	for _, sm := range []string{"none", "curvature-flow", "narrow-range"} {
		setParam(t, r, "render.smoothing", sm)
		img := draw(t, r, fb, cam, p)
		save(t, img, "pool_normals_"+sm)
		tilts[sm] = tilt(img, top)
	}
	t.Logf("mean tilt of the normals over the top face: %v", tilts)
	if tilts["none"] < 0.1 {
		t.Fatalf("the unsmoothed top is already flat (tilt %.3f); the test says nothing", tilts["none"])
	}
	if tilts["curvature-flow"] > 0.25*tilts["none"] {
		t.Errorf("curvature flow leaves the top tilted by %.3f, unsmoothed %.3f", tilts["curvature-flow"], tilts["none"])
	}
	if tilts["narrow-range"] > 0.25*tilts["none"] {
		t.Errorf("the narrow-range filter leaves the top tilted by %.3f, unsmoothed %.3f", tilts["narrow-range"], tilts["none"])
	}
}

// sheetScene is a wall of water in the plane z = z0 in front of a red box: layers of particles one spacing h
// apart (flattened ellipsoids when there is one layer).
func sheetScene(layers int) *fluidScene {
	const h = 0.03
	fs := &fluidScene{radius: h / 2}
	for i := 0; i < 30; i++ {
		for j := 0; j < 20; j++ {
			for k := 0; k < layers; k++ {
				p := mgl32.Vec3{0.55 + float32(i)*h, 0.12 + float32(j)*h, 0.65 - float32(k)*h}
				kr := sphereKernel(p, 0.6*h, 30)
				if layers == 1 {
					kr.axes = [3]mgl32.Vec3{{0.8 * h, 0, 0}, {0, 0.8 * h, 0}, {0, 0, 0.2 * h}}
				}
				fs.add(p, kr)
			}
		}
	}
	return fs
}

// TestThinWaterShowsBackground puts a thin sheet of water in front of a strongly red obstacle: through the sheet
// the red shows, attenuated and tinted toward the water colour, while a thick block of water in the same place
// hides it. A second, small obstacle in front of the sheet hides the water: no fluid depth, no thickness, and its
// own colour.
func TestThinWaterShowsBackground(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 320, 240
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	front := scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{0.8, 0.25, 0.9}, Size: scene.Vec3{0.12, 0.2, 0.05}}
	sc := &scene.Scene{
		Domain: scene.Box{Min: scene.Vec3{0, 0, 0}, Max: scene.Vec3{2, 1, 1}},
		Obstacles: []scene.Obstacle{
			{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{1, 0.4, 0.3}, Size: scene.Vec3{0.5, 0.5, 0.2}}},
			{Shape: front},
		},
	}
	r.SetScene(sc)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	setParam(t, r, "render.obstacle_color", "0.95,0.08,0.05")
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{1, 0.5, 2.6}, mgl32.Vec3{0.95, 0.4, 0.4}, 40)
	cam := oc.Camera(float32(w) / h)

	bare := draw(t, r, fb, cam, Particles{})
	save(t, bare, "sheet_bare")
	thin := draw(t, r, fb, cam, sheetScene(1).upload(t))
	save(t, thin, "sheet_thin")
	depth := readRed(r.surf.splat)
	thickness := readRed(r.surf.thick)
	thick := draw(t, r, fb, cam, sheetScene(8).upload(t))
	save(t, thick, "sheet_thick")

	red := func(img *image.RGBA, x, y int) bool { cr, cg, cb := rgb(img, x, y); return cr > cg+60 && cr > cb+40 }
	var n, through, attenuated, hidden int
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if !red(bare, x, y) || depth[y*w+x] == 0 {
				continue
			}
			n++
			br, _, bb := rgb(bare, x, y)
			tr, _, tb := rgb(thin, x, y)
			if red(thin, x, y) {
				through++
			}
			if tr < br-10 && tb > bb+10 {
				attenuated++
			}
			if !red(thick, x, y) {
				hidden++
			}
		}
	}
	if n < 2000 {
		t.Fatalf("%d pixels see the red box through the sheet; the test scene is framed wrong", n)
	}
	if through < n*95/100 || attenuated < n*95/100 {
		t.Errorf("of %d pixels with the red box behind the thin sheet, %d are still red and %d are attenuated toward blue", n, through, attenuated)
	}
	if hidden < n*95/100 {
		t.Errorf("a thick block of water still shows the red box at %d of %d pixels", n-hidden, n)
	}

	// the small box in front hides the water
	q := ndc(cam, vec3(front.Center))
	cx, cy := int((q[0]+1)/2*w), int((1-q[1])/2*h)
	tw := r.surf.thick.w
	if d, th := depth[cy*w+cx], thickness[(cy/2)*tw+cx/2]; d != 0 || th != 0 || !red(thin, cx, cy) {
		cr, cg, cb := rgb(thin, cx, cy)
		t.Errorf("in front of the water, the obstacle's centre pixel has fluid depth %g, thickness %g and colour %v,%v,%v",
			d, th, cr, cg, cb)
	}
}

// splash is a scattered cloud like a splash: n particles at random in a 1 m cube with random orientations and
// radii, some lonely (spray), some degenerate (an axis of length 0), one with a NaN position and one with an
// infinite axis, and a few around the eye so that they reach the near plane or the plane of the eye.
func splash(n int, eye mgl32.Vec3, seed uint64) *fluidScene {
	rng := rand.New(rand.NewPCG(seed, 1))
	f := func(lo, hi float32) float32 { return lo + (hi-lo)*rng.Float32() }
	fs := &fluidScene{radius: 0.015}
	for i := 0; i < n; i++ {
		p := mgl32.Vec3{f(0.2, 1.2), f(0.1, 1.1), f(0.2, 1.2)}
		if i < 6 {
			p = eye.Add(mgl32.Vec3{f(-0.03, 0.03), f(-0.03, 0.03), f(-0.05, 0.02)})
		}
		rot := mgl32.Rotate3DX(f(0, 6.3)).Mul3(mgl32.Rotate3DY(f(0, 6.3))).Mul3(mgl32.Rotate3DZ(f(0, 6.3)))
		k := kernel{p, f(0, 40), rotatedAxes(rot, mgl32.Vec3{f(0.005, 0.04), f(0.005, 0.04), f(0.002, 0.03)})}
		switch i % 97 {
		case 7:
			k.axes[1] = mgl32.Vec3{}
		case 11:
			k.axes[2] = mgl32.Vec3{0, 0, 1e-30}
		}
		fs.add(p, k)
	}
	fs.pos[n/2] = mgl32.Vec3{float32(math.NaN()), 0, 0}
	fs.kernels[n/2].centre = fs.pos[n/2]
	fs.kernels[n/3].axes[0] = mgl32.Vec3{float32(math.Inf(1)), 0, 0}
	return fs
}

func finite32(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }

// TestSurfaceImagesFinite draws a resting pool and a splash with both smoothing methods into a float target and
// checks every intermediate image for NaN and Inf: the splat depth, the smoothed depth, the thickness, the
// normals (normals mode) and the shaded colour. Depths and thicknesses are never negative, and the smoothed
// depth has fluid exactly where the splat depth has.
func TestSurfaceImagesFinite(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 240, 180
	r := newTestRenderer(t)
	out, err := newTarget(w, h, gl.RGBA32F, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(out.Delete)
	pool, poolCam := poolSetup(t, r)
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0.7, 0.6, 1.3}, mgl32.Vec3{0.7, 0.6, 0.5}, 60)
	splashCam := oc.Camera(float32(w) / h)
	scenes := []struct {
		name string
		p    Particles
		cam  Camera
	}{
		{"pool", pool.upload(t), poolCam},
		{"splash", splash(3000, mgl32.Vec3{0.7, 0.6, 1.3}, 1).upload(t), splashCam},
	}
	for _, sc := range scenes {
		for _, sm := range []string{"curvature-flow", "narrow-range"} {
			setParam(t, r, "render.smoothing", sm)
			for _, mode := range []string{"surface", "normals"} {
				setParam(t, r, "render.mode", mode)
				out.bind()
				r.Draw(Viewport{w, h}, sc.cam, sc.p)
				if err := glh.CheckError("Draw"); err != nil {
					t.Fatal(err)
				}
				what := sc.name + "/" + sm + "/" + mode
				if r.surf.shaded == r.surf.splat {
					t.Fatalf("%s: the composite shaded the unsmoothed depth", what)
				}
				raw, smooth, thick := readRed(r.surf.splat), readRed(r.surf.shaded), readRed(r.surf.thick)
				color := readRGBA(out)
				fluid, bad := 0, 0
				report := func(format string, args ...any) {
					bad++
					if bad <= 5 {
						t.Errorf(what+": "+format, args...)
					}
				}
				for i := range raw {
					if !finite32(raw[i]) || raw[i] < 0 || !finite32(smooth[i]) || smooth[i] < 0 {
						report("pixel %d: depth %g, smoothed %g", i, raw[i], smooth[i])
					}
					if (raw[i] > 0) != (smooth[i] > 0) {
						report("pixel %d: fluid depth %g became %g in smoothing", i, raw[i], smooth[i])
					}
					if raw[i] > 0 {
						fluid++
					}
					for _, c := range color[i] {
						if !finite32(c) {
							report("pixel %d: colour %v", i, color[i])
							break
						}
					}
					if mode == "normals" && raw[i] > 0 {
						var l2 float64
						for _, c := range color[i][:3] {
							l2 += float64(2*c-1) * float64(2*c-1)
						}
						if math.Abs(l2-1) > 0.01 {
							report("pixel %d: normal %v is not a unit vector", i, color[i])
						}
					}
				}
				for i, v := range thick {
					if !finite32(v) || v < 0 {
						report("thickness pixel %d is %g", i, v)
					}
				}
				if fluid < w*h/20 {
					t.Errorf("%s: only %d pixels have fluid; the test scene is framed wrong", what, fluid)
				}
			}
		}
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
}

// TestRenderModes draws the pool in every render mode: each draws without GL errors and looks different from the
// others where the water is; the depth image grows brighter with distance, the normals image is "up" on the top
// face, the thickness image is brightest where the water is thickest. Draw leaves the documented GL state, and
// every pass of the surface is timed.
func TestRenderModes(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 320, 240
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	fs, cam := poolSetup(t, r)
	p := fs.upload(t)
	modes := r.params.All()[0].Items
	imgs := map[string]*image.RGBA{}
	var depth []float32
	for _, m := range modes {
		setParam(t, r, "render.mode", m)
		imgs[m] = draw(t, r, fb, cam, p)
		save(t, imgs[m], "mode_"+m)
		if m == "surface" {
			depth = readRed(r.surf.shaded)
		}
	}
	if len(modes) != 7 || modes[6] != "mesh" {
		t.Fatalf("render.mode has the items %v", modes)
	}
	modes = modes[:6] // mesh, without a mesh, draws the splatted surface (TestFluidMesh)
	for i, a := range modes {
		for _, b := range modes[i+1:] {
			var diff float64
			var n int
			for k, z := range depth {
				if z > 0 {
					x, y := k%w, k/w
					ar, ag, ab := rgb(imgs[a], x, y)
					br, bg, bb := rgb(imgs[b], x, y)
					diff += math.Abs(ar-br) + math.Abs(ag-bg) + math.Abs(ab-bb)
					n++
				}
			}
			if diff/float64(n) < 20 {
				t.Errorf("modes %s and %s differ by %.1f levels on average over the water", a, b, diff/float64(n))
			}
		}
	}

	// depth: grey rises with the eye depth (quartiles of the fluid pixels by depth)
	type px struct {
		z    float32
		grey float64
	}
	var pxs []px
	for k, z := range depth {
		if z > 0 {
			g, _, _ := rgb(imgs["depth"], k%w, k/w)
			pxs = append(pxs, px{z, g})
		}
	}
	slices.SortFunc(pxs, func(a, b px) int { return cmp.Compare(a.z, b.z) })
	var means [4]float64
	for q := range means {
		part := pxs[q*len(pxs)/4 : (q+1)*len(pxs)/4]
		for _, e := range part {
			means[q] += e.grey / float64(len(part))
		}
	}
	if !(means[0]+3 < means[1] && means[1]+3 < means[2] && means[2]+3 < means[3]) {
		t.Errorf("depth mode: mean grey of the nearest to the farthest quarter of the water %.1f, want rising", means)
	}

	// normals: up, (0, 1, 0) ↦ (128, 255, 128), on the top face
	top := poolTop(cam, w, h)
	var up, n int
	for y := top.Min.Y; y < top.Max.Y; y++ {
		for x := top.Min.X; x < top.Max.X; x++ {
			cr, cg, cb := rgb(imgs["normals"], x, y)
			n++
			if cg > 245 && math.Abs(cr-128) < 20 && math.Abs(cb-128) < 20 {
				up++
			}
		}
	}
	if up < n*95/100 {
		t.Errorf("normals mode: %d of %d pixels on the pool's top face show an upward normal", up, n)
	}

	// thickness: the middle of the top face (looking through the whole depth) is brighter than the pool's side
	// rim (looking through a corner)
	mid := image.Pt((top.Min.X+top.Max.X)/2, (top.Min.Y+top.Max.Y)/2)
	rimX, rimY := -1, mid.Y
	for x := 0; x < w; x++ {
		if depth[rimY*w+x] > 0 {
			rimX = x + 1
			break
		}
	}
	gMid, _, _ := rgb(imgs["thickness"], mid.X, mid.Y)
	gRim, _, _ := rgb(imgs["thickness"], rimX, rimY)
	if rimX < 0 || gMid < gRim+40 {
		t.Errorf("thickness mode: %.0f in the middle of the pool, %.0f at its side (x = %d)", gMid, gRim, rimX)
	}

	// Draw leaves the documented state behind, also after the surface passes.
	setParam(t, r, "render.mode", "surface")
	fb.Bind()
	gl.ActiveTexture(gl.TEXTURE3)
	r.Draw(Viewport{w, h}, cam, p)
	var v [4]int32
	var prog, vao, target, active, depthFunc int32
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &target)
	gl.GetIntegerv(gl.VIEWPORT, &v[0])
	gl.GetIntegerv(gl.CURRENT_PROGRAM, &prog)
	gl.GetIntegerv(gl.VERTEX_ARRAY_BINDING, &vao)
	gl.GetIntegerv(gl.ACTIVE_TEXTURE, &active)
	gl.GetIntegerv(gl.DEPTH_FUNC, &depthFunc)
	bound := false
	for u := uint32(0); u < 4; u++ {
		var tex int32
		gl.ActiveTexture(gl.TEXTURE0 + u)
		gl.GetIntegerv(gl.TEXTURE_BINDING_2D, &tex)
		bound = bound || tex != 0
	}
	gl.ActiveTexture(uint32(active))
	var depthMask bool
	gl.GetBooleanv(gl.DEPTH_WRITEMASK, &depthMask)
	if uint32(target) != fb.ID() || v != [4]int32{0, 0, w, h} || prog != 0 || vao != 0 || !depthMask || bound ||
		active != gl.TEXTURE0 ||
		depthFunc != gl.LESS || !gl.IsEnabled(gl.DEPTH_TEST) || gl.IsEnabled(gl.BLEND) || gl.IsEnabled(gl.CULL_FACE) ||
		gl.IsEnabled(gl.PROGRAM_POINT_SIZE) {
		t.Errorf("state after a surface Draw: framebuffer %d (want %d), viewport %v, program %d, VAO %d, depth func 0x%x, "+
			"depth mask %v, depth test %v, blend %v, cull %v, program point size %v, active texture 0x%x, textures bound %v",
			target, fb.ID(), v, prog, vao, depthFunc, depthMask, gl.IsEnabled(gl.DEPTH_TEST), gl.IsEnabled(gl.BLEND),
			gl.IsEnabled(gl.CULL_FACE), gl.IsEnabled(gl.PROGRAM_POINT_SIZE), active, bound)
	}
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	gl.Finish()
	passes, ok := r.Timings()
	if !ok {
		t.Fatal("no render timings after glFinish")
	}
	var names []string
	for _, ps := range passes {
		names = append(names, ps.Name)
	}
	// the camera is the frames' before: the still passes' picture is copied
	if got, want := strings.Join(names, ","), "background,splat,thickness,smooth,composite,spray"; got != want {
		t.Errorf("timed passes %q, want %q", got, want)
	}
}

// TestSpray draws a blob of well-connected particles and a few lonely ones: the lonely ones are white points, not
// part of the surface, unless render.spray_neighbors is 0. Without ellipsoids nothing is spray.
func TestSpray(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 320, 240
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	fs := &fluidScene{radius: 0.02}
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			for k := 0; k < 8; k++ {
				p := mgl32.Vec3{float32(i), float32(j), float32(k)}.Mul(0.04).Add(mgl32.Vec3{-0.6, -0.15, 0})
				fs.add(p, sphereKernel(p, 0.025, 30))
			}
		}
	}
	lonely := []mgl32.Vec3{{0.2, 0.3, 0}, {0.4, -0.1, 0.1}, {0.6, 0.2, -0.1}}
	for _, q := range lonely {
		fs.add(q, sphereKernel(q, 0.02, 1))
	}
	p := fs.upload(t)
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0, 0.1, 2}, mgl32.Vec3{0, 0, 0}, 40)
	cam := oc.Camera(float32(w) / h)
	white := func(img *image.RGBA, x, y int) bool {
		cr, cg, cb := rgb(img, x, y)
		return cr > 200 && cg > 200 && cb > 200
	}
	pixel := func(q mgl32.Vec3) (int, int) {
		c := ndc(cam, q)
		return int((c[0] + 1) / 2 * w), int((1 - c[1]) / 2 * h)
	}
	spray := draw(t, r, fb, cam, p)
	save(t, spray, "spray")
	depth := readRed(r.surf.splat)
	setParam(t, r, "render.spray_neighbors", "0")
	none := draw(t, r, fb, cam, p)
	save(t, none, "spray_off")
	noneDepth := readRed(r.surf.splat)
	setParam(t, r, "render.spray_neighbors", "5")
	p.Ellipsoids = nil
	spheres := draw(t, r, fb, cam, p)
	spheresDepth := readRed(r.surf.splat)
	for _, q := range lonely {
		x, y := pixel(q)
		i := y*w + x
		if !white(spray, x, y) || depth[i] != 0 {
			cr, cg, cb := rgb(spray, x, y)
			t.Errorf("spray particle at %v: pixel (%d, %d) is %v,%v,%v with fluid depth %g; want white, no fluid",
				q, x, y, cr, cg, cb, depth[i])
		}
		if white(none, x, y) || noneDepth[i] == 0 {
			t.Errorf("with render.spray_neighbors 0 the particle at %v is not drawn as water", q)
		}
		if white(spheres, x, y) || spheresDepth[i] == 0 {
			t.Errorf("without ellipsoids the particle at %v is not drawn as water", q)
		}
	}
	if x, y := pixel(mgl32.Vec3{-0.46, -0.01, 0.28}); !tinted(spray, x, y) {
		t.Errorf("the blob's centre pixel (%d, %d) is not water", x, y)
	}
}

// TestSurfaceResize draws the pool at several viewport sizes in a row (the odd one rounds the half-size
// thickness up): the surface's images follow the viewport, and the water covers the same part of each frame as
// it does at the first size, so nothing of a stale size is left.
func TestSurfaceResize(t *testing.T) {
	gltest.Acquire(t)
	r := newTestRenderer(t)
	fs, _ := poolSetup(t, r)
	p := fs.upload(t)
	oc := NewOrbitCamera()
	oc.Yaw, oc.Pitch = 0.3, 0.5
	oc.Frame(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1.3, 0.8, 1.3})
	// water[y][x] of the reference frame, sampled at the centres of a 40×30 grid of cells
	var ref [30][40]bool
	for step, size := range []image.Point{{320, 240}, {160, 120}, {241, 181}, {320, 240}} {
		w, h := size.X, size.Y
		fb := newTestFramebuffer(t, w, h)
		img := draw(t, r, fb, oc.Camera(float32(w)/float32(h)), p)
		save(t, img, fmt.Sprintf("resize_%dx%d", w, h))
		tw, th := (w+1)/2, (h+1)/2
		for _, tg := range []struct {
			name string
			t    *target
			w, h int
		}{{"scene", r.surf.scene, w, h}, {"splat", r.surf.splat, w, h}, {"smooth[0]", r.surf.smooth[0], w, h},
			{"smooth[1]", r.surf.smooth[1], w, h}, {"thickness", r.surf.thick, tw, th}, {"blur", r.surf.blur, tw, th}} {
			if tg.t.w != tg.w || tg.t.h != tg.h || tg.t.color.W != tg.w || tg.t.color.H != tg.h {
				t.Errorf("%dx%d: the %s image is %dx%d, want %dx%d", w, h, tg.name, tg.t.color.W, tg.t.color.H, tg.w, tg.h)
			}
		}
		var same, n int
		for j := range ref {
			for i := range ref[j] {
				x, y := (2*i+1)*w/80, (2*j+1)*h/60
				water := tinted(img, x, y)
				if step == 0 {
					ref[j][i] = water
					continue
				}
				n++
				if water == ref[j][i] {
					same++
				}
			}
		}
		if step > 0 && same < n*97/100 {
			t.Errorf("%dx%d: the water covers a different part of the frame than at 320x240 (%d of %d samples agree)",
				w, h, same, n)
		}
	}
	setParam(t, r, "render.thickness_half", "false")
	fb := newTestFramebuffer(t, 200, 100)
	draw(t, r, fb, oc.Camera(2), p)
	if r.surf.thick.w != 200 || r.surf.thick.h != 100 {
		t.Errorf("full-size thickness: the image is %dx%d, want 200x100", r.surf.thick.w, r.surf.thick.h)
	}
}

// TestRenderParams checks the surface's parameters without a GL context: registered under render., described,
// defaulting to the surface mode, and parsed from --set style text.
func TestRenderParams(t *testing.T) {
	s := NewParams()
	for _, name := range []string{"render.mode", "render.smoothing", "render.smooth_iterations", "render.smooth_dt",
		"render.filter_radius", "render.depth_threshold", "render.absorption", "render.refraction",
		"render.splat_scale", "render.spray_neighbors", "render.spray_size", "render.thickness_scale", "render.scale",
		"render.thickness_half", "render.specular", "render.obstacle_color", "render.color", "render.water_color"} {
		if _, ok := s.Lookup(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
	for _, p := range s.All() {
		if !strings.HasPrefix(p.Name, "render.") || p.Desc == "" || strings.Contains(p.Desc, "\n") {
			t.Errorf("%s: want a render. name and a one-line description, have %q", p.Name, p.Desc)
		}
	}
	if p, _ := s.Lookup("render.mode"); p.String() != "surface" {
		t.Errorf("render.mode defaults to %s, want surface", p.String())
	}
	if err := s.SetString("render.smoothing", "curvature-flow"); err != nil {
		t.Error(err)
	}
	if err := s.SetString("render.mode", "wireframe"); err == nil {
		t.Error("render.mode=wireframe was accepted")
	}
	if err := s.SetString("render.filter_radius", "1000"); err == nil {
		t.Error("render.filter_radius=1000 was accepted")
	}
}

// TestTransparentBackground draws the pool with SetTransparent: the colours are those of the opaque picture, the
// water is opaque, and the sky around it is transparent; without it every pixel is opaque.
func TestTransparentBackground(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 160, 120
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	fs, cam := poolSetup(t, r)
	p := fs.upload(t)
	for _, mode := range []string{"surface", "particles"} {
		setParam(t, r, "render.mode", mode)
		r.SetTransparent(false)
		opaque := draw(t, r, fb, cam, p)
		r.SetTransparent(true)
		clear := draw(t, r, fb, cam, p)
		r.SetTransparent(false)
		save(t, clear, "transparent_"+mode)
		var rgbDiff, transparent, water, waterOpaque int
		var depth []float32
		if mode == "surface" {
			depth = readRed(r.surf.shaded)
		}
		for k := 0; k < w*h; k++ {
			i := 4 * k
			if opaque.Pix[i+3] != 255 {
				t.Fatalf("%s: the opaque picture has alpha %d at pixel %d", mode, opaque.Pix[i+3], k)
			}
			for c := 0; c < 3; c++ {
				if opaque.Pix[i+c] != clear.Pix[i+c] {
					rgbDiff++
					break
				}
			}
			if clear.Pix[i+3] == 0 {
				transparent++
			}
			if mode == "surface" && depth[k] > 0 {
				water++
				if clear.Pix[i+3] == 255 {
					waterOpaque++
				}
			}
		}
		corner := clear.Pix[3] // top left: sky
		if rgbDiff != 0 || corner != 0 || transparent < w*h/10 || waterOpaque != water {
			t.Errorf("%s: %d pixels change colour, top-left alpha %d, %d of %d pixels transparent, %d of %d water pixels opaque",
				mode, rgbDiff, corner, transparent, w*h, waterOpaque, water)
		}
		if mode == "surface" && water < 100 {
			t.Errorf("surface: only %d water pixels", water)
		}
	}
}

// render.cull_interior leaves particles whose kernels are flagged interior out of the splat depth pass, and only
// out of it: with every particle of the pool flagged the depth image is empty, without the parameter it is not,
// and the thickness image is the same either way.
func TestCullInterior(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 160, 120
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	fs, cam := poolSetup(t, r)
	flat := fs.flat()
	for i := range flat {
		flat[i].Axes[0][3] = 1 // Interior
	}
	var bufs FrameBuffers
	t.Cleanup(bufs.Delete)
	p, err := bufs.Upload(fs.frame())
	if err == nil {
		p, err = bufs.UploadEllipsoids(p, flat)
	}
	if err != nil {
		t.Fatal(err)
	}
	covered := func() (depth int, thick []float32) {
		for _, d := range readRed(r.surf.splat) {
			if d > 0 {
				depth++
			}
		}
		return depth, readRed(r.surf.thick)
	}
	setParam(t, r, "render.cull_interior", "false")
	draw(t, r, fb, cam, p)
	offDepth, offThick := covered()
	setParam(t, r, "render.cull_interior", "true")
	draw(t, r, fb, cam, p)
	onDepth, onThick := covered()
	if offDepth < w*h/10 || onDepth != 0 {
		t.Errorf("fluid depth at %d pixels without culling, %d with every particle interior culled (want many, 0)", offDepth, onDepth)
	}
	// the thickness blur follows the depth image (an empty one leaves the chords unblurred), so compare totals
	var on, off float64
	for i := range offThick {
		off += float64(offThick[i])
		on += float64(onThick[i])
	}
	t.Logf("depth at %d pixels without culling; thickness totals %.2f culled, %.2f not", offDepth, on, off)
	if !(off > 0) || math.Abs(on-off) > 0.03*off {
		t.Errorf("thickness totals %g with the interior culled, %g without: the thickness must count every particle", on, off)
	}
}
