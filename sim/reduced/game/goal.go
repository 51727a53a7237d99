package game

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/scene"
)

// The level's goal: the crates the scene asks for, each brought into the zone before the time runs out. A crate
// that counts is caught there (it becomes static) so that the current does not carry it out again.

// homeTime is how long a crate must stay in the goal zone, moving slower than homeSpeed zone sizes a second, to
// count: a crate thrown through the zone does not.
const (
	homeTime  = 0.3
	homeSpeed = 1.5
)

// Outcome is where a level stands.
type Outcome int

const (
	Playing Outcome = iota
	Won
	Lost
)

// level tracks a level's goal. Its clock waits for the player's first move (a current drawn or pushed again, a
// body grabbed, spawned or removed: Solver.touch), so that a level is not half over before the player has read
// it; crates that come home before then count all the same.
type level struct {
	goal      *scene.Goal // nil: a sandbox scene with no goal
	about     string      // the scene's description, shown under the status line until the clock starts
	delivered int
	outcome   Outcome
	started   bool    // the player has moved: the clock runs
	start     float64 // simulated time of the player's first move
	endTime   float64 // the level's time (since start) when it was won or lost
}

// clock is the level's time at simulated time t: how long since the player's first move, 0 before it.
func (l *level) clock(t float64) float64 {
	if !l.started {
		return 0
	}
	return max(t-l.start, 0)
}

// update advances the goal by a step of dt ending at simulated time t.
func (l *level) update(w *world, t, dt float64) {
	g := l.goal
	if g == nil || l.outcome != Playing {
		return
	}
	z := g.Zone
	size := math.Min(z.Max[0]-z.Min[0], z.Max[1]-z.Min[1])
	for i, b := range w.bodies {
		if !b.spec.Crate || b.delivered {
			continue
		}
		p, _, v, _ := w.pose(i)
		// the body's frame sits at its centre for boxes and circles and wherever the scene put it for
		// polygons, which is inside them (convex, around Center)
		in := p[0] >= z.Min[0] && p[0] <= z.Max[0] && p[1] >= z.Min[1] && p[1] <= z.Max[1]
		if in && math.Hypot(v[0], v[1]) < homeSpeed*size {
			b.home += dt
		} else {
			b.home = 0
		}
		if b.home >= homeTime {
			b.delivered = true
			l.delivered++
			w.catch(i)
		}
	}
	switch c := l.clock(t); {
	case l.delivered >= g.Crates:
		l.outcome, l.endTime = Won, c
	case l.started && g.Time > 0 && c >= g.Time:
		l.outcome, l.endTime = Lost, c
	}
}

// status is the level's line for the window, at simulated time t.
func (l *level) status(t float64) string {
	g := l.goal
	if g == nil {
		return fmt.Sprintf("%.1f s", t)
	}
	s := fmt.Sprintf("%d/%d crates home · %d points", l.delivered, g.Crates, l.score())
	if g.Time > 0 {
		left := math.Max(g.Time-l.clock(t), 0)
		s += fmt.Sprintf(" · %d:%02d left", int(left)/60, int(left)%60)
	}
	if l.started || l.outcome != Playing {
		return s
	}
	// before the first move: the goal, and the level's own words
	s += "\n" + l.goalText()
	if l.about != "" {
		s += "\n" + l.about
	}
	return s
}

// goalText says the goal in a sentence.
func (l *level) goalText() string {
	g := l.goal
	what := "the crate"
	if g.Crates > 1 {
		what = fmt.Sprintf("%d crates", g.Crates)
	}
	s := fmt.Sprintf("Goal: bring %s into the green zone", what)
	if g.Time > 0 {
		s += fmt.Sprintf(" within %d:%02d; the clock starts at your first move", int(g.Time)/60, int(g.Time)%60)
	}
	return s
}

// score is 100 points a crate home and, on a level with a clock, 10 a second left when it was won.
func (l *level) score() int {
	s := 100 * l.delivered
	if g := l.goal; g != nil && l.outcome == Won && g.Time > 0 {
		s += int(10 * math.Max(g.Time-l.endTime, 0))
	}
	return s
}

// message is the banner for a finished level; "" while it is played.
func (l *level) message() string {
	switch l.outcome {
	case Won:
		if l.goal.Next != "" {
			return fmt.Sprintf("Level complete in %.1f s, %d points! Press N for the next level (%s), R to play again", l.endTime, l.score(), l.goal.Next)
		}
		return fmt.Sprintf("Level complete in %.1f s, %d points — that was the last level! Press R to play again", l.endTime, l.score())
	case Lost:
		return fmt.Sprintf("Time's up: %d of %d crates home. Press R to try again", l.delivered, l.goal.Crates)
	}
	return ""
}
