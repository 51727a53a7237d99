package app

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/sph"
)

// sphState decodes a save file's SPH state.
func sphState(t *testing.T, path string) *sph.State {
	t.Helper()
	f, err := savefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Mode != sph.Name || f.Kind != sph.Name {
		t.Fatalf("%s: mode %s, kind %s, want sph", path, f.Mode, f.Kind)
	}
	st, err := sph.DecodeState(bytes.NewReader(stateBytes(t, f)))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// sameSPHState requires two saved SPH states to be identical, bit for bit.
func sameSPHState(t *testing.T, a, b string) {
	t.Helper()
	x, y := sphState(t, a), sphState(t, b)
	if x.N() != y.N() || x.Steps != y.Steps || x.Time != y.Time {
		t.Fatalf("%s: %d particles at step %d; %s: %d at step %d", a, x.N(), x.Steps, b, y.N(), y.Steps)
	}
	for i := range x.Pos {
		if x.Pos[i] != y.Pos[i] || x.Vel[i] != y.Vel[i] || x.ID[i] != y.ID[i] || x.Mat[i] != y.Mat[i] {
			t.Fatalf("particle %d differs: %v %v against %v %v", i, x.Pos[i], x.Vel[i], y.Pos[i], y.Vel[i])
		}
	}
	var bx, by bytes.Buffer
	if err := x.Encode(&bx); err != nil {
		t.Fatal(err)
	}
	if err := y.Encode(&by); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bx.Bytes(), by.Bytes()) {
		t.Fatal("the states differ (pressures, materials, emitters or the last step's acceleration)")
	}
}

// The SPH mode has the sandbox's hands, save files and replays: a sitting in the window of two fluids (a dropped
// body, a drain and its undo, the paddle, a parameter changed in the panel) replays headless into the window's
// state bit for bit.
func TestSPHSittingReplays(t *testing.T) {
	v := openViewer(t, gltest.Acquire(t), Options{Scene: "oil-and-water", Particles: 2500, Sets: []string{"render.mode=particles"}})
	if v.drv.Mode().Name != sph.Name {
		t.Fatalf("oil-and-water opened in %s, want sph", v.drv.Mode().Name)
	}
	dir := t.TempDir()
	rp, sp := sittingWith(t, v, dir, "sph.viscosity", "0.01")
	out := filepath.Join(dir, "replayed.slosh")
	if err := Replay(ReplayOptions{File: rp, Save: out, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if st := sphState(t, sp); st.Steps == 0 || len(st.Materials) != 2 || len(st.Bodies) == 0 {
		t.Fatalf("the sitting's state: step %d, %d fluids, %d bytes of bodies", st.Steps, len(st.Materials), len(st.Bodies))
	}
	sameSPHState(t, sp, out)
}

// `slosh run --save` then `--load` continues an SPH run bit for bit: 6 frames, saved, then 4 more, end in the
// state of 10 frames straight (a fountain: the scene's emitters pour throughout).
func TestSPHRunSaveLoadContinues(t *testing.T) {
	dir := t.TempDir()
	run := func(o RunOptions) {
		t.Helper()
		o.Stdout, o.Stderr = io.Discard, io.Discard
		if err := Run(o); err != nil {
			t.Fatal(err)
		}
	}
	base := Options{Scene: "fountain", Mode: sph.Name, Particles: 1500, Sets: []string{"sph.warm_start=true"}}
	run(RunOptions{Options: base, Frames: 10, Save: filepath.Join(dir, "straight.slosh")})
	run(RunOptions{Options: base, Frames: 6, Save: filepath.Join(dir, "half.slosh")})
	run(RunOptions{Options: Options{Load: filepath.Join(dir, "half.slosh")}, Frames: 4, Save: filepath.Join(dir, "resumed.slosh")})
	sameSPHState(t, filepath.Join(dir, "straight.slosh"), filepath.Join(dir, "resumed.slosh"))
	if a, b := sphState(t, filepath.Join(dir, "half.slosh")), sphState(t, filepath.Join(dir, "straight.slosh")); a.N() >= b.N() {
		t.Errorf("the fountain poured nothing between frames 6 and 10 (%d and %d particles)", a.N(), b.N())
	}
}

// The headless commands run the SPH mode without GL: run prints its figures, export writes particle caches, bench
// times its passes and prints its figures.
func TestSPHHeadless(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if err := Run(RunOptions{Options: Options{Scene: "dambreak", Mode: sph.Name, Particles: 2000, Stderr: io.Discard}, Frames: 3, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"iterations", "density_error_max", "time_step"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("slosh run's columns have no %q:\n%s", want, out.String())
		}
	}

	cache := filepath.Join(dir, "cache")
	if err := Export(ExportOptions{Options: Options{Scene: "obstacles", Mode: sph.Name, Particles: 3000, Stderr: io.Discard}, Frames: 3, Out: cache, Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, cache)
	if car.Mode != sph.Name || len(car.Files) != 3 {
		t.Fatalf("the sidecar: mode %q, %d files", car.Mode, len(car.Files))
	}

	out.Reset()
	js := filepath.Join(dir, "bench.json")
	if err := Bench(BenchOptions{Options: Options{Scene: "dambreak", Mode: sph.Name, Particles: 3000, Stderr: io.Discard}, Frames: 3, Warmup: 1, JSON: js, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"neighbours", "density", "pressure", sph.FigIterations, sph.FigDensityErrMax} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("slosh bench's table has no %q:\n%s", want, out.String())
		}
	}
}

// slosh record renders a clip of several fluids in sph, the surface tinted per fluid.
func TestSPHRecordsSeveralFluids(t *testing.T) {
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
// duck pond with its bodies; the several-fluid scenes and the benchmark dam break open in sph by themselves.
func TestSPHRunsTheShippedScenes(t *testing.T) {
	modes := Modes()
	for _, name := range []string{"dambreak", "pool", "obstacles", "fountain", "wave-tank", "bunny-bath", "duck-pond",
		"oil-and-water", "rayleigh-taylor", "three-liquids", "bench-dambreak"} {
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
	checkABSplit(t, Options{Scene: "dambreak", Mode: sph.Name, Particles: 2000}, 4, sph.New().Params(), "sph.pressure", "wcsph", "pcisph")
}
