package flip

import (
	"math"
	"sync/atomic"

	"github.com/slosh/slosh/internal/grow"
	"github.com/slosh/slosh/sim/scene"
	"gonum.org/v1/gonum/mat"
)

// Sand (Zhu & Bridson 2005, papers/002 §3), retrofitted into the step after the pressure solve as the paper does:
//
//  1. The rigid test (§3.2): the stress that would stop all sliding, σ_rigid = −ρ D Δx²/Δt (eq. 3), is held if it
//     meets the yield condition with cohesion, √3 σ̄ < sin φ p + c (eq. 1, 5). p is the paper's "pressure required
//     to make the entire velocity field incompressible" (sandPressure), never below zero: the unilateral solve's own
//     pressure is zero in every cell that is not full, most of a thin pile. D = (∇u + ∇uᵀ)/2 is the strain rate of
//     the velocity that pressure leaves, by central differences of the face velocities (one-sided beside cells out
//     of the solve). ρ is the cell's own density, its true mass over its volume (the paper's cell mass M = ρ Δx³):
//     with the sand's density instead, a cell a quarter full at a pile's surface needed four times the stress it
//     takes to stop, and none held. Δt is the step, as the paper has it: the strain rate one step of gravity gives
//     a cell at rest grows with Δt, so σ_rigid of a resting pile is the same at any number of substeps. With a frame
//     instead (the paper steps once a frame), σ_rigid shrank with every substep the CFL rule added: piles stood
//     at φ at 2 cm cells and 4 substeps a frame, but the sand-column scene (1.5 cm cells, 6 substeps) held as one
//     rigid column for 2 s instead of collapsing.
//  2. The faces beside the sand that got no mass take their neighbours' velocity (§4.2.3 extends the field before
//     and after the solve; without it a sand cell at the edge of a block saw a face at rest beside one at 2 m/s, a
//     strain rate of 100/s), and Coulomb friction at the solids (§3.3, eq. 4): on faces of sand cells beside a
//     blurred solid (walls, obstacles, the paddle, bodies), the tangential velocity relative to the solid loses μ
//     times the normal velocity the boundary removed there (the solve's change, or what the sand's pressure against
//     the solid takes in the step, the larger), clamped to rest.
//  3. The stresses, from the strain rate of the velocity now: σ_rigid in the cells that hold, eq. 2 elsewhere (5).
//  4. Connected groups of rigid cells (six-connected flood fill), and each group's face velocities projected to a
//     rigid motion V + ω × r: the mass-weighted least-squares fit, whose normal equations are exactly the group's
//     linear and angular momentum kept (a 6×6 system solved by its eigenvectors, so a degenerate group — a row of
//     cells — keeps the momentum its faces can carry); the walls and solids a group touches are contacts it may not
//     move into (projectGroups), and its grains move with it alone, without the position offsets (rigidGrain).
//  5. Elsewhere in the sand the frictional stress of eq. 2, |σ_f| = sin φ p / √(⅓|D|²_F) along D, and
//     u ← u + Δt/ρ ∇·σ_f by central differences, on faces outside the rigid groups. The paper's stresses are
//     positive in compression (its σ_m is the pressure): in Cauchy's sign, which ∇·σ needs, σ_f = +sin φ p D/…,
//     dissipative as a viscosity; with the printed sign the friction fed the flow (a column's kinetic energy grew).
//     Eq. 2 as printed is √(9/2) times the yield surface's stress, and an explicit update with it could stop a
//     cell's sliding and reverse it within the step, so σ_f is held to |σ_rigid|_F, the stress that stops it.
//
// Sand particles carry their material's density (a liquid's carry flip.density): the faces' momentum is
// rasterised by true mass and their pressure weights divide by their true density, so heavy sand sinks in water
// and a body floats on sand lighter than itself; the unilateral constraint stays on the particles' volume. Cells
// at least half sand by volume are sand cells; in cells of sand and water both, the sand's friction uses the
// mixture's pressure.

// sandFields are the sand's fields, sized when the scene has a granular material.
type sandFields struct {
	on         bool
	mass       float64 // a sand particle's mass, ρ_s (h/2)³
	rho        float64 // ρ_s, the first granular material's density
	cell       []float64
	faceTrue   [3][]float64 // the faces' true mass
	ratio      [3][]float64 // true mass over volume-equivalent mass per face (1 for liquid)
	pre        [3][]float64 // the face velocities before the pressure solve (for eq. 4)
	tmp        [3][]float64
	isSand     []bool
	group      []int32   // each cell's rigid group, −1 when not rigid
	pres       []float64 // the pressure the sand's friction uses (sandPressure)
	bdiv       []float64
	d          [][6]float64
	sig        [][6]float64
	stack      []int32
	groups     []rigidGroup
	inGroup    [3][]int32     // each face's group, −1 when none, contactOf for a group's contacts
	list       []groupFace    // the faces inGroup marks, in order (axis, then index)
	contacts   []groupFace    // list's contacts alone, in its order
	axList     [3][]groupFace // list's and contacts' faces of each axis (groupFaces)
	axContacts [3][]groupFace
	touch      []bodyTouch // the faces beside one body that its friction changed (frictionOnBodies)
	active     [3][]bool   // the contacts projectGroups holds
	last       sandStats
}

