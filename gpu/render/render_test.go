package render

import (
	"flag"
	"image"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	gl "github.com/go-gl/gl/v4.1-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/shaders"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	csurface "github.com/slosh/slosh/sim/surface"
)

var saveImages = flag.String("saveimages", "", "write the rendered test frames as PNGs into this directory")

// save writes img to the -saveimages directory, if one was given.
func save(t *testing.T, img *image.RGBA, name string) {
	t.Helper()
	if *saveImages == "" {
		return
	}
	path := filepath.Join(*saveImages, name+".png")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if err := png.Encode(fh, img); err != nil {
		t.Fatal(err)
	}
}

func newTestRenderer(t *testing.T) *Renderer {
	t.Helper()
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Delete)
	return r
}

func newTestFramebuffer(t *testing.T, w, h int) *glh.Framebuffer {
	t.Helper()
	fb, err := glh.NewFramebuffer(w, h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fb.Delete)
	return fb
}

func setParam(t *testing.T, r *Renderer, name, value string) {
	t.Helper()
	if err := r.Params().SetString(name, value); err != nil {
		t.Fatal(err)
	}
}

// draw renders one frame into fb and reads it back.
func draw(t *testing.T, r *Renderer, fb *glh.Framebuffer, cam Camera, p Particles) *image.RGBA {
	t.Helper()
	fb.Bind()
	r.Draw(Viewport{fb.W, fb.H}, cam, p)
	if err := glh.CheckError("Draw"); err != nil {
		t.Fatal(err)
	}
	img := Screenshot(fb.ID(), fb.W, fb.H)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	return img
}

func lattice(n int, origin mgl32.Vec3, h float32) *sim.Frame {
	f := &sim.Frame{Radius: h / 2}
	f.Resize(n * n * n)
	k := 0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for l := 0; l < n; l++ {
				p := origin.Add(mgl32.Vec3{float32(i), float32(j), float32(l)}.Mul(h))
				f.Pos[k] = [4]float32{p[0], p[1], p[2], 0}
				f.Rho[k] = 1
				f.ID[k] = uint32(k)
				k++
			}
		}
	}
	return f
}

// pixelRay is the ray through the centre of pixel (x, y) (top row first) in eye space, from the eye at the origin,
// scaled so its z component is −1 (a symmetric perspective projection is assumed).
func pixelRay(cam Camera, w, h, x, y int) [3]float64 {
	nx := 2*(float64(x)+0.5)/float64(w) - 1
	ny := 1 - 2*(float64(y)+0.5)/float64(h)
	return [3]float64{nx / float64(cam.Proj[0]), ny / float64(cam.Proj[5]), -1}
}

// raySphere returns the ray parameter of the first intersection of o + t·d with a sphere, or ok false.
func raySphere(d, c [3]float64, r float64) (float64, bool) {
	dd := d[0]*d[0] + d[1]*d[1] + d[2]*d[2]
	b := (d[0]*c[0] + d[1]*c[1] + d[2]*c[2]) / dd
	var m2 float64 // squared distance from the centre to the ray
	for k := 0; k < 3; k++ {
		e := c[k] - b*d[k]
		m2 += e * e
	}
	if m2 > r*r {
		return 0, false
	}
	return b - math.Sqrt((r*r-m2)/dd), true
}

func eyeSpace(cam Camera, p mgl32.Vec3) [3]float64 {
	q := cam.View.Mul4x1(p.Vec4(1))
	return [3]float64{float64(q[0]), float64(q[1]), float64(q[2])}
}

func rgb(img *image.RGBA, x, y int) (r, g, b float64) {
	c := img.RGBAAt(x, y)
	return float64(c.R), float64(c.G), float64(c.B)
}

