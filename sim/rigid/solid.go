package rigid

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// Solid is a rigid body described by its shape rather than by particles, as the grid mode (sim/flip) and the SPH
// mode (sim/sph) hold them: the scene's shape at the pose it was placed in, the rigid motion since, and the mass
// properties of the shape at the body's density. A rest-frame point x (the scene's placement) is now at
// C + R(Q)·(x − Origin). State in float64: the poses are integrated over many small steps.
//
// What the modes share lives here: measuring a shape (NewSolid), the pose (Rot, Posed), the world inertia, the
// pose update (Advance), and the inelastic contacts with the domain's walls, solids and other bodies through
// points sampled on the surface (ContactStatic, ContactSolids). How the fluid pushes the body is each mode's own.
type Solid struct {
	Spec   scene.Body // as the scene (or the drop tool) placed it
	Origin [3]float64 // its centre of mass as placed
	C      [3]float64 // centre of mass now
	Q      [4]float64 // orientation (x, y, z, w): rest frame → world
	V, W   [3]float64 // velocity of the centre of mass, angular velocity

	// Driving says the body is dragged (sim.Hands.DriveBody) at velocity Drive: a kinematic body, an infinite
	// mass to contacts.
	Driving bool
	Drive   [3]float64

	// derived from the shape
	Mass  float64       // kg
	IBody [3][3]float64 // inertia about the centre of mass in the rest frame, kg·m²
	Hull  [][3]float64  // points on the surface, offsets from the centre of mass in the rest frame
}

// maxSolidSamples bounds the lattice a body's mass properties are summed over.
const maxSolidSamples = 1 << 21

// maxHull sets how many surface points a body collides with: the shell is thinned by the integer stride
// len/maxHull, leaving between maxHull and 2·maxHull points (all of them when there are fewer).
const maxHull = 2048

// NewSolid measures a body's shape at length scale h (a grid cell, a kernel radius): mass, centre of mass and
// inertia from a lattice of spacing min(h/4, extent/10) inside it (coarser where that would exceed 2²¹ points),
// and about 2048 points on its surface for contacts (maxHull): the lattice points within max(spacing, h/4) of the
// surface, moved onto it along the distance field's gradient. The result is a function of spec and h alone, so a body
// measured again (a loaded state) is the same body to the bit.
func NewSolid(spec scene.Body, h float64) (Solid, error) {
	bb := spec.Shape.Bounds()
	size := bb.Size()
	ext := math.Min(size[0], math.Min(size[1], size[2]))
	if !(ext > 0) || !(spec.Density > 0) {
		return Solid{}, fmt.Errorf("a body (%s) needs a positive size and density", spec.Shape.String())
	}
	n, cell := lattice(size, math.Min(h/4, ext/10))
	d := max(cell[0], cell[1], cell[2])
	var m0 float64
	var m1 [3]float64
	var m2 [3][3]float64
	var shell []scene.Vec3
	for k := 0; k < n[2]; k++ {
		for j := 0; j < n[1]; j++ {
			for i := 0; i < n[0]; i++ {
				p := scene.Vec3{bb.Min[0] + (float64(i)+0.5)*cell[0], bb.Min[1] + (float64(j)+0.5)*cell[1], bb.Min[2] + (float64(k)+0.5)*cell[2]}
				dist := spec.Shape.Distance(p)
				if dist >= 0 {
					continue
				}
				m0++
				for a := 0; a < 3; a++ {
					m1[a] += p[a]
					for b := 0; b < 3; b++ {
						m2[a][b] += p[a] * p[b]
					}
				}
				if dist > -math.Max(d, h/4) {
					// onto the surface along the distance field's gradient: the points that touch walls first
					dd, nrm := spec.Shape.SDF(p)
					shell = append(shell, p.Sub(nrm.Scale(dd)))
				}
			}
		}
	}
	if m0 == 0 {
		return Solid{}, fmt.Errorf("a body (%s) is too small to measure at %.3g m", spec.Shape.String(), h)
	}
	b := Solid{Spec: spec, Q: [4]float64{0, 0, 0, 1}}
	for a := 0; a < 3; a++ {
		b.Origin[a] = m1[a] / m0
	}
	b.C = b.Origin
	b.Mass = spec.Density * m0 * cell[0] * cell[1] * cell[2]
	// inertia about the centre: Σ m (|r|² I − r rᵀ)
	var cov [3][3]float64
	for a := 0; a < 3; a++ {
		for c := 0; c < 3; c++ {
			cov[a][c] = (m2[a][c]/m0 - b.Origin[a]*b.Origin[c]) * b.Mass
		}
	}
	tr := cov[0][0] + cov[1][1] + cov[2][2]
	for a := 0; a < 3; a++ {
		for c := 0; c < 3; c++ {
			b.IBody[a][c] = -cov[a][c]
		}
		// the lattice cells' own inertia: a box of the cell's sides about axis a
		b.IBody[a][a] += tr + b.Mass*(cell[(a+1)%3]*cell[(a+1)%3]+cell[(a+2)%3]*cell[(a+2)%3])/12
	}
	// collision points: the shell, thinned
	stride := max(1, len(shell)/maxHull)
	for i := 0; i < len(shell); i += stride {
		p := shell[i]
		b.Hull = append(b.Hull, [3]float64{p[0] - b.Origin[0], p[1] - b.Origin[1], p[2] - b.Origin[2]})
	}
	b.V = [3]float64(spec.Velocity)
	b.W = [3]float64(spec.Spin)
	return b, nil
}