// sandStats are a step's sand figures.
type sandStats struct {
	cells, rigid, groups, wall int
}

// groupFace is a face of a rigid group or one of its contacts (its inGroup mark) and where it lies.
type groupFace struct {
	axis uint8
	fi   int32
	mark int32
	pos  [3]float64
}

// bodyTouch is a face beside a body where the friction changed the sand's velocity, and where it lies.
type bodyTouch struct {
	axis uint8
	f    int32
	x    [3]float64
}

// rigidGroup accumulates a group's rigid-motion fit.
type rigidGroup struct {
	mass   float64
	centre [3]float64
	m      [6][6]float64
	b      [6]float64
	q      [6]float64 // V then ω
}

// contactWeight and contactRounds shape the groups' contacts (projectGroups).
const (
	contactWeight = 1e3
	contactRounds = 4
)

// The order of a symmetric tensor's six components in [6]float64.
const (
	sxx, syy, szz, sxy, sxz, syz = 0, 1, 2, 3, 4, 5
)

// offDiag is the component index of the off-diagonal (a, b), a ≠ b.
func offDiag(a, b int) int {
	if a > b {
		a, b = b, a
	}
	switch {
	case a == 0 && b == 1:
		return sxy
	case a == 0 && b == 2:
		return sxz
	}
	return syz
}

// sizeSand sizes the sand's fields for the grid, or drops them when the scene has no sand.
func (s *Solver) sizeSand(sc *scene.Scene) {
	sd := &s.sand
	k := sc.FirstGranular()
	sd.on = k > 0
	if !sd.on {
		*sd = sandFields{}
		return
	}
	sd.rho = sc.MaterialOf(k).Density
	sd.mass = sd.rho * s.spacing * s.spacing * s.spacing
	nc := s.g.cells()
	sd.cell = grow.Resize(sd.cell, nc)
	sd.isSand = grow.Resize(sd.isSand, nc)
	sd.group = grow.Resize(sd.group, nc)
	sd.d = grow.Resize(sd.d, nc)
	sd.pres = grow.Resize(sd.pres, nc)
	sd.bdiv = grow.Resize(sd.bdiv, nc)
	sd.sig = grow.Resize(sd.sig, nc)
	for a := 0; a < 3; a++ {
		d := s.g.dims(a)
		m := d[0] * d[1] * d[2]
		sd.faceTrue[a], sd.ratio[a], sd.pre[a], sd.tmp[a] = grow.Resize(sd.faceTrue[a], m), grow.Resize(sd.ratio[a], m), grow.Resize(sd.pre[a], m), grow.Resize(sd.tmp[a], m)
		sd.inGroup[a] = grow.Resize(sd.inGroup[a], m)
		sd.active[a] = grow.Resize(sd.active[a], m)
	}
	sd.last = sandStats{}
}

// rigidGrain says whether particle p is sand in a cell the rigid test held this step: it moves with its group's
// rigid motion and takes neither the density correction's offset nor the separation's. With them, a block of sand
// whose every cell held (cohesion 20 kPa) still spread from 20 cm wide to 30 cm in 1 s, pushed out of the cells the
// correction found over-full; without them it stands to 1 mm.
func (s *Solver) rigidGrain(p int) bool {
	if !s.sand.on || !s.grains[s.material[p]] {
		return false
	}
	return s.sand.group[s.g.cellOf(s.g.gridCoords(s.x[p]))] >= 0
}

// keepPreSolve keeps the face velocities before the pressure solve, for the friction at the solids.
func (s *Solver) keepPreSolve() {
	if !s.sand.on {
		return
	}
	for a := 0; a < 3; a++ {
		copy(s.sand.pre[a], s.u[a])
	}
}

// sandStep is the sand's part of a step, after the pressure solve.
func (s *Solver) sandStep(dt float64) error {
	sd := &s.sand
	if !sd.on {
		return nil
	}
	s.classifySand()
	if err := s.sandPressure(dt); err != nil {
		return err
	}
	s.timer.Mark("sand: pressure")
	s.strainRates(&sd.tmp) // the incompressible velocity sandPressure left there
	s.rigidTest(dt)
	s.timer.Mark("sand: rigid test")
	// the faces beside the sand that got no mass take their neighbours' velocity, as §4.2.3 extends it: two sweeps,
	// as the sand's stages read no face farther out (the faces of a sand cell's neighbours) and the step's own
	// extrapolation redoes them all; a settled column's state after 40 frames is the same bit for bit as with four
	s.extrapolate(2)
	s.wallFriction(dt)
	s.frictionOnBodies()
	s.timer.Mark("sand: wall friction")
	s.strainRates(&s.u)
	s.stresses(dt)
	s.timer.Mark("sand: strain rate")
	s.findGroups()
	s.timer.Mark("sand: groups")
	s.projectGroups()
	s.timer.Mark("sand: projection")
	s.frictionStress(dt)
	s.timer.Mark("sand: friction")
	return nil
}

