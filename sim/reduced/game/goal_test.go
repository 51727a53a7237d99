package game

import (
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

func goalFlat(crateX, vx float64) *scene.Flat {
	return &scene.Flat{Size: scene.Vec2{2, 1}, Bodies: []scene.FlatBody{
		{Shape: scene.FlatBox, Center: scene.Vec2{crateX, 0.05}, Size: scene.Vec2{0.1, 0.1}, Density: 500, Velocity: scene.Vec2{vx, 0}, Crate: true},
		{Shape: scene.FlatBox, Center: scene.Vec2{0.2, 0.05}, Size: scene.Vec2{0.1, 0.1}, Density: 500, Crate: true},
	}, Goal: &scene.Goal{Zone: scene.Rect{Min: scene.Vec2{1.5, 0}, Max: scene.Vec2{2, 0.5}}, Crates: 1, Time: 3, Next: "two"}}
}

func play(t *testing.T, f *scene.Flat, seconds float64) *level {
	t.Helper()
	w, err := newWorld(f.Size, f.Bodies, [2]float64{0, -9.81}, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	l := &level{goal: f.Goal, started: true} // the player moved at once
	dt := 1.0 / 120
	for k := 1; float64(k)*dt <= seconds; k++ {
		w.step(dt)
		l.update(w, float64(k)*dt, dt)
	}
	return l
}

// A crate resting in the zone counts after homeTime and wins the level; one sliding through it does not; the
// clock running out loses it (the clock running from the start: the player moved at once).
func TestGoal(t *testing.T) {
	// won at 0.3 s of 3: 100 points for the crate and 10 a second for the 2.7 left
	if l := play(t, goalFlat(1.75, 0), 1); l.outcome != Won || l.delivered != 1 || !strings.Contains(l.message(), "N for the next level (two)") || l.score() != 127 {
		t.Errorf("a crate resting in the zone: outcome %d, %d delivered, score %d, %q", l.outcome, l.delivered, l.score(), l.message())
	}
	if l := play(t, goalFlat(1.75, 0), 0.2); l.outcome != Playing || l.delivered != 0 {
		t.Errorf("after 0.2 s in the zone: outcome %d, %d delivered", l.outcome, l.delivered)
	}
	// thrown through the zone from the left, fast enough to bounce off the far wall and out again (no friction)
	if l := play(t, goalFlat(1.3, 12), 0.3); l.delivered != 0 {
		t.Errorf("a crate flying through the zone was counted")
	}
	if l := play(t, goalFlat(0.6, 0), 3.05); l.outcome != Lost || !strings.Contains(l.message(), "0 of 1") || !strings.Contains(l.status(3.05), "0/1 crates home · 0 points · 0:00 left") {
		t.Errorf("no crate home when the time is up: outcome %d, %q, %q", l.outcome, l.message(), l.status(3.05))
	}
}
