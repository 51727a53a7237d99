package render

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/trimesh"
)

// TestFluidMesh draws a sphere's triangle mesh in render.mode mesh and checks the surface's images against the
// sphere: the eye depth where each pixel's ray enters it (within the tessellation's chord error), the thickness of
// its chord through the middle, water colour inside its outline and none outside. Without a mesh the mode draws
// the particles' splats.
func TestFluidMesh(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 240, 180
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	setParam(t, r, "render.smoothing", "none")
	setParam(t, r, "render.mode", "mesh")
	oc := NewOrbitCamera()
	oc.LookAt(mgl32.Vec3{0.3, 0.4, 3}, mgl32.Vec3{0, 0, 0}, 40)
	cam := oc.Camera(float32(w) / h)

	centre, radius := mgl32.Vec3{0.1, 0.05, -0.1}, 0.6
	m, err := trimesh.Shape(&scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.1, 0.05, -0.1}, Radius: radius})
	if err != nil {
		t.Fatal(err)
	}
	// one particle far off screen: the frame has particles, but only the mesh shows
	fs := &fluidScene{radius: 0.05}
	fs.add(mgl32.Vec3{50, 50, 50}, sphereKernel(mgl32.Vec3{50, 50, 50}, 0.05, 30))
	var bufs FrameBuffers
	t.Cleanup(bufs.Delete)
	p0, err := bufs.Upload(fs.frame())
	if err != nil {
		t.Fatal(err)
	}
	p, err := bufs.UploadMesh(p0, m)
	if err != nil {
		t.Fatal(err)
	}
	if p.Mesh.Triangles() != len(m.Triangles) {
		t.Fatalf("the uploaded mesh has %d triangles, want %d", p.Mesh.Triangles(), len(m.Triangles))
	}
	img := draw(t, r, fb, cam, p)
	save(t, img, "fluid_mesh")

	c := eyeSpace(cam, centre)
	depth := readRed(r.surf.splat)
	chordErr := radius * (1 - math.Cos(math.Pi/16)) // the tessellation's rings are π/16 apart
	var inside, outside, bad, pale int
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			d := pixelRay(cam, w, h, x, y)
			tIn, hit := raySphere(d, c, radius)
			_, nearHit := raySphere(d, c, radius*1.05)
			got := float64(depth[y*w+x])
			switch {
			case hit && tIn > 0:
				if _, deep := raySphere(d, c, radius*0.9); !deep {
					continue // the silhouette: the polygon's outline is inside the sphere's
				}
				inside++
				if math.Abs(got-tIn) > 2*chordErr { // along an oblique ray the flat facet sits deeper than its radial error
					bad++
					if bad <= 5 {
						t.Errorf("pixel (%d, %d): eye depth %.4f, want the sphere's %.4f ± %.4f", x, y, got, tIn, chordErr)
					}
				}
				if !tinted(img, x, y) {
					pale++ // the highlight and the sky's reflection near the silhouette are not blue
				}
			case !nearHit:
				outside++
				if got != 0 {
					bad++
					if bad <= 5 {
						t.Errorf("pixel (%d, %d) off the mesh has depth %g", x, y, got)
					}
				}
			}
		}
	}
	if inside < 2000 || outside < 10000 {
		t.Fatalf("%d pixels inside and %d outside the sphere: the scene is framed wrong", inside, outside)
	}
	if bad > 0 {
		t.Errorf("%d bad pixels", bad)
	}
	if pale > inside/20 {
		t.Errorf("%d of %d pixels on the mesh are not water-coloured", pale, inside)
	}
	// the thickness through the middle is the sphere's diameter along the ray
	tw, th := r.surf.thick.w, r.surf.thick.h
	thick := readRed(r.surf.thick)
	var mid [3]float64
	for k := range 3 {
		mid[k] = c[k]
	}
	px := cam.Proj.Mul4x1(mgl32.Vec4{float32(mid[0]), float32(mid[1]), float32(mid[2]), 1})
	cx, cy := int((px[0]/px[3]+1)/2*float32(tw)), int((1-px[1]/px[3])/2*float32(th))
	got := float64(thick[cy*tw+cx]) / float64(r.set.thicknessScale) / meshThicknessFill
	if math.Abs(got-2*radius) > 0.05*2*radius {
		t.Errorf("thickness through the middle %.4f (unscaled), want the diameter %.4f", got, 2*radius)
	}

	// a smaller mesh reuses the buffers and draws only itself
	small, err := trimesh.Shape(&scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.1, 0.05, -0.1}, Radius: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	small.Triangles = small.Triangles[:len(small.Triangles)/2] // the upper half only
	if p, err = bufs.UploadMesh(p0, small); err != nil {
		t.Fatal(err)
	}
	draw(t, r, fb, cam, p)
	depth = readRed(r.surf.splat)
	drawn := 0
	for _, d := range depth {
		if d != 0 {
			drawn++
		}
	}
	if drawn == 0 || drawn > inside/4 {
		t.Errorf("a small half sphere after the big one covers %d pixels (the big one: more than %d)", drawn, inside)
	}

	// no mesh: the mode draws the splats (the far particle, so nothing here)
	if p, err = bufs.UploadMesh(p0, nil); err != nil || p.Mesh != nil {
		t.Fatalf("an empty upload gave %v, %v", p.Mesh, err)
	}
	draw(t, r, fb, cam, p)
	if d := readRed(r.surf.splat)[(h/2)*w+w/2]; d != 0 {
		t.Errorf("without a mesh the mode still drew one (depth %g at the centre)", d)
	}
}

// Particles.ThicknessN limits the thickness to the first particles: the upsampled surface's points shape the
// depth, the physical particles alone the water's thickness. A pool whose first half is counted is thinner where
// only the second half lies, and its depth image is the same.
func TestThicknessN(t *testing.T) {
	gltest.Acquire(t)
	const w, h = 320, 240
	r := newTestRenderer(t)
	fb := newTestFramebuffer(t, w, h)
	fs, cam := poolSetup(t, r)
	p := fs.upload(t)
	draw(t, r, fb, cam, p)
	full, depth := readRed(r.surf.thick), readRed(r.surf.splat)
	p.ThicknessN = p.N / 2
	draw(t, r, fb, cam, p)
	half, depth2 := readRed(r.surf.thick), readRed(r.surf.splat)
	var sumFull, sumHalf float64
	for i := range full {
		sumFull += float64(full[i])
		sumHalf += float64(half[i])
	}
	if !(sumHalf < 0.7*sumFull && sumHalf > 0.3*sumFull) {
		t.Errorf("half the particles counted: total thickness %.1f, all: %.1f", sumHalf, sumFull)
	}
	for i := range depth {
		if depth[i] != depth2[i] {
			t.Fatalf("the depth image changed with ThicknessN at pixel %d: %g, %g", i, depth[i], depth2[i])
		}
	}
}