// sandPressure is the pressure the sand's yield test and friction use: the paper's "pressure required to make the
// entire velocity field incompressible" (§3.2), the bilateral solve of the velocity before the projection, on the
// system the unilateral solve assembled (warm-started from its pressure), never below zero (sand never pulls) nor
// below the unilateral pressure. The unilateral pressure alone is zero in every cell that is not full, which is
// most of a thin pile at 2 cm cells (1113 of 1290 cells of a settled disc), and sand without pressure has no
// friction: it ran off as water.
func (s *Solver) sandPressure(dt float64) error {
	sd := &s.sand
	s.divergenceOf(&sd.pre, sd.bdiv)
	for c := range sd.bdiv {
		sd.bdiv[c] /= dt
		sd.pres[c] = s.p[c]
	}
	if _, err := s.ps.CG(&s.mat, sd.bdiv, sd.pres, float64(s.Cfg.Tolerance), int(s.Cfg.MaxIterations)); err != nil {
		return err
	}
	for a := 0; a < 3; a++ {
		copy(sd.tmp[a], sd.pre[a])
	}
	s.applyGradient(sd.pres, dt, &sd.tmp)
	for c := range sd.pres {
		sd.pres[c] = max(sd.pres[c], s.p[c], 0)
	}
	return nil
}

// classifySand marks the sand cells: in the solve and at least half sand by volume.
func (s *Solver) classifySand() {
	sd := &s.sand
	n := 0
	for c := range sd.isSand {
		sd.isSand[c] = s.sys[c] && sd.cell[c] >= 0.5*s.cellMass[c]
		if sd.isSand[c] {
			n++
		}
	}
	sd.last = sandStats{cells: n}
}

// faceVec is the velocity field u at face fi of axis a, between cells c0 = c1 − step(a) and c1 at ijk: its own
// component and the mean of the four faces of each other axis around it.
func (s *Solver) faceVec(u *[3][]float64, a, fi int, ijk [3]int) [3]float64 {
	return s.faceVecOf(func(b, f int) float64 { return u[b][f] }, a, fi, ijk)
}

// faceVecOf is faceVec of the face field at(axis, face).
func (s *Solver) faceVecOf(at func(b, f int) float64, a, fi int, ijk [3]int) [3]float64 {
	var v [3]float64
	v[a] = at(a, fi)
	below := ijk
	below[a]--
	for b := 0; b < 3; b++ {
		if b == a {
			continue
		}
		l0, h0 := s.g.faces(b, below)
		l1, h1 := s.g.faces(b, ijk)
		v[b] = 0.25 * (at(b, l0) + at(b, h0) + at(b, l1) + at(b, h1))
	}
	return v
}

// solidAt is the solid fraction of cell ijk, 1 outside the grid (the domain's walls).
func (s *Solver) solidAt(ijk [3]int) float64 {
	for a := 0; a < 3; a++ {
		if ijk[a] < 0 || ijk[a] >= s.g.n[a] {
			return 1
		}
	}
	return s.sol.cell[ijk[0]+s.g.n[0]*(ijk[1]+s.g.n[1]*ijk[2])]
}

// solidVelocity is the moving solids' velocity at face fi of axis a (flux over fraction, per component, from the
// faces around it as faceVec), zero where no moving solid covers a face.
func (s *Solver) solidVelocity(a, fi int, ijk [3]int) [3]float64 {
	return s.faceVecOf(s.contactVelocity, a, fi, ijk)
}

