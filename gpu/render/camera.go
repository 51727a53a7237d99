package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl32"
)

// Camera is what the renderer needs to know about a view, independent of how the view is controlled.
type Camera struct {
	View, Proj mgl32.Mat4 // world → eye, eye → clip (OpenGL conventions, depth range [−1, 1] in NDC)
	Eye        mgl32.Vec3 // eye position in world space
	Near, Far  float32    // the clip distances Proj was built with, metres
}

// Limits of the orbit camera.
const (
	// MaxPitch keeps the orbit camera short of the poles, where the view's up vector would be undefined.
	MaxPitch = 89 * math.Pi / 180
	// MinDistance and MaxDistance bound Zoom and Frame, metres.
	MinDistance = 0.01
	MaxDistance = 1000

	// The clip planes follow the distance to the target: Near = nearFraction·Distance and Far = farFactor·Distance
	// keep the far/near ratio at 10⁴ however far the user zooms, so depth precision stays the same.
	nearFraction = 0.01
	farFactor    = 100
	minNear      = 1e-4

	frameMargin = 1.08 // Frame leaves this much room around the box
)

// OrbitCamera circles a target point: the eye sits at Distance from Target, in the direction given by Yaw (about
// the world y axis, radians; 0 puts the eye on the +z side, positive turns it toward +x) and Pitch (above the
// horizon, radians, clamped to ±MaxPitch). FovY is the vertical field of view in degrees.
//
// Near and Far are the clip distances. Every method that changes Distance (Zoom, Frame, LookAt) resets them to
// 1% and 100× the distance; assign them after those calls to override. When they are not a valid pair (zero
// values, say) Proj and Camera derive them from Distance.
type OrbitCamera struct {
	Target               mgl32.Vec3
	Distance, Yaw, Pitch float32
	FovY, Near, Far      float32
}

// NewOrbitCamera returns a camera 3 m from the origin, a little above and to the side, with a 45° field of view.
func NewOrbitCamera() *OrbitCamera {
	c := &OrbitCamera{Distance: 3, Yaw: 0.6, Pitch: 0.35, FovY: 45}
	c.adaptClip()
	return c
}

// Orbit turns the eye around the target by dx radians of yaw and dy radians of pitch (positive dy raises the eye).
// The distance to the target is unchanged; pitch stops short of the poles.
func (c *OrbitCamera) Orbit(dx, dy float32) {
	c.Yaw = float32(math.Remainder(float64(c.Yaw+dx), 2*math.Pi))
	c.Pitch = clamp(c.Pitch+dy, -MaxPitch, MaxPitch)
}

// Pan moves target and eye together in the view plane. dx and dy are fractions of the view's height at the
// target's depth (so a pan scales with Distance): passing the mouse motion divided by the framebuffer height,
// negated, keeps the point under the cursor under it.
func (c *OrbitCamera) Pan(dx, dy float32) {
	right, up, _ := c.basis()
	h := 2 * c.Distance * float32(math.Tan(float64(mgl32.DegToRad(c.fovY()))/2))
	c.Target = c.Target.Add(right.Mul(dx * h)).Add(up.Mul(dy * h))
}

// Zoom multiplies the distance to the target by factor (below 1 moves closer), clamped to
// [MinDistance, MaxDistance]. Factors that are not positive are ignored.
func (c *OrbitCamera) Zoom(factor float32) {
	if !(factor > 0) || math.IsInf(float64(factor), 0) {
		return
	}
	c.Distance = clamp(c.Distance*factor, MinDistance, MaxDistance)
	c.adaptClip()
}

