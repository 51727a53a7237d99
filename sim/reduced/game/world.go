package game

import (
	"fmt"
	"math"

	"github.com/ByteArena/box2d"

	"github.com/slosh/slosh/sim/reduced/panel"
	"github.com/slosh/slosh/sim/scene"
)

// world is the game's rigid bodies in Box2D: the rectangle's four walls, the scene's bodies and those the player
// spawns, and a mouse joint while the player holds one. The fluid's forces come in through applyForce before each
// step; Box2D does the rest (gravity, contacts, friction, restitution).
type world struct {
	b2     box2d.B2World
	walls  *box2d.B2Body // static: the rectangle's sides, and the anchor of the mouse joint
	bodies []*body
	grab   *box2d.B2MouseJoint
	held   int // the body the mouse joint holds; −1 none
	size   scene.Vec2
	// k is Box2D's length unit per metre. Box2D is tuned for bodies of 0.1–10 of its units: its contact skin is
	// 1 cm, which would hold a 12 cm crate visibly off the floor. The world runs at k = b2Side / the rectangle's
	// longer side, with masses kept (densities ÷ k²), so that velocities scale by k, forces by k and torques by k².
	k float64
	// spacing is the panels' length, m
	spacing float64
}

// b2Side is the rectangle's longer side in Box2D's units.
const b2Side = 20

func (w *world) vec(p [2]float64) box2d.B2Vec2 { return box2d.MakeB2Vec2(w.k*p[0], w.k*p[1]) }

// body is one rigid body and what the game knows of it.
type body struct {
	b    *box2d.B2Body
	spec scene.FlatBody
	// outline is the body's boundary in its own frame (around spec.Center), counter-clockwise: a polygon's
	// corners, a circle's as a polygon of circleSides: what the panels are cut from and what is drawn.
	outline [][2]float64
	// shape is the outline cut into vortex panels, built once (000 §5.3.1)
	shape *panel.Shape
	// reach is the farthest point of the outline from the body's origin, m
	reach float64
	// added is the water it must set moving as it speeds up or turns, per unit of the fluid's density
	added addedMass
	// home is how long a crate has rested inside the goal zone (s); delivered says it counted.
	home      float64
	delivered bool
}

// circleSides is the sides of the polygon a circle is drawn and cut into panels as.
const circleSides = 24

// Box2D's solver iterations per step (its manual's recommendation).
const (
	velocityIterations = 8
	positionIterations = 3
)

func newWorld(size scene.Vec2, bodies []scene.FlatBody, gravity [2]float64, panelSpacing float64) (*world, error) {
	k := b2Side / max(size[0], size[1])
	w := &world{held: -1, size: size, k: k, spacing: panelSpacing}
	w.b2 = box2d.MakeB2World(w.vec(gravity))
	// bodies in a fluid never rest for long, and a sleeping body's timer is state no saved state restores
	w.b2.SetAllowSleeping(false)
	def := box2d.MakeB2BodyDef()
	w.walls = w.b2.CreateBody(&def)
	W, H := size[0], size[1]
	corners := [][2]float64{{0, 0}, {W, 0}, {W, H}, {0, H}}
	for i := range corners {
		a, b := corners[i], corners[(i+1)%4]
		e := box2d.MakeB2EdgeShape()
		e.Set(w.vec(a), w.vec(b))
		w.walls.CreateFixture(&e, 0)
	}
	for i := range bodies {
		if _, err := w.add(bodies[i]); err != nil {
			return nil, fmt.Errorf("flat.bodies[%d]: %w", i, err)
		}
	}
	return w, nil
}

// outline returns a validated body's boundary in its own frame.
func outline(s *scene.FlatBody) [][2]float64 {
	switch s.Shape {
	case scene.FlatBox:
		hx, hy := s.Size[0]/2, s.Size[1]/2
		return [][2]float64{{-hx, -hy}, {hx, -hy}, {hx, hy}, {-hx, hy}}
	case scene.FlatCircle:
		out := make([][2]float64, circleSides)
		for k := range out {
			a := 2 * math.Pi * float64(k) / circleSides
			out[k] = [2]float64{s.Radius * math.Cos(a), s.Radius * math.Sin(a)}
		}
		return out
	default:
		return append([][2]float64(nil), s.Points...)
	}
}