// wallFriction is eq. 4 on the faces of sand cells beside a solid: with n the solid's outward normal (from the
// gradient of the blurred solid fraction) and u the velocity relative to the solid, the normal velocity the
// boundary removed — the pressure solve's change Δu·n, or Δt p/(ρ h) of the sand's pressure against the solid,
// the larger — times μ comes off the tangential velocity's magnitude, down to rest.
func (s *Solver) wallFriction(dt float64) {
	sd := &s.sand
	mu := float64(s.Cfg.Sand.WallFriction)
	push := dt / (sd.rho * s.g.h) // the normal velocity a wall's pressure p takes from a face of sand in a step, over p
	var walls atomic.Int64
	for a := 0; a < 3; a++ {
		copy(sd.tmp[a], s.u[a])
	}
	if mu > 0 {
		for a := 0; a < 3; a++ {
			a := a
			s.interiorFacesIJK(a, func(fi, c0, c1 int, ijk [3]int) {
				if !sd.isSand[c0] && !sd.isSand[c1] || s.sol.face[a][fi] >= 1 {
					return
				}
				if s.sol.cell[c0] <= 0 && s.sol.cell[c1] <= 0 {
					return
				}
				// the solid fraction's gradient at the face: along a across it, along the others the mean of
				// the two cells' central differences
				below := ijk
				below[a]--
				var grad [3]float64
				grad[a] = s.sol.cell[c1] - s.sol.cell[c0]
				for b := 0; b < 3; b++ {
					if b == a {
						continue
					}
					p0, m0, p1, m1 := below, below, ijk, ijk
					p0[b]++
					m0[b]--
					p1[b]++
					m1[b]--
					grad[b] = 0.25 * (s.solidAt(p0) - s.solidAt(m0) + s.solidAt(p1) - s.solidAt(m1))
				}
				gl := math.Sqrt(grad[0]*grad[0] + grad[1]*grad[1] + grad[2]*grad[2])
				if gl < 1e-6 {
					return
				}
				n := [3]float64{-grad[0] / gl, -grad[1] / gl, -grad[2] / gl}
				post := s.faceVec(&s.u, a, fi, ijk)
				pre := s.faceVec(&sd.pre, a, fi, ijk)
				// the normal velocity the boundary removed: the solve's change at this face, or what the pressure
				// of the sand against the solid takes in the step (the weight of a pile rests on its bottom faces,
				// while the solve's change there is only the bottom cells' own weight)
				dn := (post[0]-pre[0])*n[0] + (post[1]-pre[1])*n[1] + (post[2]-pre[2])*n[2]
				dn = max(dn, push*max(sd.pres[c0], sd.pres[c1]))
				if !(dn > 0) {
					return
				}
				us := s.solidVelocity(a, fi, ijk)
				rel := [3]float64{post[0] - us[0], post[1] - us[1], post[2] - us[2]}
				rn := rel[0]*n[0] + rel[1]*n[1] + rel[2]*n[2]
				ut := [3]float64{rel[0] - rn*n[0], rel[1] - rn*n[1], rel[2] - rn*n[2]}
				tl := math.Sqrt(ut[0]*ut[0] + ut[1]*ut[1] + ut[2]*ut[2])
				if tl < 1e-12 {
					return
				}
				k := max(0, 1-mu*dn/tl)
				sd.tmp[a][fi] = us[a] + rn*n[a] + k*ut[a]
				walls.Add(1)
			})
		}
	}
	for a := 0; a < 3; a++ {
		s.u[a], sd.tmp[a] = sd.tmp[a], s.u[a]
	}
	sd.last.wall = int(walls.Load())
}

// frictionOnBodies gives each free body the momentum the Coulomb friction took from the sand beside it, at the face
// where it took it: eq. 4 acts between the sand and the solid, so the body takes the opposite of the sand's change
// (its force and torque). Without it a box sliding over sand dragged the sand along and kept its own speed. Eq. 4
// holds the solid's velocity fixed, as a wall's is; a body's is not, and a light box that gave all the sand under it
// its own velocity was thrown backwards (from 1 m/s to −0.14 m/s). So the change at the body's faces is shared as
// between two masses: the sand's and the body's both scaled by M/(M + m), m the mass of the faces the friction
// changed (the body's inertia counts only by its mass). A face goes to the first body whose surface lies within 1.5
// cells of it; the domain's walls, the obstacles and the paddle are driven and take nothing back.
func (s *Solver) frictionOnBodies() {
	sd := &s.sand
	if len(s.bodies) == 0 || !(s.Cfg.Sand.WallFriction > 0) {
		return
	}
	for m := range s.sol.moving {
		ms := &s.sol.moving[m]
		if ms.body < 0 || ms.ob.empty() || s.bodies[ms.body].Driving {
			continue
		}
		b := &s.bodies[ms.body]
		// the faces beside this body the friction changed (taken ones read no change), and their mass
		sd.touch = sd.touch[:0]
		var touched float64
		s.boxFaces(ms.ob, func(a, f int, ijk [3]int) {
			if s.u[a][f] == sd.tmp[a][f] { // after and before the friction (wallFriction swapped them)
				return
			}
			x := s.g.samplePos(a, ijk[0], ijk[1], ijk[2])
			if dist, _ := ms.shape.SDF(scene.Vec3(x)); dist <= 1.5*s.g.h {
				sd.touch = append(sd.touch, bodyTouch{uint8(a), int32(f), x})
				touched += sd.faceTrue[a][f]
			}
		})
		share := b.Mass / (b.Mass + touched)
		var imp, tq [3]float64
		for _, t := range sd.touch {
			a, f, x := int(t.axis), int(t.f), t.x
			du := s.u[a][f] - sd.tmp[a][f]
			s.u[a][f] = sd.tmp[a][f] + share*du
			sd.tmp[a][f] = s.u[a][f] // taken: no other body counts this face
			p := -sd.faceTrue[a][f] * share * du
			imp[a] += p
			r := [3]float64{x[0] - b.C[0], x[1] - b.C[1], x[2] - b.C[2]}
			var e [3]float64
			e[a] = p
			tq[0] += r[1]*e[2] - r[2]*e[1]
			tq[1] += r[2]*e[0] - r[0]*e[2]
			tq[2] += r[0]*e[1] - r[1]*e[0]
		}
		ii := b.InvInertia()
		for a := 0; a < 3; a++ {
			b.V[a] += imp[a] / b.Mass
			b.W[a] += ii[a][0]*tq[0] + ii[a][1]*tq[1] + ii[a][2]*tq[2]
		}
	}
}

