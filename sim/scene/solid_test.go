package scene

import (
	"math"
	"strings"
	"testing"
)

// solidScene has an elastic block that melts, a plastic one and a rigid one, hot water and a heater.
func solidScene(materials, heaters string) string {
	return `{"name": "solids", "domain": {"min": [0, 0, 0], "max": [1, 1, 0.4]}, "particles": {"spacing": 0.05},
	"materials": [` + materials + `],
	"fluid": [
		{"shape": "box", "center": [0.25, 0.25, 0.2], "size": [0.3, 0.3, 0.2], "material": "jelly"},
		{"shape": "box", "center": [0.75, 0.25, 0.2], "size": [0.3, 0.3, 0.2], "material": "jelly"}
	]` + heaters + `}`
}

const jelly = `{"name": "jelly", "kind": "elastic", "density": 1000, "color": [1, 0, 0], "youngs_modulus": 1e4, "poisson_ratio": 0.3,
	"temperature": 10, "diffusivity": 1e-4, "phase_change": {"solidifying": 30, "melting": 40}, "viscosity": 0.1, "solid_viscosity": 2}`

// Solid materials and heaters parse, keep their fields through Marshal, and sample with each particle's block.
func TestSolidMaterialsAndHeaters(t *testing.T) {
	js := solidScene(jelly+`, {"name": "clay", "kind": "plastic", "density": 1500, "color": [0.6, 0.4, 0.3], "youngs_modulus": 1e5,
		"elastic_limit": 0.05, "plastic_limit": 0.5, "fracture": 1.5}, {"name": "wax", "kind": "rigid", "density": 900, "color": [1, 1, 0]}`,
		`, "heaters": [{"shape": "box", "center": [0.5, 0.02, 0.2], "size": [1, 0.04, 0.4], "temperature": 90, "rate": 5, "stop": 2}]`)
	sc, err := Parse([]byte(js), "solids.json")
	if err != nil {
		t.Fatal(err)
	}
	m := sc.MaterialOf(1)
	if m.Kind != KindElastic || m.YoungsModulus != 1e4 || m.PhaseChange == nil || m.PhaseChange.Melting != 40 || m.SolidViscosity != 2 {
		t.Fatalf("jelly read as %+v", m)
	}
	if p, _ := sc.MaterialOf(3).Kind.Phase(); p != PhaseRigid || sc.PhaseOf(1) != PhaseSolid || sc.PhaseOf(2) != PhaseSolid {
		t.Fatalf("phases: rigid %v, elastic %v, plastic %v", p, sc.PhaseOf(1), sc.PhaseOf(2))
	}
	data, err := sc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data, "back.json")
	if err != nil {
		t.Fatal(err)
	}
	if b := back.MaterialOf(2); b.ElasticLimit != 0.05 || b.Fracture != 1.5 || len(back.Heaters) != 1 || back.Heaters[0].Stop != 2 {
		t.Fatalf("after Marshal: %+v, heaters %+v", b, back.Heaters)
	}
	c := sc.Clone()
	c.Materials[0].PhaseChange.Melting = 99
	if sc.Materials[0].PhaseChange.Melting != 40 {
		t.Fatal("a clone shares its phase change with the scene")
	}
	ps, err := sc.Sample(0.05)
	if err != nil {
		t.Fatal(err)
	}
	blocks := map[int]int{}
	for _, p := range ps {
		blocks[p.Block]++
		if (p.Pos[0] < 0.5) != (p.Block == 0) {
			t.Fatalf("a particle at %v is of block %d", p.Pos, p.Block)
		}
	}
	if len(blocks) != 2 || blocks[0] != blocks[1] {
		t.Fatalf("particles per block %v", blocks)
	}
	// a heater relaxes exponentially: after 1/rate the gap to its temperature is 1/e of what it was
	h := &sc.Heaters[0]
	if got := h.Relax(10, 0.2); math.Abs((90-got)/80-math.Exp(-1)) > 1e-12 || !h.Active(0) || h.Active(2) {
		t.Fatalf("relax: %g; active at 0 %v, at 2 %v", got, h.Active(0), h.Active(2))
	}
}