// lattice is the lattice NewSolid measures a body of bounding-box size over: n points along each axis and the
// cell's sides. The spacing is d, coarser where that would exceed maxSolidSamples points. An axis thinner than the
// spacing (a plate, once the spacing was made coarser) gets one layer of points on its middle plane, its cell as
// thick as the body, and the other axes share the budget: without that, a plate 10 m wide and 1 µm thick asked for
// a lattice of 7·10⁸ points.
func lattice(size [3]float64, d float64) (n [3]int, cell [3]float64) {
	if vol := size[0] * size[1] * size[2]; vol/(d*d*d) > maxSolidSamples {
		d *= math.Cbrt(vol / (d * d * d) / maxSolidSamples)
	}
	// Where an axis is thin, the others may share the budget: at most three rounds, each making at least one more
	// axis thin or leaving the spacing as it is. (Half the budget, for the rounding up of each count.)
	thin := size[0] <= d || size[1] <= d || size[2] <= d
	for round := 0; thin && round < 3; round++ {
		wide, area := 0, 1.0
		for k := range 3 {
			if size[k] > d {
				wide++
				area *= size[k]
			}
		}
		if wide == 0 || area/math.Pow(d, float64(wide)) <= maxSolidSamples/2 {
			break
		}
		d = math.Pow(area/(maxSolidSamples/2), 1/float64(wide))
	}
	for k := range 3 {
		if size[k] > d {
			n[k], cell[k] = int(math.Ceil(size[k]/d)), d
		} else {
			n[k], cell[k] = 1, size[k]
		}
	}
	return n, cell
}

// Rot is the body's rotation matrix.
func (b *Solid) Rot() scene.Mat3 {
	x, y, z, w := b.Q[0], b.Q[1], b.Q[2], b.Q[3]
	return scene.Mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
}

// Posed is the body's shape where it is now.
func (b *Solid) Posed() scene.Shape {
	return b.Spec.Shape.Posed(scene.Vec3(b.Origin), scene.Vec3(b.C), b.Rot())
}

// InvInertia is the inverse of the world inertia R I Rᵀ.
func (b *Solid) InvInertia() [3][3]float64 {
	r := b.Rot()
	var iw [3][3]float64
	for a := 0; a < 3; a++ {
		for c := 0; c < 3; c++ {
			var s float64
			for k := 0; k < 3; k++ {
				for l := 0; l < 3; l++ {
					s += r[a][k] * b.IBody[k][l] * r[c][l]
				}
			}
			iw[a][c] = s
		}
	}
	return Inverse3(iw)
}

