package app

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/flip"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/savefile"
)

// flipState decodes a save file's FLIP state.
func flipState(t *testing.T, path string) *flip.State {
	t.Helper()
	f, err := savefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Mode != flip.Name || f.Kind != flip.Name {
		t.Fatalf("%s: mode %s, kind %s, want flip", path, f.Mode, f.Kind)
	}
	st, err := flip.DecodeState(bytes.NewReader(stateBytes(t, f)), f.Scene)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The FLIP mode has the sandbox's hands, save files and replays: a sitting in the window (a drop, a drain and its
// undo, the paddle, a parameter changed in the panel) replays headless into the window's state bit for bit.
func TestFlipSittingReplays(t *testing.T) {
	v := openViewer(t, gltest.Acquire(t), Options{Scene: "dambreak", Mode: flip.Name, Particles: 3000, Sets: []string{"render.mode=particles"}})
	dir := t.TempDir()
	rp, sp := sittingWith(t, v, dir, "flip.flip_ratio", "0.8")
	out := filepath.Join(dir, "replayed.slosh")
	if err := Replay(ReplayOptions{File: rp, Save: out, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	a, b := flipState(t, sp), flipState(t, out)
	if len(a.Bodies) != 1 || a.Steps == 0 {
		t.Fatalf("the sitting's state has %d bodies at step %d, want the dropped body", len(a.Bodies), a.Steps)
	}
	if len(a.Pos) != len(b.Pos) || a.Steps != b.Steps || a.Time != b.Time {
		t.Fatalf("window: %d particles at step %d; replay: %d at step %d", len(a.Pos), a.Steps, len(b.Pos), b.Steps)
	}
	for i := range a.Pos {
		if a.Pos[i] != b.Pos[i] || a.Vel[i] != b.Vel[i] || a.ID[i] != b.ID[i] {
			t.Fatalf("particle %d differs: %v %v against %v %v", i, a.Pos[i], a.Vel[i], b.Pos[i], b.Vel[i])
		}
	}
	if a.Bodies[0].C != b.Bodies[0].C || a.Bodies[0].Q != b.Bodies[0].Q {
		t.Fatalf("the body differs: %v against %v", a.Bodies[0].C, b.Bodies[0].C)
	}
}

// The headless commands run the FLIP mode: export writes particle caches, record a clip, bench the Table 3.2
// stages and the solve's figures.
func TestFlipHeadless(t *testing.T) {
	gltest.Acquire(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	if err := Export(ExportOptions{Options: Options{Scene: "obstacles", Mode: flip.Name, Particles: 4000, Stderr: io.Discard}, Frames: 3, Out: cache, Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	car := readSidecar(t, cache)
	if car.Mode != flip.Name || len(car.Files) != 3 {
		t.Fatalf("the sidecar: mode %q, %d files", car.Mode, len(car.Files))
	}

	clip := filepath.Join(dir, "clip.mp4")
	if err := Record(RecordOptions{Options: Options{Scene: "dambreak", Mode: flip.Name, Particles: 3000, Sets: []string{"render.mode=particles"}, Stderr: io.Discard},
		Frames: 10, Width: 160, Height: 90, Out: clip, Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if p := ffprobe(t, clip); p.Frames != 10 || p.W != 160 {
		t.Errorf("the clip: %+v, want 10 frames 160 wide", p)
	}

	var out bytes.Buffer
	js := filepath.Join(dir, "bench.json")
	if err := Bench(BenchOptions{Options: Options{Scene: "dambreak", Mode: flip.Name, Particles: 4000, Stderr: io.Discard}, Frames: 3, Warmup: 1, JSON: js, Stdout: &out}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rasterise", "solve", "extrapolate", "advect", flip.FigIterations} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("slosh bench's table has no %q:\n%s", want, out.String())
		}
	}
}

// The A/B view's first use: the same dam break under unilateral and classic incompressibility, from one state.
// Right after the split both are bit-identical; a frame later they differ; with B's pressure set to A's they stay
// identical.
func TestFlipABUnilateralAgainstClassic(t *testing.T) {
	checkABSplit(t, Options{Scene: "dambreak", Mode: flip.Name, Particles: 3000}, 8, flip.New().Params(), "flip.pressure", "incompressible", "unilateral")
}

// checkABSplit runs o for warm frames, splits it into an A/B pair with name=other (and then name=same, A's own
// value): right after the split A and B are bit-identical; 3 frames later they differ with other and stay
// identical with same.
func checkABSplit(t *testing.T, o Options, warm int, params *param.Set, name, other, same string) {
	t.Helper()
	modes := Modes()
	var fa, fb sim.Frame
	for _, tc := range []struct {
		value  string
		differ bool
	}{{other, true}, {same, false}} {
		oc := o
		st, err := prepare(modes, &oc)
		if err != nil {
			t.Fatal(err)
		}
		ss, err := openSession(modes, st, glInfo{}, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		for f := 0; f < warm; f++ {
			if _, err := ss.frame(nil); err != nil {
				t.Fatal(err)
			}
		}
		spec, err := parseAB(params, name+"="+tc.value)
		if err != nil {
			t.Fatal(err)
		}
		if err := ss.startAB(spec, io.Discard); err != nil {
			t.Fatal(err)
		}
		p := ss.solver.(abPair).pairOf()
		p.Frame(&fa)
		p.TwinFrame(&fb)
		if same, i := sameFrames(&fa, &fb); !same {
			t.Fatalf("B = %s: A and B differ right after the split (particle %d)", tc.value, i)
		}
		for f := 0; f < 3; f++ {
			if _, _, err := abFrame(p, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		p.Frame(&fa)
		p.TwinFrame(&fb)
		if same, _ := sameFrames(&fa, &fb); same == tc.differ {
			t.Errorf("B = %s: after 3 frames A and B bit-identical %v, want %v", tc.value, same, !tc.differ)
		}
		ss.Close()
	}
}