// add creates a body from a validated scene body and returns its index. What Box2D cannot take is refused
// before Box2D is called (checkB2Shape); a panic inside Box2D all the same becomes an error and leaves no body.
func (w *world) add(s scene.FlatBody) (int, error) {
	ol := outline(&s)
	var b2shape box2d.B2ShapeInterface
	if s.Shape == scene.FlatCircle {
		if d := 2 * w.k * s.Radius; !(d >= b2Weld) {
			return 0, fmt.Errorf("the circle is %.3g m across: Box2D, at this rectangle's scale, cannot hold bodies under %.3g m", 2*s.Radius, b2Weld/w.k)
		}
		c := box2d.MakeB2CircleShape()
		c.M_radius = w.k * s.Radius
		b2shape = &c
	} else {
		vs := make([]box2d.B2Vec2, len(ol))
		for k, p := range ol {
			vs[k] = w.vec(p)
		}
		if err := w.checkB2Polygon(vs, s.Shape); err != nil {
			return 0, err
		}
		p := box2d.MakeB2PolygonShape()
		if err := box2dCall("taking the "+s.Shape, func() { p.Set(vs, len(vs)) }); err != nil {
			return 0, err
		}
		if !s.Static {
			if err := w.checkB2Mass(&p, s.Shape, s.Density/(w.k*w.k)); err != nil {
				return 0, err
			}
		}
		b2shape = &p
	}
	var sh *panel.Shape
	var err error
	if s.Shape == scene.FlatCircle {
		sh, err = panel.NewCircle(s.Radius, w.spacing)
	} else {
		vs := make([]panel.Vec, len(ol))
		for k, p := range ol {
			vs[k] = panel.Vec{X: p[0], Y: p[1]}
		}
		sh, err = panel.NewPolygon(vs, w.spacing)
	}
	if err != nil {
		return 0, fmt.Errorf("the %s's panels: %w", s.Shape, err)
	}
	if n := w.panels() + sh.Panels(); n > panel.MaxSystemPanels {
		return 0, fmt.Errorf("with this %s the bodies are cut into %d vortex panels of about %.3g m, over the %d the panel solver holds "+
			"(it solves every body's panels together): use fewer or smaller bodies, or longer panels (raise reduced.panel_length, "+
			"in grid cells, or lower reduced.grid)", s.Shape, n, w.spacing, panel.MaxSystemPanels)
	}
	def := box2d.MakeB2BodyDef()
	if !s.Static {
		def.Type = box2d.B2BodyType.B2_dynamicBody
	}
	def.Position = w.vec(s.Center)
	def.Angle = s.Angle * math.Pi / 180
	def.LinearVelocity = w.vec(s.Velocity)
	def.AngularVelocity = s.Spin
	fd := box2d.MakeB2FixtureDef()
	fd.Density, fd.Friction, fd.Restitution = s.Density/(w.k*w.k), s.Friction, s.Restitution
	fd.Shape = b2shape
	var bb *box2d.B2Body
	if err := box2dCall("adding the "+s.Shape, func() {
		bb = w.b2.CreateBody(&def)
		bb.CreateFixtureFromDef(&fd)
	}); err != nil {
		if bb != nil {
			_ = box2dCall("removing the body it failed on", func() { w.b2.DestroyBody(bb) })
		}
		return 0, err
	}
	reach := 0.0
	for _, p := range ol {
		reach = max(reach, math.Hypot(p[0], p[1]))
	}
	w.bodies = append(w.bodies, &body{b: bb, spec: s, outline: ol, shape: sh, reach: reach, added: newAddedMass(ol)})
	return len(w.bodies) - 1, nil
}

// b2Weld is the distance (Box2D's units) under which B2PolygonShape.Set merges two corners into one: half its
// linear slop. A polygon left with fewer than 3 corners, or none with area, fails its assertions.
const b2Weld = 0.5 * box2d.B2_linearSlop

