package game

import (
	"testing"
)

// Figure 5.5's drafting: of two discs falling one above the other, the upper one, in the lower's wake, catches
// up with it before the lower lands; without the panels' feedback (no wakes) they fall apart as they started.
func TestDrafting(t *testing.T) {
	js := `{"name":"d","flat":{"size":[1,2],
	"bodies":[{"shape":"circle","center":[0.5,1.5],"radius":0.05,"density":1300},
	{"shape":"circle","center":[0.5,1.7],"radius":0.05,"density":1300}]}}`
	for _, feedback := range []string{"quadtree", "off"} {
		s := newGame(t, js, "reduced.feedback="+feedback)
		least := 1.0
		for k := 0; k < 120; k++ {
			frames(t, s, 1)
			lo, _, _, _ := s.world.pose(0)
			hi, _, _, _ := s.world.pose(1)
			if lo[1] < 0.1 { // the lower disc has landed
				break
			}
			least = min(least, hi[1]-lo[1])
		}
		t.Logf("feedback %s: the discs' least gap before the lower lands %.3f m (started at 0.2)", feedback, least)
		if feedback == "off" && least < 0.19 {
			t.Errorf("without wakes the gap closed to %.3f m", least)
		}
		if feedback != "off" && least > 0.11 {
			t.Errorf("drafting: the upper disc came no closer than %.3f m (touching is 0.1)", least)
		}
	}
}

// A current carries a crate of the water's density along it; with no dynamic pressure it stays put. Light bodies
// rise and heavy ones sink (buoyancy); without buoyancy both fall. (The crate drifts 4 cm in the first second:
// 7 cm before it had the inertia of the water it pushes aside, drive.go.)
func TestCurrentsAndBuoyancy(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a physics validation; make test runs it")
	}
	js := `{"name":"c","flat":{"size":[2,1.2],
	"bodies":[{"shape":"box","center":[0.3,0.6],"size":[0.12,0.12],"density":1000,"crate":true}],
	"currents":[{"points":[[0.1,0.6],[1.9,0.6]],"speed":0.5,"width":0.3}]}}`
	for _, p := range []string{"impact", "off"} {
		s := newGame(t, js, "reduced.dynamic_pressure="+p)
		frames(t, s, 60)
		c, _, _, _ := s.world.pose(0)
		t.Logf("dynamic pressure %s: after 1 s the crate is at (%.3f, %.3f)", p, c[0], c[1])
		if moved := c[0] - 0.3; p == "impact" && moved < 0.03 || p == "off" && moved > 0.01 {
			t.Errorf("dynamic pressure %s: the crate moved %.3f m along the current in 1 s", p, moved)
		}
	}
	js = `{"name":"b","flat":{"size":[1,1],
	"bodies":[{"shape":"box","center":[0.3,0.5],"size":[0.1,0.1],"density":500},
	{"shape":"circle","center":[0.7,0.5],"radius":0.05,"density":2000}]}}`
	for _, b := range []string{"true", "false"} {
		s := newGame(t, js, "reduced.buoyancy="+b)
		frames(t, s, 120)
		light, _, _, _ := s.world.pose(0)
		heavy, _, _, _ := s.world.pose(1)
		t.Logf("buoyancy %s: after 2 s the light box is at y = %.3f, the heavy disc at %.3f", b, light[1], heavy[1])
		if heavy[1] > 0.06 {
			t.Errorf("buoyancy %s: the heavy disc is at y = %.3f, not on the floor", b, heavy[1])
		}
		if b == "true" && light[1] < 0.94 || b == "false" && light[1] > 0.06 {
			t.Errorf("buoyancy %s: the light box is at y = %.3f", b, light[1])
		}
	}
}

// Gravity and viscosity changed while the game runs (the panel's sliders) act from the next step.
func TestLiveParameters(t *testing.T) {
	js := `{"name":"g","flat":{"size":[1,1],"bodies":[{"shape":"circle","center":[0.5,0.5],"radius":0.05,"density":2000}],
	"currents":[{"points":[[0.1,0.8],[0.9,0.8]],"speed":0.5,"width":0.2}]}}`
	s := newGame(t, js, "reduced.gravity=0", "reduced.viscosity=0")
	frames(t, s, 30)
	if p, _, _, _ := s.world.pose(0); p[1] < 0.49 {
		t.Fatalf("without gravity the heavy disc sank to %.3f", p[1])
	}
	e := s.model.Energy()
	if err := s.Params().Assign("reduced.gravity=9.81"); err != nil {
		t.Fatal(err)
	}
	if err := s.Params().Assign("reduced.viscosity=0.05"); err != nil {
		t.Fatal(err)
	}
	frames(t, s, 30)
	if p, _, _, _ := s.world.pose(0); p[1] > 0.45 {
		t.Errorf("with gravity turned on the heavy disc stays at %.3f", p[1])
	}
	if s.model.Energy() > 0.5*e {
		t.Errorf("with viscosity turned up the flow keeps %.0f %% of its energy in half a second", 100*s.model.Energy()/e)
	}
}
