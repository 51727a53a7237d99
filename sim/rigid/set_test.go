package rigid

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// modeBody is a mode's body type: a ShapeBody and what its coupling keeps beside it.
type modeBody struct {
	ShapeBody
	posed int
}

// setScene is a tank with two bodies: a light sphere and a heavy box.
const setScene = `{
  "name": "set", "domain": {"min": [0, 0, 0], "max": [1, 1, 1]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.5, 0.1, 0.5], "size": [1, 0.2, 1]}],
  "bodies": [{"shape": "sphere", "center": [0.3, 0.5, 0.5], "radius": 0.05, "density": 500},
    {"shape": "box", "center": [0.7, 0.5, 0.5], "size": [0.1, 0.06, 0.08], "density": 2000}]
}`

func parseScene(t *testing.T, js string) *scene.Scene {
	t.Helper()
	sc, err := scene.Parse([]byte(js), "test")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// Reset measures the scene's bodies as NewSolid does, with their reach; a body that cannot be measured is refused
// by its index and leaves the set empty. Add appends up to scene.MaxBodies, Remove shifts the later ones down,
// Drive drags at once and ignores an index it does not have; the mode's part of each body is left alone.
func TestSetHands(t *testing.T) {
	sc := parseScene(t, setScene)
	var s Set[modeBody, *modeBody]
	if err := s.Reset(sc, 0.02); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 {
		t.Fatalf("%d bodies, want the scene's 2", s.Len())
	}
	for i := range s.List {
		want, err := NewSolid(sc.Bodies[i], 0.02)
		if err != nil {
			t.Fatal(err)
		}
		b := &s.List[i]
		if b.C != want.C || b.Mass != want.Mass || b.IBody != want.IBody || b.Reach != want.Reach() || b.Reach == 0 {
			t.Errorf("body %d: at %v mass %g reach %g, NewSolid says %v, %g, %g", i, b.C, b.Mass, b.Reach, want.C, want.Mass, want.Reach())
		}
	}
	s.List[1].posed = 7
	k, err := s.Add(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.5, 0.8, 0.5}, Radius: 0.03}, Density: 700}, 0.02)
	if err != nil || k != 2 || s.Len() != 3 {
		t.Fatalf("Add: index %d, %v, %d bodies", k, err, s.Len())
	}
	if err := s.Remove(3); err == nil || !strings.Contains(err.Error(), "no body 3 (there are 3)") {
		t.Errorf("Remove(3) of 3: %v", err)
	}
	if err := s.Remove(0); err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 || s.List[0].posed != 7 || s.List[0].Spec.Shape.Kind != scene.ShapeBox {
		t.Fatalf("after removing body 0: %d bodies, the first a %s holding %d", s.Len(), s.List[0].Spec.Shape.Kind, s.List[0].posed)
	}
	if !s.Drive(1, [3]float32{0.5, 0, 0}, true) || s.List[1].V != [3]float64{0.5, 0, 0} || !s.List[1].Driving {
		t.Errorf("a dragged body moves at %v (driving %v)", s.List[1].V, s.List[1].Driving)
	}
	if s.Drive(2, [3]float32{1, 0, 0}, true) || s.Drive(-1, [3]float32{1, 0, 0}, true) {
		t.Error("Drive of a body the set does not have said it dragged one")
	}
	for s.Len() < scene.MaxBodies {
		if _, err := s.Add(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.5, 0.8, 0.5}, Radius: 0.01}, Density: 500}, 0.02); err != nil {
			t.Fatalf("body %d: %v", s.Len(), err)
		}
	}
	if _, err := s.Add(sc.Bodies[0], 0.02); err == nil {
		t.Errorf("Add beyond %d bodies did not fail", scene.MaxBodies)
	}

	bad := parseScene(t, setScene)
	bad.Bodies[1].Density = 0
	if err := s.Reset(bad, 0.02); err == nil || !strings.Contains(err.Error(), `scene "set" body 1`) || s.Len() != 0 {
		t.Errorf("a scene with a body of density 0: %v, %d bodies", err, s.Len())
	}
	s.Clear()
	if s.Len() != 0 || s.good != nil {
		t.Error("Clear left bodies")
	}
}

