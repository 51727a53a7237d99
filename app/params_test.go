package app

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// writeScene writes a small scene file with the given "params" object and returns its path.
func writeScene(t *testing.T, params string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tank.json")
	data := `{
  "name": "tank",
  "mode": "pbf-cpu",
  "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.4]},
  "particles": {"spacing": 0.04},
  "fluid": [{"shape": "box", "center": [0.2, 0.1, 0.2], "size": [0.4, 0.2, 0.4]}],
  "params": ` + params + `
}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func value(t *testing.T, set *param.Set, name string) string {
	t.Helper()
	p, ok := set.Lookup(name)
	if !ok {
		t.Fatalf("no parameter %s", name)
	}
	return p.String()
}

func TestParameterOrderSceneThenParticlesThenSet(t *testing.T) {
	path := writeScene(t, `{"pbf.iterations": 7, "pbf.vorticity": 0.5, "pbf.particles": 100, "render.color": "speed"}`)
	o := Options{Scene: path, Sets: []string{"pbf.vorticity=0.25", "render.speed_max=5"}, Particles: 300}
	st, err := prepare(Modes(), &o)
	if err != nil {
		t.Fatal(err)
	}
	if st.mode.Name != "pbf-cpu" {
		t.Errorf("mode %s, want the scene's pbf-cpu", st.mode.Name)
	}
	if got := strings.Join(st.renderSets, " "); got != "render.speed_max=5" {
		t.Errorf("render assignments %q", got)
	}
	set := st.mode.Params()
	notes, err := st.configure(set, st.mode)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 0 {
		t.Errorf("notes %q for a scene with only its own and render parameters", notes)
	}
	for name, want := range map[string]string{
		"pbf.iterations": "7",    // from the scene
		"pbf.vorticity":  "0.25", // --set wins over the scene
		"pbf.particles":  "300",  // --particles wins over the scene
	} {
		if got := value(t, set, name); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}

	// an explicit --set of the count wins over --particles, which comes first
	o.Sets = append(o.Sets, "pbf.particles=400")
	st, err = prepare(Modes(), &o)
	if err != nil {
		t.Fatal(err)
	}
	set = st.mode.Params()
	if _, err := st.configure(set, st.mode); err != nil {
		t.Fatal(err)
	}
	if got := value(t, set, "pbf.particles"); got != "400" {
		t.Errorf("pbf.particles = %s after --particles 300 --set pbf.particles=400", got)
	}
}

func TestSceneParamsOfOtherModesAreSkippedWithANote(t *testing.T) {
	path := writeScene(t, `{"flip.pic_ratio": 0.05, "pbf.iterations": 5}`)
	st, err := prepare(Modes(), &Options{Scene: path})
	if err != nil {
		t.Fatal(err)
	}
	set := st.mode.Params()
	cpu, _ := findMode(Modes(), "pbf-cpu")
	notes, err := st.configure(set, cpu)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], path) || !strings.Contains(notes[0], "flip.pic_ratio") {
		t.Errorf("notes %q: want one naming the file and flip.pic_ratio", notes)
	}
	if got := value(t, set, "pbf.iterations"); got != "5" {
		t.Errorf("pbf.iterations = %s, want the scene's 5", got)
	}
}

func TestSceneParamErrorsNameTheFile(t *testing.T) {
	for _, tc := range []struct{ params, want string }{
		{`{"pbf.nope": 1}`, `"pbf.nope"`},
		{`{"pbf.iterations": 1000}`, "out of range [1, 100]"},
		{`{"pbf.gravity": "down"}`, "pbf.gravity"},
	} {
		path := writeScene(t, tc.params)
		_, err := prepare(Modes(), &Options{Scene: path})
		var ue *UsageError
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ue) {
			t.Errorf("scene params %s: err = %v; want a plain error naming %s and %s", tc.params, err, path, tc.want)
		}
	}
}

func TestBadOptionsAreUsageErrors(t *testing.T) {
	for _, o := range []Options{
		{Mode: "flop"},
		{Sets: []string{"pbf.iterations=1000"}},
		{Sets: []string{"pbf.iterations"}},
		{Sets: []string{"nope=1"}},
		{Sets: []string{"pbf.unilateral=maybe"}},
		{GLCap: "3.3"},
		{Particles: -5},
	} {
		o.Scene = "pool"
		_, err := prepare(Modes(), &o)
		var ue *UsageError
		if !errors.As(err, &ue) {
			t.Errorf("%+v: err = %v, want a usage error", o, err)
		}
	}
	_, err := prepare(Modes(), &Options{Scene: "pool", Sets: []string{"pbf.iterations=1000"}})
	if err == nil || !strings.Contains(err.Error(), "pbf.iterations") || !strings.Contains(err.Error(), "[1, 100]") {
		t.Errorf("an out-of-range --set: %v; want the name and the range", err)
	}
}

func TestCarryKeepsSharedValues(t *testing.T) {
	modes := Modes()
	gpu, _ := findMode(modes, "pbf")
	cpu, _ := findMode(modes, "pbf-cpu")
	a := gpu.Params()
	if err := a.Assign("pbf.iterations=9"); err != nil {
		t.Fatal(err)
	}
	snap := a.Snapshot()
	snap["other.mode"] = param.Value{F: 3}
	b := cpu.Params()
	carry(b, snap)
	if got := value(t, b, "pbf.iterations"); got != "9" {
		t.Errorf("pbf.iterations = %s after a mode switch, want 9", got)
	}
}

// fitInside moves bodies that stick out of the domain (by up to a particle's half spacing, resting on the floor)
// back in so that the saved scene validates, for every tilt of a cylinder and a box.
func TestFitInsideLeavesBodiesInside(t *testing.T) {
	dom := scene.Box{Min: scene.Vec3{0, 0, 0}, Max: scene.Vec3{1.2, 0.8, 0.8}}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		sh := scene.Shape{Kind: scene.ShapeCylinder, Radius: 0.05, Height: 0.12}
		if i%2 == 1 {
			sh = scene.Shape{Kind: scene.ShapeBox, Size: scene.Vec3{0.1, 0.07, 0.13}}
		}
		sh.Rotation = scene.Vec3{rng.Float64() * 360, rng.Float64() * 360, rng.Float64() * 360}
		sh.Center = scene.Vec3{0.02 + rng.Float64()*1.16, 0.03, 0.02 + rng.Float64()*0.76}
		b := sh.Bounds() // push it through the floor or a wall by up to 3 mm
		sh.Center[1] -= b.Min[1] + rng.Float64()*0.003
		fitted := fitInside(sh, dom)
		got := fitted.Bounds()
		for k := 0; k < 3; k++ {
			if got.Min[k] < dom.Min[k] || got.Max[k] > dom.Max[k] {
				t.Fatalf("%v fitted to bounds %v–%v, outside the domain", sh, got.Min, got.Max)
			}
		}
	}
}