// Bad solid materials and heaters are refused with the field's path and what to do.
func TestSolidMaterialsRefuseBadValues(t *testing.T) {
	for _, c := range []struct{ mat, heaters, want string }{
		{`{"name": "jelly", "kind": "elastic", "density": 1000, "color": [1, 0, 0]}`, "", "materials[0].youngs_modulus: missing"},
		{strings.Replace(jelly, `"poisson_ratio": 0.3`, `"poisson_ratio": 0.5`, 1), "", "poisson_ratio: 0.5 is outside"},
		{strings.Replace(jelly, `"youngs_modulus": 1e4`, `"youngs_modulus": 1e12`, 1), "", "youngs_modulus: 1e+12 Pa is outside"},
		{strings.Replace(jelly, `"solidifying": 30`, `"solidifying": 50`, 1), "", "phase_change: solidifies at 50"},
		{strings.Replace(jelly, `"temperature": 10`, `"temperature": -300`, 1), "", "temperature: -300"},
		{strings.Replace(jelly, `"diffusivity": 1e-4`, `"diffusivity": 5`, 1), "", "diffusivity: 5"},
		{strings.Replace(jelly, `"kind": "elastic"`, `"kind": "elastic", "elastic_limit": 0.1`, 1), "", `elastic_limit: is a plastic material's`},
		{strings.Replace(jelly, `"kind": "elastic"`, `"kind": "plastic"`, 1), "", "elastic_limit: 0 is missing"},
		{strings.Replace(jelly, `"kind": "elastic"`, `"kind": "elastic", "fracture": 0.5`, 1), "", "fracture: 0.5 is neither"},
		{`{"name": "jelly", "density": 1000, "color": [1, 0, 0], "youngs_modulus": 1e4}`, "", `youngs_modulus: is a solid's`},
		{`{"name": "jelly", "kind": "rigid", "density": 1000, "color": [1, 0, 0], "phase_change": {"solidifying": 10, "melting": 20}}`, "", "youngs_modulus: missing"},
		{jelly, `, "heaters": [{"shape": "box", "center": [0.5, 0.02, 0.2], "size": [1, 0.04, 0.4], "temperature": 90, "rate": 0}]`, "heaters[0].rate"},
		{jelly, `, "heaters": [{"shape": "box", "center": [0.5, 0.02, 0.2], "size": [1, 0.04, 0.4], "temperature": 90, "rate": 1, "start": 2, "stop": 1}]`, "heaters[0].stop"},
		{jelly, `, "heaters": [{"shape": "ball", "temperature": 90, "rate": 1}]`, "heaters[0]"},
	} {
		_, err := Parse([]byte(solidScene(c.mat, c.heaters)), "bad.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v, want an error saying %q", c.mat, c.heaters, err, c.want)
		}
	}
}

const dough = `{"name": "jelly", "kind": "elastoplastic", "density": 1100, "color": [0.9, 0.8, 0.6], "youngs_modulus": 2e4,
	"poisson_ratio": 0.3, "yield_stress": 500, "flow_rate": 20, "hardening": 100, "variant": "non-newtonian"}`

// Elastoplastic materials parse with their fields, are drawn as solids, keep their fields through Marshal, and
// refuse bad values with the field's path.
func TestElastoplasticMaterials(t *testing.T) {
	sc, err := Parse([]byte(solidScene(dough, "")), "dough.json")
	if err != nil {
		t.Fatal(err)
	}
	m := sc.MaterialOf(1)
	if m.Kind != KindElastoplastic || m.YieldStress != 500 || m.FlowRate != 20 || m.Hardening != 100 || m.Variant != VariantNonNewtonian || sc.PhaseOf(1) != PhaseSolid {
		t.Fatalf("dough read as %+v, phase %v", m, sc.PhaseOf(1))
	}
	if !m.Kind.Body() || m.Kind.Solid() || !m.Kind.OwnSurface() || KindElastic.OwnSurface() || KindLiquid.OwnSurface() {
		t.Fatal("an elastoplastic material is a body with its own surface but not one of Solenthaler's solids")
	}
	data, err := sc.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(data, "back.json")
	if err != nil || back.MaterialOf(1) != m {
		t.Fatalf("after Marshal: %+v, %v", back.MaterialOf(1), err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"youngs_modulus": 2e4,`, ``, "youngs_modulus: 0 Pa is missing"},
		{`"poisson_ratio": 0.3`, `"poisson_ratio": 0.6`, "poisson_ratio: 0.6 is outside"},
		{`"yield_stress": 500`, `"yield_stress": -1`, "yield_stress: -1 Pa is outside"},
		{`"flow_rate": 20`, `"flow_rate": 1e9`, "flow_rate: 1e+09 /s is outside"},
		{`"hardening": 100`, `"hardening": 1e12`, "hardening: 1e+12 Pa is outside"},
		{`"non-newtonian"`, `"bingham"`, `variant: "bingham" is not a variant`},
		{`"hardening": 100`, `"hardening": 100, "fracture": 2`, "fracture: is a solid's"},
		{`"kind": "elastoplastic"`, `"kind": "elastic"`, "yield_stress: is an elastoplastic material's"},
	} {
		js := strings.Replace(dough, c.from, c.to, 1)
		_, err := Parse([]byte(solidScene(js, "")), "bad.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", js, err, c.want)
		}
	}
}
