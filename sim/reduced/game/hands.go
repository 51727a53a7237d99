package game

import (
	"errors"
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/reduced"
	"github.com/slosh/slosh/sim/scene"
)

// The player's hands (sim.FlatHands): currents drawn with the mouse, the bodies grabbed, thrown, spawned and
// removed.

// currentColours tint the dye along each drawn current, by key.
var currentColours = [10][3]float32{
	{0.9, 0.9, 0.9}, {0.95, 0.35, 0.3}, {0.95, 0.75, 0.2}, {0.35, 0.85, 0.4}, {0.3, 0.8, 0.95},
	{0.7, 0.45, 0.95}, {0.95, 0.5, 0.8}, {0.6, 0.9, 0.8}, {0.95, 0.6, 0.3}, {0.8, 0.8, 0.5},
}

// maxStrokes bounds the currents kept (each keeps its projection for Excite, and a saved state draws each again).
const maxStrokes = 256

// Draw implements sim.FlatHands.
func (s *Solver) Draw(points [][2]float32, speed, width float32) (string, error) {
	msg, err := s.draw(points, float64(speed), float64(width), 0)
	if err == nil {
		s.touch()
	}
	return msg, err
}

// touch starts the level's clock at the player's first move: a current drawn or pushed again, a body grabbed,
// spawned or removed. What the hands do is in the replay log, so a replay starts it at the same step.
func (s *Solver) touch() {
	if !s.lvl.started {
		s.lvl.started, s.lvl.start = true, s.time
	}
}

// draw paints a current along points at speed within width, makes it divergence free, adds it to the basis
// (000 §5.2) and excites it once. key is the digit key it goes on, or 0 for the next free one.
func (s *Solver) draw(points [][2]float32, speed, width float64, key int) (string, error) {
	cur := scene.Current{Points: make([]scene.Vec2, len(points)), Speed: speed, Width: width, Key: key}
	for k, p := range points {
		cur.Points[k] = scene.Vec2{float64(p[0]), float64(p[1])}
	}
	if err := s.sc.Flat.CheckCurrent("current", &cur); err != nil {
		return "", err
	}
	pts := make([]reduced.StrokePoint, 0, len(points))
	for k, p := range points {
		// the velocity along the stroke: the direction of the segment through the point
		a, b := points[max(k-1, 0)], points[min(k+1, len(points)-1)]
		dx, dy := float64(b[0]-a[0]), float64(b[1]-a[1])
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		pts = append(pts, reduced.StrokePoint{X: float64(p[0]), Y: float64(p[1]), VX: speed * dx / l, VY: speed * dy / l})
	}
	if len(pts) < 2 {
		return "", errors.New("the stroke has no length")
	}
	full := s.model.Modes()-s.model.Params().Modes >= maxDrawn || len(s.strokes) >= maxStrokes
	paint, basis := s.strokeWork(points, width, s.model.Modes(), !full)
	if paint > workBudget {
		return "", fmt.Errorf("the stroke would take about %.3g s to paint on the %d × %d grid, over the %.3g s a stroke may take: draw it shorter or narrower, or lower reduced.grid (now %d)",
			paint/1e9, s.grid.NX, s.grid.NY, workBudget/1e9, s.cfg.Grid)
	}
	costly := !full && s.work+paint+basis > workBudget
	f := s.grid.NewField()
	if err := s.grid.PaintStroke(f, pts, width/2); err != nil {
		return "", err
	}
	if err := s.model.DivergenceFree(f); err != nil {
		return "", err
	}
	norm := s.grid.Norm(f)
	if !(norm > 0) {
		return "", errors.New("the stroke paints no flow that can exist in a closed box (it runs straight into a wall)")
	}
	if key == 0 {
		key = s.nextKey
	}
	if full || costly {
		// the basis is full: the current is what the basis can hold of it, once
		if err := s.model.AddField(f, 1); err != nil {
			return "", err
		}
		s.dye.paint(points, width/2, currentColours[0])
		if costly {
			return fmt.Sprintf("this current is projected onto the basis, not kept: the currents kept take about %.3g s to draw again "+
				"when the sitting is loaded, and this one would add %.3g s, over %.3g s (lower reduced.grid or reduced.modes to keep more)",
				s.work/1e9, (paint+basis)/1e9, workBudget/1e9), nil
		}
		return fmt.Sprintf("the basis holds its most drawn currents (%d modes, %d strokes): this one is projected onto it, not kept", maxDrawn, maxStrokes), nil
	}
	res, err := s.model.Enrich(f)
	if err != nil {
		return "", err
	}
	s.strokes = append(s.strokes, stroke{points: append([][2]float32(nil), points...), speed: speed, width: width, key: int32(key)})
	s.work += paint + basis
	c := res.Currents[0]
	if err := s.model.ExciteCurrent(c, norm); err != nil {
		return "", err
	}
	s.keys[key] = drawn{on: true, current: c, norm: norm}
	s.nextKey = key%9 + 1
	s.dye.paint(points, width/2, currentColours[key])
	if len(res.Added) == 0 {
		return fmt.Sprintf("current on key %d (the basis already held it)", key), nil
	}
	return fmt.Sprintf("current on key %d: mode %d joins the basis", key, res.Added[0]), nil
}

// Excite implements sim.FlatHands.
func (s *Solver) Excite(k int) error {
	if k < 1 || k > 9 || !s.keys[k].on {
		return fmt.Errorf("no current on key %d", k)
	}
	d := s.keys[k]
	if err := s.model.ExciteCurrent(d.current, d.norm); err != nil {
		return err
	}
	s.touch()
	return nil
}

// Grab implements sim.FlatHands.
func (s *Solver) Grab(p [2]float32) int {
	q := [2]float64{float64(p[0]), float64(p[1])}
	i := s.world.at(q)
	if i < 0 || !grabbable(s.world.bodies[i]) {
		return -1
	}
	s.world.hold(i, q, float64(s.cfg.Gravity))
	s.touch()
	return i
}

// MoveGrab implements sim.FlatHands.
func (s *Solver) MoveGrab(p [2]float32) { s.world.moveHold([2]float64{float64(p[0]), float64(p[1])}) }

// Release implements sim.FlatHands.
func (s *Solver) Release() { s.world.release() }

// Spawn implements sim.FlatHands.
func (s *Solver) Spawn(b scene.FlatBody) (int, error) {
	if len(s.world.bodies) >= scene.MaxBodies {
		return 0, fmt.Errorf("there are %d bodies, the most a scene may have", len(s.world.bodies))
	}
	if err := s.sc.Flat.CheckBody("body", &b); err != nil {
		return 0, err
	}
	i, err := s.world.add(b)
	if err == nil {
		s.touch()
	}
	return i, err
}

// grabbable says whether the hands may hold b: not the level's fixed bodies, and not its crates, which the player
// moves with currents and with things thrown at them (that is the game).
func grabbable(b *body) bool { return !b.spec.Static && !b.spec.Crate }

// RemoveFlatBody implements sim.FlatHands.
func (s *Solver) RemoveFlatBody(i int) error {
	if i < 0 || i >= len(s.world.bodies) {
		return fmt.Errorf("no body %d (there are %d)", i, len(s.world.bodies))
	}
	s.world.remove(i)
	s.touch()
	return nil
}
