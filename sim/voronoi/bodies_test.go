package voronoi

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// pond is a 0.3 × 0.3 × 0.2 m tank with 0.12 m of water (900 particles at 2 cm) and the given bodies.
func pond(bodies string) string {
	return `{
  "name": "pond", "domain": {"min": [0, 0, 0], "max": [0.3, 0.3, 0.2]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.15, 0.06, 0.1], "size": [0.3, 0.12, 0.2]}],
  "bodies": [` + bodies + `]
}`
}

// A body floats or sinks by its density: two spheres of 3 cm radius placed side by side in the pond at mid-depth,
// one of 500 kg/m³ and one of 2000, for 0.45 s. The light one rises until it breaks the surface,
// the heavy one goes down to the floor.
func TestBodiesFloatAndSinkByDensity(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s on 2 cores: a physics validation; make test runs it")
	}
	const r = 0.03
	s := newSolver(t, pond(`{"shape": "sphere", "center": [0.08, 0.06, 0.1], "radius": 0.03, "density": 500},
    {"shape": "sphere", "center": [0.22, 0.06, 0.1], "radius": 0.03, "density": 2000}`))
	if s.BodyCount() != 2 {
		t.Fatalf("%d bodies, want the scene's 2", s.BodyCount())
	}
	runFrames(t, s, 27, nil)
	light, _ := s.Body(0)
	heavy, _ := s.Body(1)
	// the water's top: the highest particle but for the spray
	top := 0.0
	for _, x := range s.x {
		top = math.Max(top, float64(x[1]))
	}
	t.Logf("%d steps, %d particles; after %.2f s the light sphere's centre is at %.4f m, the heavy one's at %.4f m; the water's top at %.3f m", s.step, len(s.x), s.time, light.C[1], heavy.C[1], top)
	if !(light.C[1]+r > top) {
		t.Errorf("the sphere of 500 kg/m³ has its top at %.4f m, under the water's top at %.4f m: it does not float", light.C[1]+r, top)
	}
	if !(light.C[1] > 0.06+r/2) {
		t.Errorf("the sphere of 500 kg/m³ rose from 0.06 m to %.4f m only", light.C[1])
	}
	if bottom := heavy.C[1] - r; !(bottom < 0.005) {
		t.Errorf("the sphere of 2000 kg/m³ has its bottom %.4f m above the floor: it did not sink to it", bottom)
	}
	if !(light.C[1] > heavy.C[1]+0.05) {
		t.Errorf("the light sphere's centre (%.4f m) is not well above the heavy one's (%.4f m)", light.C[1], heavy.C[1])
	}
}

