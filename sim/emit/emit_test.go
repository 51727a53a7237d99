package emit

import (
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
