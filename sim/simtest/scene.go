package simtest

import (
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// Builtin loads a shipped scene or fails the test.
func Builtin(t testing.TB, name string) *scene.Scene {
	t.Helper()
	sc, err := scene.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// HandsScene is a small pool with a floating sphere, a sphere obstacle moving back and forth and an emitter pouring
// into it: every kind of state the sandbox's tools and save files must carry, small enough for llvmpipe.
const HandsScene = `{
  "name": "hands", "domain": {"min": [0, 0, 0], "max": [0.4, 0.4, 0.2]},
  "particles": {"spacing": 0.025},
  "fluid": [{"shape": "box", "center": [0.2, 0.075, 0.1], "size": [0.4, 0.15, 0.2]}],
  "obstacles": [{"shape": "sphere", "center": [0.05, 0.1, 0.1], "radius": 0.03,
    "motion": {"axis": [1, 0, 0], "amplitude": 0.02, "period": 0.5}}],
  "bodies": [{"shape": "sphere", "center": [0.25, 0.2, 0.1], "radius": 0.05, "density": 500}],
  "emitters": [{"center": [0.2, 0.33, 0.1], "direction": [0, -1, 0], "radius": 0.02, "speed": 1}]
}`

// Parse parses a scene given as JSON or fails the test.
func Parse(t testing.TB, js string) *scene.Scene {
	t.Helper()
	sc, err := scene.Parse([]byte(js), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
