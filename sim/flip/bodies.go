package flip

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/pressure"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
)

// Rigid bodies, beyond the paper: the sandbox drops things into pools in every mode. A body is a moving blurred
// obstacle: its occupancy joins the solids (solids.go), its velocity at each face it covers enters the divergence,
// and it is coupled into the pressure solve itself. With J the map from the body's velocity and spin to the cells'
// divergence (J_c = Σ over c's faces ± (s_f/h) [e_a, r_f × e_a], s_f the body's fraction of the face), the body's
// new velocity is V* + Δt h³ M⁻¹ Jᵀ p — h³ Jᵀ p is the pressure's force and torque, −∫∇p over the body's volume —
// and the solve sees the body move in the same step: the system gains the symmetric positive semi-definite term
// h³ J M⁻¹ Jᵀ per body (pressure.LowRank). A body therefore floats or sinks by its density, pushes the water it
// moves into, and takes exactly the momentum the water's pressure gives it. A body being dragged (DriveBody) moves
// at the velocity given and enters the solve as a moving obstacle only.
//
// Bodies collide with the domain's walls, the obstacles and each other through points sampled on their surfaces:
// pushed out along the contact normal, with the approaching velocity removed (an inelastic contact).

// body is a rigid body's state.
type body struct {
	spec   scene.Body // as the scene (or the drop tool) placed it
	origin [3]float64 // its centre of mass as placed
	c      [3]float64 // centre of mass now
	q      [4]float64 // orientation (x, y, z, w): rest frame → world
	v, w   [3]float64 // velocity of the centre of mass, angular velocity

	driving bool
	drive   [3]float64

	// derived from the shape
	mass  float64
	iBody [3][3]float64 // inertia about the centre of mass in the rest frame
	hull  [][3]float64  // points on the surface, offsets from the centre of mass in the rest frame

	// per step
	vStar, wStar [3]float64
	shift, turn  [3]float64 // the density correction's displacement and rotation (radians about each axis)
	force        [3]float64 // the pressure's force in the last step, N
	faces        []bodyFace
	cells        []int32
	rows         [][6]float64
}

type bodyFace struct {
	axis int8
	idx  int32
	frac float64
	x    [3]float64
}

// maxBodySamples bounds the lattice a body's mass properties are summed over.
const maxBodySamples = 1 << 21

// newBody measures a body's shape: mass, centre of mass and inertia from a lattice inside it, and the surface
// points it collides with.
func newBody(spec scene.Body, h float64) (body, error) {
	bb := spec.Shape.Bounds()
	size := bb.Size()
	ext := math.Min(size[0], math.Min(size[1], size[2]))
	if !(ext > 0) || !(spec.Density > 0) {
		return body{}, fmt.Errorf("flip: a body (%s) needs a positive size and density", spec.Shape.String())
	}
	d := math.Min(h/4, ext/10)
	vol := size[0] * size[1] * size[2]
	if n := vol / (d * d * d); n > maxBodySamples {
		d *= math.Cbrt(n / maxBodySamples)
	}
	var n [3]int
	for k := range n {
		n[k] = max(1, int(math.Ceil(size[k]/d)))
	}
	var m0 float64
	var m1 [3]float64
	var m2 [3][3]float64
	var inside []scene.Vec3
	for k := 0; k < n[2]; k++ {
		for j := 0; j < n[1]; j++ {
			for i := 0; i < n[0]; i++ {
				p := scene.Vec3{bb.Min[0] + (float64(i)+0.5)*d, bb.Min[1] + (float64(j)+0.5)*d, bb.Min[2] + (float64(k)+0.5)*d}
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
					dd, n := spec.Shape.SDF(p)
					inside = append(inside, p.Sub(n.Scale(dd)))
				}
			}
		}
	}
	if m0 == 0 {
		return body{}, fmt.Errorf("flip: a body (%s) is too small to measure at a cell size of %.3g m", spec.Shape.String(), h)
	}
	cell := d * d * d
	b := body{spec: spec, q: [4]float64{0, 0, 0, 1}}
	for a := 0; a < 3; a++ {
		b.origin[a] = m1[a] / m0
	}
	b.c = b.origin
	b.mass = spec.Density * m0 * cell
	// inertia about the centre: Σ m (|r|² I − r rᵀ)
	var cov [3][3]float64
	for a := 0; a < 3; a++ {
		for c := 0; c < 3; c++ {
			cov[a][c] = (m2[a][c]/m0 - b.origin[a]*b.origin[c]) * b.mass
		}
	}
	tr := cov[0][0] + cov[1][1] + cov[2][2]
	for a := 0; a < 3; a++ {
		for c := 0; c < 3; c++ {
			b.iBody[a][c] = -cov[a][c]
		}
		b.iBody[a][a] += tr + b.mass*d*d/6 // the lattice cells' own inertia
	}
	// collision points: the shell, thinned to at most 2048
	stride := max(1, len(inside)/2048)
	for i := 0; i < len(inside); i += stride {
		p := inside[i]
		b.hull = append(b.hull, [3]float64{p[0] - b.origin[0], p[1] - b.origin[1], p[2] - b.origin[2]})
	}
	b.v = [3]float64(spec.Velocity)
	b.w = [3]float64(spec.Spin)
	return b, nil
}

