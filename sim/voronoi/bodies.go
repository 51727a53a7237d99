package voronoi

import (
	"fmt"
	"io"
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
// gravity, the pose update and inelastic contacts with the walls, the obstacles and each other (rigid.Solid, as
// the other modes do).
//
// A body being dragged (DriveBody) moves at the given velocity without turning, pushes the water and takes no
// force; let go, it keeps that velocity (thrown). Bodies are not particles: Frame gives their poses only.

// body is a rigid body with the fluid's push of the last step.
type body struct {
	rigid.Solid
	force, torque [3]float64 // N, N·m
	reach         float64    // the farthest surface point from the centre of mass, m
}

// bodySet holds the bodies and the last good state's.
type bodySet struct {
	list   []body
	good   []rigid.Solid
	bounds []scene.Box // contactBodies' scratch
}

func newBody(spec scene.Body, d float64) (body, error) {
	sol, err := rigid.NewSolid(spec, d)
	if err != nil {
		return body{}, err
	}
	return body{Solid: sol, reach: sol.Reach()}, nil
}

// resetBodies measures the scene's bodies at the solver's spacing and places them (Reset calls it after the
// particles; the scene's sampling already left the fluid out where they are). On error the run has no bodies.
func (s *Solver) resetBodies(sc *scene.Scene) error {
	s.bodies.list = s.bodies.list[:0]
	if err := rigid.CheckCount(len(sc.Bodies)); err != nil {
		return fmt.Errorf("scene %q: %w", sc.Name, err)
	}
	list := make([]body, 0, len(sc.Bodies))
	for i := range sc.Bodies {
		b, err := newBody(sc.Bodies[i], s.spacing)
		if err != nil {
			return fmt.Errorf("scene %q body %d: %w", sc.Name, i, err)
		}
		list = append(list, b)
	}
	s.bodies.list = list
	s.placeSolids(s.time)
	s.save()
	return nil
}

// addBodySolids adds the bodies to the step's solids, posed and with their velocities.
func (s *Solver) addBodySolids() {
	for k := range s.bodies.list {
		b := &s.bodies.list[k]
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
	if len(s.bodies.list) == 0 {
		return
	}
	for k := range s.bodies.list {
		b := &s.bodies.list[k]
		b.force, b.torque = [3]float64{}, [3]float64{}
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
			b := &s.bodies.list[k]
			pa := rho * s.p[i] / dt * c.Area[f]
			n, xf := c.Normal[f], c.FacetCentroid[f]
			fv := [3]float64{pa * n[0], pa * n[1], pa * n[2]}
			r := [3]float64{xf[0] - b.C[0], xf[1] - b.C[1], xf[2] - b.C[2]}
			for a := 0; a < 3; a++ {
				b.force[a] += fv[a]
			}
			b.torque[0] += r[1]*fv[2] - r[2]*fv[1]
			b.torque[1] += r[2]*fv[0] - r[0]*fv[2]
			b.torque[2] += r[0]*fv[1] - r[1]*fv[0]
		}
	}
	g := s.Cfg.Gravity
	for k := range s.bodies.list {
		b := &s.bodies.list[k]
		if b.Driving {
			b.V, b.W = b.Drive, [3]float64{}
		} else {
			ii := b.InvInertia()
			for a := 0; a < 3; a++ {
				b.V[a] += dt * (float64(g[a]) + b.force[a]/b.Mass)
				b.W[a] += dt * (ii[a][0]*b.torque[0] + ii[a][1]*b.torque[1] + ii[a][2]*b.torque[2])
			}
		}
		b.Advance(dt, [3]float64{}, [3]float64{})
	}
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
	list := make([]*rigid.Solid, len(s.bodies.list))
	for k := range s.bodies.list {
		list[k] = &s.bodies.list[k].Solid
	}
	// pairs whose bounds (grown by a spacing, for what earlier pairs' pushes move) are apart cannot touch
	rigid.ResolveContacts(list, s.sc.Domain, obstacles, s.spacing, &s.bodies.bounds)
}

// bodyReach adds the bodies to the CFL speed: the fastest surface point, |v| + |ω| r.
func (s *Solver) bodyReach(v2 float64) float64 {
	for i := range s.bodies.list {
		b := &s.bodies.list[i]
		v := b.SurfaceSpeed(b.reach)
		v2 = math.Max(v2, v*v)
	}
	return v2
}

// badBodies counts the bodies whose state is not finite.
func (s *Solver) badBodies() int {
	n := 0
	for i := range s.bodies.list {
		if !s.bodies.list[i].Finite() {
			n++
		}
	}
	return n
}

// saveBodies keeps the bodies with the last good state.
func (s *Solver) saveBodies() {
	s.bodies.good = s.bodies.good[:0]
	for i := range s.bodies.list {
		s.bodies.good = append(s.bodies.good, s.bodies.list[i].Solid)
	}
}

// restoreBodies goes back to the last good state's bodies (their number never changes between saves: every hand
// saves).
func (s *Solver) restoreBodies() {
	if len(s.bodies.good) != len(s.bodies.list) {
		return
	}
	for i := range s.bodies.list {
		s.bodies.list[i].Solid = s.bodies.good[i]
	}
}

// frameBodies appends the bodies' poses to dst[:0].
func (s *Solver) frameBodies(dst []sim.BodyState) []sim.BodyState {
	dst = dst[:0]
	for i := range s.bodies.list {
		dst = append(dst, s.bodies.list[i].State())
	}
	return dst
}

// BodyCount is the number of rigid bodies.
func (s *Solver) BodyCount() int { return len(s.bodies.list) }

// Body returns body i's solid (its pose and velocities) and the fluid's force on it in the last step, N.
func (s *Solver) Body(i int) (rigid.Solid, [3]float64) {
	b := &s.bodies.list[i]
	return b.Solid, b.force
}

// AddBody implements sim.Hands: the body is measured at the particle spacing and placed as given; the fluid
// particles inside it or within half a spacing of its surface are removed and returned (for undo), the rest keep
// their order and are renumbered 0..N−1 in the order of their ids.
func (s *Solver) AddBody(b scene.Body) (int, []sim.Particle, error) {
	if s.sc == nil {
		return 0, nil, fmt.Errorf("voronoi: no scene (reset first)")
	}
	if err := rigid.CheckCount(len(s.bodies.list) + 1); err != nil {
		return 0, nil, fmt.Errorf("voronoi: %w", err)
	}
	bd, err := newBody(b, s.spacing)
	if err != nil {
		return 0, nil, fmt.Errorf("voronoi: %w", err)
	}
	half := 0.5 * s.spacing
	var out []sim.Particle
	s.remove(func(i int) bool {
		p, v := s.x[i], s.v[i]
		if !(b.Distance(scene.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}) < half) {
			return false
		}
		out = append(out, sim.Particle{Pos: [3]float32{p[0], p[1], p[2]}, Vel: [3]float32{v[0], v[1], v[2]}})
		return true
	})
	s.bodies.list = append(s.bodies.list, bd)
	s.save()
	return len(s.bodies.list) - 1, out, nil
}