// interiorFacesIJK calls fn for every face of axis a that is not on the domain's walls, with the cells below (c0)
// and above (c1) it along a and the upper cell's indices; in parallel over z layers, each face once.
func (s *Solver) interiorFacesIJK(a int, fn func(fi, c0, c1 int, ijk [3]int)) {
	n := s.g.n
	d := s.g.dims(a)
	cstep := s.g.cellStep(a)
	s.pool.For(d[2], 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			for j := 0; j < d[1]; j++ {
				for i := 0; i < d[0]; i++ {
					ijk := [3]int{i, j, k}
					if ijk[a] == 0 || ijk[a] == d[a]-1 {
						continue
					}
					c1 := i + n[0]*(j+n[1]*k)
					fn(i+d[0]*(j+d[1]*k), c1-cstep, c1, ijk)
				}
			}
		}
	})
}

// strainRates fills D for every sand cell: the diagonal from the cell's own faces, the off-diagonal from central
// differences of the cell-centred velocities of its neighbours in the solve (one-sided where one is not, zero
// where neither is).
func (s *Solver) strainRates(u *[3][]float64) {
	sd := &s.sand
	inv := s.g.inv
	s.cells(func(c int, ijk [3]int) {
		if !sd.isSand[c] {
			sd.d[c] = [6]float64{}
			return
		}
		var g [3][3]float64 // g[a][b] = ∂u_a/∂x_b
		centre := func(a int, at [3]int) float64 {
			f0, f1 := s.g.faces(a, at)
			return 0.5 * (u[a][f0] + u[a][f1])
		}
		for a := 0; a < 3; a++ {
			f0, f1 := s.g.faces(a, ijk)
			g[a][a] = (u[a][f1] - u[a][f0]) * inv
			here := centre(a, ijk)
			for b := 0; b < 3; b++ {
				if b == a {
					continue
				}
				step := s.g.cellStep(b)
				lo, hi := ijk, ijk
				lo[b]--
				hi[b]++
				okLo := ijk[b] > 0 && s.sys[c-step]
				okHi := ijk[b] < s.g.n[b]-1 && s.sys[c+step]
				switch {
				case okLo && okHi:
					g[a][b] = (centre(a, hi) - centre(a, lo)) * 0.5 * inv
				case okHi:
					g[a][b] = (centre(a, hi) - here) * inv
				case okLo:
					g[a][b] = (here - centre(a, lo)) * inv
				}
			}
		}
		sd.d[c] = [6]float64{g[0][0], g[1][1], g[2][2], 0.5 * (g[0][1] + g[1][0]), 0.5 * (g[0][2] + g[2][0]), 0.5 * (g[1][2] + g[2][1])}
	})
}

// frobenius2 is |T|²_F of a symmetric tensor.
func frobenius2(t *[6]float64) float64 {
	return t[0]*t[0] + t[1]*t[1] + t[2]*t[2] + 2*(t[3]*t[3]+t[4]*t[4]+t[5]*t[5])
}

// deviatoric2 is |T − tr(T)/3 I|²_F of a symmetric tensor.
func deviatoric2(t *[6]float64) float64 {
	m := (t[0] + t[1] + t[2]) / 3
	a, b, c := t[0]-m, t[1]-m, t[2]-m
	return a*a + b*b + c*c + 2*(t[3]*t[3]+t[4]*t[4]+t[5]*t[5])
}

// rigidTest marks the sand cells that hold (§3.2): the stress that would stop all sliding, σ_rigid = −ρ D Δx²/Δt
// (eq. 3), within the yield condition with cohesion, √3 σ̄ < sin φ p + c (eq. 1, 5), σ̄ = |dev σ|_F/√2. D here is
// the strain rate of the incompressible velocity sandPressure leaves (the paper's: its solve is bilateral), not of
// the unilateral solve's: that one lets a cell less than full close up, and at a settled pile's fringe, cells a
// quarter full on the floor saw their top face fall at 0.1 m/s every step, a strain rate of 5/s, so not one cell at
// the surface ever held and the pile crept down (65 % of a settled pile's grains moved more than a tenth of a cell
// in 2 s, TestSandPilesStandAtTheirAngleAndHold).
func (s *Solver) rigidTest(dt float64) {
	sd := &s.sand
	sinPhi := math.Sin(float64(s.Cfg.Sand.FrictionAngle) * math.Pi / 180)
	coh := float64(s.Cfg.Sand.Cohesion)
	var rigid int
	for c := range sd.d {
		k := s.rigidScale(dt, c)
		sd.group[c] = -1
		if sd.isSand[c] && math.Sqrt(3)*k*math.Sqrt(deviatoric2(&sd.d[c])/2) < sinPhi*sd.pres[c]+coh {
			sd.group[c] = -2 // rigid, not yet in a group
			rigid++
		}
	}
	sd.last.rigid = rigid
}

