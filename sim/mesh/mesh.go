// Package mesh reads closed triangle meshes (Wavefront OBJ), checks that inside and outside are defined, and turns
// them into signed distance fields that collision and sampling code can query anywhere.
//
// The pieces, in the order a mesh goes through them:
//
//   - Parse / Load / LoadFile: OBJ text → Mesh (vertices, triangles, the line each triangle came from), with size
//     limits (MaxFileBytes, MaxTriangles) and errors that name the file and the line.
//   - Mesh.Validate: the mesh must be non-degenerate, closed and manifold (every edge shared by exactly two
//     triangles) and consistently oriented; Load also turns an inside-out mesh right side out.
//   - Mesh.Fit / Transformed: uniform scale to a target size, centring and rotation (degrees, R = Rz·Ry·Rx, the
//     same convention as scene.Shape.RotationMatrix).
//   - Locator: a bounding volume hierarchy for exact nearest-triangle queries and a robust inside test (ray parity
//     along the three axes with a symbolic perturbation for rays through edges and vertices, majority vote).
//   - BuildSDF: a regular grid of signed distances (negative inside) as a flat []float32, exact near the surface,
//     fast sweeping further away; SDF.Distance and SDF.Normal interpolate it trilinearly and extend it beyond the
//     grid so callers can query any point.
//
// No GL here: the GPU side uploads SDF.Values as a 3D texture.
package mesh

import (
	"fmt"
	"math"
)

// Vec3 is a point or vector in metres; sim/scene's Vec3 is the same type.
type Vec3 [3]float64

func (a Vec3) Add(b Vec3) Vec3      { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a Vec3) Sub(b Vec3) Vec3      { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a[0] * s, a[1] * s, a[2] * s} }
func (a Vec3) Dot(b Vec3) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a Vec3) Len() float64         { return math.Sqrt(a.Dot(a)) }
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Min is the componentwise minimum (plain comparisons: the coordinates here are never NaN).
func (a Vec3) Min(b Vec3) Vec3 {
	for c := 0; c < 3; c++ {
		if b[c] < a[c] {
			a[c] = b[c]
		}
	}
	return a
}

// Max is the componentwise maximum.
func (a Vec3) Max(b Vec3) Vec3 {
	for c := 0; c < 3; c++ {
		if b[c] > a[c] {
			a[c] = b[c]
		}
	}
	return a
}

func (a Vec3) MaxComp() float64 { return math.Max(a[0], math.Max(a[1], a[2])) }
func (a Vec3) Mul(b Vec3) Vec3  { return Vec3{a[0] * b[0], a[1] * b[1], a[2] * b[2]} }
func (a Vec3) Abs() Vec3        { return Vec3{math.Abs(a[0]), math.Abs(a[1]), math.Abs(a[2])} }
func (a Vec3) String() string   { return fmt.Sprintf("[%g, %g, %g]", a[0], a[1], a[2]) }
func (a Vec3) Lerp(b Vec3, t float64) Vec3 {
	return a.Add(b.Sub(a).Scale(t))
}

// Mesh is an indexed triangle mesh.
type Mesh struct {
	// Name identifies the mesh in errors (usually the file it came from).
	Name      string
	Vertices  []Vec3
	Triangles [][3]int32
	// Lines holds, for each triangle, the line of the OBJ face it came from (a polygon gives several triangles);
	// nil for meshes made in code. Only used to point errors at the file.
	Lines []int32
}

// Bounds returns the corners of the axis-aligned box around the vertices that triangles use.
func (m *Mesh) Bounds() (lo, hi Vec3) {
	inf := math.Inf(1)
	lo, hi = Vec3{inf, inf, inf}, Vec3{-inf, -inf, -inf}
	if len(m.Triangles) == 0 {
		for _, v := range m.Vertices {
			lo, hi = lo.Min(v), hi.Max(v)
		}
		return lo, hi
	}
	for _, t := range m.Triangles {
		for _, i := range t {
			v := m.Vertices[i]
			lo, hi = lo.Min(v), hi.Max(v)
		}
	}
	return lo, hi
}

// Volume is the enclosed volume by the divergence theorem: Σ over triangles of a·(b×c)/6 (positive for a closed
// mesh whose triangles wind counter-clockwise seen from outside).
func (m *Mesh) Volume() float64 {
	// relative to a point near the mesh, so far-away meshes do not lose digits
	lo, hi := m.Bounds()
	o := lo.Add(hi).Scale(0.5)
	v := 0.0
	for _, t := range m.Triangles {
		a, b, c := m.Vertices[t[0]].Sub(o), m.Vertices[t[1]].Sub(o), m.Vertices[t[2]].Sub(o)
		v += a.Dot(b.Cross(c))
	}
	return v / 6
}

// Area is the total surface area.
func (m *Mesh) Area() float64 {
	a := 0.0
	for _, t := range m.Triangles {
		p, q, r := m.Vertices[t[0]], m.Vertices[t[1]], m.Vertices[t[2]]
		a += q.Sub(p).Cross(r.Sub(p)).Len() / 2
	}
	return a
}

// FlipFaces reverses every triangle's winding (turns an inside-out mesh right side out).
func (m *Mesh) FlipFaces() {
	for i := range m.Triangles {
		t := &m.Triangles[i]
		t[1], t[2] = t[2], t[1]
	}
}

