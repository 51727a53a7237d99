package sph

import (
	"fmt"
	"slices"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// A scene's materials are the solver's fluids: each block's particles of its material, material k with the
// scene's rest density and ν_k = μ_k/ρ_k + sph.viscosity, following sph.viscosity as it changes; frames carry
// each particle's material and the scene's colours. A scene without materials is one fluid of the parameters.
func TestSceneMaterials(t *testing.T) {
	s := newSolver(t, layersScene, "sph.viscosity=0.004")
	want := func(nu0 float32) []Material {
		return []Material{{RestDensity: 1000, Viscosity: float32(0.001/1000.0) + nu0}, {RestDensity: 800, Viscosity: float32(0.05/800.0) + nu0}}
	}
	if !slices.Equal(s.mats, want(0.004)) {
		t.Fatalf("materials %+v, want %+v", s.mats, want(0.004))
	}
	for i, x := range s.x {
		if oil := x[0] > 0.2; oil != (s.mat[i] == 1) {
			t.Fatalf("particle %d at x=%.3f is of material %d", i, x[0], s.mat[i])
		}
	}
	if err := s.Params().Assign("sph.viscosity=0.01"); err != nil {
		t.Fatal(err)
	}
	runFrames(t, s, 1, nil)
	if !slices.Equal(s.mats, want(0.01)) || s.mu[1] != 800*want(0.01)[1].Viscosity {
		t.Fatalf("after sph.viscosity=0.01: materials %+v, μ %v; want %+v", s.mats, s.mu, want(0.01))
	}
	var f sim.Frame
	s.Frame(&f)
	if !slices.Equal(f.Material, s.mat) || !slices.Equal(f.Palette, sim.ScenePalette(s.sc)) || len(f.Palette) != 2 {
		t.Fatalf("the frame's materials (%d) and palette %v are not the particles' and the scene's", len(f.Material), f.Palette)
	}

	// one fluid: no materials in the frame, material 0 from the parameters
	if err := s.Reset(simtest.Parse(t, handsScene)); err != nil {
		t.Fatal(err)
	}
	if err := s.Params().Assign("sph.rest_density=900"); err != nil {
		t.Fatal(err)
	}
	runFrames(t, s, 1, nil)
	s.Frame(&f)
	if f.Material != nil || f.Palette != nil {
		t.Fatalf("a scene without materials gave frames with %d materials and palette %v", len(f.Material), f.Palette)
	}
	if !slices.Equal(s.mats, []Material{{RestDensity: 900, Viscosity: 0.01}}) {
		t.Fatalf("materials %+v, want sph.rest_density and sph.viscosity", s.mats)
	}
}

// Every shipped scene resets and runs in sph (at a few thousand particles), bodies and all.
func TestShippedScenesRun(t *testing.T) {
	if testing.Short() {
		t.Skip("about 4 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	withBodies := 0
	for _, name := range scene.BuiltinNames() {
		if sc, err := scene.Builtin(name); err == nil && (sc.IsFlat() || sc.CheckKinds(Name, New().Kinds()) != nil) {
			continue // a 2D level (the reduced mode plays them), or sand (flip's)
		}
		t.Run(name, func(t *testing.T) {
			sc, err := scene.Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			s := New()
			if err := s.Params().Assign("sph.particles=2500"); err != nil {
				t.Fatal(err)
			}
			if err := s.Reset(sc); err != nil {
				t.Fatal(err)
			}
			if len(sc.Bodies) > 0 {
				withBodies++
				if n := s.bodies.Len(); n != len(sc.Bodies) {
					t.Fatalf("the scene has %d bodies, the solver %d", len(sc.Bodies), n)
				}
			}
			runFrames(t, s, 3, nil)
			if st := s.Stats(); st.Steps < 3 || st.Particles < 2000 {
				t.Fatalf("%d steps, %d particles", st.Steps, st.Particles)
			}
			if (s.palette != nil) != (len(sc.Materials) > 0) {
				t.Errorf("%d materials in the scene, palette %v", len(sc.Materials), s.palette)
			}
		})
	}
	if withBodies == 0 {
		t.Error("no shipped scene has bodies (duck-pond had): the bodies' reset went untested")
	}
}

// The benchmark dam break is the measured one: 97,200 particles on the 0.0333 m lattice, opening in sph with its
// parameters, η on the mean error as SPlisHSPlasH's PCISPH stops.
func TestBenchDambreakScene(t *testing.T) {
	sc, err := scene.Builtin("bench-dambreak")
	if err != nil {
		t.Fatal(err)
	}
	n, err := sc.Count(sc.Particles.Spacing)
	if err != nil || n != 97200 || sc.Mode != Name {
		t.Fatalf("%d particles (%v) in mode %q, want 97200 in sph", n, err, sc.Mode)
	}
	s := New()
	snap, err := s.Params().Decode(sc.Params)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Params().Restore(snap); err != nil {
		t.Fatal(err)
	}
	c := s.Cfg
	got := fmt.Sprint(c.Pressure, c.KernelRadius, c.Eta, c.Stop, c.MaxIterations, c.Viscosity, c.Step.Min, c.Step.Max)
	if want := fmt.Sprint(PCISPH, 2, 0.1, StopMean, 100, 0.01, 17, 17); got != want {
		t.Errorf("pressure, kernel radius, η, stopping rule, most iterations, viscosity, substeps: %s, want %s", got, want)
	}
}

// Undoing a drain (sim.Refill) brings oil back as oil: the drained particles carry their material.
func TestDrainUndoKeepsMaterials(t *testing.T) {
	s := newSolver(t, layersScene)
	count := func() (n [2]int) {
		for _, m := range s.mat {
			n[m]++
		}
		return n
	}
	before := count()
	gone, err := s.Drain([3]float32{0.2, 0.05, 0.1}, 0.08) // across the two fluids' boundary at x = 0.2
	if err != nil {
		t.Fatal(err)
	}
	drained := count()
	if drained[0] == before[0] || drained[1] == before[1] {
		t.Fatalf("the drain took %d particles: want some of each fluid (%v → %v)", len(gone), before, drained)
	}
	if k := sim.Refill(s, gone); k != len(gone) {
		t.Fatalf("Refill put back %d of %d", k, len(gone))
	}
	if after := count(); after != before {
		t.Errorf("fluids by material: %v before the drain, %v after its undo", before, after)
	}
	checkIDs(t, s)
}
