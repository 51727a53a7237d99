package flip

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/emit"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// The hands through the shell, on the hands scene with a budget two and a half emitter layers over the pool: the
// emitter pours until a whole layer no longer fits and says so; a drain returns its particles and renumbers the rest
// in their order; refilling them (the drain's undo) restores the count; a body that lands displaces the liquid in
// it and returns it; and every edit is kept as the last good state, so a non-finite step does not undo it.
func TestHandsBudgetDrainRefillLand(t *testing.T) {
	sc := simtest.Parse(t, simtest.HandsScene)
	n0 := len(handsSolver(t).x)
	layer := len(sc.Emitters[0].Disc(0.02)) // the lattice of a 0.04 m cell
	if layer < 2 {
		t.Fatalf("the hands scene's emitter makes layers of %d particles", layer)
	}
	budget := n0 + 2*layer + layer/2
	s := newSolver(t, sc, "flip.cell=0.04", fmt.Sprintf("flip.budget=%d", budget))
	if s.Budget() != budget {
		t.Fatalf("the budget is %d, want %d", s.Budget(), budget)
	}

	// pour until the budget stops the emitter at a whole layer, with the notice
	notice := ""
	for f := 0; f < 20 && notice == ""; f++ {
		frames(t, s, 1)
		notice = s.Stats().Notice
	}
	if want := emit.BudgetNotice(budget, "flip.budget"); notice != want {
		t.Fatalf("the emitter's notice: %q, want %q", notice, want)
	}
	if len(s.x) != n0+2*layer {
		t.Fatalf("the budget of %d stopped the emitter at %d particles, want %d (two whole layers of %d)", budget, len(s.x), n0+2*layer, layer)
	}
	frames(t, s, 2)
	if len(s.x) != n0+2*layer {
		t.Fatalf("the emitter went on past the budget: %d particles", len(s.x))
	}
	checkIDs(t, s)

	// drain: the drained particles come back, the others keep their order and are renumbered in it
	n := len(s.x)
	center, radius := [3]float32{0.2, 0.05, 0.1}, float32(0.06)
	var kept []uint32 // the old ids of the particles that stay
	for i, p := range s.x {
		dx, dy, dz := p[0]-center[0], p[1]-center[1], p[2]-center[2]
		if !(dx*dx+dy*dy+dz*dz <= radius*radius) {
			kept = append(kept, s.id[i])
		}
	}
	drained, err := s.Drain(center, radius)
	if err != nil || len(drained) == 0 || len(drained) != n-len(kept) {
		t.Fatalf("Drain: %d particles (want %d), %v", len(drained), n-len(kept), err)
	}
	rank := slices.Clone(kept)
	slices.Sort(rank)
	for i, old := range kept {
		if want, _ := slices.BinarySearch(rank, old); s.id[i] != uint32(want) {
			t.Fatalf("particle %d (id %d before) has id %d after the drain, want %d: the ids renumbered in their order", i, old, s.id[i], want)
		}
	}
	if s.Stats().Particles != len(s.x) {
		t.Errorf("the stats count %d particles after the drain, the solver holds %d", s.Stats().Particles, len(s.x))
	}

	// the edit is the last good state: a non-finite step goes back to it, not to before it
	s.v[0][1] = float32(math.NaN())
	var nf *sim.NonFiniteError
	if err := s.Step(sim.FrameDt / 2); !errors.As(err, &nf) || len(s.x) != n-len(drained) {
		t.Fatalf("a non-finite step after the drain: %v, %d particles, want the %d the drain left", err, len(s.x), n-len(drained))
	}

	// undo: the drained particles refilled, as the app undoes a drain, after the others
	if got := sim.Refill(s, drained); got != len(drained) || len(s.x) != n {
		t.Fatalf("refilling %d drained particles took %d and holds %d, want all and %d", len(drained), got, len(s.x), n)
	}
	checkIDs(t, s)
	// fluid added by hand stops at the budget too, particle by particle
	room := budget - len(s.x)
	var pos, vel [][3]float32
	for k := 0; k < room+3; k++ {
		pos = append(pos, [3]float32{0.02 + 0.02*float32(k%18), 0.3, 0.05 + 0.02*float32(k/18)})
		vel = append(vel, [3]float32{})
	}
	if got := s.AddFluid(pos, vel); got != room || len(s.x) != budget {
		t.Fatalf("adding %d particles with room for %d took %d and holds %d, want the budget of %d", len(pos), room, got, len(s.x), budget)
	}

	// a body that lands displaces the liquid in it, and returns it
	box := scene.Body{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{0.1, 0.05, 0.1}, Size: scene.Vec3{0.06, 0.06, 0.06}}, Density: 2000}
	n = len(s.x)
	i, displaced, err := s.AddBody(box)
	if err != nil || len(displaced) == 0 || len(s.x) != n-len(displaced) {
		t.Fatalf("AddBody: body %d, %d displaced, %d of %d particles left, %v", i, len(displaced), len(s.x), n, err)
	}
	for _, q := range displaced {
		if d := box.Shape.Distance(scene.Vec3{float64(q.Pos[0]), float64(q.Pos[1]), float64(q.Pos[2])}); !(d < 0.5*s.spacing) {
			t.Fatalf("a displaced particle lies %.3g m outside the body", d)
		}
	}
	for _, p := range s.x {
		if d := box.Shape.Distance(scene.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}); d < 0.5*s.spacing {
			t.Fatalf("a particle stayed %.3g m from the landed body's surface", d)
		}
	}
	checkIDs(t, s)
	// its undo: the body removed and the liquid put back
	if err := s.RemoveBody(i); err != nil {
		t.Fatal(err)
	}
	if got := sim.Refill(s, displaced); got != len(displaced) || len(s.x) != n {
		t.Fatalf("refilling the displaced liquid took %d of %d and holds %d, want %d", got, len(displaced), len(s.x), n)
	}
	checkIDs(t, s)
	frames(t, s, 1)

	// the shell keeps a copy of the tools: the caller's paddle moving does not move it between calls
	pad := &sim.Paddle{Center: [3]float32{0.2, 0.1, 0.1}, Radius: 0.05}
	s.SetTools(sim.Tools{Paddle: pad})
	pad.Center[0] = 0.3
	if got := s.sh.Tools.Paddle.Center[0]; got != 0.2 {
		t.Fatalf("the paddle set at x=0.2 is at x=%g after the caller moved its own", got)
	}
}
