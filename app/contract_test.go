package app

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"github.com/slosh/slosh/gpu/gltest"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/savefile"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/ui"
)

// The contract every mode of the table keeps (issue 25): each test below runs every mode of Modes() through the
// same checks, so a new mode gets them by being in the table. The GPU mode is held to them through its CPU twin
// (pbf-cpu runs the same method and reads the same states; gpu/pbf's own tests compare the two), the 2D game
// through the checks that mean something for it (its window sitting is flat_test.go's).

// contractModes are the table's modes the contract runs: every mode that runs on the CPU.
func contractModes() []Mode {
	var out []Mode
	for _, m := range Modes() {
		if !m.Compute {
			out = append(out, m)
		}
	}
	return out
}

// contractRun is a small run of mode m: a scene of its kind, a particle count that keeps each check to seconds on
// two cores (the Voronoi solver takes some 50 times longer a particle than the others), and a budget of a few
// hundred more.
func contractRun(m Mode, sceneName string) Options {
	o := Options{Scene: sceneName, Mode: m.Name, Stderr: io.Discard}
	switch {
	case m.Flat:
		o.Scene = "reduced-1"
	case m.Name == "voronoi":
		o.Particles = 500
	default:
		o.Particles = 1500
	}
	if b, ok := sim.ParamNamed(m.Params(), "budget"); ok && o.Particles > 0 {
		o.Sets = append(o.Sets, fmt.Sprintf("%s=%d", b.Name, o.Particles+400))
	}
	return o
}

// sameSaved requires two save files to hold the same simulation: loaded into fresh solvers, they give the same frame
// bit for bit, and still do after two more frames (which brings in what the frame does not show: pressures a solve
// starts from, emitters' travel, bodies' velocities).
func sameSaved(t *testing.T, a, b string) {
	t.Helper()
	for _, frames := range []int{0, 2} {
		if x, y := continueFrame(t, a, frames), continueFrame(t, b, frames); x != y {
			t.Fatalf("%s and %s differ %d frames after loading", filepath.Base(a), filepath.Base(b), frames)
		}
	}
}

// `slosh run --save` then `--load` continues every mode bit for bit: 6 frames, saved, then 4 more, end where 10
// frames straight do (a fountain: the scene's emitters pour throughout).
func TestContractSaveLoadContinues(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s on 2 cores: a headless run of the app; make test runs it")
	}
	for _, m := range contractModes() {
		t.Run(m.Name, func(t *testing.T) {
			dir := t.TempDir()
			base := contractRun(m, "fountain")
			runQuiet(t, RunOptions{Options: base, Frames: 10, Save: filepath.Join(dir, "straight.slosh")})
			runQuiet(t, RunOptions{Options: base, Frames: 6, Save: filepath.Join(dir, "half.slosh")})
			runQuiet(t, RunOptions{Options: Options{Load: filepath.Join(dir, "half.slosh")}, Frames: 4, Save: filepath.Join(dir, "resumed.slosh")})
			sameSaved(t, filepath.Join(dir, "straight.slosh"), filepath.Join(dir, "resumed.slosh"))
			if continueFrame(t, filepath.Join(dir, "half.slosh"), 0) == continueFrame(t, filepath.Join(dir, "straight.slosh"), 0) {
				t.Fatal("frames 6 and 10 are the same: the test cannot tell")
			}
		})
	}
}

// Every mode refuses a damaged state and another mode's state with a message naming its kind, and keeps the state
// it had.
func TestContractStateRefused(t *testing.T) {
	var states = map[string][]byte{}
	solvers := map[string]sim.Solver{}
	for _, m := range contractModes() {
		s := newContractSolver(t, m)
		var b bytes.Buffer
		if err := s.(sim.Stateful).WriteState(&b); err != nil {
			t.Fatal(err)
		}
		states[m.Name], solvers[m.Name] = b.Bytes(), s
	}
	for _, m := range contractModes() {
		t.Run(m.Name, func(t *testing.T) {
			s := solvers[m.Name]
			st := s.(sim.Stateful)
			before := frameHash(s)
			good := states[m.Name]
			cases := map[string][]byte{
				"empty":     nil,
				"truncated": good[:len(good)*2/3],
				"one byte":  good[:1],
				"appended":  append(bytes.Clone(good), 1, 2, 3),
			}
			for other, data := range states {
				if other != m.Name {
					cases[other+"'s state"] = data
				}
			}
			for name, data := range cases {
				err := st.ReadState(bytes.NewReader(data))
				if err == nil || !strings.Contains(err.Error(), st.StateKind()) {
					t.Errorf("%s: %v, want an error naming %s", name, err, st.StateKind())
				}
				if frameHash(s) != before {
					t.Fatalf("%s: a refused state changed the solver", name)
				}
			}
			if err := st.ReadState(bytes.NewReader(good)); err != nil {
				t.Fatalf("its own state: %v", err)
			}
		})
	}
}

