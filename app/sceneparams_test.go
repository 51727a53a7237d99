package app

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/flip"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/ui"
)

// sandScene writes a scene of water and sand (friction angle 40°, cohesion 3 Pa, wall friction 0.2) that opens in
// mode flip, with params as its "params".
func sandScene(t *testing.T, params string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sand.json")
	data := `{
  "name": "sand",
  "mode": "flip",
  "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.4]},
  "particles": {"spacing": 0.04},
  "materials": [
    {"name": "sand", "kind": "granular", "density": 1600, "color": [0.8, 0.7, 0.4], "friction_angle": 40, "cohesion": 3, "wall_friction": 0.2}
  ],
  "fluid": [
    {"shape": "box", "center": [0.1, 0.1, 0.2], "size": [0.2, 0.2, 0.4], "material": "sand"},
    {"shape": "box", "center": [0.3, 0.1, 0.2], "size": [0.2, 0.2, 0.4]}
  ],
  "params": ` + params + `
}`
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sandValues are the sand parameters' values in set: friction angle, cohesion, wall friction.
func sandValues(set *param.Set) [3]string {
	return [3]string{paramValue(set, flip.ParamFrictionAngle), paramValue(set, flip.ParamCohesion), paramValue(set, flip.ParamWallFriction)}
}

// A scene with sand opened in flip sets flip's sand parameters to its granular material's (flip.SceneParams), under
// the scene's own params and the command line's --set, which win; so does B of another A/B mode, reset from it.
func TestSandSceneSeedsFlipParams(t *testing.T) {
	ss, _ := headless(t, Options{Scene: sandScene(t, `{}`), Stderr: io.Discard})
	if ss.mode.Name != flip.Name {
		t.Fatalf("the scene runs in %s", ss.mode.Name)
	}
	if got, want := sandValues(ss.solver.Params()), [3]string{"40", "3", "0.2"}; got != want {
		t.Errorf("sand parameters %v, want the material's %v", got, want)
	}

	path := sandScene(t, `{"flip.sand_cohesion": 7}`)
	ss, st := headless(t, Options{Scene: path, Sets: []string{"flip.sand_wall_friction=0.9"}, Stderr: io.Discard})
	if got, want := sandValues(ss.solver.Params()), [3]string{"40", "7", "0.9"}; got != want {
		t.Errorf("sand parameters %v, want the scene's cohesion and --set's wall friction over the material's: %v", got, want)
	}

	// B of mode flip put beside A, as another mode's B is: reset from the scene with its parameters, then its own
	fm, _ := findMode(Modes(), flip.Name)
	p, err := startCross(Modes(), fm, ss.solver, glInfo{}, st.sc, abSpec{Mode: flip.Name, Sets: []abSet{{Name: flip.ParamWallFriction, Value: param.Value{F: 0.5}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sandValues(p.(abPair).pairOf().b.Params()), [3]string{"40", "7", "0.5"}; got != want {
		t.Errorf("B's sand parameters %v, want %v", got, want)
	}

	// a scene without sand leaves them at flip's defaults
	ss, _ = headless(t, Options{Scene: writeScene(t, `{}`), Mode: flip.Name, Stderr: io.Discard})
	for _, name := range []string{flip.ParamFrictionAngle, flip.ParamCohesion, flip.ParamWallFriction} {
		if p, _ := ss.solver.Params().Lookup(name); p.Get() != p.Default() {
			t.Errorf("without sand %s = %s, want its default %s", name, p.String(), p.Format(p.Default()))
		}
	}
}

// In the window, opening a scene with sand seeds flip's sand parameters — through a scene switch that changes the
// mode and one within flip — and a reset ('r') keeps what the user set since: only opening a scene seeds them.
func TestViewerSandParamsSeedOnOpen(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	ctx := gltest.Acquire(t)
	v := openViewer(t, ctx, Options{Scene: writeScene(t, `{}`), Stderr: io.Discard})
	if v.drv.Mode().Name != "pbf-cpu" {
		t.Fatalf("the water scene runs in %s", v.drv.Mode().Name)
	}
	sand := sandScene(t, `{"flip.sand_wall_friction": 0.3}`)
	v.switchScene(sand)
	if v.drv.Mode().Name != flip.Name {
		t.Fatalf("the sand scene runs in %s (%s)", v.drv.Mode().Name, v.status.msg)
	}
	want := [3]string{"40", "3", "0.3"}
	if got := sandValues(v.drv.Params()); got != want {
		t.Errorf("after opening the sand scene: %v, want %v", got, want)
	}

	// the user moves the friction angle's slider; a reset keeps it, in the panel and in the solver
	settle(v, 0)
	v.fillModel()
	angle, _ := v.drv.Params().Lookup(flip.ParamFrictionAngle)
	if err := angle.Set(param.Value{F: 25}); err != nil {
		t.Fatal(err)
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ParamsChanged: true})
	press(v, glfw.KeyR)
	quiesce(t, v)
	if got := paramValue(v.drv.Params(), flip.ParamFrictionAngle); got != "25" {
		t.Errorf("the friction angle after a reset: %s, want the user's 25", got)
	}
	if got := paramValue(v.drv.(*cpuDriver).runner.solver.Params(), flip.ParamFrictionAngle); got != "25" {
		t.Errorf("the solver's friction angle after a reset: %s, want the user's 25", got)
	}

	// opening the scene again, in flip, seeds them again
	v.switchScene(sand)
	if got := sandValues(v.drv.Params()); got != want {
		t.Errorf("after opening the sand scene again: %v, want %v", got, want)
	}
}
