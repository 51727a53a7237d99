// Package rigid holds what every mode's rigid bodies share: unit quaternions and rotation extraction; the layout
// of a reset with bodies, as in unified particle physics (Macklin, Müller, Chentanez & Kim 2014), where a body is
// particles sampled from its shape on the fluid's lattice, each standing for the volume of a fluid particle, with
// inverse mass by the density ratio (particle ids: fluid particles are 0..F−1, then each body's particles are one
// contiguous range); and Solid, a body held as its shape (the FLIP and SPH modes): mass properties measured on a
// lattice, the pose, its integration, and inelastic contacts with walls, solids and other bodies.
package rigid

import (
	"fmt"

	"github.com/slosh/slosh/sim/scene"
)

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

// BodyInvMass is the inverse mass of a body's particles relative to a fluid particle's: a body particle stands for
// the same volume as a fluid particle, so the ratio is the fluid's rest density ρ0 over the body's density.
func BodyInvMass(rho0, density float32) float32 { return rho0 / density }

// BodyParticles are the per-particle arrays of a reset with rigid bodies, in id order: fluid particles first, then
// each body's particles. Solvers build them with LayoutBodies.
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
		return out, fmt.Errorf("%d positions but %d velocities", len(pos), len(vel))
	}
	if err := CheckCount(len(specs)); err != nil {
		return out, err
	}
	n := len(pos)
	for b, spec := range specs {
		if len(spec.Particles) == 0 {
			return out, fmt.Errorf("body %d has no particles (is it smaller than the particle spacing?)", b)
		}
		if !(spec.Density > 0) {
			return out, fmt.Errorf("body %d: density %g must be positive", b, spec.Density)
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

// SampleBody samples a body on a scene's lattice at spacing d as LayoutBodies takes it, and says which fluid
// particles it displaces: those within half a spacing of its surface or inside it.
func SampleBody(sc *scene.Scene, b scene.Body, d float64) (BodySpec, func(p [4]float32) bool, error) {
	one := *sc
	one.Bodies = []scene.Body{b}
	ps, err := one.SampleBodies(d)
	if err != nil {
		return BodySpec{}, nil, err
	}
	spec := BodySpec{Density: float32(b.Density), Velocity: f32(b.Velocity), Spin: f32(b.Spin)}
	for _, p := range ps[0] {
		spec.Particles = append(spec.Particles, [4]float32{float32(p[0]), float32(p[1]), float32(p[2]), 0})
	}
	inside := func(p [4]float32) bool {
		return b.Distance(scene.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}) < 0.5*d
	}
	return spec, inside, nil
}

func f32(v scene.Vec3) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }

// CheckCount refuses more than scene.MaxBodies bodies, however they come (a scene, the drop tool, a replay): the
// work on bodies grows faster than their number.
func CheckCount(n int) error {
	if n > scene.MaxBodies {
		return fmt.Errorf("%d rigid bodies: at most %d (remove some before dropping more)", n, scene.MaxBodies)
	}
	return nil
}