// checkB2Polygon refuses, before Box2D sees them, the corners (Box2D's units, convex and counter-clockwise)
// that B2PolygonShape.Set would assert on: two corners closer than b2Weld (welded into one), or a polygon
// narrower than b2Weld (no hull of 3 corners, no area). The scene's MinFlatDetail keeps every scene's body well
// clear of these; this is the world's own check, at its own scale.
func (w *world) checkB2Polygon(vs []box2d.B2Vec2, shape string) error {
	n := len(vs)
	if n < 3 || n > box2d.B2_maxPolygonVertices {
		return fmt.Errorf("the %s has %d corners: Box2D takes 3 to %d", shape, n, box2d.B2_maxPolygonVertices)
	}
	for _, v := range vs {
		if !finite(v.X) || !finite(v.Y) {
			return fmt.Errorf("the %s has a corner that is not a finite number", shape)
		}
	}
	for i := range vs {
		for j := 0; j < i; j++ {
			if d := math.Sqrt(box2d.B2Vec2DistanceSquared(vs[i], vs[j])); !(d >= b2Weld) {
				return fmt.Errorf("the %s's corners %d and %d lie %.3g m apart: Box2D, at this rectangle's scale, merges corners closer than %.3g m", shape, j, i, d/w.k, b2Weld/w.k)
			}
		}
	}
	width := math.Inf(1) // a convex polygon is narrowest across one of its sides
	for i := range vs {
		a, b := vs[i], vs[(i+1)%n]
		e := box2d.B2Vec2Sub(b, a)
		far := 0.0
		for _, p := range vs {
			far = max(far, box2d.B2Vec2Cross(e, box2d.B2Vec2Sub(p, a))/e.Length())
		}
		width = min(width, far)
	}
	if !(width >= b2Weld) {
		return fmt.Errorf("the %s is %.3g m across at its narrowest: Box2D, at this rectangle's scale, cannot hold bodies under %.3g m", shape, width/w.k, b2Weld/w.k)
	}
	// Set's centroid sums the corners' cross products about the body's origin, which cancel for a polygon small
	// for its distance from there; its area must stay clear of that rounding (n·|v|²·2⁻⁵² at most)
	area, far := 0.0, 0.0
	for i := 1; i+1 < n; i++ {
		area += 0.5 * box2d.B2Vec2Cross(box2d.B2Vec2Sub(vs[i], vs[0]), box2d.B2Vec2Sub(vs[i+1], vs[0]))
	}
	for _, v := range vs {
		far = max(far, v.LengthSquared())
	}
	if !(area > 1e-12*far) {
		return fmt.Errorf("the %s is too small for its distance from its centre (%.3g m): Box2D's centroid would vanish in rounding", shape, math.Sqrt(far)/w.k)
	}
	return nil
}

// checkB2Mass refuses a dynamic polygon whose rotational inertia Box2D's shift to the centre of mass would cancel
// to nothing, asserting (ResetMassData with this one fixture of the given density): a thin polygon far from its
// origin.
func (w *world) checkB2Mass(p *box2d.B2PolygonShape, shape string, density float64) error {
	var md box2d.B2MassData
	if err := box2dCall("computing the "+shape+"'s mass", func() { p.ComputeMass(&md, density) }); err != nil {
		return err
	}
	mass, c := md.Mass, box2d.B2Vec2MulScalar(md.Mass, md.Center)
	if mass > 0 {
		c.OperatorScalarMulInplace(1 / mass)
	} else {
		mass = 1 // Box2D gives a massless dynamic body a mass of 1
	}
	if md.I > 0 && !(md.I-mass*box2d.B2Vec2Dot(c, c) > 0) {
		return fmt.Errorf("the %s is too small for its distance from its centre (%.3g m): Box2D's rotational inertia about its centre of mass would vanish in rounding", shape, math.Sqrt(box2d.B2Vec2Dot(md.Center, md.Center))/w.k)
	}
	return nil
}

// box2dCall runs f, a call into Box2D, and turns a panic (Box2D asserts by panicking) into an error that says
// what was being done. The checks before each call make this unreachable as far as we know: it is the last line
// of defence, not a validation, and a world it reports on may be damaged (the solver goes back to a kept state).
func box2dCall(what string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("Box2D failed %s (%v)", what, r)
		}
	}()
	f()
	return nil
}