// Frame aims at the centre of the box [min, max] and moves in or out, keeping the current angles, until the whole
// box is in view with a small margin. It assumes a viewport at least as wide as it is tall (the vertical field of
// view is the narrower one).
func (c *OrbitCamera) Frame(min, max mgl32.Vec3) {
	centre := min.Add(max).Mul(0.5)
	right, up, back := c.basis()
	t := float32(math.Tan(float64(mgl32.DegToRad(c.fovY())) / 2))
	var d float32
	for i := 0; i < 8; i++ {
		corner := mgl32.Vec3{pick(i&1 != 0, min[0], max[0]), pick(i&2 != 0, min[1], max[1]), pick(i&4 != 0, min[2], max[2])}
		rel := corner.Sub(centre)
		// the corner sits at depth Distance − z in front of the eye; it is in view when |x|, |y| ≤ t·depth.
		z := rel.Dot(back)
		need := z + float32(math.Max(math.Abs(float64(rel.Dot(right))), math.Abs(float64(rel.Dot(up)))))/t
		if need > d {
			d = need
		}
	}
	c.Target = centre
	c.Distance = clamp(d*frameMargin, MinDistance, MaxDistance)
	c.adaptClip()
}

// LookAt places the eye at eye looking at target, with a vertical field of view of fovDeg degrees (ignored when
// not positive). A view straight up or down is tilted just short of the pole.
func (c *OrbitCamera) LookAt(eye, target mgl32.Vec3, fovDeg float32) {
	d := eye.Sub(target)
	c.Target = target
	c.Distance = clamp(d.Len(), MinDistance, MaxDistance)
	if l := d.Len(); l > 0 {
		c.Yaw = float32(math.Atan2(float64(d[0]), float64(d[2])))
		c.Pitch = clamp(float32(math.Asin(float64(clamp(d[1]/l, -1, 1)))), -MaxPitch, MaxPitch)
	}
	if fovDeg > 0 {
		c.FovY = fovDeg
	}
	c.adaptClip()
}

// Eye is the eye position in world space.
func (c *OrbitCamera) Eye() mgl32.Vec3 {
	_, _, back := c.basis()
	return c.Target.Add(back.Mul(c.Distance))
}

// View is the world-to-eye matrix.
func (c *OrbitCamera) View() mgl32.Mat4 {
	return mgl32.LookAtV(c.Eye(), c.Target, mgl32.Vec3{0, 1, 0})
}

// Proj is the perspective projection for a viewport of the given width/height ratio.
func (c *OrbitCamera) Proj(aspect float32) mgl32.Mat4 {
	if !(aspect > 0) {
		aspect = 1
	}
	n, f := c.clip()
	return mgl32.Perspective(mgl32.DegToRad(c.fovY()), aspect, n, f)
}

// Camera returns the view for the renderer.
func (c *OrbitCamera) Camera(aspect float32) Camera {
	n, f := c.clip()
	return Camera{View: c.View(), Proj: c.Proj(aspect), Eye: c.Eye(), Near: n, Far: f}
}

// basis returns the camera's right, up and back (from the target toward the eye) unit vectors.
func (c *OrbitCamera) basis() (right, up, back mgl32.Vec3) {
	sy, cy := math.Sincos(float64(c.Yaw))
	sp, cp := math.Sincos(float64(clamp(c.Pitch, -MaxPitch, MaxPitch)))
	back = mgl32.Vec3{float32(cp * sy), float32(sp), float32(cp * cy)}
	right = mgl32.Vec3{float32(cy), 0, float32(-sy)}
	up = back.Cross(right)
	return right, up, back
}

func (c *OrbitCamera) adaptClip() {
	c.Near, c.Far = adaptiveClip(c.Distance)
}

func (c *OrbitCamera) clip() (near, far float32) {
	if c.Near > 0 && c.Far > c.Near {
		return c.Near, c.Far
	}
	return adaptiveClip(c.Distance)
}

func adaptiveClip(distance float32) (near, far float32) {
	if !(distance > 0) {
		distance = 1
	}
	near = float32(math.Max(float64(distance*nearFraction), minNear))
	return near, near * farFactor / nearFraction
}

func (c *OrbitCamera) fovY() float32 {
	if c.FovY > 1 && c.FovY < 179 {
		return c.FovY
	}
	return 45
}

func clamp(x, lo, hi float32) float32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func pick(b bool, ifFalse, ifTrue float32) float32 {
	if b {
		return ifTrue
	}
	return ifFalse
}
