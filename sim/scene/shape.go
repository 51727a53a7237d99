package scene

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/jsonmsg"
	"github.com/slosh/slosh/sim/mesh"
)

// Shape kinds.
const (
	ShapeBox      = "box"
	ShapeSphere   = "sphere"
	ShapeCapsule  = "capsule"
	ShapeCylinder = "cylinder"
	ShapeMesh     = "mesh"
)

// Shape is a solid: a box (Center, Size, Rotation), a sphere (Center, Radius), a capsule (segment A–B, Radius),
// a cylinder (Center, Radius, Height along its local y, Rotation) or a mesh (Mesh, an OBJ file; Extent, the
// longest side of its bounding box; Center, where the middle of its bounding box goes; Rotation about that
// middle).
type Shape struct {
	Kind     string  `json:"shape"`
	Center   Vec3    `json:"center,omitempty"`
	Size     Vec3    `json:"size,omitempty"`     // box: full extents
	Radius   float64 `json:"radius,omitempty"`   // sphere, capsule, cylinder
	Height   float64 `json:"height,omitempty"`   // cylinder
	A        Vec3    `json:"a,omitempty"`        // capsule end
	B        Vec3    `json:"b,omitempty"`        // capsule end
	Rotation Vec3    `json:"rotation,omitempty"` // degrees about x, then y, then z (box, cylinder, mesh)
	Mesh     string  `json:"mesh,omitempty"`     // OBJ path, relative to the scene file, or a shipped mesh's name
	Extent   float64 `json:"extent,omitempty"`   // mesh: the longest side of its bounding box (m)

	// meshData is the loaded mesh (Validate loads it; SetMesh sets it); shared, read-only, not part of the file.
	meshData *MeshData
}

// Mat3 is a row-major 3×3 matrix (sim/mesh's).
type Mat3 = mesh.Mat3

// RotationMatrix is the local-to-world rotation R = Rz·Ry·Rx of Rotation (degrees).
func (s *Shape) RotationMatrix() Mat3 {
	if s.Rotation == (Vec3{}) {
		return Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}} // what mesh.Rotation gives, without six sines and cosines per point
	}
	return mesh.Rotation(s.Rotation)
}

// SDF returns the signed distance from p to the surface (negative inside) and the outward unit normal of the
// nearest surface point.
func (s *Shape) SDF(p Vec3) (float64, Vec3) {
	switch s.Kind {
	case ShapeSphere:
		d := p.Sub(s.Center)
		l := d.Len()
		if l == 0 {
			return -s.Radius, Vec3{0, 1, 0}
		}
		return l - s.Radius, d.Scale(1 / l)
	case ShapeCapsule:
		ab := s.B.Sub(s.A)
		t := 0.0
		if l2 := ab.Dot(ab); l2 > 0 {
			t = math.Max(0, math.Min(1, p.Sub(s.A).Dot(ab)/l2))
		}
		d := p.Sub(s.A.Add(ab.Scale(t)))
		l := d.Len()
		if l == 0 {
			return -s.Radius, Vec3{0, 1, 0}
		}
		return l - s.Radius, d.Scale(1 / l)
	case ShapeBox:
		r := s.RotationMatrix()
		d, n := boxSDF(r.MulTVec(p.Sub(s.Center)), s.Size.Scale(0.5))
		return d, r.MulVec(n)
	case ShapeCylinder:
		r := s.RotationMatrix()
		d, n := cylinderSDF(r.MulTVec(p.Sub(s.Center)), s.Radius, s.Height/2)
		return d, r.MulVec(n)
	case ShapeMesh:
		// trilinear in the mesh's distance grid, exact to rounding within 1.5 grid cells of the surface; the
		// normal is the grid's gradient. +Inf while the mesh is not loaded.
		return s.meshSDF(p, true)
	}
	return math.Inf(1), Vec3{0, 1, 0}
}