// rigidScale is k of σ_rigid = −k D in cell c: ρ Δx²/Δt, Δt the step and ρ the cell's rasterised true density, its
// sand's and liquid's mass over its volume.
func (s *Solver) rigidScale(dt float64, c int) float64 {
	sd := &s.sand
	vol := s.g.h * s.g.h * s.g.h
	rho := (sd.cell[c]*sd.rho/float64(s.Cfg.Density) + s.cellMass[c] - sd.cell[c]) / vol
	return rho * s.g.h * s.g.h / dt
}

// stresses fills each sand cell's stress from the strain rate of the velocity after the solve: σ_rigid where the
// cell holds, the frictional stress of eq. 2 (held to |σ_rigid|_F) elsewhere, in Cauchy's sign (see the package
// comment).
func (s *Solver) stresses(dt float64) {
	sd := &s.sand
	sinPhi := math.Sin(float64(s.Cfg.Sand.FrictionAngle) * math.Pi / 180)
	for c := range sd.d {
		k := s.rigidScale(dt, c)
		d := &sd.d[c]
		if !sd.isSand[c] {
			sd.sig[c] = [6]float64{}
			continue
		}
		scale := k
		if sd.group[c] == -1 {
			dn2 := frobenius2(d)
			if !(dn2 > 0) {
				sd.sig[c] = [6]float64{}
				continue
			}
			scale = min(sinPhi*sd.pres[c]/math.Sqrt(dn2/3), k) // |σ_f|_F held to |σ_rigid|_F = k |D|_F
		}
		for i := range d {
			sd.sig[c][i] = scale * d[i]
		}
	}
}

// findGroups labels the connected groups of rigid cells (six-connected), in cell order.
func (s *Solver) findGroups() {
	sd := &s.sand
	sd.groups = sd.groups[:0]
	n := s.g.n
	for c0 := range sd.group {
		if sd.group[c0] != -2 {
			continue
		}
		id := int32(len(sd.groups))
		sd.groups = append(sd.groups, rigidGroup{})
		sd.group[c0] = id
		stack := append(sd.stack[:0], int32(c0))
		for len(stack) > 0 {
			c := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			i, j, k := c%n[0], (c/n[0])%n[1], c/(n[0]*n[1])
			ijk := [3]int{i, j, k}
			for a := 0; a < 3; a++ {
				step := s.g.cellStep(a)
				if ijk[a] > 0 && sd.group[c-step] == -2 {
					sd.group[c-step] = id
					stack = append(stack, int32(c-step))
				}
				if ijk[a] < n[a]-1 && sd.group[c+step] == -2 {
					sd.group[c+step] = id
					stack = append(stack, int32(c+step))
				}
			}
		}
		sd.stack = stack
	}
	sd.last.groups = len(sd.groups)
}

// contactOf marks a face on a wall or wholly solid beside a cell of group g: −2 − 2g − side, side 0 when the group
// is on the face's upper side (it presses down along the axis), 1 when below (−1 is no group).
func contactOf(g int32, side int32) int32 { return -2 - 2*g - side }

// contactGroup is the group and side of a contact mark.
func contactGroup(mark int32) (g int32, side int32) { v := -2 - mark; return v / 2, v % 2 }

// groupFaces lists every face of a rigid group (a face of one of its cells) in a fixed order (axis, then index),
// and marks it in inGroup with its group, or as the group's contact when it lies on the domain's walls or is wholly
// solid; the contacts are also listed alone. The three axes are scanned in parallel, each into its own lists,
// which are then joined in axis order.
func (s *Solver) groupFaces() {
	sd := &s.sand
	n := s.g.n
	s.pool.For(3, 1, func(lo, hi int) {
		for a := lo; a < hi; a++ {
			list, contacts := sd.axList[a][:0], sd.axContacts[a][:0]
			d := s.g.dims(a)
			for k := 0; k < d[2]; k++ {
				for j := 0; j < d[1]; j++ {
					for i := 0; i < d[0]; i++ {
						ijk := [3]int{i, j, k}
						fi := i + d[0]*(j+d[1]*k)
						sd.inGroup[a][fi] = -1
						grp, side := int32(-1), int32(0)
						if ijk[a] < d[a]-1 {
							grp = sd.group[i+n[0]*(j+n[1]*k)]
						}
						if grp < 0 && ijk[a] > 0 {
							c0 := ijk
							c0[a]--
							grp, side = sd.group[c0[0]+n[0]*(c0[1]+n[1]*c0[2])], 1
						}
						if grp < 0 {
							continue
						}
						pos := s.g.samplePos(a, i, j, k)
						if ijk[a] == 0 || ijk[a] == d[a]-1 || s.sol.face[a][fi] >= 1 {
							sd.inGroup[a][fi] = contactOf(grp, side) // a wall or solid face the group rests on
							list = append(list, groupFace{uint8(a), int32(fi), sd.inGroup[a][fi], pos})
							contacts = append(contacts, list[len(list)-1])
							continue
						}
						sd.inGroup[a][fi] = grp
						list = append(list, groupFace{uint8(a), int32(fi), grp, pos})
					}
				}
			}
			sd.axList[a], sd.axContacts[a] = list, contacts
		}
	})
	sd.list, sd.contacts = sd.list[:0], sd.contacts[:0]
	for a := 0; a < 3; a++ {
		sd.list = append(sd.list, sd.axList[a]...)
		sd.contacts = append(sd.contacts, sd.axContacts[a]...)
	}
}

