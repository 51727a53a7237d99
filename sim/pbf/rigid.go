package pbf

import (
	"fmt"

	"github.com/slosh/slosh/sim/scene"
)

// Rigid bodies, as in unified particle physics (Macklin, Müller, Chentanez & Kim 2014, "Unified particle physics
// for real-time applications", §5 and §7): a body is a set of particles sampled from its shape on the fluid's
// lattice, so each one stands for the same volume as a fluid particle, with mass in proportion to the body's
// density. Body particles take part in the fluid's density constraints as volume — a fluid particle's ρ_i counts
// them — and are moved by those constraints like fluid particles, weighted by their inverse mass: the fluid's
// pressure pushes a light body more than a heavy one, which is buoyancy by the density ratio with no tuning. The
// ratio is the rest density ρ0 over the body's density, set before every step, so changing ρ0 floats or sinks the
// bodies at once. XSPH viscosity exchanges momentum between body and fluid particles in equal and opposite amounts
// (confineAndSmooth), so a body dragging fluid along is slowed by as much. Between the density iterations a
// shape-matching constraint (Müller et al. 2005) puts each body's particles back into its rest shape at the
// best-fitting rotation (found by Müller et al.'s 2016 iteration, extractRotation); particles of different bodies
// keep two radii apart, and every particle collides with the domain and obstacles.
//
// Particle ids: fluid particles are 0..F−1, then each body's particles are one contiguous range, so a body is
// found through the id → sorted-slot map after every grid sort.

// BodySpec describes a rigid body for a reset.
type BodySpec struct {
	Particles [][4]float32 // world positions on the fluid's lattice (xyz)
	Density   float32      // kg/m³
	Velocity  [3]float32   // of the centre of mass, m/s
	Spin      [3]float32   // angular velocity, rad/s
}

// Body is a rigid body's state.
type Body struct {
	First, Count int        // the ids of its particles: First .. First+Count−1
	InvMass      float32    // each particle's inverse mass relative to a fluid particle's: ρ_fluid / ρ_body
	Center       [3]float32 // centre of mass
	Rot          Quat       // orientation (rest frame → world)
	Origin       [3]float32 // the centre of mass at reset: a rest-frame point x maps to Center + Rot·(x − Origin)
	Density      float32
	// Drive is a velocity the body is held at (xyz, m/s) while w is 1: a body dragged by the mouse. It replaces
	// the body's velocity and gravity at the start of each step; the density constraints and contacts still act.
	Drive [4]float32
}

// Bodies returns the rigid bodies' states.
func (s *Solver) Bodies() []Body { return s.bodies }

// BodyParticles are the per-particle arrays of a reset with rigid bodies, in id order: fluid particles first, then
// each body's particles. Both PBF solvers build them with LayoutBodies.
type BodyParticles struct {
	Pos, Vel [][4]float32
	Body     []int32      // −1 for fluid, else the body's index
	Rest     [][4]float32 // a body particle's offset from its body's centre of mass, rest frame
	WInv     []float32    // inverse mass relative to a fluid particle's: 1 for fluid, ρ_fluid/ρ_body for a body
	Bodies   []Body
}

// LayoutBodies lays out fluid particles and rigid bodies for a reset with rest density rho0.
func LayoutBodies(rho0 float32, pos, vel [][4]float32, specs []BodySpec) (BodyParticles, error) {
	var out BodyParticles
	if len(pos) != len(vel) {
		return out, fmt.Errorf("pbf: %d positions but %d velocities", len(pos), len(vel))
	}
	n := len(pos)
	for b, spec := range specs {
		if len(spec.Particles) == 0 {
			return out, fmt.Errorf("pbf: body %d has no particles (is it smaller than the particle spacing?)", b)
		}
		if !(spec.Density > 0) {
			return out, fmt.Errorf("pbf: body %d: density %g must be positive", b, spec.Density)
		}
		n += len(spec.Particles)
	}
	out.Pos = append(make([][4]float32, 0, n), pos...)
	out.Vel = append(make([][4]float32, 0, n), vel...)
	out.Body = make([]int32, n)
	out.Rest = make([][4]float32, n)
	out.WInv = make([]float32, n)
	for i := range pos {
		out.Body[i], out.WInv[i] = -1, 1
	}
	for b, spec := range specs {
		// The centre of mass of equal-mass particles, in float64: the rest offsets must sum to zero as nearly as
		// float32 allows, or every shape match shifts the body by their mean — a drift of momentum (a float32 centre's
		// rounding, 1.5e-8 m at 0.3 m, cost 0.06% of a body's momentum over a quarter of a second).
		var c64 [3]float64
		for _, p := range spec.Particles {
			for k := 0; k < 3; k++ {
				c64[k] += float64(p[k])
			}
		}
		for k := range c64 {
			c64[k] /= float64(len(spec.Particles))
		}
		c := [3]float32{float32(c64[0]), float32(c64[1]), float32(c64[2])}
		bd := Body{First: len(out.Pos), Count: len(spec.Particles), InvMass: BodyInvMass(rho0, spec.Density),
			Center: c, Rot: IdentityQuat, Origin: c, Density: spec.Density}
		out.Bodies = append(out.Bodies, bd)
		for _, p := range spec.Particles {
			i := len(out.Pos)
			rx, ry, rz := float32(float64(p[0])-c64[0]), float32(float64(p[1])-c64[1]), float32(float64(p[2])-c64[2])
			w := spec.Spin
			out.Pos = append(out.Pos, [4]float32{p[0], p[1], p[2], 0})
			out.Vel = append(out.Vel, [4]float32{spec.Velocity[0] + w[1]*rz - w[2]*ry, spec.Velocity[1] + w[2]*rx - w[0]*rz,
				spec.Velocity[2] + w[0]*ry - w[1]*rx, 0})
			out.Body[i], out.Rest[i], out.WInv[i] = int32(b), [4]float32{rx, ry, rz, 0}, bd.InvMass
		}
	}
	return out, nil
}

