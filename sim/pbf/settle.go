package pbf

import (
	"encoding/binary"
	"hash/maphash"
	"math"

	"github.com/slosh/slosh/sim/scene"
)

// A resting layer starts at rest. The lattice a scene is sampled on is not PBF's equilibrium: the top layer has
// no neighbours above it and is under-dense (ρ/ρ0 ≈ 0.6–0.9), and the two-sided density constraint (which keeps
// the fluid's cohesion) pulls it inwards in the first step; a spacing that does not divide the tank leaves a gap
// at the walls that closes the same way. The position change becomes velocity — 1.1 m/s in the middle of a pool's
// surface and 2–4 m/s at its edges and corners, where a pool at rest should not move. So a scene whose fluid is
// resting layers on the floor is settled before it starts: the solver's own projection (predict with gravity,
// the density iterations, collisions) is applied pass after pass, each pass's velocity (x* − x)/Δt damped by
// settleDamp into the next, until the largest displacement of a pass falls below settleTol of a spacing or
// settleMaxSteps passes are spent. Time, step counts and velocities then start at 0.
//
// Measured on pool at 8,000 particles (the largest speed over the first 10 frames; the solver's own jitter at rest,
// frames 60–150, is 0.26 m/s per frame on average and 0.52 at most): unsettled 2.3 m/s; velocities zeroed after
// each pass 1.1 m/s; damped by 0.5, 0.8, 0.9: 0.85, 0.67, 0.72 m/s; 20 passes instead of 60 at 0.8: 1.2 m/s. The
// three Jacobi iterations' jitter keeps a pass's displacement near 0.04 spacings, so the budget, not settleTol,
// ends a pool's settling: 60 passes cost about as much as 60 steps (1 s at 8,000 particles, 6 s at 36,000 on two
// cores).

const (
	// settleMaxSteps bounds the passes a settling takes: each costs about a step.
	settleMaxSteps = 60
	// settleTol is the displacement of a pass, in spacings, below which the layer counts as settled.
	settleTol = 0.01
	// settleDt is the time step of a settling pass, s: a substep of a 60 Hz frame at rest (CFL picks 4).
	settleDt = 1.0 / 240
	// settleDamp is the share of a pass's velocity carried into the next: damped motion closes the lattice's gaps
	// faster than motion started from rest every pass (see above).
	settleDamp = 0.8
)

// Settles says whether a reset of sc under gravity g settles its fluid (see above): every fluid block is an
// axis-aligned box at rest spanning the domain across gravity, at least one of them lying on the floor, gravity
// points along one axis, and there are no rigid bodies (which the settling would move).
func Settles(sc *scene.Scene, g [3]float32) bool {
	if len(sc.Bodies) > 0 || len(sc.Fluid) == 0 {
		return false
	}
	down := -1
	for a, ga := range g {
		if ga != 0 {
			if down >= 0 {
				return false
			}
			down = a
		}
	}
	if down < 0 {
		return false
	}
	dom := sc.Domain
	tol := 1e-6 * dom.Size().MaxComp()
	floor := false
	for i := range sc.Fluid {
		f := &sc.Fluid[i]
		if f.Kind != scene.ShapeBox || f.Rotation != (scene.Vec3{}) || f.Velocity != (scene.Vec3{}) {
			return false
		}
		b := f.Bounds()
		for a := 0; a < 3; a++ {
			if a != down && (b.Min[a] > dom.Min[a]+tol || b.Max[a] < dom.Max[a]-tol) {
				return false
			}
		}
		if g[down] < 0 {
			floor = floor || b.Min[down] <= dom.Min[down]+tol
		} else {
			floor = floor || b.Max[down] >= dom.Max[down]-tol
		}
	}
	return floor
}

// settle settles the solver's particles, just reset from the scene (see above), when the scene Settles; it
// returns the passes taken and the largest displacement of the last, m.
func (s *Solver) settle() (passes int, last float64) {
	if !Settles(s.sc, s.Cfg.Gravity) {
		return 0, 0
	}
	h := float32(settleDt)
	s.scorrK = s.dv.ScorrKAbs * ScorrPerStep(settleDt)
	tol := settleTol * float64(s.dv.Spacing)
	clear(s.v)
	for passes < settleMaxSteps { // predict, neighbours and the density iterations of Step (Algorithm 1, lines 1–20)
		s.predict(h)
		s.sortByCell()
		s.findNeighbors() // with the first iteration's λ
		for it := 0; it < int(s.Cfg.Iterations); it++ {
			if it > 0 {
				s.computeLambda()
			}
			s.applyDeltaP()
		}
		var d2 float32
		for i := range s.p {
			dx, dy, dz := s.p[i][0]-s.x[i][0], s.p[i][1]-s.x[i][1], s.p[i][2]-s.x[i][2]
			d2 = max(d2, dx*dx+dy*dy+dz*dz)
		}
		for i := range s.v {
			for a := 0; a < 3; a++ {
				s.v[i][a] = settleDamp * (s.p[i][a] - s.x[i][a]) / h
			}
		}
		s.x, s.p = s.p, s.x
		passes++
		last = math.Sqrt(float64(d2))
		if last < tol {
			break
		}
	}
	clear(s.v)
	for i := range s.rho {
		s.rho[i] = 1
	}
	s.mapSlots()
	return passes, last
}

// SettleMemo keeps the last settled layer of a solver, so that resetting the same scene again (r in the window, a
// reset after an edit that leaves the layer as it was) costs no second settling: 6 s at 36,000 particles on two
// cores the first time, nothing after. The key is the scene (its pointer: a scene is not changed in place once
// loaded), the whole configuration and the sampled positions.
type SettleMemo struct {
	sc     *scene.Scene
	cfg    Config
	in     uint64
	out    [][4]float32
	passes int
	last   float64
	seed   maphash.Seed
}

// Settle settles smp as SettleSample does, or copies the settled positions the memo holds for the same scene,
// configuration and sample. It returns the passes the settling took and the largest displacement of its last
// pass (0, 0 for a scene that does not settle).
func (m *SettleMemo) Settle(c *Config, sc *scene.Scene, smp *Sampled) (passes int, last float64, err error) {
	if len(smp.Bodies) > 0 || !Settles(sc, c.Gravity) {
		return 0, 0, nil
	}
	if m.seed == (maphash.Seed{}) {
		m.seed = maphash.MakeSeed()
	}
	var h maphash.Hash
	h.SetSeed(m.seed)
	var buf [16]byte
	for _, p := range smp.Pos {
		for a := range 4 {
			binary.LittleEndian.PutUint32(buf[4*a:], math.Float32bits(p[a]))
		}
		h.Write(buf[:])
	}
	key := h.Sum64()
	if m.sc == sc && m.cfg == *c && m.in == key && len(m.out) == len(smp.Pos) {
		copy(smp.Pos, m.out)
		clear(smp.Vel)
		return m.passes, m.last, nil
	}
	if passes, last, err = settleSample(c, sc, smp); err != nil {
		return 0, 0, err
	}
	m.sc, m.cfg, m.in, m.passes, m.last = sc, *c, key, passes, last
	m.out = append(m.out[:0], smp.Pos...)
	return passes, last, nil
}