// panels is the number of vortex panels of all the bodies.
func (w *world) panels() int {
	n := 0
	for _, b := range w.bodies {
		n += b.shape.Panels()
	}
	return n
}

// remove destroys body i; the bodies after it move down one index.
func (w *world) remove(i int) {
	if i == w.held {
		w.release()
	}
	w.b2.DestroyBody(w.bodies[i].b)
	w.bodies = append(w.bodies[:i], w.bodies[i+1:]...)
	if w.held > i {
		w.held--
	}
}

// hold grabs body i at world point p with a mouse joint strong enough to lift it many times over.
func (w *world) hold(i int, p [2]float64, gravity float64) {
	w.release()
	b := w.bodies[i].b
	if b.GetType() != box2d.B2BodyType.B2_dynamicBody {
		return
	}
	def := box2d.MakeB2MouseJointDef()
	def.BodyA, def.BodyB = w.walls, b
	def.Target = w.vec(p)
	def.MaxForce = 50 * b.GetMass() * max(gravity, 1) * w.k
	def.FrequencyHz, def.DampingRatio = 5, 0.7
	w.grab = w.b2.CreateJoint(&def).(*box2d.B2MouseJoint)
	w.held = i
	b.SetAwake(true)
}

// moveHold moves the held body's target.
func (w *world) moveHold(p [2]float64) {
	if w.grab != nil {
		w.grab.SetTarget(w.vec(p))
	}
}

// release lets go of the held body, which keeps the velocity it had: how a body is thrown.
func (w *world) release() {
	if w.grab != nil {
		w.b2.DestroyJoint(w.grab)
		w.grab, w.held = nil, -1
	}
}

// at returns the index of the topmost body containing world point p, or −1.
func (w *world) at(p [2]float64) int {
	q := w.vec(p)
	for i := len(w.bodies) - 1; i >= 0; i-- {
		bp := w.bodies[i].b.GetPosition()
		if dx, dy, r := q.X-bp.X, q.Y-bp.Y, w.k*w.bodies[i].reach; dx*dx+dy*dy > r*r {
			continue // beyond the body's reach: no need to ask Box2D
		}
		for f := w.bodies[i].b.GetFixtureList(); f != nil; f = f.GetNext() {
			if f.TestPoint(q) {
				return i
			}
		}
	}
	return -1
}

// pose returns body i's position (the origin of its frame), angle (rad), velocity and angular velocity, in
// metres and seconds.
func (w *world) pose(i int) (pos [2]float64, angle float64, vel [2]float64, spin float64) {
	b := w.bodies[i].b
	p, v := b.GetPosition(), b.GetLinearVelocity()
	return [2]float64{p.X / w.k, p.Y / w.k}, b.GetAngle(), [2]float64{v.X / w.k, v.Y / w.k}, b.GetAngularVelocity()
}

// center returns body i's centre of mass, m.
func (w *world) center(i int) [2]float64 {
	c := w.bodies[i].b.GetWorldCenter()
	return [2]float64{c.X / w.k, c.Y / w.k}
}

// worldOutline writes body i's outline at its pose into dst.
func (w *world) worldOutline(i int, dst [][2]float32) [][2]float32 {
	b := w.bodies[i]
	pos, a, _, _ := w.pose(i)
	c, s := math.Cos(a), math.Sin(a)
	dst = dst[:0]
	for _, p := range b.outline {
		dst = append(dst, [2]float32{float32(pos[0] + c*p[0] - s*p[1]), float32(pos[1] + s*p[0] + c*p[1])})
	}
	return dst
}

// catch stops body i where it is for good: a crate home in the goal zone.
func (w *world) catch(i int) {
	if i == w.held {
		w.release()
	}
	b := w.bodies[i].b
	b.SetLinearVelocity(box2d.MakeB2Vec2(0, 0))
	b.SetAngularVelocity(0)
	b.SetType(box2d.B2BodyType.B2_staticBody)
}

// mass returns body i's mass per metre of depth (kg/m); 0 for a static body.
func (w *world) mass(i int) float64 { return w.bodies[i].b.GetMass() }