// AddBody measures and places a body and displaces the fluid where it lands (returned, for undo), keeping ids
// 0..N−1; the displaced fluid put back by AddFluid after RemoveBody restores the count; DriveBody holds a body at a
// velocity and lets it go with it; a bad index is an error or ignored; rigid.CheckCount bounds the count.
func TestBodyHands(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	s := newSolver(t, pond(""))
	runFrames(t, s, 1, nil)
	n0 := len(s.x)
	sphere := scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.15, 0.06, 0.1}, Radius: 0.04}, Density: 700}
	i, out, err := s.AddBody(sphere)
	if err != nil {
		t.Fatal(err)
	}
	if i != 0 || s.BodyCount() != 1 {
		t.Fatalf("AddBody returned index %d with %d bodies, want 0 and 1", i, s.BodyCount())
	}
	if len(out) < 20 || len(out)+len(s.x) != n0 {
		t.Fatalf("AddBody displaced %d particles and kept %d of %d", len(out), len(s.x), n0)
	}
	half := 0.5 * s.spacing
	for _, p := range out {
		if d := sphere.Distance(scene.Vec3{float64(p.Pos[0]), float64(p.Pos[1]), float64(p.Pos[2])}); d >= half {
			t.Fatalf("a displaced particle lay %.4f m outside the body", d)
		}
	}
	for k, p := range s.x {
		if d := sphere.Distance(scene.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}); d < half {
			t.Fatalf("particle %d was left %.4f m from the body's surface", k, d)
		}
	}
	checkIDs(t, s)
	var fr sim.Frame
	s.Frame(&fr)
	if len(fr.Bodies) != 1 || fr.Bodies[0].Center != [3]float32{0.15, 0.06, 0.1} || fr.Bodies[0].Rot != [4]float32{0, 0, 0, 1} {
		t.Fatalf("the frame's bodies are %+v", fr.Bodies)
	}
	runFrames(t, s, 2, nil)

	// a second body, dragged sideways above the water, moves at the drag's velocity; let go it keeps it and falls
	box := scene.Body{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{0.08, 0.2, 0.1}, Size: scene.Vec3{0.04, 0.03, 0.04}}, Density: 600}
	if j, _, err := s.AddBody(box); err != nil || j != 1 {
		t.Fatalf("the second body: index %d, %v", j, err)
	}
	s.DriveBody(1, [3]float32{0.5, 0, 0}, true)
	b, _ := s.Body(1)
	if b.V != [3]float64{0.5, 0, 0} { // the next frame's substeps see the body's speed
		t.Fatalf("a body taken in hand moves at %v, want 0.5 m/s along x at once", b.V)
	}
	x0 := b.C
	runFrames(t, s, 6, nil)
	b, _ = s.Body(1)
	if b.V != [3]float64{0.5, 0, 0} || !b.Driving {
		t.Fatalf("a dragged body moves at %v (driving %v), want 0.5 m/s along x", b.V, b.Driving)
	}
	if d := [3]float64{b.C[0] - x0[0], b.C[1] - x0[1], b.C[2] - x0[2]}; math.Abs(d[0]-0.05) > 1e-9 || d[1] != 0 || d[2] != 0 {
		t.Fatalf("in 0.1 s the dragged body moved %v m, want 0.05 along x", d)
	}
	s.DriveBody(1, [3]float32{0.5, 0, 0}, false)
	runFrames(t, s, 1, nil)
	if b, _ = s.Body(1); b.Driving || !(b.V[0] > 0.4) || !(b.V[1] < 0) {
		t.Fatalf("a body let go moves at %v (driving %v): want it thrown along x at about 0.5 m/s and falling", b.V, b.Driving)
	}
	s.DriveBody(7, [3]float32{1, 0, 0}, true) // no such body: nothing happens
	s.DriveBody(-1, [3]float32{1, 0, 0}, true)

	// undo of the drop: the body removed, the fluid it displaced put back
	if err := s.RemoveBody(2); err == nil {
		t.Fatal("RemoveBody(2) of two bodies did not fail")
	}
	if err := s.RemoveBody(-1); err == nil {
		t.Fatal("RemoveBody(-1) did not fail")
	}
	if err := s.RemoveBody(0); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Body(0); s.BodyCount() != 1 || b.Spec.Kind != scene.ShapeBox {
		t.Fatalf("after removing body 0: %d bodies, the first a %s", s.BodyCount(), b.Spec.Kind)
	}
	pos, vel := make([][3]float32, len(out)), make([][3]float32, len(out))
	for k, p := range out {
		pos[k], vel[k] = p.Pos, p.Vel
	}
	n := len(s.x)
	if got := s.AddFluid(pos, vel); got != len(out) || len(s.x) != n+len(out) {
		t.Fatalf("putting back the displaced fluid took %d of %d", got, len(out))
	}
	checkIDs(t, s)
	runFrames(t, s, 2, nil)

	for s.BodyCount() < scene.MaxBodies {
		small := scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.25, 0.25, 0.15}, Radius: 0.01}, Density: 500}
		if _, _, err := s.AddBody(small); err != nil {
			t.Fatalf("body %d: %v", s.BodyCount(), err)
		}
	}
	if _, _, err := s.AddBody(sphere); err == nil {
		t.Fatalf("AddBody beyond %d bodies did not fail", scene.MaxBodies)
	}
	if _, _, err := s.AddBody(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Radius: -1}, Density: 500}); err == nil {
		t.Fatal("a body of radius −1 was added")
	}
}
