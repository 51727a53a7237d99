package emit

import (
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// A stream makes a layer per spacing travelled, each its disc moved along the direction by how far it has gone;
// a fast stream over a long step stops a layer past the room the solver has, instead of making every layer.
func TestStepMakesLayersWithinTheRoom(t *testing.T) {
	e := scene.Emitter{Center: scene.Vec3{0, 0, 0}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.02, Speed: 1}
	const spacing = 0.01
	disc := len(e.Disc(spacing))
	var acc float32
	pos, vel := Step(&e, spacing, &acc, 0, 0.025, 1<<30) // 2.5 spacings: two layers, half a spacing left
	if len(pos) != 2*disc || len(vel) != len(pos) || acc < 0.0049 || acc > 0.0051 {
		t.Fatalf("%d particles (discs of %d), %g m left over; want two layers and 0.005 m", len(pos), disc, acc)
	}
	if y0, y1 := pos[0][1], pos[disc][1]; y0 > -0.0149 || y0 < -0.0151 || y1 > -0.0049 || y1 < -0.0051 {
		t.Errorf("layers at y = %g and %g, want the first 1.5 spacings down the stream and the second 0.5", y0, y1)
	}
	if vel[0][1] != -1 {
		t.Errorf("velocity %v, want the stream's", vel[0])
	}

	fast := e
	fast.Speed = 100
	acc = 0
	pos, _ = Step(&fast, spacing, &acc, 0, 1e3, 3*disc) // 10⁷ layers' worth of travel
	if len(pos) != 4*disc || !(acc >= 0 && acc < spacing) {
		t.Fatalf("a stream of 10⁷ layers with room for 3: %d particles (discs of %d), %g m left over", len(pos), disc, acc)
	}
}

// RunEach hands every layer with the emitter that made it (the scene's in order, then the tool's), so a solver
// knows each layer's material; Run makes the same layers.
func TestRunEachNamesTheEmitter(t *testing.T) {
	emitters := []scene.Emitter{
		{Center: scene.Vec3{0, 0, 0}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.02, Speed: 1, Material: "sand"},
		{Center: scene.Vec3{1, 0, 0}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.01, Speed: 1},
	}
	tool := &scene.Emitter{Center: scene.Vec3{2, 0, 0}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.01, Speed: 2, Material: "oil"}
	const spacing = 0.01
	acc, toolAcc := make([]float32, 2), float32(0)
	var got []string
	var each [][4]float32
	RunEach(emitters, acc, tool, &toolAcc, spacing, 0, 0.015, 1<<30, func(e *scene.Emitter, pos, vel [][4]float32) {
		for _, p := range pos {
			if x := float32(e.Center[0]); p[0] < x-0.05 || p[0] > x+0.05 {
				t.Fatalf("a particle at %v handed with the emitter at %v", p, e.Center)
			}
		}
		got = append(got, e.Material)
		each = append(each, pos...)
	})
	if want := []string{"sand", "", "oil"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("layers handed with emitters of materials %q, want %q", got, want)
	}
	clear(acc)
	toolAcc = 0
	var plain [][4]float32
	Run(emitters, acc, tool, &toolAcc, spacing, 0, 0.015, 1<<30, func(pos, vel [][4]float32) { plain = append(plain, pos...) })
	if len(plain) == 0 || len(plain) != len(each) {
		t.Fatalf("Run made %d particles, RunEach %d", len(plain), len(each))
	}
	for i := range plain {
		if plain[i] != each[i] {
			t.Fatalf("particle %d: Run %v, RunEach %v", i, plain[i], each[i])
		}
	}
}
