package game

import (
	"fmt"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/reduced/panel"
	"github.com/slosh/slosh/sim/scene"
)

// manyBodies is a scene of n boxes of w × h m in rows on a 4 × 2.4 m tank.
func manyBodies(n int, w, h float64) string {
	var bs []string
	for k := 0; k < n; k++ {
		x, y := 0.125+0.25*float64(k%16), 0.075+0.15*float64(k/16)
		bs = append(bs, fmt.Sprintf(`{"shape":"box","center":[%g,%g],"size":[%g,%g],"density":1000}`, x, y, w, h))
	}
	return fmt.Sprintf(`{"name":"many","flat":{"size":[4,2.4],"bodies":[%s]}}`, strings.Join(bs, ","))
}

// 256 bodies whose panels exceed what the panel solver holds are refused when the scene is loaded, with the cap
// and what to lower, not at the first step as non-finite numbers (issue 24); a body spawned over the cap and a
// saved state over it are refused the same way.
func TestPanelCap(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	sc, err := scene.Parse([]byte(manyBodies(256, 0.2, 0.12)), "many.json")
	if err != nil {
		t.Fatal(err)
	}
	s := New()
	if err := s.Params().Assign("reduced.panel_length=0.5"); err != nil {
		t.Fatal(err)
	}
	err = s.Reset(sc)
	if err == nil {
		t.Fatal("a scene over the panel cap was accepted")
	}
	for _, w := range []string{"flat.bodies[", fmt.Sprint(panel.MaxSystemPanels), "panels", "reduced.panel_length", "fewer"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v: want it to say %q", err, w)
		}
	}
	t.Log(err)

	// at the default panel length 200 such bodies fit (8 panels each); spawning taller ones (12 each) stops at
	// the cap with the same message
	g := newGame(t, manyBodies(200, 0.2, 0.12))
	var spawnErr error
	for k := 0; k < 56 && spawnErr == nil; k++ {
		_, spawnErr = g.Spawn(scene.FlatBody{Shape: scene.FlatBox, Center: scene.Vec2{0.125 + 0.25*float64(k%16), 1.95 + 0.15*float64(k/16)}, Size: scene.Vec2{0.2, 0.14}, Density: 1000})
	}
	n := 0
	for _, b := range g.world.bodies {
		n += b.shape.Panels()
	}
	t.Logf("%d bodies, %d panels; spawning: %v", len(g.world.bodies), n, spawnErr)
	if spawnErr == nil || !strings.Contains(spawnErr.Error(), fmt.Sprint(panel.MaxSystemPanels)) || n > panel.MaxSystemPanels {
		t.Errorf("spawning up to %d panels: %v", n, spawnErr)
	}
	frames(t, g, 1)
}