// newContractSolver is mode m reset with its contract scene (the pool, or the game's first level) and run a few
// frames.
func newContractSolver(t *testing.T, m Mode) sim.Solver {
	t.Helper()
	ss, _ := headless(t, contractRun(m, "pool"))
	for range 3 {
		if _, err := ss.frame(nil); err != nil {
			t.Fatal(err)
		}
	}
	return ss.solver
}

// Every particle mode's hands: fluid added up to the budget and no further, a drain that returns what it took with
// the ids renumbered, its undo, a body dropped and removed, and a pouring tool that stops at the budget with a notice
// naming the mode's budget parameter.
func TestContractHands(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a headless run of the app; make test runs it")
	}
	for _, m := range contractModes() {
		if m.Flat {
			continue // the game's hands are sim.FlatHands: flat_test.go
		}
		t.Run(m.Name, func(t *testing.T) {
			s := newContractSolver(t, m)
			h, ok := s.(sim.Hands)
			if !ok {
				t.Fatalf("%s has no hands", m.Name)
			}
			n := frameOf(s).N
			room := h.Budget() - n
			if room <= 0 {
				t.Fatalf("budget %d for %d particles", h.Budget(), n)
			}
			// a block of fluid larger than the room: what fits is added
			var pos, vel [][3]float32
			for i := range room + 10 {
				pos = append(pos, [3]float32{0.3 + 0.01*float32(i%20), 0.3 + 0.01*float32(i/400), 0.2 + 0.01*float32(i/20%20)})
				vel = append(vel, [3]float32{})
			}
			if k := h.AddFluid(pos[:10], vel[:10]); k != 10 || frameOf(s).N != n+10 {
				t.Fatalf("added %d of 10: %d particles", k, frameOf(s).N)
			}
			checkIDs(t, s)
			gone, err := h.Drain([3]float32{0.35, 0.3, 0.25}, 0.08)
			if err != nil || len(gone) == 0 || frameOf(s).N != n+10-len(gone) {
				t.Fatalf("drained %d (%v): %d particles", len(gone), err, frameOf(s).N)
			}
			checkIDs(t, s)
			if k := sim.Refill(h, gone); k != len(gone) || frameOf(s).N != n+10 {
				t.Fatalf("undo: %d of %d back", k, len(gone))
			}
			checkIDs(t, s)
			if k := h.AddFluid(pos, vel); k != h.Budget()-n-10 || frameOf(s).N != h.Budget() {
				t.Fatalf("over the budget: added %d, %d particles of a budget of %d", k, frameOf(s).N, h.Budget())
			}
			// a body dropped into the water, stepped, and removed
			bodies := len(frameOf(s).Bodies)
			i, _, err := h.AddBody(scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.2, 0.3, 0.2}, Radius: 0.05}, Density: 500})
			if err != nil || i != bodies || len(frameOf(s).Bodies) != bodies+1 {
				t.Fatalf("drop: body %d (%v), %d bodies", i, err, len(frameOf(s).Bodies))
			}
			stepFrames(t, s, 2)
			if err := h.RemoveBody(i); err != nil || len(frameOf(s).Bodies) != bodies {
				t.Fatalf("remove: %v", err)
			}
			// at the budget, a pouring tool adds nothing and says why
			// a stream about ten particles across: every layer is larger than the room any mode leaves
			r := 10 * float64(frameOf(s).Radius)
			h.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.2, 0.3, 0.2}, Direction: scene.Vec3{0, -1, 0}, Radius: r, Speed: 2}})
			budget, _ := sim.ParamNamed(s.Params(), "budget")
			notice := ""
			for frame := 0; frame < 30 && !strings.Contains(notice, budget.Name); frame++ {
				n := max(1, s.BeginFrame(FrameDt))
				for range n {
					if err := s.Step(FrameDt / float64(n)); err != nil {
						t.Fatal(err)
					}
					notice += s.Stats().Notice
				}
			}
			h.SetTools(sim.Tools{})
			if frameOf(s).N > h.Budget() || !strings.Contains(notice, budget.Name) {
				t.Fatalf("pouring at the budget: %d particles of %d, notices %q", frameOf(s).N, h.Budget(), notice)
			}
		})
	}
}

