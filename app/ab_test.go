package app

import (
	"encoding/binary"
	"image"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/glfw/v3.3/glfw"

	"github.com/slosh/slosh/gpu/glh"
	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/ui"
)

// statefulFake is the runner tests' fake solver with a state to copy: its steps, time and x.
type statefulFake struct{ *fakeSolver }

func (f statefulFake) StateKind() string { return "fake" }
func (f statefulFake) WriteState(w io.Writer) error {
	return binary.Write(w, binary.LittleEndian, [3]float64{float64(f.steps), f.time, float64(f.x)})
}
func (f statefulFake) ReadState(r io.Reader) error {
	var s [3]float64
	if err := binary.Read(r, binary.LittleEndian, &s); err != nil {
		return err
	}
	f.steps, f.time, f.x = int(s[0]), s[1], float32(s[2])
	return nil
}

func fakeMode(stateful bool) Mode {
	return Mode{Name: "fake", Title: "fake", Params: func() *param.Set { return newFake(2).Params() },
		New: func(*glh.Context) (sim.Solver, error) {
			if stateful {
				return statefulFake{newFake(2)}, nil
			}
			return newFake(2), nil
		}}
}

// The pair gives B A's state and its one changed parameter, steps each through its own substeps every frame,
// passes A's other parameter edits on to B, and leaves A alone when it ends. A mode without sim.Stateful cannot
// start one, and says so.
func TestPairStepsBothFromOneState(t *testing.T) {
	m := fakeMode(true)
	a, _ := m.New(nil)
	sc := &scene.Scene{Name: "test"}
	for k := 0; k < 3; k++ { // A is 6 steps in
		n := a.BeginFrame(FrameDt)
		for i := 0; i < n; i++ {
			if err := a.Step(FrameDt / float64(n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, err := startPair(m, a, glInfo{}, sc, abSpec{Name: "fake.substeps", Value: param.Value{F: 5}})
	if err != nil {
		t.Fatal(err)
	}
	p := s.(abPair).pairOf()
	fa, fb := p.a.(statefulFake), p.b.(statefulFake)
	if fb.steps != 6 || fb.time != fa.time {
		t.Fatalf("B starts at step %d, t=%g; A is at step %d, t=%g", fb.steps, fb.time, fa.steps, fa.time)
	}
	if err := p.Params().Assign("fake.x=3"); err != nil { // an edit on A's set, as the panel makes
		t.Fatal(err)
	}
	n := p.BeginFrame(FrameDt)
	for i := 0; i < n; i++ {
		if err := p.Step(FrameDt / float64(n)); err != nil {
			t.Fatal(err)
		}
	}
	if n != 5 || fa.steps != 8 || fb.steps != 11 {
		t.Errorf("a frame of %d steps took A from 6 to %d steps (want 8) and B to %d (want 11)", n, fa.steps, fb.steps)
	}
	if math.Abs(fa.time-fb.time) > 1e-12 || fb.x != 3 || fb.sub != 5 || fa.sub != 2 {
		t.Errorf("after the frame: t %g and %g, B's x %g (want A's 3), substeps A %d B %d", fa.time, fb.time, fb.x, fa.sub, fb.sub)
	}
	if got := splitPair(s); got != a {
		t.Error("leaving A/B did not hand back A")
	}

	// no sim.Stateful: a clear message, and A untouched
	plain := fakeMode(false)
	a, _ = plain.New(nil)
	if _, err := startPair(plain, a, glInfo{}, sc, abSpec{Name: "fake.x", Value: param.Value{F: 1}}); err == nil ||
		!strings.Contains(err.Error(), "A/B is unavailable in mode fake") {
		t.Errorf("A/B of a mode without a state: %v", err)
	}
	if _, err := parseAB(plain.Params(), "fake.x=11"); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("--ab out of range: %v", err)
	}
	if _, err := parseAB(plain.Params(), "fake.y=1"); err == nil || !strings.Contains(err.Error(), "no parameter fake.y") {
		t.Errorf("--ab of an unknown parameter: %v", err)
	}
}

// sameFrames reports whether two frames hold bit-identical particles (positions, velocities, ids), and the
// first particle that differs.
func sameFrames(a, b *sim.Frame) (bool, int) {
	if a.N != b.N || a.Steps != b.Steps || a.Time != b.Time {
		return false, -1
	}
	for i := 0; i < a.N; i++ {
		if a.ID[i] != b.ID[i] {
			return false, i
		}
		for c := 0; c < 3; c++ {
			if math.Float32bits(a.Pos[i][c]) != math.Float32bits(b.Pos[i][c]) || math.Float32bits(a.Vel[i][c]) != math.Float32bits(b.Vel[i][c]) {
				return false, i
			}
		}
	}
	return true, 0
}

// The test: an A/B starts bit-identical and differs only once the changed parameter acts — on the CPU
// (pbf-cpu) and on the GPU (pbf, on the test's GL context). PBF with 2 solver iterations against 6 differs after
// one frame; an A/B whose B has A's value stays bit-identical frame after frame.
func TestABStartsIdenticalAndDiffersOnlyByItsParameter(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s on 2 cores: a headless run of the app; make test runs it")
	}
	ctx := gltest.Acquire(t)
	for _, mode := range []string{"pbf-cpu", "pbf"} { // no subtests: GL calls belong to the test's locked thread
		func() {
			modes := Modes()
			g := glInfo{ctx: ctx}
			open := func() *session {
				st, err := prepare(modes, &Options{Scene: "dambreak", Mode: mode, Particles: 2000, Sets: []string{"pbf.iterations=2"}})
				if err != nil {
					t.Fatal(err)
				}
				ss, err := openSession(modes, st, g, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				if ss.mode.Name != mode {
					t.Fatalf("mode %s runs %s (%s)", mode, ss.mode.Name, ss.note)
				}
				for f := 0; f < 10; f++ { // the split comes mid-run, with the fluid moving
					if _, err := ss.frame(nil); err != nil {
						t.Fatal(err)
					}
				}
				return ss
			}
			var fa, fb sim.Frame
			check := func(p *pair, what string, want bool) {
				t.Helper()
				p.Frame(&fa)
				p.TwinFrame(&fb)
				if same, i := sameFrames(&fa, &fb); same != want {
					t.Fatalf("%s, %s: A and B bit-identical %v (first difference at particle %d; A at step %d, B at %d), want %v",
						mode, what, same, i, fa.Steps, fb.Steps, want)
				}
			}
			for _, tc := range []struct {
				value  float64
				frames int
				differ bool
			}{{6, 1, true}, {2, 8, false}} {
				ss := open()
				if err := ss.startAB(abSpec{Name: "pbf.iterations", Value: param.Value{F: tc.value}}, io.Discard); err != nil {
					t.Fatal(err)
				}
				p := ss.solver.(abPair).pairOf()
				check(p, "right after the split", true)
				for f := 1; f <= tc.frames; f++ {
					if _, _, err := abFrame(p, nil, nil); err != nil {
						t.Fatal(err)
					}
					check(p, "after a frame of B at "+p.bParam.String()+" iterations", !tc.differ)
				}
				if s := p.b.Params(); paramValue(s, "pbf.iterations") != p.bParam.String() || paramValue(p.a.Params(), "pbf.iterations") != "2" {
					t.Errorf("iterations: A %s, B %s", paramValue(p.a.Params(), "pbf.iterations"), paramValue(s, "pbf.iterations"))
				}
				ss.Close()
			}
		}()
	}
}

// In the window, b (or the panel's button) splits the view into A and B, which step together from then on; pause,
// step and reset act on both, leaving drops B and entering again works; a mode that cannot copy its state says
// so in the panel and runs on.
func TestViewerAB(t *testing.T) {
	if testing.Short() {
		t.Skip("about 5 s on 2 cores: a viewer session in a hidden window; make test runs it")
	}
	ctx := gltest.Acquire(t)
	modes := append(Modes(), fakeMode(false))
	v, _ := openViewerWith(t, ctx, modes, Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Sets: []string{"pbf.iterations=2", "render.mode=particles"}})
	frames(t, v, "steps", func() bool { return v.drv.Stats().Steps >= 8 })

	// pick pbf.iterations = 6 in the panel's model, as its combo and widget do
	v.fillModel()
	for i, p := range v.model.AB.Set.All() {
		if p.Name == "pbf.iterations" {
			v.model.AB.Pick, v.model.AB.Value = i, param.Value{F: 6}
		}
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ABValue: true})
	press(v, glfw.KeyB)
	if !v.ab.on || v.status.isErr {
		t.Fatalf("b did not start A/B: %q", v.status.msg)
	}
	frames(t, v, "both views drawn", func() bool {
		pb, sb, ok := v.drv.Twin()
		return ok && pb.N > 1000 && sb.Steps > v.drv.Stats().Steps-1 && v.ab.half[1] != nil && v.ab.half[1].W == v.ab.half[0].W
	})
	v.fillModel()
	if m := v.model.AB; !m.On || m.LabelA != "pbf.iterations = 2" || m.LabelB != "pbf.iterations = 6" {
		t.Errorf("the panel's A/B: on %v, A %q, B %q", m.On, m.LabelA, m.LabelB)
	}
	frames(t, v, "the title naming B", func() bool { return strings.Contains(v.title, "A/B: pbf.iterations = 6") })
	// pause: both stop at the same step; . steps both one frame; r resets both
	press(v, glfw.KeySpace)
	idle := func() bool { return v.drv.(*cpuDriver).runner.Status().Pending == 0 }
	frames(t, v, "the pause", idle)
	settle(v, 50*time.Millisecond)
	_, sb, _ := v.drv.Twin()
	if sa := v.drv.Stats(); math.Abs(sa.Time-sb.Time) > 1e-9 {
		t.Errorf("paused: A at t=%g, B at t=%g", sa.Time, sb.Time)
	}
	t0 := v.drv.Stats().Time
	press(v, glfw.KeyPeriod)
	frames(t, v, "a single frame of both", func() bool {
		_, sb, _ := v.drv.Twin()
		return v.drv.Stats().Time > t0 && sb.Time > t0
	})
	press(v, glfw.KeyR)
	frames(t, v, "the reset of both", func() bool {
		_, sb, _ := v.drv.Twin()
		return v.drv.Stats().Steps == 0 && sb.Steps == 0
	})
	if got := paramValue(v.drv.(*cpuDriver).runner.solver.(abPair).pairOf().b.Params(), "pbf.iterations"); got != "6" {
		t.Errorf("B's iterations after the reset: %s, want 6", got)
	}
	press(v, glfw.KeySpace)

	// leave, and enter again
	press(v, glfw.KeyB)
	if v.ab.on {
		t.Fatal("b did not end A/B")
	}
	frames(t, v, "one view running", func() bool {
		_, _, ok := v.drv.Twin()
		return !ok && v.drv.Stats().Steps > 4
	})
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ToggleAB: true})
	if !v.ab.on {
		t.Fatalf("the button did not start A/B again: %q", v.status.msg)
	}
	frames(t, v, "B again", func() bool { _, sb, ok := v.drv.Twin(); return ok && sb.Steps > 0 })

	// a mode switch ends it; a mode that cannot copy its state says so and runs on
	fake := len(modes) - 1
	v.apply(ui.Actions{Mode: fake, Scene: v.model.Scene})
	if v.ab.on || v.drv.Mode().Name != "fake" {
		t.Fatalf("after switching to the fake mode: A/B %v, mode %s", v.ab.on, v.drv.Mode().Name)
	}
	press(v, glfw.KeyB)
	if v.ab.on || !v.status.isErr || !strings.Contains(v.status.msg, "A/B is unavailable in mode fake") {
		t.Errorf("A/B of a mode without a state: on %v, status %q", v.ab.on, v.status.msg)
	}
	v.fillModel()
	if !strings.Contains(v.model.AB.Unavailable, "cannot copy its state") {
		t.Errorf("the panel says %q", v.model.AB.Unavailable)
	}
	steps := v.drv.Stats().Steps
	frames(t, v, "the fake mode running on", func() bool { return v.drv.Stats().Steps > steps })

	// the GPU mode: B is a second GPU solver stepped by the GPU driver on this thread
	for i, m := range modes {
		if m.Name == "pbf" {
			v.apply(ui.Actions{Mode: i, Scene: v.model.Scene})
		}
	}
	if v.drv.Mode().Name != "pbf" {
		t.Fatalf("mode %s, status %q", v.drv.Mode().Name, v.status.msg)
	}
	v.fillModel()
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ToggleAB: true})
	if _, ok := v.drv.(*gpuDriver); !ok || !v.ab.on {
		t.Fatalf("A/B of the GPU mode: on %v, status %q", v.ab.on, v.status.msg)
	}
	frames(t, v, "both GPU views", func() bool {
		pb, sb, ok := v.drv.Twin()
		return ok && pb.N > 1000 && pb.Pos != v.drv.Particles().Pos && sb.Steps > 2 && v.ab.half[1] != nil
	})
	press(v, glfw.KeyB)
	if _, _, ok := v.drv.Twin(); ok || v.ab.on {
		t.Error("b did not end the GPU A/B")
	}
}