// RemoveBody implements sim.Hands; the fluid fills the space it leaves.
func (s *Solver) RemoveBody(i int) error {
	if i < 0 || i >= len(s.bodies.list) {
		return fmt.Errorf("voronoi: no body %d (there are %d)", i, len(s.bodies.list))
	}
	s.bodies.list = append(s.bodies.list[:i], s.bodies.list[i+1:]...)
	s.save()
	return nil
}

// DriveBody implements sim.Hands: while on, body i moves at v without turning, from the next step; let go, it
// keeps the velocity it had.
func (s *Solver) DriveBody(i int, v [3]float32, on bool) {
	if i < 0 || i >= len(s.bodies.list) {
		return
	}
	s.bodies.list[i].SetDrive(v, on)
	s.save()
}

// appendBodyState writes the bodies after the particles of a state (rigid.WriteSolids).
func (s *Solver) appendBodyState(w io.Writer) error {
	list := make([]*rigid.Solid, len(s.bodies.list))
	for i := range s.bodies.list {
		list[i] = &s.bodies.list[i].Solid
	}
	return rigid.WriteSolids(w, s.sc, list, "voronoi state")
}

// readBodyState reads what appendBodyState wrote, for this solver's scene and spacing, and checks it.
func (s *Solver) readBodyState(r io.Reader, spacing float64) ([]body, error) {
	sols, err := rigid.ReadSolids(r, s.sc, spacing, "voronoi state")
	if err != nil {
		return nil, err
	}
	list := make([]body, 0, len(sols))
	for _, sol := range sols {
		list = append(list, body{Solid: sol, reach: sol.Reach()})
	}
	return list, nil
}
