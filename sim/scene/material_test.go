package scene

import (
	"fmt"
	"strings"
	"testing"
)

// materialScene has two materials and three blocks: water by default on the left, oil on the right, and a brine
// block overlapping the oil one (whose points belong to the oil, the first block that holds them).
const materialScene = `{"name": "materials", "domain": {"min": [0, 0, 0], "max": [1, 1, 0.2]}, "particles": {"spacing": 0.05},
	"materials": [
		{"name": "oil", "density": 800, "viscosity": 0.05, "color": [0.9, 0.7, 0.1]},
		{"name": "brine", "density": 1200, "color": [0.2, 0.8, 0.3]}
	],
	"fluid": [
		{"shape": "box", "center": [0.25, 0.25, 0.1], "size": [0.5, 0.5, 0.2]},
		{"shape": "box", "center": [0.75, 0.25, 0.1], "size": [0.5, 0.5, 0.2], "material": "oil", "velocity": [0, 1, 0]},
		{"shape": "box", "center": [0.75, 0.5, 0.1], "size": [0.5, 0.5, 0.2], "material": "brine"}
	]}`

func TestMaterialsSampleByBlock(t *testing.T) {
	sc, err := Parse([]byte(materialScene), "materials.json")
	if err != nil {
		t.Fatal(err)
	}
	if sc.MaterialCount() != 3 || sc.MaterialOf(0) != DefaultMaterial() || sc.MaterialOf(1).Name != "oil" ||
		sc.MaterialOf(2).Density != 1200 || sc.MaterialOf(3) != DefaultMaterial() || sc.MaterialOf(-1) != DefaultMaterial() {
		t.Fatalf("material numbers: %d materials, %+v %+v %+v", sc.MaterialCount(), sc.MaterialOf(0), sc.MaterialOf(1), sc.MaterialOf(2))
	}
	ps, err := sc.Sample(0.05)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, 3)
	for _, p := range ps {
		want := 0
		switch {
		case p.Pos[0] > 0.5 && p.Pos[1] < 0.5:
			want = 1 // the oil block, also where brine overlaps it
		case p.Pos[0] > 0.5:
			want = 2
		}
		if p.Material != want {
			t.Fatalf("particle at %v is material %d, want %d", p.Pos, p.Material, want)
		}
		if wantVel := (Vec3{0, float64(boolInt(want == 1)), 0}); p.Vel != wantVel {
			t.Fatalf("particle at %v of material %d moves at %v", p.Pos, p.Material, p.Vel)
		}
		counts[p.Material]++
	}
	if counts[0] != 10*10*4 || counts[1] != 10*10*4 || counts[2] != 10*5*4 {
		t.Errorf("particles per material: %v", counts)
	}

	// the scene writes back with its materials, and a clone's materials are its own
	data := roundTrip(t, sc, "materials.json")
	for _, want := range []string{`"materials": [`, `{"name": "oil", "density": 800, "viscosity": 0.05, "color": [0.9, 0.7, 0.1]},`,
		`{"name": "brine", "density": 1200, "color": [0.2, 0.8, 0.3]}`, `"material": "brine"}`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the marshalled scene lacks %s:\n%s", want, data)
		}
	}
	c := sc.Clone()
	c.Materials[0].Density, c.Materials[1].Color[0] = 1, 0
	if sc.Materials[0].Density != 800 || sc.Materials[1].Color[0] != 0.2 {
		t.Error("Clone shares the materials with the original")
	}

	// a scene made in code with a block of an unknown material cannot be sampled
	c.Fluid[2].Material = "mercury"
	if _, err := c.Sample(0.05); err == nil || !strings.Contains(err.Error(), `fluid[2].material: unknown material "mercury"; the scene's materials are "oil", "brine"`) {
		t.Errorf("sampling a block of an unknown material: %v", err)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestMaterialValidation(t *testing.T) {
	withMaterials := func(mats, blockMaterial string) string {
		s := strings.Replace(materialScene, `{"name": "oil", "density": 800, "viscosity": 0.05, "color": [0.9, 0.7, 0.1]},
		{"name": "brine", "density": 1200, "color": [0.2, 0.8, 0.3]}`, mats, 1)
		return strings.Replace(s, `"material": "brine"`, `"material": `+blockMaterial, 1)
	}
	oil := `{"name": "oil", "density": 800, "color": [0.9, 0.7, 0.1]}`
	brine := `{"name": "brine", "density": 1200, "color": [0.2, 0.8, 0.3]}`
	many := strings.TrimSuffix(strings.Repeat(`{"name": "x", "density": 900, "color": [0, 0, 0]},`, MaxMaterials), ",")
	cases := []struct{ name, json, want string }{
		{"unknown name", withMaterials(oil+","+brine, `"brine2"`), `fluid[2].material: unknown material "brine2"; the scene's materials are "oil", "brine"`},
		{"none defined", strings.Replace(withMaterials("", `"oil"`), `"materials": [`+"\n\t\t\n\t]", `"materials": []`, 1),
			`fluid[1].material: unknown material "oil": the scene defines no materials`},
		{"not a string", withMaterials(oil+","+brine, `7`), `fluid[2].material: want a string, got 7`},
		{"unknown field", withMaterials(`{"name": "oil", "density": 800, "colour": [1, 1, 1]},`+brine, `"oil"`), `materials[0].colour: unknown field; known fields here are name, kind, density, viscosity, color`},
		{"no name", withMaterials(`{"density": 800, "color": [1, 1, 1]},`+brine, `"oil"`), `materials[0].name: missing`},
		{"long name", withMaterials(`{"name": "`+strings.Repeat("o", 100)+`", "density": 800, "color": [1, 1, 1]},`+brine, `"oil"`), `materials[0].name: "oooo`},
		{"twice", withMaterials(oil+","+brine+","+oil, `"oil"`), `materials[2].name: "oil" is also the name of materials[0]`},
		{"no density", withMaterials(`{"name": "oil", "color": [1, 1, 1]},`+brine, `"oil"`), `materials[0].density: 0 kg/m³ is outside [1, 100000]`},
		{"dense", withMaterials(oil+`,{"name": "brine", "density": 1e6, "color": [1, 1, 1]}`, `"oil"`), `materials[1].density: 1e+06 kg/m³ is outside [1, 100000]`},
		{"negative viscosity", withMaterials(`{"name": "oil", "density": 800, "viscosity": -0.1, "color": [1, 1, 1]},`+brine, `"oil"`), `materials[0].viscosity: -0.1 Pa·s is outside [0, 1000]`},
		{"thick", withMaterials(`{"name": "oil", "density": 800, "viscosity": 2000, "color": [1, 1, 1]},`+brine, `"oil"`), `materials[0].viscosity: 2000 Pa·s is outside [0, 1000]`},
		{"bright", withMaterials(`{"name": "oil", "density": 800, "color": [1, 1.5, 1]},`+brine, `"oil"`), `materials[0].color[1]: 1.5 is outside [0, 1]`},
		{"negative colour", withMaterials(`{"name": "oil", "density": 800, "color": [1, 1, -0.01]},`+brine, `"oil"`), `materials[0].color[2]: -0.01 is outside [0, 1]`},
		{"short colour", withMaterials(`{"name": "oil", "density": 800, "color": [1, 1]},`+brine, `"oil"`), `materials[0].color: want an array of 3 numbers`},
		{"unknown kind", withMaterials(`{"name": "oil", "kind": "plasma", "density": 800, "color": [1, 1, 1]},`+brine, `"oil"`), `materials[0].kind: "plasma" is not a kind of material this slosh simulates; the kinds are "liquid"`},
		{"kind not a string", withMaterials(`{"name": "oil", "kind": 3, "density": 800, "color": [1, 1, 1]},`+brine, `"oil"`), `materials[0].kind: want a string, got 3`},
		{"too many", withMaterials(many+`,`+oil, `"oil"`), `materials: 17 entries, over the limit of 16 (particles carry their material number in a byte`},
	}
	for _, c := range cases {
		msg := parseErr(t, c.json)
		if !strings.HasPrefix(msg, "bad.json: ") || !strings.Contains(msg, c.want) || len(msg) > 400 {
			t.Errorf("%s: error %q, want %q", c.name, msg, c.want)
		}
	}
	// at the limit, with materials nobody uses, and without the material on any block, a scene is fine
	var extra []string
	for k := 0; k < MaxMaterials-2; k++ {
		extra = append(extra, fmt.Sprintf(`{"name": "unused%d", "density": %d, "color": [0, 0, 0]}`, k, 900+k))
	}
	atLimit := withMaterials(strings.Join(append(extra, oil, brine), ","), `"brine"`)
	if _, err := Parse([]byte(atLimit), "ok.json"); err != nil {
		t.Errorf("%d materials: %v", MaxMaterials, err)
	}
}

// The several-fluid scenes open in sph with a few tens of thousands of particles of at least two materials, at the
// density ratios they promise, the heavier fluid on top where the scene is an instability.
func TestMaterialScenes(t *testing.T) {
	for _, c := range []struct {
		name       string
		ratio      float64 // densest over lightest, at least
		heavyOnTop bool
	}{{"oil-and-water", 1.25, false}, {"rayleigh-taylor", 2, true}, {"three-liquids", 20, true}} {
		sc, err := Builtin(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Mode != "sph" || sc.Camera == nil {
			t.Errorf("%s: mode %q, camera %v", c.name, sc.Mode, sc.Camera)
		}
		ps, err := sc.Sample(sc.Particles.Spacing)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) < 20000 || len(ps) > 60000 {
			t.Errorf("%s: %d particles, want 20k–60k for the CPU mode", c.name, len(ps))
		}
		n := make([]int, sc.MaterialCount())
		sumY := make([]float64, sc.MaterialCount())
		for _, p := range ps {
			n[p.Material]++
			sumY[p.Material] += p.Pos[1]
		}
		lo, hi := -1, -1 // the lightest and densest materials present
		for k := range n {
			if n[k] == 0 {
				continue
			}
			if lo < 0 || sc.MaterialOf(k).Density < sc.MaterialOf(lo).Density {
				lo = k
			}
			if hi < 0 || sc.MaterialOf(k).Density > sc.MaterialOf(hi).Density {
				hi = k
			}
		}
		used := 0
		for _, k := range n {
			used += min(k, 1)
		}
		if used < 2 || len(sc.Materials) == 0 {
			t.Fatalf("%s: particles of %d materials (%v)", c.name, used, n)
		}
		if r := sc.MaterialOf(hi).Density / sc.MaterialOf(lo).Density; r < c.ratio-1e-9 {
			t.Errorf("%s: density ratio %g, want at least %g", c.name, r, c.ratio)
		}
		if c.heavyOnTop && !(sumY[hi]/float64(n[hi]) > sumY[lo]/float64(n[lo])) {
			t.Errorf("%s: the densest fluid (%s, mean height %.3f m) is not above the lightest (%s, %.3f m)", c.name,
				sc.MaterialOf(hi).Name, sumY[hi]/float64(n[hi]), sc.MaterialOf(lo).Name, sumY[lo]/float64(n[lo]))
		}
		t.Logf("%s: %d particles, per material %v", c.name, len(ps), n)
	}
}