// slosh record --ab writes a clip twice as wide as each side, with the fluid in both halves.
func TestRecordAB(t *testing.T) {
	gltest.Acquire(t)
	dir := t.TempDir()
	o := RecordOptions{Options: Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1500, Sets: []string{"render.mode=particles", "pbf.iterations=2"}},
		Frames: 3, Width: 96, Height: 64, AB: "pbf.iterations=6", Stdout: io.Discard, Out: filepath.Join(dir, "ab.png")}
	o.Stderr = io.Discard
	if err := Record(o); err != nil {
		t.Fatal(err)
	}
	files := pngFiles(t, dir)
	if len(files) != 3 {
		t.Fatalf("%d frames: %v", len(files), files)
	}
	img := decodePNG(t, files[len(files)-1])
	if img.Bounds().Dx() != 192 || img.Bounds().Dy() != 64 {
		t.Fatalf("the A/B clip is %v, want 192×64", img.Bounds())
	}
	// each half shows the dam: the same scene from the same camera, so their mean colours nearly agree
	left, right := meanRGB(img, image.Rect(0, 0, 96, 64)), meanRGB(img, image.Rect(96, 0, 192, 64))
	for c := 0; c < 3; c++ {
		if math.Abs(left[c]-right[c]) > 12 {
			t.Errorf("the halves' mean colours differ too much: %v and %v", left, right)
			break
		}
	}
	if left == [3]float64{} || right == [3]float64{} {
		t.Error("a half is black")
	}
	o.AB = "pbf.nope=1"
	if err := Record(o); err == nil || !strings.Contains(err.Error(), "no parameter pbf.nope") {
		t.Errorf("--ab with an unknown parameter: %v", err)
	}
}

func meanRGB(img image.Image, r image.Rectangle) [3]float64 {
	var sum [3]float64
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			sum[0] += float64(cr >> 8)
			sum[1] += float64(cg >> 8)
			sum[2] += float64(cb >> 8)
			n++
		}
	}
	for c := range sum {
		sum[c] /= float64(n)
	}
	return sum
}
