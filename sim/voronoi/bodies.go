package voronoi

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/rigid"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/voronoi/clip"
)

// Rigid bodies, two-way coupled through the cells' obstacle facets (§3.3 and the issue's §5).
//
// A body is a solid like the scene's obstacles: the cells are clipped against its shape at its pose at the step's
// start (rigid.Solid), and its facets carry the body's velocity v + ω × (x − c) into the divergence (eq. 7), so the
// liquid moves with it. The liquid pushes back with the pressure of each cell on its facets: with the projection's
// p a velocity potential (the pressure times Δt/ρ), the force and torque on body k are
//
//	F_k = Σ_f (ρ p_i/Δt) a_f n_f,   τ_k = Σ_f (x_f − c_k) × (ρ p_i/Δt) a_f n_f
//
// over the obstacle facets f of body k, p_i the pressure of the facet's cell, n_f the cell's outward normal (into
// the body) and ρ the liquid's density (the scene's fluid, water by default). At rest the pressure is hydrostatic
// and the sum is Archimedes' buoyancy, so a body lighter than the liquid floats and a heavier one sinks. Then
// gravity, the pose update and inelastic contacts with the walls, the obstacles and each other (rigid.Set, as
// sph does: the bodies' bookkeeping, from measuring a dropped body to its part of a state file, is the set's).
//
// A body being dragged (DriveBody) moves at the given velocity without turning, pushes the water and takes no
// force; let go, it keeps that velocity (thrown). Bodies are not particles: Frame gives their poses only.

// resetBodies measures the scene's bodies at the solver's spacing and places them (Reset calls it after the
// particles; the scene's sampling already left the fluid out where they are). On error the run has no bodies.
func (s *Solver) resetBodies(sc *scene.Scene) error {
	if err := s.bodies.Reset(sc, s.spacing); err != nil {
		return err
	}
	s.placeSolids(s.time)
	s.save()
	return nil
}

// addBodySolids adds the bodies to the step's solids, posed and with their velocities.
func (s *Solver) addBodySolids() {
	for k := range s.bodies.List {
		b := &s.bodies.List[k]
		v, w := b.V, b.W
		if b.Driving {
			v, w = b.Drive, [3]float64{}
		}
		s.addSolid(b.Posed(), v, w, b.C, k)
	}
}

// density is the liquid's density, kg/m³: the scene's fluid.
func (s *Solver) density() float64 { return s.sc.MaterialOf(0).Density }

// stepBodies gathers the pressure on each body's facets of the step's clipped cells, then moves the bodies by
// symplectic Euler and resolves their contacts.
func (s *Solver) stepBodies(dt float64) {
	if len(s.bodies.List) == 0 {
		return
	}
	for k := range s.bodies.List {
		b := &s.bodies.List[k]
		b.Force, b.Torque = [3]float64{}, [3]float64{}
	}
	c := s.clp
	rho := s.density()
	for i := range s.x {
		if s.proj.state[i] != clip.Liquid {
			continue
		}
		lo, hi := c.Facets(i)
		for f := lo; f < hi; f++ {
			if c.Kind[f] != clip.Obstacle {
				continue
			}
			k := s.solids[c.Owner[f]].body
			if k < 0 {
				continue
			}
			b := &s.bodies.List[k]
			pa := rho * s.p[i] / dt * c.Area[f]
			n, xf := c.Normal[f], c.FacetCentroid[f]
			fv := [3]float64{pa * n[0], pa * n[1], pa * n[2]}
			r := [3]float64{xf[0] - b.C[0], xf[1] - b.C[1], xf[2] - b.C[2]}
			for a := 0; a < 3; a++ {
				b.Force[a] += fv[a]
			}
			b.Torque[0] += r[1]*fv[2] - r[2]*fv[1]
			b.Torque[1] += r[2]*fv[0] - r[0]*fv[2]
			b.Torque[2] += r[0]*fv[1] - r[1]*fv[0]
		}
	}
	s.bodies.Integrate(dt, s.Cfg.Gravity)
	s.contactBodies()
}

// contactBodies resolves the bodies' contacts with the walls, the scene's obstacles and the paddle (as the step
// placed them) and each other.
func (s *Solver) contactBodies() {
	var obstacles func(p scene.Vec3) (float64, scene.Vec3)
	if len(s.solids) > 0 {
		obstacles = func(p scene.Vec3) (float64, scene.Vec3) {
			best, bn := math.Inf(1), scene.Vec3{}
			for k := range s.solids {
				o := &s.solids[k]
				if o.body >= 0 {
					continue
				}
				if d, n := o.shape.SDF(p); d < best {
					best, bn = d, n
				}
			}
			return best, bn
		}
	}
	// pairs whose bounds (grown by a spacing, for what earlier pairs' pushes move) are apart cannot touch
	s.bodies.Contacts(s.sc.Domain, obstacles, s.spacing)
}

// BodyCount is the number of rigid bodies.
func (s *Solver) BodyCount() int { return s.bodies.Len() }

// Body returns body i's solid (its pose and velocities) and the fluid's force on it in the last step, N.
func (s *Solver) Body(i int) (rigid.Solid, [3]float64) {
	b := &s.bodies.List[i]
	return b.Solid, b.Force
}

// AddBody implements sim.Hands: the body is measured at the particle spacing and placed as given; the fluid
// particles inside it or within half a spacing of its surface are removed and returned (for undo), the rest keep
// their order and are renumbered 0..N−1 in the order of their ids.
func (s *Solver) AddBody(b scene.Body) (int, []sim.Particle, error) {
	if s.sc == nil {
		return 0, nil, fmt.Errorf("voronoi: no scene (reset first)")
	}
	k, err := s.bodies.Add(b, s.spacing)
	if err != nil {
		return 0, nil, fmt.Errorf("voronoi: %w", err)
	}
	half := 0.5 * s.spacing
	out := s.hands.RemoveWhere(func(i int) bool {
		p := s.x[i]
		return b.Distance(scene.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}) < half
	})
	s.stats.Particles = len(s.x)
	s.save()
	return k, out, nil
}

// RemoveBody implements sim.Hands; the fluid fills the space it leaves.
func (s *Solver) RemoveBody(i int) error {
	if err := s.bodies.Remove(i); err != nil {
		return fmt.Errorf("voronoi: %w", err)
	}
	s.save()
	return nil
}

// DriveBody implements sim.Hands: while on, body i moves at v without turning, from the next step; let go, it
// keeps the velocity it had.
func (s *Solver) DriveBody(i int, v [3]float32, on bool) {
	if s.bodies.Drive(i, v, on) {
		s.save()
	}
}
