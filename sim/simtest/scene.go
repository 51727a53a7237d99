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