// Inverse3 is the inverse of a 3×3 matrix (zero for a singular one).
func Inverse3(m [3][3]float64) [3][3]float64 {
	c00 := m[1][1]*m[2][2] - m[1][2]*m[2][1]
	c01 := m[1][2]*m[2][0] - m[1][0]*m[2][2]
	c02 := m[1][0]*m[2][1] - m[1][1]*m[2][0]
	det := m[0][0]*c00 + m[0][1]*c01 + m[0][2]*c02
	if det == 0 {
		return [3][3]float64{}
	}
	id := 1 / det
	return [3][3]float64{
		{c00 * id, (m[0][2]*m[2][1] - m[0][1]*m[2][2]) * id, (m[0][1]*m[1][2] - m[0][2]*m[1][1]) * id},
		{c01 * id, (m[0][0]*m[2][2] - m[0][2]*m[2][0]) * id, (m[0][2]*m[1][0] - m[0][0]*m[1][2]) * id},
		{c02 * id, (m[0][1]*m[2][0] - m[0][0]*m[2][1]) * id, (m[0][0]*m[1][1] - m[0][1]*m[1][0]) * id},
	}
}

// Advance moves the pose over a step dt at the body's velocity and spin, plus a displacement shift and a turn
// (radians about each axis) a mode adds: C += Δt V + shift, Q += ½ (Δt ω + turn, 0) Q, normalised.
func (b *Solid) Advance(dt float64, shift, turn [3]float64) {
	for a := 0; a < 3; a++ {
		b.C[a] += dt*b.V[a] + shift[a]
	}
	w := [3]float64{dt*b.W[0] + turn[0], dt*b.W[1] + turn[1], dt*b.W[2] + turn[2]}
	q := b.Q
	dq := [4]float64{
		w[0]*q[3] + w[1]*q[2] - w[2]*q[1],
		w[1]*q[3] + w[2]*q[0] - w[0]*q[2],
		w[2]*q[3] + w[0]*q[1] - w[1]*q[0],
		-w[0]*q[0] - w[1]*q[1] - w[2]*q[2],
	}
	var l float64
	for k := 0; k < 4; k++ {
		q[k] += 0.5 * dq[k]
		l += q[k] * q[k]
	}
	l = 1 / math.Sqrt(l)
	for k := 0; k < 4; k++ {
		q[k] *= l
	}
	b.Q = q
}

// ContactMargin keeps a body's surface this far inside the domain's walls, so that a body at rest on the floor
// still lies inside the domain to rounding (a save file's scene places it there).
const ContactMargin = 1e-4

// ContactStatic pushes a body out of the domain's walls (by its posed shape's bounds, exact for spheres and
// capsules and for boxes' corners) and out of the solids (by its surface points) along the deepest contact's
// normal, and removes its velocity into them, three times at most. solid, when not nil, is the signed distance
// to the nearest solid and that solid's outward normal (the deepest of several: the smallest distance).
func (b *Solid) ContactStatic(domain scene.Box, solid func(p scene.Vec3) (float64, scene.Vec3)) {
	for it := 0; it < 3; it++ {
		depth, normal := 0.0, [3]float64{}
		sh := b.Posed()
		bb := sh.Bounds()
		for a := 0; a < 3; a++ {
			if d := domain.Min[a] + ContactMargin - bb.Min[a]; d > depth {
				depth, normal = d, [3]float64{}
				normal[a] = 1
			}
			if d := bb.Max[a] - (domain.Max[a] - ContactMargin); d > depth {
				depth, normal = d, [3]float64{}
				normal[a] = -1
			}
		}
		if solid != nil {
			r := b.Rot()
			for _, o := range b.Hull {
				x := r.MulVec(scene.Vec3(o))
				p := scene.Vec3{b.C[0] + x[0], b.C[1] + x[1], b.C[2] + x[2]}
				if d, n := solid(p); -d > depth {
					depth, normal = -d, [3]float64(n)
				}
			}
		}
		if depth <= 0 {
			return
		}
		for a := 0; a < 3; a++ {
			b.C[a] += depth * normal[a]
		}
		// remove the velocity into the solid at the centre of mass, and damp the spin a little (the contact's
		// friction)
		vn := b.V[0]*normal[0] + b.V[1]*normal[1] + b.V[2]*normal[2]
		if vn < 0 && !b.Driving {
			for a := 0; a < 3; a++ {
				b.V[a] -= vn * normal[a]
				b.W[a] *= 0.9
			}
		}
	}
}

