package panel

import "fmt"

// Force is the fluid's push on one body (§5.3.5), about the body's position (Body.Pos): apply Force at that point
// and Torque about it (for Box2D, ApplyForce at the body's position plus ApplyTorque).
type Force struct {
	Dynamic        Vec     // eq. 5.21: Σ A_k q_k n_k over the panels, q = ½ρ|u_rel|²
	DynamicTorque  float64 // of the dynamic forces at the panel centres
	Buoyancy       Vec     // eq. 5.22: Σ -ρ A_k h_k g n_k over the panels, h the depth below the domain's top
	BuoyancyTorque float64
	// Damping is −∂(Dynamic.X, Dynamic.Y, DynamicTorque)/∂(Vel.X, Vel.Y, Omega): how the dynamic force and
	// torque change as the body's velocity and spin change, the flow held. A caller integrating the body
	// implicitly in them (the force is quadratic in the relative velocity, and on a light or thin body explicit
	// steps overshoot and grow) solves (M/Δt + Damping) Δ(v, ω) = (Dynamic, DynamicTorque) + the other forces.
	// The impact reading's translational block is symmetric positive semi-definite (it only resists motion
	// through the stream); the Bernoulli reading's need not be.
	Damping [3][3]float64
}

// Total is the dynamic and buoyancy forces and torques together.
func (f Force) Total() (Vec, float64) {
	return f.Dynamic.add(f.Buoyancy), f.DynamicTorque + f.BuoyancyTorque
}

// Forces sets dst[i] (dst grows to the number of bodies) to the force and torque on body i from the last Solve:
// the dynamic pressure q = ½ρ|u_rel|² of eq. 5.20, where u_rel is the velocity the body's panels cancelled (the
// ambient fluid plus the other bodies' panels and all images, relative to the body, which excludes the body's own
// panels), averaged over each panel's collocation points and pushed along its outward normal times its length
// (eq. 5.21, "normal to the panels"), so a body is drawn toward the side where the relative flow is faster
// (Bernoulli: pressure falls as ½ρ|u|² rises) and a uniform stream, q the same everywhere, gives a closed body no
// net force; and, when gravity g > 0 (acting along -y), buoyancy -ρ A h g n at each panel centre (eq. 5.22) with
// h the depth below the top of the domain, which sums to ρ·area·g upward for a body wholly in the fluid.
// Non-finite or negative density or gravity are errors.
func (s *System) Forces(dst []Force, rho, g float64) ([]Force, error) {
	return s.forces(dst, rho, g, false, nil)
}

// ImpactForces is Forces with the other reading of eq. 5.21's "dynamic pressure … normal to the panels": the
// velocity pressure of engineering's wind loads, q = ½ρV² of the stream the body stands in, on the faces that
// stream runs into. The stream V is the body's relative flow averaged over its collocation points (the ambient
// fluid and the other bodies' panels less the body's own velocity): the local flow at a face cannot serve, since
// once the panels' feedback has taught the reduced fluid to go round the body (§5.3.4) it no longer runs into
// any face. A panel facing the stream (V·n < 0) is pushed inward, along −n, by A·½ρ(V·n)²; the others feel
// nothing. A uniform stream U then drags a body downstream with ½ρU² times its width across the stream, as a
// current carries a crate, where Forces' Bernoulli suction (potential flow) gives a closed body no net force at
// all (d'Alembert). Buoyancy is the same in both.
func (s *System) ImpactForces(dst []Force, rho, g float64) ([]Force, error) {
	return s.forces(dst, rho, g, true, nil)
}

