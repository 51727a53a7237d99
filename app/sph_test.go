package app

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/sph"
)

// slosh record renders a clip of several fluids in sph, the surface tinted per fluid.
func TestSPHRecordsSeveralFluids(t *testing.T) {
	if testing.Short() {
		t.Skip("about 4 s on 2 cores: a headless run of the app; make test runs it")
	}
	gltest.Acquire(t)
	clip := filepath.Join(t.TempDir(), "clip.mp4")
	if err := Record(RecordOptions{Options: Options{Scene: "three-liquids", Particles: 3000, Stderr: io.Discard},
		Frames: 10, Width: 160, Height: 90, Out: clip, Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if p := ffprobe(t, clip); p.Frames != 10 || p.W != 160 {
		t.Errorf("the clip: %+v, want 10 frames 160 wide", p)
	}
}

// Every plain fluid scene that ships opens in sph from the command line, its other modes' parameters skipped, the
// duck pond with its bodies; the several-fluid scenes, the benchmark dam break and the elastoplastic scenes open in
// sph by themselves.
func TestSPHRunsTheShippedScenes(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a headless run of the app; make test runs it")
	}
	modes := Modes()
	for _, name := range []string{"dambreak", "pool", "obstacles", "fountain", "wave-tank", "bunny-bath", "duck-pond",
		"oil-and-water", "rayleigh-taylor", "three-liquids", "bench-dambreak",
		"dough-star", "hyperelastic-boxes", "three-cylinders", "bouncing-bunny", "plastic-parameters", "bunny-on-a-sphere"} {
		o := Options{Scene: name, Particles: 2000, Stderr: io.Discard}
		if sc, err := scene.Builtin(name); err != nil || sc.Mode != sph.Name {
			o.Mode = sph.Name
		}
		st, err := prepare(modes, &o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if st.mode.Name != sph.Name {
			t.Fatalf("%s opens in %s", name, st.mode.Name)
		}
		ss, err := openSession(modes, st, glInfo{}, io.Discard)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for f := 0; f < 2; f++ {
			if _, err := ss.frame(nil); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if st := ss.solver.Stats(); st.Steps < 2 || st.Particles < 1500 {
			t.Errorf("%s: %d steps, %d particles", name, st.Steps, st.Particles)
		}
		ss.Close()
	}
}

// The A/B view compares PCISPH with WCSPH from one state: identical right after the split, different a few frames
// later; with B's solver the same as A's they stay identical.
func TestSPHABPressureSolvers(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a headless run of the app; make test runs it")
	}
	checkABSplit(t, Options{Scene: "dambreak", Mode: sph.Name, Particles: 2000}, 4, sph.New().Params(), "sph.pressure", "wcsph", "pcisph")
}

// Figure 4.7 through the A/B view: the box of clay against itself with the yield stress five times higher, from one
// state after it lands: identical right after the split, different a few frames later; with B's scale the same as
// A's they stay identical.
func TestSPHABYieldStress(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s on 2 cores: a headless run of the app; make test runs it")
	}
	checkABSplit(t, Options{Scene: "plastic-parameters", Particles: 1000}, 8, sph.New().Params(), "sph.yield_scale", "5", "1")
}