// Distance is the first result of SDF, without the normal (cheaper for meshes).
func (s *Shape) Distance(p Vec3) float64 {
	if s.Kind == ShapeMesh {
		d, _ := s.meshSDF(p, false)
		return d
	}
	d, _ := s.SDF(p)
	return d
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

// boxSDF is the distance to an axis-aligned box of half extents h centred at the origin.
func boxSDF(p, h Vec3) (float64, Vec3) {
	q := p.Abs().Sub(h)
	if q[0] > 0 || q[1] > 0 || q[2] > 0 {
		o := Vec3{math.Max(q[0], 0), math.Max(q[1], 0), math.Max(q[2], 0)}
		l := o.Len()
		return l, Vec3{sign(p[0]) * o[0] / l, sign(p[1]) * o[1] / l, sign(p[2]) * o[2] / l}
	}
	k := 0
	if q[1] > q[k] {
		k = 1
	}
	if q[2] > q[k] {
		k = 2
	}
	var n Vec3
	n[k] = sign(p[k])
	return q[k], n
}

// cylinderSDF is the distance to a cylinder of radius r and half height hh along y, centred at the origin.
func cylinderSDF(p Vec3, r, hh float64) (float64, Vec3) {
	rho := math.Hypot(p[0], p[2])
	radial := Vec3{0, 0, 1}
	if rho > 0 {
		radial = Vec3{p[0] / rho, 0, p[2] / rho}
	}
	axial := Vec3{0, sign(p[1]), 0}
	dr, dy := rho-r, math.Abs(p[1])-hh
	switch {
	case dr > 0 && dy > 0:
		l := math.Hypot(dr, dy)
		return l, radial.Scale(dr / l).Add(axial.Scale(dy / l))
	case dr > 0:
		return dr, radial
	case dy > 0:
		return dy, axial
	case dr > dy:
		return dr, radial
	default:
		return dy, axial
	}
}

// Bounds is an axis-aligned box around the shape (for a mesh, around its placed vertices).
func (s *Shape) Bounds() Box {
	switch s.Kind {
	case ShapeSphere:
		r := Vec3{s.Radius, s.Radius, s.Radius}
		return Box{s.Center.Sub(r), s.Center.Add(r)}
	case ShapeCapsule:
		r := Vec3{s.Radius, s.Radius, s.Radius}
		return Box{s.A.Min(s.B).Sub(r), s.A.Max(s.B).Add(r)}
	case ShapeBox:
		// the rotated box's extent along each world axis is Σ_j |R_ij| h_j
		h := s.Size.Scale(0.5)
		r := s.RotationMatrix()
		var e Vec3
		for i := 0; i < 3; i++ {
			e[i] = math.Abs(r[i][0])*h[0] + math.Abs(r[i][1])*h[1] + math.Abs(r[i][2])*h[2]
		}
		return Box{s.Center.Sub(e), s.Center.Add(e)}
	case ShapeCylinder:
		// exact: along world axis i the end caps reach |a_i|·h/2 and their rims r·√(1 − a_i²) further, with a
		// the cylinder's axis (R·y); the bounding box of the rotated local box would stick out at tilted angles
		r := s.RotationMatrix()
		var e Vec3
		for i := 0; i < 3; i++ {
			a := r[i][1]
			e[i] = math.Abs(a)*s.Height/2 + s.Radius*math.Sqrt(math.Max(0, 1-a*a))
		}
		return Box{s.Center.Sub(e), s.Center.Add(e)}
	case ShapeMesh:
		return s.meshBounds()
	}
	return Box{s.Center, s.Center}
}

// Volume is the shape's exact volume (a mesh's by the divergence theorem; 0 until its file is loaded).
func (s *Shape) Volume() float64 {
	switch s.Kind {
	case ShapeSphere:
		return 4 * math.Pi / 3 * s.Radius * s.Radius * s.Radius
	case ShapeCapsule:
		return math.Pi*s.Radius*s.Radius*s.B.Sub(s.A).Len() + 4*math.Pi/3*s.Radius*s.Radius*s.Radius
	case ShapeBox:
		return s.Size[0] * s.Size[1] * s.Size[2]
	case ShapeCylinder:
		return math.Pi * s.Radius * s.Radius * s.Height
	case ShapeMesh:
		if md := s.MeshData(); md != nil {
			return md.Volume * s.Extent * s.Extent * s.Extent
		}
	}
	return 0
}

// String is a short description for messages.
func (s *Shape) String() string {
	switch s.Kind {
	case ShapeSphere:
		return fmt.Sprintf("sphere at %v r=%g", s.Center, s.Radius)
	case ShapeCapsule:
		return fmt.Sprintf("capsule %v–%v r=%g", s.A, s.B, s.Radius)
	case ShapeBox:
		return fmt.Sprintf("box at %v size %v", s.Center, s.Size)
	case ShapeCylinder:
		return fmt.Sprintf("cylinder at %v r=%g h=%g", s.Center, s.Radius, s.Height)
	case ShapeMesh:
		return fmt.Sprintf("mesh %s at %v extent %g", jsonmsg.Quote(s.Mesh), s.Center, s.Extent)
	}
	return jsonmsg.Clip(s.Kind)
}