// Clone returns a deep copy.
func (m *Mesh) Clone() *Mesh {
	c := *m
	c.Vertices = append([]Vec3(nil), m.Vertices...)
	c.Triangles = append([][3]int32(nil), m.Triangles...)
	if m.Lines != nil {
		c.Lines = append([]int32(nil), m.Lines...)
	}
	return &c
}

// Mat3 is a row-major 3×3 matrix.
type Mat3 [3][3]float64

// MulVec returns m·v.
func (m Mat3) MulVec(v Vec3) Vec3 {
	return Vec3{m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2],
		m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2],
		m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2]}
}

// MulTVec returns mᵀ·v.
func (m Mat3) MulTVec(v Vec3) Vec3 {
	return Vec3{m[0][0]*v[0] + m[1][0]*v[1] + m[2][0]*v[2],
		m[0][1]*v[0] + m[1][1]*v[1] + m[2][1]*v[2],
		m[0][2]*v[0] + m[1][2]*v[1] + m[2][2]*v[2]}
}

// Rotation is the rotation R = Rz·Ry·Rx by deg (degrees about x, then y, then z), the convention of
// scene.Shape.RotationMatrix.
func Rotation(deg Vec3) Mat3 {
	rx, ry, rz := deg[0]*math.Pi/180, deg[1]*math.Pi/180, deg[2]*math.Pi/180
	cx, sx := math.Cos(rx), math.Sin(rx)
	cy, sy := math.Cos(ry), math.Sin(ry)
	cz, sz := math.Cos(rz), math.Sin(rz)
	return Mat3{
		{cz * cy, cz*sy*sx - sz*cx, cz*sy*cx + sz*sx},
		{sz * cy, sz*sy*sx + cz*cx, sz*sy*cx - cz*sx},
		{-sy, cy * sx, cy * cx},
	}
}

// Transpose returns mᵀ.
func (m Mat3) Transpose() Mat3 {
	return Mat3{{m[0][0], m[1][0], m[2][0]}, {m[0][1], m[1][1], m[2][1]}, {m[0][2], m[1][2], m[2][2]}}
}

// Mul returns the product m·b.
func (m Mat3) Mul(b Mat3) Mat3 {
	var p Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			p[i][j] = m[i][0]*b[0][j] + m[i][1]*b[1][j] + m[i][2]*b[2][j]
		}
	}
	return p
}

// EulerDegrees is the inverse of Rotation: angles (degrees about x, then y, then z) with Rotation(angles) = m, for
// a rotation matrix m. The y angle is in [−90, 90] and the others in (−180, 180]. At ±90° about y (gimbal lock)
// only x − z (or x + z) is defined, and the x angle is 0.
//
// With R = Rz·Ry·Rx, R[2] = (−sin y, cos y·sin x, cos y·cos x) gives x and y; z then comes from the first two
// rows with x known (sin z = sin x·R[0][2] − cos x·R[0][1], cos z = cos x·R[1][1] − sin x·R[1][2]), which stays
// accurate near gimbal lock, where atan2(R[1][0], R[0][0]) would not (M. Day, "Extracting Euler angles from a
// rotation matrix", 2014).
func EulerDegrees(m Mat3) Vec3 {
	x := 0.0
	if math.Hypot(m[2][1], m[2][2]) > 1e-12 {
		x = math.Atan2(m[2][1], m[2][2])
	}
	y := math.Atan2(-m[2][0], math.Hypot(m[0][0], m[1][0]))
	sx, cx := math.Sin(x), math.Cos(x)
	z := math.Atan2(sx*m[0][2]-cx*m[0][1], cx*m[1][1]-sx*m[1][2])
	const deg = 180 / math.Pi
	return Vec3{x * deg, y * deg, z * deg}
}

// Transform is a similarity: p ↦ Translate + Rotate·(Scale·p).
type Transform struct {
	Scale     float64
	Rotate    Mat3
	Translate Vec3
}

// Apply maps a point.
func (t Transform) Apply(p Vec3) Vec3 { return t.Translate.Add(t.Rotate.MulVec(p.Scale(t.Scale))) }

// Inverse maps a point back: Rotateᵀ·(p − Translate)/Scale.
func (t Transform) Inverse(p Vec3) Vec3 {
	return t.Rotate.MulTVec(p.Sub(t.Translate)).Scale(1 / t.Scale)
}

// Fit is the transform that scales the mesh uniformly so that the longest side of its bounding box is size,
// rotates it by rotationDeg (degrees, R = Rz·Ry·Rx) about the centre of its bounding box, and puts that centre at
// center.
func (m *Mesh) Fit(size float64, center, rotationDeg Vec3) Transform {
	lo, hi := m.Bounds()
	s := 1.0
	if l := hi.Sub(lo).MaxComp(); l > 0 {
		s = size / l
	}
	r := Rotation(rotationDeg)
	c := lo.Add(hi).Scale(0.5)
	return Transform{Scale: s, Rotate: r, Translate: center.Sub(r.MulVec(c.Scale(s)))}
}

// Transformed returns a copy with every vertex mapped by t (the winding is kept: t has a positive scale).
func (m *Mesh) Transformed(t Transform) *Mesh {
	c := m.Clone()
	for i, v := range c.Vertices {
		c.Vertices[i] = t.Apply(v)
	}
	return c
}
