package pbf

import (
	"github.com/slosh/slosh/sim/rigid"
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

// Bodies returns the rigid bodies' states.
func (s *Solver) Bodies() []rigid.Body { return s.bodies }

// ResetWithBodies starts from given fluid particles (ids 0..F−1) and rigid bodies (ids after them, body by body).
func (s *Solver) ResetWithBodies(sc *scene.Scene, spacing float64, pos, vel [][4]float32, bodies []rigid.BodySpec) error {
	lay, err := rigid.LayoutBodies(s.Cfg.RestDensity, pos, vel, bodies)
	if err != nil {
		return err
	}
	if err := s.reset(sc, spacing, lay.Pos, lay.Vel); err != nil {
		return err
	}
	s.bodies = append(s.bodies[:0], lay.Bodies...)
	copy(s.body, lay.Body)
	copy(s.rest, lay.Rest)
	copy(s.wInv, lay.WInv)
	s.save()
	return nil
}

// updateBodyMasses sets each body's inverse mass from the current rest density, before every step: ρ0 is the
// fluid's density against which the bodies' densities set buoyancy, so a change acts at once (the particles'
// inverse masses follow in sortByCell).
func (s *Solver) updateBodyMasses() {
	for b := range s.bodies {
		s.bodies[b].InvMass = rigid.BodyInvMass(s.Cfg.RestDensity, s.bodies[b].Density)
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
			var a rigid.Mat3 // Σ (x_i − c) r_iᵀ
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
			bd.Rot = rigid.ExtractRotation(&a, bd.Rot)
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
