package scene

import (
	"strings"
	"testing"
)

// A material of no kind reads as a liquid, "liquid" is accepted, and a mode that does not simulate a kind refuses
// the scene naming the material, its kind and the mode (the field paths of unknown kinds: TestMaterialValidation).
func TestMaterialKinds(t *testing.T) {
	src := strings.Replace(materialScene, `{"name": "brine", "density": 1200`, `{"name": "brine", "kind": "liquid", "density": 1200`, 1)
	sc, err := Parse([]byte(src), "kinds.json")
	if err != nil {
		t.Fatalf("liquids, with the kind given and not: %v", err)
	}
	for k := range sc.MaterialCount() {
		if p := sc.PhaseOf(k); p != PhaseLiquid {
			t.Fatalf("material %d is of phase %v", k, p)
		}
	}
	if err := sc.CheckKinds("pbf", []Kind{KindLiquid}); err != nil {
		t.Fatalf("a liquid mode refuses liquids: %v", err)
	}
	err = sc.CheckKinds("sandbox", []Kind{"granular"})
	if err == nil || !strings.Contains(err.Error(), `materials[0].kind: the material "oil" is "liquid", which mode sandbox does not simulate (it simulates granular)`) {
		t.Fatalf("a mode without liquids: %v", err)
	}
}

// Granular materials: sand's phase, its fields checked with their paths, none on a liquid, and one scene's sands
// sharing the parameters the panel tunes together.
func TestGranularMaterials(t *testing.T) {
	sand := `{"name": "sand", "kind": "granular", "density": 1600, "color": [0.8, 0.7, 0.5], "friction_angle": 32, "cohesion": 5, "wall_friction": 0.6}`
	src := strings.Replace(materialScene, `{"name": "brine", "density": 1200, "color": [0.2, 0.8, 0.3]}`, sand, 1)
	src = strings.Replace(src, `"material": "brine"`, `"material": "sand"`, 1)
	sc, err := Parse([]byte(src), "sand.json")
	if err != nil {
		t.Fatalf("a granular material: %v", err)
	}
	if sc.PhaseOf(2) != PhaseGranular || sc.PhaseOf(1) != PhaseLiquid || sc.FirstGranular() != 2 {
		t.Fatalf("phases %v %v, first granular %d", sc.PhaseOf(1), sc.PhaseOf(2), sc.FirstGranular())
	}
	if m := sc.MaterialOf(2); m.FrictionAngle != 32 || m.Cohesion != 5 || m.WallFriction != 0.6 {
		t.Fatalf("granular fields: %+v", m)
	}
	if err := sc.CheckKinds("pbf", []Kind{KindLiquid}); err == nil || !strings.Contains(err.Error(), `"sand" is "granular", which mode pbf does not simulate`) {
		t.Fatalf("sand in a liquid mode: %v", err)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"no friction angle", `"friction_angle": 32, `, ``, `materials[1].friction_angle: 0° is missing or outside (0, 89]`},
		{"friction angle 90", `"friction_angle": 32`, `"friction_angle": 90`, `materials[1].friction_angle: 90° is missing or outside`},
		{"negative cohesion", `"cohesion": 5`, `"cohesion": -1`, `materials[1].cohesion: -1 Pa is outside`},
		{"wall friction", `"wall_friction": 0.6`, `"wall_friction": 11`, `materials[1].wall_friction: 11 is outside [0, 10]`},
		{"viscous sand", `"density": 1600,`, `"density": 1600, "viscosity": 0.1,`, `materials[1].viscosity: a granular material has no viscosity`},
		{"a liquid with friction", `{"name": "oil", "density": 800,`, `{"name": "oil", "density": 800, "wall_friction": 0.5,`, `materials[0].wall_friction: is a granular material's; "oil" is "liquid"`},
		{"two sands that differ", `{"name": "oil", "density": 800, "viscosity": 0.05,`, `{"name": "oil", "kind": "granular", "friction_angle": 20, "density": 800,`, `materials[1]: granular materials of one scene share friction_angle, cohesion and wall_friction`},
	} {
		_, err := Parse([]byte(strings.Replace(src, c.from, c.to, 1)), "sand.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