// ResetWithBodies starts from given fluid particles (ids 0..F−1) and rigid bodies (ids after them, body by body).
func (s *Solver) ResetWithBodies(sc *scene.Scene, spacing float64, pos, vel [][4]float32, bodies []BodySpec) error {
	lay, err := LayoutBodies(s.Cfg.RestDensity, pos, vel, bodies)
	if err != nil {
		return err
	}
	if err := s.reset(sc, spacing, lay.Pos, lay.Vel); err != nil {
		return err
	}
	s.bodies = append(s.bodies[:0], lay.Bodies...)
	s.body, s.rest, s.wInv = lay.Body, lay.Rest, lay.WInv
	s.slotOf = resize(s.slotOf, len(lay.Pos))
	for i := range s.slotOf {
		s.slotOf[i] = int32(i)
	}
	s.save()
	return nil
}

// BodyInvMass is the inverse mass of a body's particles relative to a fluid particle's: a body particle stands for
// the same volume as a fluid particle, so the ratio is the fluid's rest density ρ0 over the body's density.
func BodyInvMass(rho0, density float32) float32 { return rho0 / density }

// updateBodyMasses sets each body's inverse mass from the current rest density, before every step: ρ0 is the
// fluid's density against which the bodies' densities set buoyancy, so a change acts at once (the particles'
// inverse masses follow in sortByCell).
func (s *Solver) updateBodyMasses() {
	for b := range s.bodies {
		s.bodies[b].InvMass = BodyInvMass(s.Cfg.RestDensity, s.bodies[b].Density)
	}
}

// hasBodies says whether the per-particle body arrays are in use.
func (s *Solver) hasBodies() bool { return len(s.bodies) > 0 }

// matchShapes is the shape-matching constraint of every body (stiffness 1): the centre of mass c and the best
// rotation R of its particles' current positions against their rest offsets r_i, then x_i = c + R r_i.
func (s *Solver) matchShapes() {
	if !s.hasBodies() {
		return
	}
	s.pool.For(len(s.bodies), 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			bd := &s.bodies[b]
			// the centre as the last one plus the mean offset from it: sums of offsets the body's size rather than of
			// positions round far less (and alike in any order, as the GPU's tree sums), so shape matching moves the
			// centre of mass, and with it the body's momentum, by little more than the float32 rounding of a position
			c0 := bd.Center
			var cx, cy, cz float32
			for id := bd.First; id < bd.First+bd.Count; id++ {
				p := s.p[s.slotOf[id]]
				cx += p[0] - c0[0]
				cy += p[1] - c0[1]
				cz += p[2] - c0[2]
			}
			k := 1 / float32(bd.Count)
			cx, cy, cz = c0[0]+cx*k, c0[1]+cy*k, c0[2]+cz*k
			var a Mat3 // Σ (x_i − c) r_iᵀ
			for id := bd.First; id < bd.First+bd.Count; id++ {
				slot := s.slotOf[id]
				p, r := s.p[slot], s.rest[slot]
				dx, dy, dz := p[0]-cx, p[1]-cy, p[2]-cz
				a[0][0] += dx * r[0]
				a[0][1] += dx * r[1]
				a[0][2] += dx * r[2]
				a[1][0] += dy * r[0]
				a[1][1] += dy * r[1]
				a[1][2] += dy * r[2]
				a[2][0] += dz * r[0]
				a[2][1] += dz * r[1]
				a[2][2] += dz * r[2]
			}
			bd.Rot = extractRotation(&a, bd.Rot)
			bd.Center = [3]float32{cx, cy, cz}
			m := bd.Rot.Matrix()
			for id := bd.First; id < bd.First+bd.Count; id++ {
				slot := s.slotOf[id]
				r := s.rest[slot]
				x, y, z := m.Apply(r[0], r[1], r[2])
				s.p[slot] = [4]float32{cx + x, cy + y, cz + z, 0}
			}
		}
	})
}

// collideBodies keeps bodies inside the domain and out of obstacles after the last shape match, rigidly: each body
// moves as a whole by the largest correction its particles need along each axis (projecting particles one by one
// would deform it). Within the iterations particles collide one by one and shape matching turns that into the
// body's response, rotation included.
func (s *Solver) collideBodies() {
	if !s.hasBodies() {
		return
	}
	for _, bd := range s.bodies {
		var up, down [3]float32 // the largest positive and negative corrections along each axis
		for id := bd.First; id < bd.First+bd.Count; id++ {
			p := s.p[s.slotOf[id]]
			q := p
			s.col.Apply(&q)
			for k := 0; k < 3; k++ {
				up[k] = max(up[k], q[k]-p[k])
				down[k] = min(down[k], q[k]-p[k])
			}
		}
		t := [3]float32{up[0] + down[0], up[1] + down[1], up[2] + down[2]}
		if t == ([3]float32{}) {
			continue
		}
		for id := bd.First; id < bd.First+bd.Count; id++ {
			slot := s.slotOf[id]
			s.p[slot][0] += t[0]
			s.p[slot][1] += t[1]
			s.p[slot][2] += t[2]
		}
	}
}
