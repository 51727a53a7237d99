package game

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

func testFlat() *scene.Flat {
	return &scene.Flat{Size: scene.Vec2{2, 1}, Bodies: []scene.FlatBody{
		{Shape: scene.FlatBox, Center: scene.Vec2{0.5, 0.5}, Size: scene.Vec2{0.2, 0.1}, Density: 500, Friction: 0.5},
		{Shape: scene.FlatCircle, Center: scene.Vec2{1, 0.5}, Radius: 0.1, Static: true},
		{Shape: scene.FlatPolygon, Center: scene.Vec2{1.5, 0.5}, Points: []scene.Vec2{{-0.1, -0.1}, {0.1, -0.1}, {0, 0.1}}, Density: 800},
	}}
}

// Box2D's bodies fall under gravity and rest on the rectangle's floor; the static one stays; the mouse joint
// carries a body to the pointer and lets it go with its velocity.
func TestWorldBodies(t *testing.T) {
	w, err := newWorld(testFlat().Size, testFlat().Bodies, [2]float64{0, -9.81}, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 240; k++ {
		w.step(1.0 / 120)
	}
	box, _, v, _ := w.pose(0)
	if math.Abs(box[1]-0.05) > 0.002 || math.Hypot(v[0], v[1]) > 0.01 {
		t.Errorf("the box rests at %v moving %v; want y = 0.05 (half its height) at rest", box, v)
	}
	if c, _, _, _ := w.pose(1); c != [2]float64{1, 0.5} {
		t.Errorf("the static circle moved to %v", c)
	}
	tri, _, _, _ := w.pose(2)
	if tri[1] > 0.15 {
		t.Errorf("the triangle is at %v, not on the floor", tri)
	}
	if i := w.at([2]float64{0.5, 0.05}); i != 0 {
		t.Errorf("at the box's centre: body %d", i)
	}
	if i := w.at([2]float64{0.5, 0.8}); i != -1 {
		t.Errorf("in open water: body %d", i)
	}
	w.hold(0, [2]float64{0.5, 0.05}, 9.81)
	w.moveHold([2]float64{0.8, 0.6})
	for k := 0; k < 120; k++ {
		w.step(1.0 / 120)
	}
	if p, _, _, _ := w.pose(0); math.Hypot(p[0]-0.8, p[1]-0.6) > 0.03 {
		t.Errorf("held and pulled to (0.8, 0.6), the box is at %v", p)
	}
	w.moveHold([2]float64{1.6, 0.9})
	for k := 0; k < 6; k++ {
		w.step(1.0 / 120)
	}
	w.release()
	_, _, v, _ = w.pose(0)
	if v[0] < 0.5 {
		t.Errorf("thrown towards +x, the box moves at %v", v)
	}
	w.remove(1)
	if len(w.bodies) != 2 || w.bodies[1].spec.Shape != scene.FlatPolygon {
		t.Errorf("after removing the circle: %d bodies", len(w.bodies))
	}
}

// The bodies' masses are the scene's densities times their areas, whatever Box2D's internal scale.
func TestWorldMass(t *testing.T) {
	w, err := newWorld(testFlat().Size, testFlat().Bodies, [2]float64{0, -9.81}, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{500 * 0.2 * 0.1, 0, 800 * 0.2 * 0.2 / 2} {
		if m := w.mass(i); math.Abs(m-want) > 1e-9*max(want, 1) {
			t.Errorf("body %d: mass %g kg/m, want %g", i, m, want)
		}
	}
}