// rot is the body's rotation matrix.
func (b *body) rot() scene.Mat3 {
	x, y, z, w := b.q[0], b.q[1], b.q[2], b.q[3]
	return scene.Mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
}

// posed is the body's shape where it is now.
func (b *body) posed() scene.Shape {
	return b.spec.Shape.Posed(scene.Vec3(b.origin), scene.Vec3(b.c), b.rot())
}

// invInertia is the inverse of the world inertia R I Rᵀ.
func (b *body) invInertia() [3][3]float64 {
	r := b.rot()
	var iw [3][3]float64
	for a := 0; a < 3; a++ {
		for c := 0; c < 3; c++ {
			var s float64
			for k := 0; k < 3; k++ {
				for l := 0; l < 3; l++ {
					s += r[a][k] * b.iBody[k][l] * r[c][l]
				}
			}
			iw[a][c] = s
		}
	}
	return inverse3(iw)
}

func inverse3(m [3][3]float64) [3][3]float64 {
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

// predictBodies sets each body's velocity for this step's solve: gravity, or the velocity it is dragged at.
func (s *Solver) predictBodies(dt float64) {
	g := s.Cfg.Gravity
	for i := range s.bodies {
		b := &s.bodies[i]
		if b.driving {
			b.vStar, b.wStar = b.drive, [3]float64{}
			continue
		}
		for a := 0; a < 3; a++ {
			b.vStar[a] = b.v[a] + dt*float64(g[a])
		}
		b.wStar = b.w
	}
}

// couple adds each free body's term h³ J M⁻¹ Jᵀ to the matrix (the velocity solve's matrix is divided through by
// Δt², as its right-hand side is; the density correction's has Δt = 1).
func (s *Solver) couple() {
	if len(s.bodies) == 0 {
		return
	}
	n := s.g.n
	if len(s.rowOf) != s.g.cells() {
		s.rowOf = make([]int32, s.g.cells())
		for i := range s.rowOf {
			s.rowOf[i] = -1
		}
	}
	h3 := s.g.h * s.g.h * s.g.h
	for i := range s.bodies {
		b := &s.bodies[i]
		b.cells, b.rows = b.cells[:0], b.rows[:0]
		add := func(c int, sgn float64, f *bodyFace) {
			if !s.sys[c] {
				return
			}
			r := s.rowOf[c]
			if r < 0 {
				r = int32(len(b.cells))
				s.rowOf[c] = r
				b.cells = append(b.cells, int32(c))
				b.rows = append(b.rows, [6]float64{})
			}
			k := sgn * f.frac * s.g.inv
			a := int(f.axis)
			rx := [3]float64{f.x[0] - b.c[0], f.x[1] - b.c[1], f.x[2] - b.c[2]}
			var e [3]float64
			e[a] = 1
			cr := [3]float64{rx[1]*e[2] - rx[2]*e[1], rx[2]*e[0] - rx[0]*e[2], rx[0]*e[1] - rx[1]*e[0]}
			row := &b.rows[r]
			row[a] += k
			row[3] += k * cr[0]
			row[4] += k * cr[1]
			row[5] += k * cr[2]
		}
		for fi := range b.faces {
			f := &b.faces[fi]
			a := int(f.axis)
			d := s.g.dims(a)
			idx := int(f.idx)
			ijk := [3]int{idx % d[0], (idx / d[0]) % d[1], idx / (d[0] * d[1])}
			c1 := ijk[0] + n[0]*(ijk[1]+n[1]*ijk[2])
			c0 := c1 - s.g.cellStep(a)
			add(c0, 1, f)  // the face is the upper face of the cell below
			add(c1, -1, f) // and the lower face of the cell above
		}
		for _, c := range b.cells {
			s.rowOf[c] = -1
		}
		if len(b.cells) == 0 || b.driving {
			continue // a dragged body is a moving obstacle: its rows only measure the force on it
		}
		var w [6][6]float64
		im := h3 / b.mass
		w[0][0], w[1][1], w[2][2] = im, im, im
		ii := b.invInertia()
		for a := 0; a < 3; a++ {
			for c := 0; c < 3; c++ {
				w[3+a][3+c] = h3 * ii[a][c]
			}
		}
		s.mat.Bodies = append(s.mat.Bodies, pressure.LowRank{Cells: b.cells, Rows: b.rows, W: w})
	}
}

// shiftBodies gives each free body its share of the density correction: a displacement h³ M⁻¹ Jᵀ y (and a
// turn), applied with the pose update at the step's end, as the liquid's offsets are applied before advection.
func (s *Solver) shiftBodies() {
	h3 := s.g.h * s.g.h * s.g.h
	for i := range s.bodies {
		b := &s.bodies[i]
		b.shift, b.turn = [3]float64{}, [3]float64{}
		if b.driving || len(b.cells) == 0 {
			continue
		}
		var t [6]float64
		for r, c := range b.cells {
			y := s.y[c]
			for k := 0; k < 6; k++ {
				t[k] += b.rows[r][k] * y
			}
		}
		ii := b.invInertia()
		for a := 0; a < 3; a++ {
			b.shift[a] = h3 * t[a] / b.mass
			b.turn[a] = h3 * (ii[a][0]*t[3] + ii[a][1]*t[4] + ii[a][2]*t[5])
		}
	}
}

// pushBodies gives each free body the pressure's force and torque: V = V* + Δt h³ M⁻¹ Jᵀ p.
func (s *Solver) pushBodies(dt float64) {
	h3 := s.g.h * s.g.h * s.g.h
	for i := range s.bodies {
		b := &s.bodies[i]
		b.v, b.w = b.vStar, b.wStar
		var t [6]float64
		for r, c := range b.cells {
			p := s.p[c]
			for k := 0; k < 6; k++ {
				t[k] += b.rows[r][k] * p
			}
		}
		b.force = [3]float64{h3 * t[0], h3 * t[1], h3 * t[2]}
		if b.driving {
			continue
		}
		for a := 0; a < 3; a++ {
			b.v[a] += dt * h3 * t[a] / b.mass
		}
		ii := b.invInertia()
		for a := 0; a < 3; a++ {
			b.w[a] += dt * h3 * (ii[a][0]*t[3] + ii[a][1]*t[4] + ii[a][2]*t[5])
		}
	}
}

// moveBodies integrates the bodies' poses over the step and resolves their contacts.
func (s *Solver) moveBodies(dt float64) {
	for i := range s.bodies {
		b := &s.bodies[i]
		for a := 0; a < 3; a++ {
			b.c[a] += dt*b.v[a] + b.shift[a]
		}
		// q ← q + 1/2 (Δt ω + the correction's turn, 0) q
		w := [3]float64{dt*b.w[0] + b.turn[0], dt*b.w[1] + b.turn[1], dt*b.w[2] + b.turn[2]}
		b.shift, b.turn = [3]float64{}, [3]float64{}
		q := b.q
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
		b.q = q
	}
	for i := range s.bodies {
		s.contactStatic(&s.bodies[i])
	}
	for i := range s.bodies {
		for j := i + 1; j < len(s.bodies); j++ {
			s.contactBodies(&s.bodies[i], &s.bodies[j])
		}
	}
	// the particles advect after this: they meet the bodies where the bodies end the step
	for m := range s.sol.moving {
		if ms := &s.sol.moving[m]; ms.body >= 0 {
			ms.shape = s.bodies[ms.body].posed()
			bb := ms.shape.Bounds()
			ms.lo, ms.hi = [3]float64(bb.Min), [3]float64(bb.Max)
		}
	}
}

// contactMargin keeps a body's surface this far inside the domain's walls, so that a body at rest on the floor
// still lies inside the domain to rounding (a save file's scene places it there).
const contactMargin = 1e-4

// contactStatic pushes a body out of the domain's walls (by its posed shape's bounds, exact for spheres and
// capsules and for boxes' corners) and the obstacles (by its surface points) along the deepest contact's normal,
// and removes its velocity into them.
func (s *Solver) contactStatic(b *body) {
	for it := 0; it < 3; it++ {
		depth, normal := 0.0, [3]float64{}
		sh := b.posed()
		bb := sh.Bounds()
		for a := 0; a < 3; a++ {
			if d := s.sc.Domain.Min[a] + contactMargin - bb.Min[a]; d > depth {
				depth, normal = d, [3]float64{}
				normal[a] = 1
			}
			if d := bb.Max[a] - (s.sc.Domain.Max[a] - contactMargin); d > depth {
				depth, normal = d, [3]float64{}
				normal[a] = -1
			}
		}
		if len(s.static) > 0 {
			r := b.rot()
			for _, o := range b.hull {
				x := r.MulVec(scene.Vec3(o))
				p := scene.Vec3{b.c[0] + x[0], b.c[1] + x[1], b.c[2] + x[2]}
				for k := range s.static {
					if d, n := s.static[k].SDF(p); -d > depth {
						depth, normal = -d, [3]float64(n)
					}
				}
			}
		}
		if depth <= 0 {
			return
		}
		for a := 0; a < 3; a++ {
			b.c[a] += depth * normal[a]
		}
		// remove the velocity into the solid at the centre of mass, and damp the spin a little (the contact's
		// friction)
		vn := b.v[0]*normal[0] + b.v[1]*normal[1] + b.v[2]*normal[2]
		if vn < 0 && !b.driving {
			for a := 0; a < 3; a++ {
				b.v[a] -= vn * normal[a]
				b.w[a] *= 0.9
			}
		}
	}
}

// contactBodies separates two bodies that overlap, each by the share of its partner's mass, and makes their
// approach inelastic with momentum conserved.
func (s *Solver) contactBodies(a, b *body) {
	sa, sb := a.posed(), b.posed()
	if !overlaps(sa.Bounds(), sb.Bounds()) {
		return
	}
	ra := a.rot()
	depth, normal := 0.0, [3]float64{}
	for _, o := range a.hull {
		x := ra.MulVec(scene.Vec3(o))
		p := scene.Vec3{a.c[0] + x[0], a.c[1] + x[1], a.c[2] + x[2]}
		if d, n := sb.SDF(p); -d > depth {
			depth, normal = -d, [3]float64{-n[0], -n[1], -n[2]} // pushes a out of b
		}
	}
	if depth <= 0 {
		return
	}
	ma, mb := a.mass, b.mass
	if a.driving {
		ma = math.Inf(1)
	}
	if b.driving {
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
		a.c[k] -= fa * depth * normal[k]
		b.c[k] += (1 - fa) * depth * normal[k]
	}
	// relative velocity along the normal (from a towards b is +normal... normal points from a into b's outside: −)
	vrel := 0.0
	for k := 0; k < 3; k++ {
		vrel += (a.v[k] - b.v[k]) * -normal[k]
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
		if !a.driving {
			a.v[k] -= j / ma * -normal[k]
		}
		if !b.driving {
			b.v[k] += j / mb * -normal[k]
		}
	}
}

func overlaps(a, b scene.Box) bool {
	for k := 0; k < 3; k++ {
		if a.Max[k] < b.Min[k] || b.Max[k] < a.Min[k] {
			return false
		}
	}
	return true
}

// bodyStates are the bodies' poses for a Frame.
func (s *Solver) bodyStates(dst []sim.BodyState) []sim.BodyState {
	dst = dst[:0]
	for i := range s.bodies {
		b := &s.bodies[i]
		dst = append(dst, sim.BodyState{
			Center: [3]float32{float32(b.c[0]), float32(b.c[1]), float32(b.c[2])},
			Rot:    rigid.Quat{float32(b.q[0]), float32(b.q[1]), float32(b.q[2]), float32(b.q[3])},
			Origin: [3]float32{float32(b.origin[0]), float32(b.origin[1]), float32(b.origin[2])},
		})
	}
	return dst
}