func frameOf(s sim.Solver) *sim.Frame {
	var f sim.Frame
	s.Frame(&f)
	return &f
}

// checkIDs requires the solver's ids to be 0..N−1, each once.
func checkIDs(t *testing.T, s sim.Solver) {
	t.Helper()
	f := frameOf(s)
	seen := make([]bool, f.N)
	for _, id := range f.ID[:f.N] {
		if int(id) >= f.N || seen[id] {
			t.Fatalf("ids are not 0..%d: %d", f.N-1, id)
		}
		seen[id] = true
	}
}

// stepFrames runs k frames of s as a session does.
func stepFrames(t *testing.T, s sim.Solver, k int) {
	t.Helper()
	for range k {
		n := max(1, s.BeginFrame(FrameDt))
		for range n {
			if err := s.Step(FrameDt / float64(n)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The headless commands run every mode: run prints the mode's figures, export writes a particle cache of its
// frames, bench times each of its passes, record renders a clip.
func TestContractHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("about 4 s on 2 cores: a headless run of the app; make test runs it")
	}
	for _, m := range contractModes() {
		t.Run(m.Name, func(t *testing.T) {
			gltest.Acquire(t) // on the subtest's own thread: the context is current on one at a time
			dir := t.TempDir()
			o := contractRun(m, "dambreak")
			s := newContractSolver(t, m)
			st := s.Stats()
			var out bytes.Buffer
			if err := Run(RunOptions{Options: o, Frames: 2, Stdout: &out}); err != nil {
				t.Fatal(err)
			}
			for _, f := range st.Figures {
				if col := strings.ReplaceAll(f.Name, " ", "_"); !strings.Contains(out.String(), col) {
					t.Errorf("slosh run's columns have no %q:\n%s", col, out.String())
				}
			}
			if !m.Flat {
				cache := filepath.Join(dir, "cache")
				if err := Export(ExportOptions{Options: o, Frames: 2, Out: cache, Stdout: io.Discard}); err != nil {
					t.Fatal(err)
				}
				car := readSidecar(t, cache)
				if car.Mode != m.Name || len(car.Files) != 2 {
					t.Fatalf("the sidecar: mode %q, %d files", car.Mode, len(car.Files))
				}
				f, err := os.Open(filepath.Join(cache, car.Files[1]))
				if err != nil {
					t.Fatal(err)
				}
				n, _, _, err := export.ReadPLY(f)
				f.Close()
				if err != nil || n < o.Particles/2 {
					t.Fatalf("%s: %d particles, %v", car.Files[1], n, err)
				}
			}
			out.Reset()
			if err := Bench(BenchOptions{Options: o, Frames: 2, Warmup: 1, Stdout: &out}); err != nil {
				t.Fatal(err)
			}
			for _, p := range st.Passes {
				if !strings.Contains(out.String(), p.Name) {
					t.Errorf("slosh bench's table has no %q:\n%s", p.Name, out.String())
				}
			}
			clip := filepath.Join(dir, "clip.mp4")
			if err := Record(RecordOptions{Options: o, Frames: 3, Width: 160, Height: 90, Out: clip, Stdout: io.Discard}); err != nil {
				t.Fatal(err)
			}
			if p := ffprobe(t, clip); p.Frames != 3 || p.W != 160 {
				t.Errorf("the clip: %+v, want 3 frames 160 wide", p)
			}
		})
	}
}

// The A/B view splits every mode into two bit-identical halves that part when B's CFL number differs and stay
// together when it is A's.
func TestContractABSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a headless run of the app; make test runs it")
	}
	for _, m := range contractModes() {
		if m.Flat {
			// The game's state leaves out the panels' field u_p, which the next step recomputes: a state just
			// loaded (B at the split) draws its tracers' velocities from u_r alone until its first step, so the
			// halves differ in the frame right after the split. Left out until the state keeps u_p.
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			set := m.Params()
			p, ok := sim.ParamNamed(set, "cfl")
			if !ok {
				t.Fatalf("%s has no CFL number to split on: every particle mode registers sim.CFL", m.Name)
			}
			v := p.Get()
			checkABSplit(t, contractRun(m, "dambreak"), 4, set, p.Name, p.Format(param.Value{F: v.F * 0.5}), p.Format(v))
		})
	}
}