// projectGroups replaces each rigid group's face velocities by the rigid motion V + ω × (x − x̄) that fits them
// best weighted by the faces' mass: its normal equations say that the fit's linear momentum Σ m_f u_f e_a and its
// angular momentum Σ m_f (x_f − x̄) × u_f e_a are the group's. The faces where the group touches a wall or a
// solid are its contacts: one whose rigid motion would go into the solid joins the fit as a stiff equation (an
// active set, grown a few rounds), so a group resting on a floor is held by it, as the paper's next bilateral
// solve would hold it. Without them a block whose every cell held spun at 0.8 rad/s on the floor, from the
// unilateral solve's compaction of its underfull cells, and toppled. A group without contacts keeps its momentum
// exactly; the walls' impulses change a touching group's.
func (s *Solver) projectGroups() {
	sd := &s.sand
	if len(sd.groups) == 0 {
		for a := 0; a < 3; a++ {
			for i := range sd.inGroup[a] {
				sd.inGroup[a][i] = -1
			}
		}
		sd.list, sd.contacts = sd.list[:0], sd.contacts[:0]
		return
	}
	mass := func(a, fi int) float64 { return sd.faceTrue[a][fi] }
	for i := range sd.groups {
		sd.groups[i] = rigidGroup{}
	}
	s.groupFaces()
	for _, f := range sd.list { // the groups' mass and centre of mass, over their faces in the list's order
		if f.mark < 0 {
			continue // a contact
		}
		g := &sd.groups[f.mark]
		m := mass(int(f.axis), int(f.fi))
		g.mass += m
		for b := 0; b < 3; b++ {
			g.centre[b] += m * f.pos[b]
		}
	}
	for i := range sd.groups {
		g := &sd.groups[i]
		if g.mass > 0 {
			for b := 0; b < 3; b++ {
				g.centre[b] /= g.mass
			}
		}
	}
	s.eachGroupFace(sd.list, func(a, fi int, g *rigidGroup, j *[6]float64, contact bool) {
		if contact {
			sd.active[a][fi] = false
			return
		}
		addOuter(&g.m, &g.b, j, mass(a, fi), s.u[a][fi])
	})
	for i := range sd.groups {
		g := &sd.groups[i]
		g.q = solveSym6(&g.m, &g.b)
	}
	// contacts: a group may not move into a wall or solid it touches. Each contact whose rigid motion goes into
	// the solid joins the fit as a stiff equation (weight contactWeight × the group's mass over its faces), at most
	// contactRounds times: an active set that only grows.
	for round := 0; round < contactRounds; round++ {
		added := false
		s.eachGroupFace(sd.contacts, func(a, fi int, g *rigidGroup, j *[6]float64, contact bool) {
			if !contact || sd.active[a][fi] {
				return
			}
			var v float64
			for r := 0; r < 6; r++ {
				v += j[r] * g.q[r]
			}
			_, side := contactGroup(sd.inGroup[a][fi])
			us := s.contactVelocity(a, fi)
			if side == 0 && v >= us || side == 1 && v <= us {
				return
			}
			sd.active[a][fi] = true
			added = true
			addOuter(&g.m, &g.b, j, contactWeight*g.mass, us)
		})
		if !added {
			break
		}
		for i := range sd.groups {
			g := &sd.groups[i]
			g.q = solveSym6(&g.m, &g.b)
		}
	}
	s.pool.For(len(sd.list), 4096, func(lo, hi int) { // each face its own: in parallel
		s.eachGroupFace(sd.list[lo:hi], func(a, fi int, g *rigidGroup, j *[6]float64, contact bool) {
			if contact {
				return
			}
			var v float64
			for r := 0; r < 6; r++ {
				v += j[r] * g.q[r]
			}
			s.u[a][fi] = v
		})
	})
}

