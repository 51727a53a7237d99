package sim

import (
	"math"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// Particles returned into water that has flowed where they were go to the lowest room, on top of it, at rest and no
// closer to any particle than freeGap spacings; a particle whose place is free comes back there; one with no room
// in the domain stays out.
func TestReturningFindsRoom(t *testing.T) {
	const d = 0.1
	dom := scene.Box{Max: scene.Vec3{1, 1, 1}}
	f := &Frame{Radius: d / 2}
	for z := 0.05; z < 1; z += d { // water 0.4 m deep, a lattice of spacing d
		for y := 0.05; y < 0.4; y += d {
			for x := 0.05; x < 1; x += d {
				f.Pos = append(f.Pos, [4]float32{float32(x), float32(y), float32(z)})
			}
		}
	}
	f.N = len(f.Pos)
	ps := []Particle{
		{Pos: [3]float32{0.45, 0.15, 0.45}, Vel: [3]float32{3, 0, 0}, Material: 2}, // in the water
		{Pos: [3]float32{0.55, 0.15, 0.45}, Vel: [3]float32{0, 5, 0}},              // in the water
		{Pos: [3]float32{0.5, 0.8, 0.5}, Vel: [3]float32{0, -1, 0}},                // in the air: free
	}
	out := Returning(f, ps, dom)
	if len(out) != 3 || out[0].Pos != ps[2].Pos {
		t.Fatalf("returned %+v", out)
	}
	all := append([][4]float32(nil), f.Pos...)
	for i, q := range out {
		if q.Vel != [3]float32{} {
			t.Errorf("particle %d comes back moving: %v", i, q.Vel)
		}
		if i > 0 && !(q.Pos[1] > 0.35 && q.Pos[1] < 0.5) {
			t.Errorf("particle %d went to height %g, not onto the water's surface (0.35)", i, q.Pos[1])
		}
		for _, p := range all {
			dx, dy, dz := float64(p[0]-q.Pos[0]), float64(p[1]-q.Pos[1]), float64(p[2]-q.Pos[2])
			if r := math.Sqrt(dx*dx + dy*dy + dz*dz); r < freeGap*d-1e-6 {
				t.Errorf("particle %d at %v is %.3g m from another", i, q.Pos, r)
			}
		}
		all = append(all, [4]float32{q.Pos[0], q.Pos[1], q.Pos[2]})
	}
	if out[1].Material != 2 {
		t.Errorf("the material did not come back: %+v", out[1])
	}
	// a domain full to the lid has no room
	full := Returning(f, ps[:1], scene.Box{Max: scene.Vec3{1, 0.4, 1}})
	if len(full) != 0 {
		t.Errorf("a full domain took %+v", full)
	}
}
