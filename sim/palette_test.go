package sim

import (
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

func TestScenePalette(t *testing.T) {
	sc := &scene.Scene{Materials: []scene.Material{
		{Name: "oil", Density: 800, Color: [3]float64{0.9, 0.7, 0.1}},
		{Name: "heavy", Density: 10000, Color: [3]float64{1, 0, 0.25}},
	}}
	got := ScenePalette(sc)
	water := scene.DefaultMaterial().Color
	want := [][3]float32{{float32(water[0]), float32(water[1]), float32(water[2])}, {0.9, 0.7, 0.1}, {1, 0, 0.25}}
	if len(got) != len(want) {
		t.Fatalf("palette %v, want %v", got, want)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("palette[%d] = %v, want %v", k, got[k], want[k])
		}
	}
	if p := ScenePalette(&scene.Scene{}); len(p) != 1 || p[0] != want[0] {
		t.Errorf("a scene without materials: palette %v, want the default's colour alone", p)
	}
}