// ContactSolids separates two bodies that overlap (a's surface points inside b), each by the share of its
// partner's mass (a dragged body does not give way), and makes their approach inelastic with momentum conserved.
func ContactSolids(a, b *Solid) {
	sa, sb := a.Posed(), b.Posed()
	if !Overlaps(sa.Bounds(), sb.Bounds()) {
		return
	}
	ra := a.Rot()
	depth, normal := 0.0, [3]float64{}
	for _, o := range a.Hull {
		x := ra.MulVec(scene.Vec3(o))
		p := scene.Vec3{a.C[0] + x[0], a.C[1] + x[1], a.C[2] + x[2]}
		if d, n := sb.SDF(p); -d > depth {
			depth, normal = -d, [3]float64{-n[0], -n[1], -n[2]} // pushes a out of b
		}
	}
	if depth <= 0 {
		return
	}
	ma, mb := a.Mass, b.Mass
	if a.Driving {
		ma = math.Inf(1)
	}
	if b.Driving {
		mb = math.Inf(1)
	}
	fa := 0.5
	switch {
	case math.IsInf(ma, 1) && math.IsInf(mb, 1):
		fa = 0.5
	case math.IsInf(ma, 1):
		fa = 0
	case math.IsInf(mb, 1):
		fa = 1
	default:
		fa = mb / (ma + mb)
	}
	for k := 0; k < 3; k++ {
		a.C[k] -= fa * depth * normal[k]
		b.C[k] += (1 - fa) * depth * normal[k]
	}
	// the approach speed along the contact normal (normal points from a's surface into b)
	vrel := 0.0
	for k := 0; k < 3; k++ {
		vrel += (a.V[k] - b.V[k]) * -normal[k]
	}
	if vrel >= 0 {
		return // separating
	}
	var j float64 // impulse magnitude along −normal on a
	switch {
	case math.IsInf(ma, 1) && math.IsInf(mb, 1):
		return
	case math.IsInf(ma, 1):
		j = vrel * mb
	case math.IsInf(mb, 1):
		j = vrel * ma
	default:
		j = vrel * ma * mb / (ma + mb)
	}
	for k := 0; k < 3; k++ {
		if !a.Driving {
			a.V[k] -= j / ma * -normal[k]
		}
		if !b.Driving {
			b.V[k] += j / mb * -normal[k]
		}
	}
}

// Overlaps says whether two boxes meet.
func Overlaps(a, b scene.Box) bool {
	for k := 0; k < 3; k++ {
		if a.Max[k] < b.Min[k] || b.Max[k] < a.Min[k] {
			return false
		}
	}
	return true
}

// Motion is what of a Solid changes as it moves: the state files store it as it is (little-endian, fixed size;
// Driving 0 or 1), the shape beside it as a scene's body.
type Motion struct {
	Origin, C [3]float64
	Q         [4]float64
	V, W      [3]float64
	Driving   int64
	Drive     [3]float64
}

// Reach is the farthest of the body's surface points from its centre of mass, m.
func (s *Solid) Reach() float64 {
	r := 0.0
	for _, o := range s.Hull {
		r = math.Max(r, math.Sqrt(o[0]*o[0]+o[1]*o[1]+o[2]*o[2]))
	}
	return r
}

// SetDrive starts or ends a drag (sim.Hands.DriveBody): while on, the body moves at v without turning, from at
// once; let go, it keeps the velocity it had.
func (s *Solid) SetDrive(v [3]float32, on bool) {
	s.Driving = on
	s.Drive = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
	if on {
		s.V, s.W = s.Drive, [3]float64{}
	}
}