// addOuter adds w·j jᵀ to m's upper triangle (all solveSym6 reads) and w·u·j to b, visiting j's non-zero entries
// only: e_a and two of r × e_a, so 6 products of the 36 (the others add exact zeros).
func addOuter(m *[6][6]float64, b *[6]float64, j *[6]float64, w, u float64) {
	var nz [6]int
	n := 0
	for r := 0; r < 6; r++ {
		if j[r] != 0 {
			nz[n] = r
			n++
		}
	}
	for x := 0; x < n; x++ {
		r := nz[x]
		b[r] += w * u * j[r]
		for y := x; y < n; y++ {
			c := nz[y]
			m[r][c] += w * j[r] * j[c]
		}
	}
}

// eachGroupFace calls fn for every face of list (the faces inGroup marks, or their contacts alone) with its row
// of the rigid motion's map, J = [e_a, (x − x̄) × e_a]: u_a = J · (V, ω).
func (s *Solver) eachGroupFace(list []groupFace, fn func(a, fi int, g *rigidGroup, j *[6]float64, contact bool)) {
	sd := &s.sand
	for _, f := range list {
		grp := f.mark
		contact := grp <= -2
		if contact {
			grp, _ = contactGroup(grp)
		}
		g := &sd.groups[grp]
		a := int(f.axis)
		r := [3]float64{f.pos[0] - g.centre[0], f.pos[1] - g.centre[1], f.pos[2] - g.centre[2]}
		// J = [e_a, r × e_a]
		var j [6]float64
		j[a] = 1
		switch a {
		case 0:
			j[4], j[5] = r[2], -r[1]
		case 1:
			j[3], j[5] = -r[2], r[0]
		default:
			j[3], j[4] = r[1], -r[0]
		}
		fn(a, int(f.fi), g, &j, contact)
	}
}

// contactVelocity is a solid's velocity at face fi of axis a: zero on the domain's walls and static solids, the
// moving solids' flux over their fraction elsewhere.
func (s *Solver) contactVelocity(a, fi int) float64 {
	if fr := s.sol.face[a][fi]; fr > 1e-6 {
		return s.sol.flux[a][fi] / fr
	}
	return 0
}

// frictionStress is u ← u + Δt/ρ ∇·σ on the faces of the sand outside the rigid groups, σ the cells' stresses
// (rigidTest), zero outside the sand; the divergence by central differences: across the face for σ_aa, and of the
// four cells' mean around it along the other axes for σ_ab.
func (s *Solver) frictionStress(dt float64) {
	sd := &s.sand
	scale := dt / sd.rho * s.g.inv
	for a := 0; a < 3; a++ {
		a := a
		s.interiorFacesIJK(a, func(fi, c0, c1 int, ijk [3]int) {
			if !sd.isSand[c0] && !sd.isSand[c1] || sd.inGroup[a][fi] >= 0 || s.sol.face[a][fi] >= 1 {
				return
			}
			diag := []int{sxx, syy, szz}[a]
			div := sd.sig[c1][diag] - sd.sig[c0][diag]
			below := ijk
			below[a]--
			for b := 0; b < 3; b++ {
				if b == a {
					continue
				}
				o := offDiag(a, b)
				at := func(at [3]int) float64 {
					for q := 0; q < 3; q++ {
						if at[q] < 0 || at[q] >= s.g.n[q] {
							return 0
						}
					}
					return sd.sig[at[0]+s.g.n[0]*(at[1]+s.g.n[1]*at[2])][o]
				}
				p0, m0, p1, m1 := below, below, ijk, ijk
				p0[b]++
				m0[b]--
				p1[b]++
				m1[b]--
				div += 0.25 * (at(p0) + at(p1) - at(m0) - at(m1))
			}
			s.u[a][fi] += scale * div
		})
	}
}

// solveSym6 solves M q = b for a symmetric positive semi-definite 6×6 M by its eigenvectors (gonum's EigenSym),
// dropping directions whose eigenvalue is below 1e-12 of the largest: the least-squares solution of least norm, so
// a degenerate fit still satisfies the normal equations.
func solveSym6(m *[6][6]float64, b *[6]float64) [6]float64 {
	var q [6]float64
	a := mat.NewSymDense(6, nil)
	for i := 0; i < 6; i++ {
		for j := i; j < 6; j++ {
			a.SetSym(i, j, m[i][j])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(a, true) {
		return q
	}
	vals := eig.Values(nil)
	var v mat.Dense
	eig.VectorsTo(&v)
	top := 0.0
	for _, l := range vals {
		top = max(top, math.Abs(l))
	}
	if top == 0 {
		return q
	}
	for i, l := range vals {
		if l <= 1e-12*top {
			continue
		}
		var proj float64
		for k := 0; k < 6; k++ {
			proj += v.At(k, i) * b[k]
		}
		proj /= l
		for k := 0; k < 6; k++ {
			q[k] += proj * v.At(k, i)
		}
	}
	return q
}