// step advances Box2D by dt; a panic inside it is an error naming the bodies that had become non-finite, if any.
func (w *world) step(dt float64) error {
	err := box2dCall("in its step", func() { w.b2.Step(dt, velocityIterations, positionIterations) })
	if err != nil {
		var bad []int
		for i := range w.bodies {
			if !w.bodyFinite(i) {
				bad = append(bad, i)
			}
		}
		if len(bad) > 0 {
			return fmt.Errorf("%w; bodies %v were not finite", err, bad)
		}
		return fmt.Errorf("%w with %d bodies", err, len(w.bodies))
	}
	return nil
}

// limit keeps every body within the limits a saved state's bodies are read with: its centre of mass no faster than
// scene.MaxFlatSpeed, and its spin no faster than maxSpin. Box2D's own limits (2 of its units and a quarter turn a
// step) grow with the rectangle and the substeps: a body falling through a 1 km tank would pass them, and a 1 m
// plate turning a quarter turn a step moved its tips at hundreds of metres a second. Angles past half the most
// a state holds are wrapped.
//
// It also keeps every body's centre of mass inside the rectangle, where the state reader expects it: Box2D
// resolves overlaps along the shorter way out, so a body that starts inside a fixed one, or is squeezed between
// one and a wall, may be pushed out through the wall. Such a body is put back, its centre of mass 1/4000 of the
// longer side (scene.MinFlatDetail) inside the wall, no longer moving outward.
func (w *world) limit() {
	vmax := w.k * scene.MaxFlatSpeed
	inset := w.k * scene.MinFlatDetail * max(w.size[0], w.size[1])
	for _, b := range w.bodies {
		bb := b.b
		if bb.GetType() != box2d.B2BodyType.B2_dynamicBody {
			continue
		}
		if v := bb.GetLinearVelocity(); v.Length() > vmax {
			bb.SetLinearVelocity(box2d.B2Vec2MulScalar(vmax/v.Length(), v))
		}
		if a, m := bb.GetAngularVelocity(), maxSpin(b.reach); math.Abs(a) > m {
			bb.SetAngularVelocity(math.Copysign(m, a))
		}
		if a := bb.GetAngle(); math.Abs(a) > maxStateAngle/2 {
			// Box2D does not wrap the angle; a small body spinning at scene.MaxSpin turns 1e6 rad in 100 s
			bb.SetTransform(bb.GetPosition(), math.Remainder(a, 2*math.Pi))
		}
		wc, wv := bb.GetWorldCenter(), bb.GetLinearVelocity()
		c, v := [2]float64{wc.X, wc.Y}, [2]float64{wv.X, wv.Y}
		var shift [2]float64
		for k, side := range [2]float64{w.k * w.size[0], w.k * w.size[1]} {
			switch {
			case c[k] < 0:
				shift[k], v[k] = inset-c[k], max(v[k], 0)
			case c[k] > side:
				shift[k], v[k] = side-inset-c[k], min(v[k], 0)
			}
		}
		if shift != [2]float64{} {
			p := bb.GetPosition()
			bb.SetTransform(box2d.MakeB2Vec2(p.X+shift[0], p.Y+shift[1]), bb.GetAngle())
			bb.SetLinearVelocity(box2d.MakeB2Vec2(v[0], v[1]))
		}
	}
}

// maxSpin is the fastest a body reaching reach (m) from its origin may spin (rad/s): scene.MaxSpin, and no
// faster than turns its far point at scene.MaxFlatSpeed.
func maxSpin(reach float64) float64 {
	return min(scene.MaxSpin, scene.MaxFlatSpeed/reach)
}

// setGravity sets the downward acceleration, m/s².
func (w *world) setGravity(g float64) {
	if v := w.vec([2]float64{0, -g}); v != w.b2.GetGravity() {
		w.b2.SetGravity(v)
	}
}

// finite says whether every body's pose and velocity are finite numbers.
func (w *world) finite() bool {
	for i := range w.bodies {
		if !w.bodyFinite(i) {
			return false
		}
	}
	return true
}

// bodyFinite says whether body i's pose and velocity are finite numbers.
func (w *world) bodyFinite(i int) bool {
	p, a, v, s := w.pose(i)
	for _, x := range []float64{p[0], p[1], a, v[0], v[1], s} {
		if !finite(x) {
			return false
		}
	}
	return true
}
