package game

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// The shipped levels need the player, and the obvious move wins them (issue 26). For every level: a player who
// does nothing for the level's whole time limit has not won it (its crates do not drift home by themselves; the
// clock, which waits for the first move, never starts); and a player who makes the obvious play wins it before
// the time is up. The obvious play, with the window's own stroke (reduced.stroke_speed and reduced.stroke_width
// at their defaults, as a left drag draws it): drag from the crate to the green zone (level 3: from the crates
// along the floor and up the left wall to the zone above), and press the current's key, 1, every three seconds.
// Each level leads to the next.
func TestLevelsNeedThePlayer(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute on 2 cores: steps each level for its whole time limit; make test runs it")
	}
	obvious := map[string][][2]float32{
		"reduced-1": {{0.3, 0.6}, {0.8, 0.6}, {1.3, 0.6}, {1.78, 0.6}},
		"reduced-2": {{0.2, 0.08}, {0.45, 0.35}, {0.8, 0.6}, {1.3, 0.9}, {1.75, 1.0}},
		"reduced-3": {{2.0, 0.1}, {1.2, 0.12}, {0.3, 0.15}, {0.12, 0.6}, {0.25, 1.1}},
	}
	levels := 0
	for _, name := range scene.BuiltinNames() {
		sc, err := scene.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		if !sc.IsFlat() {
			continue
		}
		levels++
		stroke, ok := obvious[name]
		if !ok {
			t.Errorf("level %s has no obvious play here", name)
			continue
		}
		g := sc.Flat.Goal
		if sc.Mode != Name || g == nil || !(g.Time > 0) {
			t.Errorf("level %s: mode %q, goal %v: a level has a goal and a time limit", name, sc.Mode, g)
			continue
		}
		if next := g.Next; next != "" {
			if _, err := scene.Builtin(next); err != nil {
				t.Errorf("level %s leads to %q: %v", name, next, err)
			}
		}
		idle := New()
		if err := idle.Params().Assign("reduced.tracers=0"); err != nil { // the tracers move nothing
			t.Fatal(err)
		}
		if err := idle.Reset(sc); err != nil {
			t.Fatal(err)
		}
		// with no input nothing forces the water: once the flow and the crates have been still for a second they
		// stay still, and the rest of the time limit could change nothing
		still := 0
		for f := 0; f < int(g.Time*60)+30 && still < 60; f++ {
			frames(t, idle, 1)
			if atRest(idle) {
				still++
			} else {
				still = 0
			}
		}
		t.Logf("level %s, no input for %.0f s (still from then on: %v): %s", name, idle.time, still >= 60, idle.lvl.status(idle.time))
		if idle.lvl.outcome == Won || idle.lvl.delivered > 0 {
			t.Errorf("level %s wins itself: %d crates home after %.0f s with no input", name, idle.lvl.delivered, idle.time)
		}
		s := New()
		if err := s.Params().Assign("reduced.tracers=0"); err != nil {
			t.Fatal(err)
		}
		if err := s.Reset(sc); err != nil {
			t.Fatal(err)
		}
		width := float32(s.cfg.StrokeWidth) * float32(max(sc.Flat.Size[0], sc.Flat.Size[1])) / float32(s.cfg.Grid)
		if _, err := s.Draw(stroke, s.cfg.StrokeSpeed, width); err != nil {
			t.Fatal(err)
		}
		for sec := 1; s.lvl.outcome == Playing && float64(sec) <= g.Time+1; sec++ {
			frames(t, s, 60)
			if sec%3 == 0 {
				if err := s.Excite(1); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("level %s, the obvious play: %s", name, s.lvl.message())
		if s.lvl.outcome != Won {
			t.Errorf("level %s: the obvious play did not win: %s", name, s.lvl.status(s.time))
		}
	}
	if levels < 3 {
		t.Errorf("%d levels ship; the game has at least three", levels)
	}
}

// atRest says whether a level's water and bodies are still: its fastest flow under 1 mm/s (6 cm in the longest
// time limit, where the crates start a metre or more from home), and every body slower than that and turning
// slower than 1 mrad/s.
func atRest(s *Solver) bool {
	if !(s.speed < 1e-3) {
		return false
	}
	for i := range s.world.bodies {
		_, _, v, spin := s.world.pose(i)
		if math.Hypot(v[0], v[1]) >= 1e-3 || math.Abs(spin) >= 1e-3 {
			return false
		}
	}
	return true
}