// Colour classes of the test scene's pixels.
func waterish(r, g, b float64) bool { return b > 60 && b > 2.5*r && b > 1.3*g }
func reddish(r, g, b float64) bool  { return r > 60 && r > 2*b && r > 1.3*g }
func neutral(r, g, b float64) bool {
	return math.Max(r, math.Max(g, b))-math.Min(r, math.Min(g, b)) < 40
}

func TestProgramsBuild(t *testing.T) {
	gltest.Acquire(t)
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.programs() {
		if p == nil || p.ID() == 0 {
			t.Errorf("a render program is missing after New")
		}
	}
	r.Delete()
	r.Delete()
	if err := glh.CheckError("deleting the renderer twice"); err != nil {
		t.Error(err)
	}
	r.Draw(Viewport{16, 16}, NewOrbitCamera().Camera(1), Particles{}) // a deleted renderer draws nothing
	if err := glh.CheckError("drawing with a deleted renderer"); err != nil {
		t.Error(err)
	}
}

func TestBrokenShaderNamesFileAndProgram(t *testing.T) {
	gltest.Acquire(t)
	fsys := fstest.MapFS{}
	err := fs.WalkDir(shaders.FS(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(shaders.FS(), path)
		fsys[path] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	src := string(fsys["render_particles.frag"].Data)
	fsys["render_particles.frag"] = &fstest.MapFile{Data: []byte(strings.Replace(src, "discard;", "discard_me;", 1))}
	r, err := newRenderer(fsys)
	if err == nil {
		r.Delete()
		t.Fatal("a broken particle shader built")
	}
	if msg := err.Error(); !strings.Contains(msg, "particle program") || !strings.Contains(msg, "render_particles.frag:") {
		t.Errorf("error does not name the program and file:\n%v", err)
	}
	if err := glh.CheckError("after a failed New"); err != nil {
		t.Error(err)
	}
}

// TestParticleBlock draws a 10×10×10 block of particles in a tank and compares every 9th pixel with a ray cast of
// the same spheres in Go: pixels that see a particle must have its colour, pixels that see none must not.
func TestParticleBlock(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 320, 240
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	sc := &scene.Scene{Domain: scene.Box{Min: scene.Vec3{0, 0, 0}, Max: scene.Vec3{1, 0.8, 1}}}
	r.SetScene(sc)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}

	const n, spacing = 10, 0.04
	f := lattice(n, mgl32.Vec3{0.32, 0.02, 0.32}, spacing)
	// the upper half moves at the top of the speed map and is compressed to the top of the density map
	moving := func(k int) bool { return f.Pos[k][1] > 0.2 }
	for k := 0; k < f.N; k++ {
		if moving(k) {
			f.Vel[k] = [4]float32{2, 0, 0, 0}
			f.Rho[k] = 1.1
		}
	}
	var fbuf FrameBuffers
	defer fbuf.Delete()
	p, err := fbuf.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	setParam(t, r, "render.mode", "particles")
	setParam(t, r, "render.water_color", "0.1,0.35,0.9")
	setParam(t, r, "render.speed_max", "2")
	setParam(t, r, "render.density_range", "0.1")

	oc := NewOrbitCamera()
	oc.Yaw, oc.Pitch = 0.3, 0.3
	oc.Frame(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{1, 0.8, 1})
	cam := oc.Camera(float32(w) / h)

	// classify the sample pixels: which particle the ray hits first, or none (with a margin around silhouettes)
	centres := make([][3]float64, f.N)
	for k := range centres {
		centres[k] = eyeSpace(cam, mgl32.Vec3{f.Pos[k][0], f.Pos[k][1], f.Pos[k][2]})
	}
	rad := float64(f.Radius)
	type sample struct{ x, y, hit int } // hit: particle index, −1 none
	var samples []sample
	for y := 1; y < h; y += 3 {
		for x := 1; x < w; x += 3 {
			d := pixelRay(cam, w, h, x, y)
			best, hit, grazing := math.Inf(1), -1, false
			for k, c := range centres {
				if t, ok := raySphere(d, c, rad); ok && t < best {
					best, hit = t, k
				}
				if _, ok := raySphere(d, c, 1.25*rad); ok {
					grazing = true
				}
			}
			if hit >= 0 || !grazing {
				samples = append(samples, sample{x, y, hit})
			}
		}
	}

	check := func(mode string, want func(hit int, r, g, b float64) bool) {
		t.Helper()
		setParam(t, r, "render.color", mode)
		img := draw(t, r, fb, cam, p)
		save(t, img, "block_"+mode)
		var hits, misses, badHits, badMisses int
		for _, s := range samples {
			cr, cg, cb := rgb(img, s.x, s.y)
			ok := want(s.hit, cr, cg, cb)
			if s.hit >= 0 {
				hits++
				if !ok {
					badHits++
				}
			} else {
				misses++
				if !ok {
					badMisses++
				}
			}
		}
		if hits < 300 || misses < 3000 {
			t.Fatalf("%s: the block covers %d samples and leaves %d; the test scene is framed wrong", mode, hits, misses)
		}
		if badHits > hits/20 || badMisses > misses/100 {
			t.Errorf("%s: %d of %d pixels on particles and %d of %d pixels off them have the wrong colour",
				mode, badHits, hits, badMisses, misses)
		}
	}
	check("water", func(hit int, r, g, b float64) bool { return waterish(r, g, b) == (hit >= 0) })
	check("speed", func(hit int, r, g, b float64) bool {
		switch {
		case hit < 0:
			return !reddish(r, g, b) && !waterish(r, g, b)
		case moving(hit):
			return reddish(r, g, b)
		default:
			return b > 60 && b > 2*r // slow: the blue end of the map
		}
	})
	check("density", func(hit int, r, g, b float64) bool {
		switch {
		case hit < 0:
			return !reddish(r, g, b)
		case moving(hit):
			return reddish(r, g, b) // compressed by the whole range: the red end
		default:
			return neutral(r, g, b) // at rest density: white, shaded grey
		}
	})

	// Draw leaves the documented state behind.
	var v [4]int32
	gl.GetIntegerv(gl.VIEWPORT, &v[0])
	var prog, vao, target int32
	gl.GetIntegerv(gl.CURRENT_PROGRAM, &prog)
	gl.GetIntegerv(gl.VERTEX_ARRAY_BINDING, &vao)
	fb.Bind()
	r.Draw(Viewport{w, h}, cam, p)
	gl.GetIntegerv(gl.DRAW_FRAMEBUFFER_BINDING, &target)
	gl.GetIntegerv(gl.VIEWPORT, &v[0])
	gl.GetIntegerv(gl.CURRENT_PROGRAM, &prog)
	gl.GetIntegerv(gl.VERTEX_ARRAY_BINDING, &vao)
	if uint32(target) != fb.ID() || v != [4]int32{0, 0, w, h} || prog != 0 || vao != 0 ||
		!gl.IsEnabled(gl.DEPTH_TEST) || gl.IsEnabled(gl.BLEND) || gl.IsEnabled(gl.CULL_FACE) {
		t.Errorf("state after Draw: framebuffer %d (want %d), viewport %v, program %d, VAO %d, depth test %v, blend %v, cull %v",
			target, fb.ID(), v, prog, vao, gl.IsEnabled(gl.DEPTH_TEST), gl.IsEnabled(gl.BLEND), gl.IsEnabled(gl.CULL_FACE))
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
	// the camera has not moved since the frame before: the still passes' picture is copied
	if got := strings.Join(names, ","); got != "background,particles" {
		t.Errorf("timed passes %q, want background,particles", got)
	}
	r.SetScene(sc) // the same scene again: the still passes draw once more
	draw(t, r, fb, cam, p)
	gl.Finish()
	passes, _ = r.Timings()
	names = names[:0]
	for _, ps := range passes {
		names = append(names, ps.Name)
	}
	if got := strings.Join(names, ","); got != "sky,ground,tank,background,particles" {
		t.Errorf("after SetScene: timed passes %q, want sky,ground,tank,background,particles (no obstacles in this scene)", got)
	}
}

// TestImpostorDepth checks that a sphere impostor writes the depth of the exact ray–sphere hit, in perspective.
func TestImpostorDepth(t *testing.T) {
	gltest.Acquire(t)
	const size = 255 // odd: the middle pixel's centre is on the optical axis
	const dist, radius = 5.0, 0.5
	r := newTestRenderer(t)
	setParam(t, r, "render.mode", "particles")
	fb := newTestFramebuffer(t, size, size)
	f := &sim.Frame{Radius: radius}
	f.Resize(1)
	f.Rho[0] = 1
	var fbuf FrameBuffers
	defer fbuf.Delete()
	p, err := fbuf.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0, 0, dist}, mgl32.Vec3{0, 0, 0}, 40)
	cam := oc.Camera(1)
	draw(t, r, fb, cam, p)
	depth := glh.ReadDepth(fb)

	eyeDepth := func(x, y int) float64 {
		d := float64(depth[y*size+x])
		n, f := float64(cam.Near), float64(cam.Far)
		ndc := 2*d - 1
		return 2 * f * n / ((f + n) - ndc*(f-n))
	}
	mid := size / 2
	if got := eyeDepth(mid, mid); math.Abs(got-(dist-radius)) > 1e-3 {
		t.Errorf("depth at the centre = %.5f m, want distance − radius = %.5f", got, dist-radius)
	}
	// a pixel 0.7 r to the side of the centre: the exact hit differs from the orthographic sprite's by 2.4 cm
	x := int(math.Round((float64(cam.Proj[0])*0.7*radius/dist+1)/2*size - 0.5))
	ray := pixelRay(cam, size, size, x, mid)
	want, ok := raySphere(ray, [3]float64{0, 0, -dist}, radius)
	if !ok {
		t.Fatalf("pixel %d misses the sphere", x)
	}
	if got := eyeDepth(x, mid); math.Abs(got-want) > 1e-3 {
		t.Errorf("depth at pixel %d (0.7 r off centre) = %.5f m, want the ray–sphere hit at %.5f", x, got, want)
	}
	if d := depth[0]; d != 1 {
		t.Errorf("depth in the corner, away from the sphere = %g, want the cleared 1", d)
	}
}

