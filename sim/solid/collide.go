// Package solid is what every particle mode's particles meet: the domain's walls and the scene's analytic
// obstacles, packed as the GPU reads them, with signed distances, the collision projection (Collider), kinematic
// obstacles and the paddle placed at a time (Moved), and the walls' density (WallKernel, Collider.Boundary): the
// fluid's own lattice continued beyond each wall, so particles next to solids see full neighbourhoods.
package solid

import (
	"math"

	"github.com/slosh/slosh/sim/scene"
)

// Obstacle kinds in Obstacle.A[3]; the GLSL collision code uses the same numbers.
const (
	KindSphere   = 0
	KindBox      = 1
	KindCapsule  = 2
	KindCylinder = 3
)

// Obstacle is an analytic solid packed as the GPU reads it (std430: five vec4s).
//
//	sphere:   A = (centre, kind), B.w = radius
//	box:      A = (centre, kind), B = (half extents, 0), R = rotation rows (local → world)
//	capsule:  A = (end a, kind),  B = (end b, radius)
//	cylinder: A = (centre, kind), B = (radius, half height, 0, 0), R = rotation rows
type Obstacle struct {
	A, B [4]float32
	R    [3][4]float32
}

// PackObstacles converts a scene's obstacles.
func PackObstacles(obs []scene.Obstacle) []Obstacle {
	out := make([]Obstacle, 0, len(obs))
	for i := range obs {
		s := &obs[i].Shape
		var o Obstacle
		rot := s.RotationMatrix()
		for r := 0; r < 3; r++ {
			o.R[r] = [4]float32{float32(rot[r][0]), float32(rot[r][1]), float32(rot[r][2]), 0}
		}
		c := [3]float32{float32(s.Center[0]), float32(s.Center[1]), float32(s.Center[2])}
		switch s.Kind {
		case scene.ShapeSphere:
			o.A = [4]float32{c[0], c[1], c[2], KindSphere}
			o.B[3] = float32(s.Radius)
		case scene.ShapeBox:
			o.A = [4]float32{c[0], c[1], c[2], KindBox}
			o.B = [4]float32{float32(s.Size[0] / 2), float32(s.Size[1] / 2), float32(s.Size[2] / 2), 0}
		case scene.ShapeCapsule:
			o.A = [4]float32{float32(s.A[0]), float32(s.A[1]), float32(s.A[2]), KindCapsule}
			o.B = [4]float32{float32(s.B[0]), float32(s.B[1]), float32(s.B[2]), float32(s.Radius)}
		case scene.ShapeCylinder:
			o.A = [4]float32{c[0], c[1], c[2], KindCylinder}
			o.B = [4]float32{float32(s.Radius), float32(s.Height / 2), 0, 0}
		default:
			continue // validated scenes hold no other kinds
		}
		out = append(out, o)
	}
	return out
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

func sgn(x float32) float32 {
	if x < 0 {
		return -1
	}
	return 1
}

// toLocal returns Rᵀ(p − c).
func (o *Obstacle) toLocal(x, y, z float32) (float32, float32, float32) {
	px, py, pz := x-o.A[0], y-o.A[1], z-o.A[2]
	return o.R[0][0]*px + o.R[1][0]*py + o.R[2][0]*pz,
		o.R[0][1]*px + o.R[1][1]*py + o.R[2][1]*pz,
		o.R[0][2]*px + o.R[1][2]*py + o.R[2][2]*pz
}

// toWorld returns R·n.
func (o *Obstacle) toWorld(x, y, z float32) (float32, float32, float32) {
	return o.R[0][0]*x + o.R[0][1]*y + o.R[0][2]*z,
		o.R[1][0]*x + o.R[1][1]*y + o.R[1][2]*z,
		o.R[2][0]*x + o.R[2][1]*y + o.R[2][2]*z
}

// SDF is the signed distance to the obstacle and the outward normal at the nearest surface point.
func (o *Obstacle) SDF(x, y, z float32) (d, nx, ny, nz float32) {
	switch int(o.A[3]) {
	case KindSphere:
		return pointDist(x-o.A[0], y-o.A[1], z-o.A[2], o.B[3])
	case KindCapsule:
		abx, aby, abz := o.B[0]-o.A[0], o.B[1]-o.A[1], o.B[2]-o.A[2]
		apx, apy, apz := x-o.A[0], y-o.A[1], z-o.A[2]
		t := float32(0)
		if l2 := abx*abx + aby*aby + abz*abz; l2 > 0 {
			t = min(1, max(0, (apx*abx+apy*aby+apz*abz)/l2))
		}
		return pointDist(apx-t*abx, apy-t*aby, apz-t*abz, o.B[3])
	case KindBox:
		lx, ly, lz := o.toLocal(x, y, z)
		qx, qy, qz := abs32(lx)-o.B[0], abs32(ly)-o.B[1], abs32(lz)-o.B[2]
		if qx > 0 || qy > 0 || qz > 0 {
			ox, oy, oz := max(qx, 0), max(qy, 0), max(qz, 0)
			l := sqrt32(ox*ox + oy*oy + oz*oz)
			nx, ny, nz = o.toWorld(sgn(lx)*ox/l, sgn(ly)*oy/l, sgn(lz)*oz/l)
			return l, nx, ny, nz
		}
		switch {
		case qx >= qy && qx >= qz:
			nx, ny, nz = o.toWorld(sgn(lx), 0, 0)
			return qx, nx, ny, nz
		case qy >= qz:
			nx, ny, nz = o.toWorld(0, sgn(ly), 0)
			return qy, nx, ny, nz
		}
		nx, ny, nz = o.toWorld(0, 0, sgn(lz))
		return qz, nx, ny, nz
	case KindCylinder:
		lx, ly, lz := o.toLocal(x, y, z)
		rho := sqrt32(lx*lx + lz*lz)
		rx, rz := float32(0), float32(1)
		if rho > 0 {
			rx, rz = lx/rho, lz/rho
		}
		dr, dy := rho-o.B[0], abs32(ly)-o.B[1]
		var ax, ay, az float32
		switch {
		case dr > 0 && dy > 0:
			l := sqrt32(dr*dr + dy*dy)
			ax, ay, az, d = rx*dr/l, sgn(ly)*dy/l, rz*dr/l, l
		case dr > 0 || dr > dy && dy <= 0:
			ax, ay, az, d = rx, 0, rz, dr
		default:
			ax, ay, az, d = 0, sgn(ly), 0, dy
		}
		nx, ny, nz = o.toWorld(ax, ay, az)
		return d, nx, ny, nz
	}
	return 1e30, 0, 1, 0
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// pointDist is the distance from the offset (x, y, z) to a sphere of radius r around its origin.
func pointDist(x, y, z, r float32) (float32, float32, float32, float32) {
	l := sqrt32(x*x + y*y + z*z)
	if l == 0 {
		return -r, 0, 1, 0
	}
	return l - r, x / l, y / l, z / l
}

// Collider keeps particles out of the obstacles and inside the domain box, each kept a particle radius away.
type Collider struct {
	Obstacles []Obstacle
	Lo, Hi    [3]float32 // the domain shrunk by the radius
	Radius    float32
}

// NewCollider packs a scene's boundaries for particles of the given radius.
func NewCollider(sc *scene.Scene, radius float32) Collider {
	c := Collider{Obstacles: PackObstacles(sc.Obstacles), Radius: radius}
	for k := 0; k < 3; k++ {
		c.Lo[k] = float32(sc.Domain.Min[k]) + radius
		c.Hi[k] = float32(sc.Domain.Max[k]) - radius
	}
	return c
}

// Apply projects a position out of every obstacle (along the obstacle's normal) and then into the domain.
func (c *Collider) Apply(p *[4]float32) {
	for i := range c.Obstacles {
		d, nx, ny, nz := c.Obstacles[i].SDF(p[0], p[1], p[2])
		if d < c.Radius {
			s := c.Radius - d
			p[0] += s * nx
			p[1] += s * ny
			p[2] += s * nz
		}
	}
	for k := 0; k < 3; k++ {
		p[k] = min(max(p[k], c.Lo[k]), c.Hi[k])
	}
}
