package game

import (
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// The shipped levels are games someone can win: a player who draws one current (the stroke below) and presses
// its key every three seconds brings the crates home before the time is up, and one who does nothing has not won
// after five seconds. Each level leads to the next.
func TestLevelsWinnable(t *testing.T) {
	if testing.Short() {
		t.Skip("about 30 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	strokes := map[string][][2]float32{
		"reduced-1": nil, // the level's own current on key 1 does it
		"reduced-2": {{0.15, 0.15}, {0.5, 0.3}, {0.9, 0.6}, {1.3, 0.85}, {1.75, 0.98}},
		"reduced-3": {{2.3, 0.12}, {1.2, 0.12}, {0.3, 0.15}, {0.12, 0.6}, {0.25, 1.1}},
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
		stroke, ok := strokes[name]
		if !ok {
			t.Errorf("level %s has no scripted player here", name)
			continue
		}
		if sc.Mode != Name || sc.Flat.Goal == nil {
			t.Errorf("level %s: mode %q, goal %v", name, sc.Mode, sc.Flat.Goal)
			continue
		}
		if next := sc.Flat.Goal.Next; next != "" {
			if _, err := scene.Builtin(next); err != nil {
				t.Errorf("level %s leads to %q: %v", name, next, err)
			}
		}
		idle := New()
		if err := idle.Reset(sc); err != nil {
			t.Fatal(err)
		}
		frames(t, idle, 300)
		if idle.lvl.outcome != Playing {
			t.Errorf("level %s is over after five idle seconds: %s", name, idle.lvl.message())
		}
		s := New()
		if err := s.Reset(sc); err != nil {
			t.Fatal(err)
		}
		if stroke != nil {
			if _, err := s.Draw(stroke, 0.8, 0.3); err != nil {
				t.Fatal(err)
			}
		}
		for sec := 1; s.lvl.outcome == Playing && float64(sec) <= sc.Flat.Goal.Time; sec++ {
			frames(t, s, 60)
			if sec%3 == 0 {
				if err := s.Excite(1); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("level %s: %s", name, s.lvl.message())
		if s.lvl.outcome != Won {
			t.Errorf("level %s: the scripted player did not win: %s", name, s.lvl.status(s.time))
		}
	}
	if levels < 3 {
		t.Errorf("%d levels ship; the game has at least three", levels)
	}
}