// TestObstaclesShow draws a scene with one obstacle of each kind, with and without obstacles: the sphere's pixels
// change to stone, each obstacle's centre pixel shows the obstacle, and pixels away from all of them do not change.
//
// Whether a centre pixel shows its obstacle is judged with the obstacles drawn red, not by how far the stone
// differs from what lies behind: the sky, the ground and its grid lines are greys like the stone, and the box's
// centre falls on a grid line whose grey is within one level of the box's lit face (RGB 118,114,106 against
// 106,107,112 on Mesa's llvmpipe and 106,108,112 on an NVIDIA GPU: a colour difference of 25 on one, 24 on the other).
func TestObstaclesShow(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 320, 240
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	sphere := scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.5, 0.3, 0.5}, Radius: 0.2}
	sc := &scene.Scene{
		Domain: scene.Box{Min: scene.Vec3{0, 0, 0}, Max: scene.Vec3{2, 1, 1}},
		Obstacles: []scene.Obstacle{
			{Shape: sphere},
			{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{1.1, 0.2, 0.5}, Size: scene.Vec3{0.2, 0.3, 0.2}, Rotation: scene.Vec3{0, 30, 10}}},
			{Shape: scene.Shape{Kind: scene.ShapeCapsule, A: scene.Vec3{1.45, 0.1, 0.5}, B: scene.Vec3{1.45, 0.5, 0.5}, Radius: 0.08}},
			{Shape: scene.Shape{Kind: scene.ShapeCylinder, Center: scene.Vec3{1.75, 0.2, 0.5}, Radius: 0.1, Height: 0.3}},
		},
	}
	r.SetScene(sc)
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	oc := NewOrbitCamera()
	oc.Yaw, oc.Pitch = 0.2, 0.25
	oc.Frame(mgl32.Vec3{0, 0, 0}, mgl32.Vec3{2, 1, 1})
	cam := oc.Camera(float32(w) / h)

	with := draw(t, r, fb, cam, Particles{})
	save(t, with, "obstacles")
	setParam(t, r, "render.show_obstacles", "false")
	without := draw(t, r, fb, cam, Particles{})
	setParam(t, r, "render.show_obstacles", "true")
	setParam(t, r, "render.obstacle_color", "0.95,0.08,0.05")
	red := draw(t, r, fb, cam, Particles{})
	changed := func(x, y int) bool {
		a, b := with.RGBAAt(x, y), without.RGBAAt(x, y)
		d := math.Abs(float64(a.R)-float64(b.R)) + math.Abs(float64(a.G)-float64(b.G)) + math.Abs(float64(a.B)-float64(b.B))
		return d > 24
	}

	toPixel := func(p scene.Vec3) (int, int) {
		q := ndc(cam, vec3(p))
		return int((q[0] + 1) / 2 * w), int((1 - q[1]) / 2 * h)
	}
	for i, o := range sc.Obstacles {
		c := o.Center
		if o.Kind == scene.ShapeCapsule {
			c = o.A.Lerp(o.B, 0.5)
		}
		x, y := toPixel(c)
		a, b := red.RGBAAt(x, y), without.RGBAAt(x, y)
		if !reddish(rgb(red, x, y)) || reddish(rgb(without, x, y)) {
			t.Errorf("obstacles[%d] (%s): its centre pixel (%d, %d) is RGB %d,%d,%d with the obstacles drawn red and %d,%d,%d without them; want red only with them",
				i, o.String(), x, y, a.R, a.G, a.B, b.R, b.G, b.B)
		}
	}

	// screen boxes around every obstacle, a few pixels larger
	type rect struct{ x0, y0, x1, y1 int }
	var boxes []rect
	for _, o := range sc.Obstacles {
		b := o.Bounds()
		bx := rect{w, h, 0, 0}
		for i := 0; i < 8; i++ {
			x, y := toPixel(scene.Vec3{pickF(i&1 != 0, b.Min[0], b.Max[0]), pickF(i&2 != 0, b.Min[1], b.Max[1]), pickF(i&4 != 0, b.Min[2], b.Max[2])})
			bx = rect{min(bx.x0, x-3), min(bx.y0, y-3), max(bx.x1, x+3), max(bx.y1, y+3)}
		}
		boxes = append(boxes, bx)
	}
	c := eyeSpace(cam, vec3(sphere.Center))
	var on, onChanged, onStone, off, offChanged int
	for y := 1; y < h; y += 3 {
		for x := 1; x < w; x += 3 {
			d := pixelRay(cam, w, h, x, y)
			if _, ok := raySphere(d, c, 0.9*sphere.Radius); ok {
				on++
				if changed(x, y) {
					onChanged++
				}
				if cr, cg, cb := rgb(with, x, y); neutral(cr, cg, cb) {
					onStone++
				}
				continue
			}
			inside := false
			for _, b := range boxes {
				inside = inside || x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1
			}
			if !inside {
				off++
				if changed(x, y) {
					offChanged++
				}
			}
		}
	}
	if on < 50 || off < 1000 {
		t.Fatalf("the sphere covers %d samples and %d lie away from all obstacles; the test scene is framed wrong", on, off)
	}
	if onChanged < on*95/100 || onStone < on*95/100 {
		t.Errorf("on the sphere obstacle: %d of %d pixels changed, %d are stone-grey", onChanged, on, onStone)
	}
	if offChanged > 0 {
		t.Errorf("%d of %d pixels away from every obstacle changed when obstacles were hidden", offChanged, off)
	}

	sc.Obstacles = append(sc.Obstacles, scene.Obstacle{Shape: scene.Shape{Kind: scene.ShapeMesh, Mesh: "duck.obj"}})
	r.SetScene(sc)
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "obstacles[4]") {
		t.Errorf("a scene with a mesh obstacle: Err() = %v, want it to name obstacles[4]", err)
	}
	if r.obstacles.count == 0 {
		t.Error("the drawable obstacles were dropped along with the mesh obstacle")
	}
}

