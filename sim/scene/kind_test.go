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