// StreamForces is ImpactForces with the ambient stream each body stands in given by the caller: streams[i] for
// body i, in place of the mean of the ambient velocities at its collocation points (the other bodies' panels
// and the images there still count, and the body's own velocity is taken off as before). The collocation points
// lie on the body's outline, where a fluid that has learnt to go round the body (§5.3.4) runs slower than the
// stream, or backwards: a caller that knows the flow over the body's own area (the water it displaces) hands
// that in.
func (s *System) StreamForces(dst []Force, rho, g float64, streams []Vec) ([]Force, error) {
	if len(streams) != len(s.bodies) || len(s.ambMean) != len(s.bodies) {
		return dst, fmt.Errorf("panel: forces: %d streams for %d bodies (solved for %d)", len(streams), len(s.bodies), len(s.ambMean))
	}
	for i, u := range streams {
		if !u.finite() {
			return dst, fmt.Errorf("panel: forces: body %d's stream is not finite", i)
		}
	}
	return s.forces(dst, rho, g, true, streams)
}

func (s *System) forces(dst []Force, rho, g float64, impact bool, streams []Vec) ([]Force, error) {
	if !finite(rho) || rho < 0 || !finite(g) || g < 0 {
		return dst, fmt.Errorf("panel: forces: density %g and gravity %g must be finite and non-negative", rho, g)
	}
	const kq = CollocationPoints
	dst = dst[:0]
	for i, b := range s.bodies {
		var f Force
		var stream Vec // the body's relative stream, for the impact reading
		var reach Vec  // the mean of its collocation points less its position: ∂stream/∂Omega = (reach.Y, −reach.X)
		if impact {
			for p := s.off[i] * kq; p < s.off[i+1]*kq; p++ {
				stream = stream.add(s.rel[p])
				reach = reach.add(s.cp[p].sub(b.Pos))
			}
			inv := 1 / float64((s.off[i+1]-s.off[i])*kq)
			stream, reach = stream.scale(inv), reach.scale(inv)
			if streams != nil {
				stream = stream.add(streams[i].sub(s.ambMean[i]))
			}
		}
		for k := s.off[i]; k < s.off[i+1]; k++ {
			var u2 float64
			for p := k * kq; p < (k+1)*kq; p++ {
				u2 += s.rel[p].dot(s.rel[p])
			}
			q := 0.5 * rho * u2 / kq
			arm := s.mid[k].sub(b.Pos)
			n := s.n[k]
			w := [3]float64{n.X, n.Y, arm.cross(n)} // the panel's force and torque per unit of l·q
			if impact {
				q = 0
				if un := stream.dot(n); un < 0 {
					q = -0.5 * rho * un * un // inward: the stream runs into the panel
					// ∂(l q)/∂(vel, omega) = ρ l |un| (n, reach × n), the stream falling as the body moves along n
					c := rho * s.l[k] * -un
					addOuter(&f.Damping, c, w, [3]float64{n.X, n.Y, reach.cross(n)})
				}
			} else {
				// ∂(l q)/∂(vel, omega) = −ρ l/K Σ_p (rel_p, r_p × rel_p), r_p the point less the position
				var g [3]float64
				for p := k * kq; p < (k+1)*kq; p++ {
					r, u := s.cp[p].sub(b.Pos), s.rel[p]
					g[0], g[1], g[2] = g[0]+u.X, g[1]+u.Y, g[2]+r.cross(u)
				}
				addOuter(&f.Damping, rho*s.l[k]/kq, w, g)
			}
			fd := n.scale(s.l[k] * q)
			f.Dynamic = f.Dynamic.add(fd)
			f.DynamicTorque += arm.cross(fd)
			if g > 0 {
				h := s.opt.Height - s.mid[k].Y
				fb := n.scale(-rho * s.l[k] * h * g)
				f.Buoyancy = f.Buoyancy.add(fb)
				f.BuoyancyTorque += arm.cross(fb)
			}
		}
		dst = append(dst, f)
	}
	return dst, nil
}

// addOuter adds c·a bᵀ to d.
func addOuter(d *[3][3]float64, c float64, a, b [3]float64) {
	for r := range a {
		for q := range b {
			d[r][q] += c * a[r] * b[q]
		}
	}
}
