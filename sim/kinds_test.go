package sim

import (
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// grains is a solver that simulates sand only and counts its resets.
type grains struct{ resets int }

func (g *grains) Name() string             { return "grains" }
func (g *grains) Params() *param.Set       { return param.NewSet() }
func (g *grains) Reset(*scene.Scene) error { g.resets++; return nil }
func (g *grains) BeginFrame(float64) int   { return 1 }
func (g *grains) Step(float64) error       { return nil }
func (g *grains) Frame(*Frame)             {}
func (g *grains) Stats() Stats             { return Stats{} }
func (g *grains) Kinds() []scene.Kind      { return []scene.Kind{"granular"} }

// Reset refuses a scene with a material the solver does not simulate before the solver sees it, naming both; a
// solver that names no kinds is a liquid one.
func TestResetChecksKinds(t *testing.T) {
	sc, err := scene.Builtin("oil-and-water")
	if err != nil {
		t.Fatal(err)
	}
	g := &grains{}
	err = Reset(g, sc)
	if err == nil || g.resets != 0 || !strings.Contains(err.Error(), "mode grains does not simulate") {
		t.Fatalf("oil and water in a sand mode: %v (resets %d)", err, g.resets)
	}
	if k := KindsOf(struct{ Solver }{g}); len(k) != 1 || k[0] != scene.KindLiquid {
		t.Fatalf("a solver that names no kinds simulates %v", k)
	}
	water, err := scene.Builtin("dambreak")
	if err != nil {
		t.Fatal(err)
	}
	if err := Reset(g, water); err != nil || g.resets != 1 {
		t.Fatalf("a scene without materials (its water is the default material): %v", err)
	}
}

// Liquid leaves rigid bodies' particles and non-liquid phases out.
func TestFrameLiquid(t *testing.T) {
	f := &Frame{N: 3}
	if !f.AllLiquid() || !f.Liquid(2) {
		t.Fatal("a frame without bodies or phases is all liquid")
	}
	f.Body = []int32{-1, 0, -1}
	f.Phase = []scene.Phase{scene.PhaseLiquid, scene.PhaseLiquid, scene.PhaseGranular}
	if !f.Liquid(0) || f.Liquid(1) || f.Liquid(2) || f.AllLiquid() {
		t.Fatalf("liquid: %v %v %v", f.Liquid(0), f.Liquid(1), f.Liquid(2))
	}
}
