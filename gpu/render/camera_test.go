package render

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

func near32(a, b, tol float32) bool { return float32(math.Abs(float64(a-b))) <= tol }

// ndc projects a world point with a camera.
func ndc(cam Camera, p mgl32.Vec3) mgl32.Vec3 {
	c := cam.Proj.Mul4(cam.View).Mul4x1(p.Vec4(1))
	return c.Vec3().Mul(1 / c[3])
}

func TestOrbitKeepsDistanceAndClampsPitch(t *testing.T) {
	c := NewOrbitCamera()
	c.Target = mgl32.Vec3{1, 2, 3}
	c.Distance = 4
	for _, d := range [][2]float32{{0.3, 0.1}, {-2, 0.5}, {7, -0.9}, {0.01, 3}, {1, -10}} {
		c.Orbit(d[0], d[1])
		if got := c.Eye().Sub(c.Target).Len(); !near32(got, 4, 1e-4) {
			t.Errorf("after Orbit(%g, %g): |eye − target| = %g, want 4", d[0], d[1], got)
		}
		if c.Pitch > MaxPitch || c.Pitch < -MaxPitch {
			t.Errorf("after Orbit(%g, %g): pitch %g beyond ±%g", d[0], d[1], c.Pitch, MaxPitch)
		}
	}
	c.Orbit(0, 100)
	if c.Pitch != MaxPitch {
		t.Errorf("pitch after a huge upward orbit = %g, want the clamp %g", c.Pitch, float32(MaxPitch))
	}
	for i, x := range c.View() {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("view matrix at the pitch clamp has non-finite element %d: %v", i, c.View())
		}
	}
}

func TestPanMovesTargetAndEyeTogether(t *testing.T) {
	c := NewOrbitCamera()
	c.Distance = 5
	c.FovY = 60
	before := c.Eye().Sub(c.Target)
	oldTarget := c.Target
	const dx, dy = 0.25, -0.1
	c.Pan(dx, dy)
	if got := c.Eye().Sub(c.Target); got.Sub(before).Len() > 1e-5 {
		t.Errorf("eye − target changed from %v to %v", before, got)
	}
	moved := c.Target.Sub(oldTarget)
	if d := moved.Dot(before.Normalize()); !near32(d, 0, 1e-5) {
		t.Errorf("pan moved the target %g along the view direction", d)
	}
	// dx, dy are fractions of the view height at the target: the old target lands at NDC (−2dx, −2dy) on a
	// square viewport.
	p := ndc(c.Camera(1), oldTarget)
	if !near32(p[0], -2*dx, 1e-4) || !near32(p[1], -2*dy, 1e-4) {
		t.Errorf("old target projects to %v, want (%g, %g)", p, -2*dx, -2*dy)
	}
}

func TestFrameFitsBoxInView(t *testing.T) {
	boxes := [][2]mgl32.Vec3{
		{{0, 0, 0}, {1, 1, 1}},
		{{-3, 0, -0.5}, {3, 0.4, 0.5}}, // long and flat
		{{10, 5, 2}, {10.2, 9, 2.3}},   // tall and far from the origin
	}
	angles := [][2]float32{{0, 0}, {0.6, 0.35}, {-2.5, 1.2}, {3, -0.7}}
	for _, b := range boxes {
		for _, a := range angles {
			c := NewOrbitCamera()
			c.Yaw, c.Pitch = a[0], a[1]
			c.Frame(b[0], b[1])
			for _, aspect := range []float32{1, 16.0 / 9} {
				cam := c.Camera(aspect)
				var extreme float32
				for i := 0; i < 8; i++ {
					p := mgl32.Vec3{pick(i&1 != 0, b[0][0], b[1][0]), pick(i&2 != 0, b[0][1], b[1][1]), pick(i&4 != 0, b[0][2], b[1][2])}
					q := ndc(cam, p)
					for k := 0; k < 3; k++ {
						if q[k] < -1 || q[k] > 1 {
							t.Errorf("box %v at yaw %g pitch %g aspect %g: corner %v projects to %v, outside NDC",
								b, a[0], a[1], aspect, p, q)
						}
					}
					extreme = max(extreme, float32(math.Abs(float64(q[0]))), float32(math.Abs(float64(q[1]))))
				}
				if aspect == 1 && extreme < 0.7 {
					t.Errorf("box %v at yaw %g pitch %g: the box fills only ±%.2f of the view", b, a[0], a[1], extreme)
				}
			}
		}
	}
}

func TestZoomClampsAndAdaptsClipPlanes(t *testing.T) {
	c := NewOrbitCamera()
	c.Distance = 2
	c.Zoom(0.5)
	if c.Distance != 1 {
		t.Errorf("Zoom(0.5) from 2 m: distance %g, want 1", c.Distance)
	}
	if !near32(c.Near, 0.01, 1e-6) || !near32(c.Far, 100, 1e-3) {
		t.Errorf("clip planes at 1 m: near %g far %g, want 0.01 and 100", c.Near, c.Far)
	}
	for _, bad := range []float32{0, -3, float32(math.NaN()), float32(math.Inf(1))} {
		c.Zoom(bad)
		if c.Distance != 1 {
			t.Errorf("Zoom(%g) changed the distance to %g", bad, c.Distance)
		}
	}
	c.Zoom(1e-9)
	if c.Distance != MinDistance {
		t.Errorf("zoomed all the way in: distance %g, want %g", c.Distance, float32(MinDistance))
	}
	c.Zoom(1e12)
	if c.Distance != MaxDistance {
		t.Errorf("zoomed all the way out: distance %g, want %g", c.Distance, float32(MaxDistance))
	}
}

func TestLookAtPlacesEye(t *testing.T) {
	c := NewOrbitCamera()
	eye, target := mgl32.Vec3{2, 1.5, -3}, mgl32.Vec3{0.5, 0.2, 0.5}
	c.LookAt(eye, target, 60)
	if c.Eye().Sub(eye).Len() > 1e-4 || c.FovY != 60 {
		t.Errorf("LookAt: eye %v fov %g, want %v and 60", c.Eye(), c.FovY, eye)
	}
	d := eye.Sub(target).Len()
	got := c.View().Mul4x1(target.Vec4(1))
	if !near32(got[0], 0, 1e-4) || !near32(got[1], 0, 1e-4) || !near32(got[2], -d, 1e-4) {
		t.Errorf("target in eye space = %v, want (0, 0, %g)", got, -d)
	}
	cam := c.Camera(1.5)
	if cam.Near != c.Near || cam.Far != c.Far || cam.Eye != c.Eye() || !(cam.Near > 0 && cam.Far > cam.Near) {
		t.Errorf("Camera() = near %g far %g eye %v; orbit camera has %g, %g, %v", cam.Near, cam.Far, cam.Eye, c.Near, c.Far, c.Eye())
	}
}