// Integrate is symplectic Euler under gravity and each body's force: a free body falls at g, a body whose force
// carries its weight stays, a dragged one moves at its drag. Keep and Restore go back to the kept solids bit for
// bit; Bad counts a body that is not finite; Speed2 and Frame see the bodies' motion and poses.
func TestSetIntegrateKeepRestore(t *testing.T) {
	sc := parseScene(t, setScene)
	var s Bodies
	if err := s.Reset(sc, 0.02); err != nil {
		t.Fatal(err)
	}
	g := [3]float32{0, -9.81, 0}
	s.Keep()
	kept := []Solid{s.List[0].Solid, s.List[1].Solid}
	s.List[1].Force = [3]float64{0, -float64(g[1]) * s.List[1].Mass, 0}
	const dt = 0.01
	s.Integrate(dt, g)
	if v := s.List[0].V; v != [3]float64{0, dt * float64(g[1]), 0} {
		t.Errorf("a free body moves at %v after a step, want %g m/s down", v, -dt*float64(g[1]))
	}
	if v := s.List[1].V; math.Abs(v[1]) > 1e-12 {
		t.Errorf("a body carried by its force moves at %v", v)
	}
	if v2 := s.Speed2(0); math.Abs(math.Sqrt(v2)-dt*9.81) > 1e-6 {
		t.Errorf("the fastest surface point moves at %g m/s, want %g", math.Sqrt(v2), dt*9.81)
	}
	s.Drive(0, [3]float32{0.25, 0, 0}, true)
	c0 := s.List[0].C
	s.Integrate(dt, g)
	if d := s.List[0].C[0] - c0[0]; math.Abs(d-dt*0.25) > 1e-12 || s.List[0].C[1] != c0[1] {
		t.Errorf("a dragged body moved %v in a step", [3]float64{d, s.List[0].C[1] - c0[1], 0})
	}
	if !s.Restore() {
		t.Fatal("Restore did not restore the kept bodies")
	}
	for i, b := range s.List {
		if b.C != kept[i].C || b.V != kept[i].V || b.Q != kept[i].Q || b.Driving != kept[i].Driving {
			t.Errorf("body %d restored to %v moving %v, kept at %v moving %v", i, b.C, b.V, kept[i].C, kept[i].V)
		}
	}
	fr := s.Frame(nil)
	if len(fr) != 2 || fr[1].Center != [3]float32{0.7, 0.5, 0.5} || fr[1].Rot != [4]float32{0, 0, 0, 1} {
		t.Errorf("the frame's bodies are %+v", fr)
	}
	s.List = s.List[:1]
	s.List[0].C[0] += 1
	if s.Restore() || s.List[0].C[0] != kept[0].C[0]+1 {
		t.Error("Restore restored a kept state of two bodies into one")
	}
	s.List[0].C[0] -= 1
	s.List = s.List[:2]
	if s.Bad() != 0 {
		t.Error("finite bodies counted as bad")
	}
	s.List[1].W[2] = math.NaN()
	if s.Bad() != 1 {
		t.Error("a body spinning at NaN was not counted")
	}
}

// Write and Read carry the bodies through a state bit for bit, the mode's part zero until the mode sets it; a
// damaged count is refused.
func TestSetWriteRead(t *testing.T) {
	sc := parseScene(t, setScene)
	var s Set[modeBody, *modeBody]
	if err := s.Reset(sc, 0.02); err != nil {
		t.Fatal(err)
	}
	s.List[0].V, s.List[0].C[1] = [3]float64{0.1, -0.2, 0.3}, 0.45
	s.List[0].posed = 3
	s.Drive(1, [3]float32{0, 0.5, 0}, true)
	var b bytes.Buffer
	if err := s.Write(&b, sc, "test state"); err != nil {
		t.Fatal(err)
	}
	list, err := s.Read(bytes.NewReader(b.Bytes()), sc, 0.02, "test state")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Fatalf("%d bodies read, 2 written", len(list))
	}
	for i := range list {
		if list[i].Motion() != s.List[i].Motion() || list[i].Mass != s.List[i].Mass || list[i].Reach != s.List[i].Reach || list[i].posed != 0 {
			t.Errorf("body %d read as %+v (reach %g), written %+v (reach %g)", i, list[i].Motion(), list[i].Reach, s.List[i].Motion(), s.List[i].Reach)
		}
	}
	data := bytes.Clone(b.Bytes())
	data[0] = 40
	if _, err := s.Read(bytes.NewReader(data), sc, 0.02, "test state"); err == nil {
		t.Error("40 bodies declared and 2 written were read")
	}
	var none Bodies
	b.Reset()
	if err := none.Write(&b, sc, "test state"); err != nil {
		t.Fatal(err)
	}
	if list, err := none.Read(&b, sc, 0.02, "test state"); err != nil || len(list) != 0 {
		t.Errorf("no bodies read as %d, %v", len(list), err)
	}
}
