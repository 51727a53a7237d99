package game

import (
	"math"
	"testing"
)

// A current drawn from a crate of the water's density towards the right carries the crate along it: a neutrally
// buoyant body relaxes to the velocity of the fluid it displaces (the Maxey–Riley equation's drag and added-mass
// terms; Tchen's result for a body of the fluid's density is that it moves with the fluid), so within three
// seconds it must move a good part of the way the current would carry it (≥ 0.3 m, where the current drawn at
// 0.6 m/s runs at 0.3–0.4 m/s at the crate's centre: ≥ 1 m in 3 s), and neither back nor down. The stroke starts at the crate's centre and is narrower than the
// crate (4 grid cells, 12 cm, against 14 cm): the flow round its outline is the current's edges and its return
// flow, and the crate once read its stream there (panel.ImpactForces' mean over its collocation points) and
// went backwards (−2 cm in 3 s) and, with the key pressed every second, to the floor (issue 26).
func TestDrawnCurrentCarriesCrate(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a physics check that steps a scene; make test runs it")
	}
	js := `{"name":"s","flat":{"size":[2,1.2],
	"bodies":[{"shape":"box","center":[0.3,0.6],"size":[0.14,0.14],"density":1000,"crate":true}]}}`
	s := newGame(t, js)
	if _, err := s.Draw([][2]float32{{0.3, 0.6}, {0.8, 0.6}, {1.3, 0.6}, {1.78, 0.6}}, 0.6, 4*2.0/65); err != nil {
		t.Fatal(err)
	}
	lowest := 0.6
	for sec := 1; sec <= 3; sec++ {
		frames(t, s, 60)
		p, _, _, _ := s.world.pose(0)
		lowest = min(lowest, p[1])
		if err := s.Excite(1); err != nil {
			t.Fatal(err)
		}
	}
	p, _, _, _ := s.world.pose(0)
	t.Logf("after 3 s the crate is at (%.3f, %.3f), lowest y %.3f", p[0], p[1], lowest)
	if p[0]-0.3 < 0.3 {
		t.Errorf("the current carried the crate %.3f m in 3 s; want at least 0.3 m", p[0]-0.3)
	}
	if math.Abs(lowest-0.6) > 0.03 {
		t.Errorf("the crate went down to y = %.3f in the current (from 0.6)", lowest)
	}
}