// SurfaceSpeed is the fastest a point of the body within reach of its centre of mass moves: |v| + |ω| reach.
func (s *Solid) SurfaceSpeed(reach float64) float64 {
	v, w := s.V, s.W
	return math.Sqrt(v[0]*v[0]+v[1]*v[1]+v[2]*v[2]) + reach*math.Sqrt(w[0]*w[0]+w[1]*w[1]+w[2]*w[2])
}

// ClampSpeed is real-time mode's clamp (sim.CFL.SpeedLimit) for a shape body, as sim.ClampSpeeds is for
// particles: when the body's fastest surface point within reach, |v| + |ω| reach (SurfaceSpeed; reach is Reach,
// which ShapeBody keeps), is faster than limit, V and W are scaled by one factor down to it, keeping the direction
// of the motion and the axis of the spin: the body's share of the velocity condition is then within the limit. A
// dragged body moves at the hand's velocity and is left alone, as is one whose velocities are not finite (the
// mode's check reports it). It reports whether it scaled.
func (s *Solid) ClampSpeed(limit, reach float64) bool {
	if s.Driving || !(limit < math.Inf(1)) {
		return false
	}
	sp := s.SurfaceSpeed(reach)
	if !(sp > limit) || math.IsInf(sp, 1) {
		return false
	}
	k := limit / sp
	for a := 0; a < 3; a++ {
		s.V[a] *= k
		s.W[a] *= k
	}
	return true
}

// Finite reports whether the body's pose and velocities are all finite.
func (s *Solid) Finite() bool {
	sum := s.C[0] + s.C[1] + s.C[2] + s.V[0] + s.V[1] + s.V[2] + s.W[0] + s.W[1] + s.W[2] + s.Q[0] + s.Q[1] + s.Q[2] + s.Q[3]
	return !math.IsNaN(sum) && !math.IsInf(sum, 0)
}

// State is the body's pose as a frame carries it.
func (s *Solid) State() sim.BodyState {
	return sim.BodyState{
		Center: [3]float32{float32(s.C[0]), float32(s.C[1]), float32(s.C[2])},
		Rot:    [4]float32{float32(s.Q[0]), float32(s.Q[1]), float32(s.Q[2]), float32(s.Q[3])},
		Origin: [3]float32{float32(s.Origin[0]), float32(s.Origin[1]), float32(s.Origin[2])},
	}
}

// Motion returns the body's motion as stored.
func (s *Solid) Motion() Motion {
	m := Motion{Origin: s.Origin, C: s.C, Q: s.Q, V: s.V, W: s.W, Drive: s.Drive}
	if s.Driving {
		m.Driving = 1
	}
	return m
}

// SetMotion sets the body's motion from a stored one.
func (s *Solid) SetMotion(m Motion) {
	s.Origin, s.C, s.Q, s.V, s.W, s.Driving, s.Drive = m.Origin, m.C, m.Q, m.V, m.W, m.Driving != 0, m.Drive
}

// ResolveContacts resolves the contacts of every body with the domain's walls and the solids obstacles describes
// (nil: none), then of each pair whose bounds, grown by margin, overlap; bounds is scratch reused between calls.
func ResolveContacts(list []*Solid, domain scene.Box, obstacles func(p scene.Vec3) (float64, scene.Vec3), margin float64, bounds *[]scene.Box) {
	for _, b := range list {
		b.ContactStatic(domain, obstacles)
	}
	bb := (*bounds)[:0]
	g := scene.Vec3{margin, margin, margin}
	for _, b := range list {
		sh := b.Posed()
		x := sh.Bounds()
		bb = append(bb, scene.Box{Min: x.Min.Sub(g), Max: x.Max.Add(g)})
	}
	*bounds = bb
	for i := range list {
		for j := i + 1; j < len(list); j++ {
			if Overlaps(bb[i], bb[j]) {
				ContactSolids(list[i], list[j])
			}
		}
	}
}
