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

// add creates a body from a validated scene body and returns its index.
func (w *world) add(s scene.FlatBody) (int, error) {
	def := box2d.MakeB2BodyDef()
	if !s.Static {
		def.Type = box2d.B2BodyType.B2_dynamicBody
	}
	def.Position = w.vec(s.Center)
	def.Angle = s.Angle * math.Pi / 180
	def.LinearVelocity = w.vec(s.Velocity)
	def.AngularVelocity = s.Spin
	bb := w.b2.CreateBody(&def)
	fd := box2d.MakeB2FixtureDef()
	fd.Density, fd.Friction, fd.Restitution = s.Density/(w.k*w.k), s.Friction, s.Restitution
	if s.Shape == scene.FlatCircle {
		c := box2d.MakeB2CircleShape()
		c.M_radius = w.k * s.Radius
		fd.Shape = &c
	} else {
		ol := outline(&s)
		vs := make([]box2d.B2Vec2, len(ol))
		for k, p := range ol {
			vs[k] = w.vec(p)
		}
		p := box2d.MakeB2PolygonShape()
		p.Set(vs, len(vs))
		if p.M_count < 3 {
			w.b2.DestroyBody(bb)
			return 0, fmt.Errorf("the %s is too small or too thin for Box2D", s.Shape)
		}
		fd.Shape = &p
	}
	ol := outline(&s)
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
		w.b2.DestroyBody(bb)
		return 0, fmt.Errorf("the %s's panels: %w", s.Shape, err)
	}
	bb.CreateFixtureFromDef(&fd)
	reach := 0.0
	for _, p := range ol {
		reach = max(reach, math.Hypot(p[0], p[1]))
	}
	w.bodies = append(w.bodies, &body{b: bb, spec: s, outline: ol, shape: sh, reach: reach})
	return len(w.bodies) - 1, nil
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

// applyForce adds a force (N per metre of depth) at world point p to body i for the next step.
func (w *world) applyForce(i int, f, p [2]float64) {
	b := w.bodies[i].b
	if b.GetType() == box2d.B2BodyType.B2_dynamicBody {
		b.ApplyForce(w.vec(f), w.vec(p), true)
	}
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

// applyTorque adds a torque (N·m per metre of depth) to body i for the next step.
func (w *world) applyTorque(i int, t float64) {
	b := w.bodies[i].b
	if b.GetType() == box2d.B2BodyType.B2_dynamicBody {
		b.ApplyTorque(w.k*w.k*t, true)
	}
}

// mass returns body i's mass per metre of depth (kg/m); 0 for a static body.
func (w *world) mass(i int) float64 { return w.bodies[i].b.GetMass() }

func (w *world) step(dt float64) { w.b2.Step(dt, velocityIterations, positionIterations) }

// setGravity sets the downward acceleration, m/s².
func (w *world) setGravity(g float64) {
	if v := w.vec([2]float64{0, -g}); v != w.b2.GetGravity() {
		w.b2.SetGravity(v)
	}
}

// finite says whether every body's pose and velocity are finite numbers.
func (w *world) finite() bool {
	for i := range w.bodies {
		p, a, v, s := w.pose(i)
		for _, x := range []float64{p[0], p[1], a, v[0], v[1], s} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
	}
	return true
}
