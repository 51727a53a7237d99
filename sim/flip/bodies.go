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

// body is a rigid body's state: the shape, pose and mass properties every shape-based mode shares (rigid.Solid),
// and the coupling's per-step terms.
type body struct {
	rigid.Solid

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

// newBody measures a body's shape at the cell size h (rigid.NewSolid): mass, centre of mass and inertia from a
// lattice inside it, and the surface points it collides with.
func newBody(spec scene.Body, h float64) (body, error) {
	sol, err := rigid.NewSolid(spec, h)
	if err != nil {
		return body{}, fmt.Errorf("flip: %w", err)
	}
	return body{Solid: sol}, nil
}

// predictBodies sets each body's velocity for this step's solve: gravity, or the velocity it is dragged at.
func (s *Solver) predictBodies(dt float64) {
	g := s.Cfg.Gravity
	for i := range s.bodies {
		b := &s.bodies[i]
		if b.Driving {
			b.vStar, b.wStar = b.Drive, [3]float64{}
			continue
		}
		for a := 0; a < 3; a++ {
			b.vStar[a] = b.V[a] + dt*float64(g[a])
		}
		b.wStar = b.W
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
			rx := [3]float64{f.x[0] - b.C[0], f.x[1] - b.C[1], f.x[2] - b.C[2]}
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
		if len(b.cells) == 0 || b.Driving {
			continue // a dragged body is a moving obstacle: its rows only measure the force on it
		}
		var w [6][6]float64
		im := h3 / b.Mass
		w[0][0], w[1][1], w[2][2] = im, im, im
		ii := b.InvInertia()
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
		if b.Driving || len(b.cells) == 0 {
			continue
		}
		var t [6]float64
		for r, c := range b.cells {
			y := s.y[c]
			for k := 0; k < 6; k++ {
				t[k] += b.rows[r][k] * y
			}
		}
		ii := b.InvInertia()
		for a := 0; a < 3; a++ {
			b.shift[a] = h3 * t[a] / b.Mass
			b.turn[a] = h3 * (ii[a][0]*t[3] + ii[a][1]*t[4] + ii[a][2]*t[5])
		}
	}
}

// pushBodies gives each free body the pressure's force and torque: V = V* + Δt h³ M⁻¹ Jᵀ p.
func (s *Solver) pushBodies(dt float64) {
	h3 := s.g.h * s.g.h * s.g.h
	for i := range s.bodies {
		b := &s.bodies[i]
		b.V, b.W = b.vStar, b.wStar
		var t [6]float64
		for r, c := range b.cells {
			p := s.p[c]
			for k := 0; k < 6; k++ {
				t[k] += b.rows[r][k] * p
			}
		}
		b.force = [3]float64{h3 * t[0], h3 * t[1], h3 * t[2]}
		if b.Driving {
			continue
		}
		for a := 0; a < 3; a++ {
			b.V[a] += dt * h3 * t[a] / b.Mass
		}
		ii := b.InvInertia()
		for a := 0; a < 3; a++ {
			b.W[a] += dt * h3 * (ii[a][0]*t[3] + ii[a][1]*t[4] + ii[a][2]*t[5])
		}
	}
}

// moveBodies integrates the bodies' poses over the step and resolves their contacts.
func (s *Solver) moveBodies(dt float64) {
	for i := range s.bodies {
		b := &s.bodies[i]
		b.Advance(dt, b.shift, b.turn)
		b.shift, b.turn = [3]float64{}, [3]float64{}
	}
	for i := range s.bodies {
		s.contactStatic(&s.bodies[i])
	}
	for i := range s.bodies {
		for j := i + 1; j < len(s.bodies); j++ {
			rigid.ContactSolids(&s.bodies[i].Solid, &s.bodies[j].Solid)
		}
	}
	// the particles advect after this: they meet the bodies where the bodies end the step
	for m := range s.sol.moving {
		if ms := &s.sol.moving[m]; ms.body >= 0 {
			ms.shape = s.bodies[ms.body].Posed()
			bb := ms.shape.Bounds()
			ms.lo, ms.hi = [3]float64(bb.Min), [3]float64(bb.Max)
		}
	}
}

// contactStatic pushes a body out of the domain's walls and the obstacles without a motion (rigid.Solid.ContactStatic).
func (s *Solver) contactStatic(b *body) {
	var solid func(p scene.Vec3) (float64, scene.Vec3)
	if len(s.static) > 0 {
		solid = func(p scene.Vec3) (float64, scene.Vec3) {
			best, bn := math.Inf(1), scene.Vec3{}
			for k := range s.static {
				if d, n := s.static[k].SDF(p); d < best {
					best, bn = d, n
				}
			}
			return best, bn
		}
	}
	b.ContactStatic(s.sc.Domain, solid)
}

// bodyStates are the bodies' poses for a Frame.
func (s *Solver) bodyStates(dst []sim.BodyState) []sim.BodyState {
	dst = dst[:0]
	for i := range s.bodies {
		b := &s.bodies[i]
		dst = append(dst, sim.BodyState{
			Center: [3]float32{float32(b.C[0]), float32(b.C[1]), float32(b.C[2])},
			Rot:    rigid.Quat{float32(b.Q[0]), float32(b.Q[1]), float32(b.Q[2]), float32(b.Q[3])},
			Origin: [3]float32{float32(b.Origin[0]), float32(b.Origin[1]), float32(b.Origin[2])},
		})
	}
	return dst
}