func pickF(b bool, ifFalse, ifTrue float64) float64 {
	if b {
		return ifTrue
	}
	return ifFalse
}

func TestFrameBuffersGrowAndReuse(t *testing.T) {
	gltest.Acquire(t)
	var u FrameBuffers
	defer u.Delete()
	f := lattice(3, mgl32.Vec3{0, 0, 0}, 0.1)
	p1, err := u.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	f.Resize(10)
	p2, err := u.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	if p2.Pos != p1.Pos || p2.Vel != p1.Vel || p2.Rho != p1.Rho || p2.N != 10 {
		t.Errorf("uploading fewer particles reallocated the buffers or lost N (%d)", p2.N)
	}
	f = lattice(8, mgl32.Vec3{1, 2, 3}, 0.05)
	for k := range f.Vel {
		f.Vel[k] = [4]float32{float32(k), 0, -1, 0}
		f.Rho[k] = 1 + float32(k)/1000
	}
	p3, err := u.Upload(f)
	if err != nil {
		t.Fatal(err)
	}
	if p3.Pos.Size() < 512*16 || p3.Rho.Size() < 512*4 || p3.N != 512 || p3.Radius != f.Radius {
		t.Fatalf("after growing to 512 particles: %d-byte positions, %d-byte densities, N %d, radius %g",
			p3.Pos.Size(), p3.Rho.Size(), p3.N, p3.Radius)
	}
	pos := make([][4]float32, 512)
	vel := make([][4]float32, 512)
	rho := make([]float32, 512)
	glh.Read(p3.Pos, 0, pos)
	glh.Read(p3.Vel, 0, vel)
	glh.Read(p3.Rho, 0, rho)
	for k := range pos {
		if pos[k] != f.Pos[k] || vel[k] != f.Vel[k] || rho[k] != f.Rho[k] {
			t.Fatalf("particle %d reads back as %v %v %g, uploaded %v %v %g", k, pos[k], vel[k], rho[k], f.Pos[k], f.Vel[k], f.Rho[k])
		}
	}
	kernels := make([]csurface.Ellipsoid, p3.N)
	for k := range kernels {
		kernels[k].Center = [4]float32{float32(k), 1, 2, 30}
		kernels[k].Axes[1] = [4]float32{0, 0.1, 0, 0}
	}
	p4, err := u.UploadEllipsoids(p3, kernels)
	if err != nil {
		t.Fatal(err)
	}
	back := make([]csurface.Ellipsoid, p4.N)
	glh.Read(p4.Ellipsoids, 0, back)
	if p4.Pos != p3.Pos || p4.N != p3.N || back[511] != kernels[511] || back[7] != kernels[7] {
		t.Errorf("ellipsoids read back as %v, uploaded %v", back[511], kernels[511])
	}
	if _, err := u.UploadEllipsoids(p3, kernels[:10]); err == nil {
		t.Error("10 ellipsoids for 512 particles uploaded without error")
	}
	f.Rho = f.Rho[:100]
	if _, err := u.Upload(f); err == nil {
		t.Error("a frame with fewer densities than particles uploaded without error")
	}
	u.Delete()
	u.Delete()
	if err := glh.CheckError("FrameBuffers"); err != nil {
		t.Error(err)
	}
}