// A sitting in the window with every tool — a drop, a drain and its undo, the paddle dragged through the water, a
// parameter changed in the panel — replays headless into the window's state bit for bit, in every 3D mode. Each
// tool is held for solver steps rather than wall-clock time, so it acts however slowly the machine steps.
func TestContractSittingReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s on 2 cores: a headless run of the app; make test runs it")
	}
	for _, m := range contractModes() {
		if m.Flat {
			continue // the game's window sitting: flat_test.go
		}
		t.Run(m.Name, func(t *testing.T) {
			ctx := gltest.Acquire(t)
			o := contractRun(m, "pool")
			o.Sets = append(o.Sets, "render.mode=particles")
			v := openViewer(t, ctx, o)
			if v.drv.Mode().Name != m.Name {
				t.Fatalf("the pool opened in %s (status %q)", v.drv.Mode().Name, v.status.msg)
			}
			p, ok := sim.ParamNamed(v.drv.Params(), "cfl")
			if !ok {
				t.Fatalf("%s has no CFL number to change", m.Name)
			}
			dir := t.TempDir()
			rp, sp := stepSitting(t, v, dir, p.Name, p.Format(param.Value{F: p.Get().F * 0.8}))
			out := filepath.Join(dir, "replayed.slosh")
			if err := Replay(ReplayOptions{File: rp, Save: out, Stdout: io.Discard, Stderr: io.Discard}); err != nil {
				t.Fatal(err)
			}
			f, err := savefile.Load(sp)
			if err != nil || f.Steps == 0 {
				t.Fatalf("the sitting's save: %v", err)
			}
			sameSaved(t, sp, out)
		})
	}
}

// steps waits for the window's solver to take k more steps.
func steps(t *testing.T, v *viewer, k int) {
	t.Helper()
	n := v.drv.Stats().Steps
	frames(t, v, fmt.Sprintf("%d steps", k), func() bool { return v.drv.Stats().Steps >= n+k })
}

// stepSitting works every tool in the window of v (the pool), each held for some solver steps: a drop, a drain held
// for a moment, the paddle dragged through the water in small moves (so that it has a velocity), name set to value
// in the panel, the drain undone. It pauses, saves the replay and the state at the same step, and returns the two
// files.
func stepSitting(t *testing.T, v *viewer, dir, name, value string) (replayPath, statePath string) {
	t.Helper()
	frames(t, v, "running", func() bool { return v.drv.Stats().Steps > 6 })
	press(v, glfw.Key3)
	x, y := screenOf(v, mgl32.Vec3{0.5, 0.35, 0.4})
	click(v, x, y, 0, 0)
	frames(t, v, "the drop", func() bool { return len(v.drv.PickFrame().Bodies) == 1 })
	steps(t, v, 3)
	press(v, glfw.Key5)
	x, y = screenOf(v, mgl32.Vec3{0.3, 0.25, 0.4})
	v.CursorPos(x, y)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, 0)
	steps(t, v, 2)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, 0)
	steps(t, v, 2)
	x, y = screenOf(v, mgl32.Vec3{0.2, 0.25, 0.3})
	v.CursorPos(x, y)
	v.MouseButton(glfw.MouseButtonLeft, glfw.Press, glfw.ModControl)
	for k := 1; k <= 8; k++ {
		x, y = screenOf(v, mgl32.Vec3{0.2 + 0.05*float32(k), 0.25, 0.3})
		v.CursorPos(x, y)
		steps(t, v, 1)
	}
	v.MouseButton(glfw.MouseButtonLeft, glfw.Release, glfw.ModControl)
	steps(t, v, 2)
	if err := v.drv.Params().SetString(name, value); err != nil {
		t.Fatal(err)
	}
	v.apply(ui.Actions{Mode: v.model.Mode, Scene: v.model.Scene, ParamsChanged: true})
	steps(t, v, 2)
	v.Key(glfw.KeyZ, glfw.Press, glfw.ModControl) // undo the drain
	steps(t, v, 2)

	return saveSitting(t, v, dir)
}

// headless opens o as the headless commands do, closed when the test ends.
func headless(t testing.TB, o Options) (*session, *setup) {
	t.Helper()
	st, err := prepare(Modes(), &o)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := openSession(Modes(), st, glInfo{}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ss.Close)
	return ss, st
}

// runQuiet runs `slosh run` with o, its output discarded.
func runQuiet(t testing.TB, o RunOptions) {
	t.Helper()
	o.Stdout, o.Stderr = io.Discard, io.Discard
	if err := Run(o); err != nil {
		t.Fatal(err)
	}
}

// stateBytes is a loaded save file's whole state.
func stateBytes(t *testing.T, f *savefile.File) []byte {
	t.Helper()
	b, err := f.StateBytes()
	if err != nil {
		t.Fatalf("%s: %v", f.Path, err)
	}
	return b
}
