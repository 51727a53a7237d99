package scene

import (
	"math"

	"github.com/slosh/slosh/sim/mesh"
)

// Offset is the obstacle's translation at time t (s) from where its shape is placed:
// Axis·Amplitude·sin(2π t/Period + Phase). A nil Motion is a static obstacle: no offset.
func (m *Motion) Offset(t float64) Vec3 {
	if m == nil {
		return Vec3{}
	}
	return m.Axis.Scale(m.Amplitude * math.Sin(2*math.Pi*t/m.Period+m.Phase))
}

// Velocity is the time derivative of Offset: Axis·Amplitude·(2π/Period)·cos(2π t/Period + Phase), in m/s; zero
// for a nil Motion.
func (m *Motion) Velocity(t float64) Vec3 {
	if m == nil {
		return Vec3{}
	}
	w := 2 * math.Pi / m.Period
	return m.Axis.Scale(m.Amplitude * w * math.Cos(w*t+m.Phase))
}

// ShapeAt is the obstacle's shape at time t: the placed shape translated by Motion.Offset(t) (its Center, and a
// capsule's A and B). A static obstacle's shape is returned unchanged. A mesh shape keeps sharing its MeshData.
func (o *Obstacle) ShapeAt(t float64) Shape {
	if o.Motion == nil {
		return o.Shape
	}
	return o.Shape.translated(o.Motion.Offset(t))
}

// HasMotion reports whether any obstacle moves (has a Motion), so that callers can treat the obstacles as static
// otherwise.
func (s *Scene) HasMotion() bool {
	for i := range s.Obstacles {
		if s.Obstacles[i].Motion != nil {
			return true
		}
	}
	return false
}

// translated is the shape moved by d.
func (s *Shape) translated(d Vec3) Shape {
	c := *s
	switch s.Kind {
	case ShapeCapsule:
		c.A, c.B = s.A.Add(d), s.B.Add(d)
	default:
		c.Center = s.Center.Add(d)
	}
	return c
}

// Posed is the shape after the rigid motion x ↦ center + rot·(x − origin): how a rigid body's pose is described,
// the point the scene placed at origin now at center and the body turned by rot (a rotation matrix). A sphere's
// centre and a capsule's ends move as points; a box, cylinder or mesh has its Center moved and its Rotation set
// to the Euler angles (degrees, mesh.EulerDegrees) of rot·R, R its own rotation.
func (s *Shape) Posed(origin, center Vec3, rot Mat3) Shape {
	move := func(x Vec3) Vec3 { return center.Add(rot.MulVec(x.Sub(origin))) }
	c := *s
	switch s.Kind {
	case ShapeCapsule:
		c.A, c.B = move(s.A), move(s.B)
	case ShapeSphere:
		c.Center = move(s.Center)
	default:
		c.Center = move(s.Center)
		c.Rotation = mesh.EulerDegrees(rot.Mul(s.RotationMatrix()))
	}
	return c
}
