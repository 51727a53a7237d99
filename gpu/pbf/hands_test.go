package pbf

import (
	"bytes"
	"math"
	"testing"

	"github.com/slosh/slosh/sim"
	cpbf "github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// handsSolver is either PBF solver with the sandbox's tools.
type handsSolver interface {
	sim.Solver
	sim.Hands
	sim.Stateful
}

// useTools runs the same sequence of tool actions on a solver between steps: drain, drop a box, drag the first
// body, sweep the paddle and pour, each followed by a few steps.
func useTools(t *testing.T, s handsSolver, step func(n int)) {
	t.Helper()
	step(6)
	if _, err := s.Drain([3]float32{0.32, 0.06, 0.1}, 0.05); err != nil {
		t.Fatal(err)
	}
	step(3)
	box := scene.Body{Shape: scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{0.12, 0.1, 0.1}, Size: scene.Vec3{0.06, 0.06, 0.06}}, Density: 1500}
	if i, displaced, err := s.AddBody(box); err != nil || i != 1 || len(displaced) == 0 {
		t.Fatalf("drop: body %d, %d displaced, %v", i, len(displaced), err)
	}
	step(3)
	s.DriveBody(0, [3]float32{0.5, 0.2, 0}, true)
	step(3)
	s.DriveBody(0, [3]float32{}, false)
	emitter := scene.Emitter{Center: scene.Vec3{0.3, 0.3, 0.1}, Direction: scene.Vec3{0, -1, 0}, Radius: 0.02, Speed: 1.5}
	for i := 0; i < 4; i++ {
		s.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: [3]float32{0.2 + 0.01*float32(i), 0.1, 0.1}, Radius: 0.03}, Emitter: &emitter})
		step(1)
	}
	s.SetTools(sim.Tools{})
	step(2)
}

// Every tool does on the GPU what it does on the CPU oracle: the same particles added and removed with the same
// ids, and the motion the same to rounding growth.
func TestGPUToolsMatchCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("about 1 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	const dt = frameDt / 4
	sc := simtest.Parse(t, simtest.HandsScene)
	c := cpbf.New()
	if err := c.Reset(sc); err != nil {
		t.Fatal(err)
	}
	g := newGPU(t)
	g.rigid.sumInIDOrder = true
	if err := g.Reset(sc); err != nil {
		t.Fatal(err)
	}
	var cpu []sim.Frame
	useTools(t, c, func(n int) {
		for i := 0; i < n; i++ {
			if err := c.Step(dt); err != nil {
				t.Fatal(err)
			}
		}
		var f sim.Frame
		c.Frame(&f)
		cpu = append(cpu, f)
	})
	k := 0
	useTools(t, g, func(n int) {
		for i := 0; i < n; i++ {
			if err := g.Step(dt); err != nil {
				t.Fatal(err)
			}
		}
		var f sim.Frame
		g.Frame(&f)
		diffs, center, rot := frameDiff(t, &f, &cpu[k], dt)
		k++
		worst := diffs[len(diffs)-1]
		// the tools act on state that already differs by rounding; the bound is a small fraction of a spacing
		if bound := 0.02 * float64(g.dv.Spacing); worst > bound || center > bound || rot > 1e-3 {
			t.Fatalf("after tool stage %d (%d particles): GPU and CPU differ by up to %.3g m, centres %.3g m, rotations %.3g (bound %.3g m)",
				k, f.N, worst, center, rot, bound)
		}
	})
	if g.n != len(cpu[len(cpu)-1].Pos) || g.Budget() != c.Budget() {
		t.Fatalf("GPU %d particles of %d, CPU %d of %d", g.n, g.Budget(), cpu[len(cpu)-1].N, c.Budget())
	}
}

// A GPU state saved and loaded continues bit for bit; a CPU state loads into the GPU solver exactly.
func TestGPUStateRoundTrip(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	sc := simtest.Parse(t, simtest.HandsScene)
	a := newGPU(t)
	if err := a.Reset(sc); err != nil {
		t.Fatal(err)
	}
	stepFrame(t, a, 37)
	var buf bytes.Buffer
	if err := a.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	b := newGPU(t)
	if err := b.Reset(sc); err != nil {
		t.Fatal(err)
	}
	if err := b.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	fa, fb := stepFrame(t, a, 20), stepFrame(t, b, 20)
	if fa.N != fb.N || fa.Steps != fb.Steps || fa.Time != fb.Time {
		t.Fatalf("%d particles at step %d vs %d at step %d", fa.N, fa.Steps, fb.N, fb.Steps)
	}
	for i := 0; i < fa.N; i++ {
		if fa.Pos[i] != fb.Pos[i] || fa.Vel[i] != fb.Vel[i] || fa.ID[i] != fb.ID[i] {
			t.Fatalf("20 steps after the load, particle %d differs: %v vs %v", i, fa.Pos[i], fb.Pos[i])
		}
	}

	c := cpbf.New()
	if err := c.Reset(sc); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 11; i++ {
		if err := c.Step(frameDt / 2); err != nil {
			t.Fatal(err)
		}
	}
	buf.Reset()
	if err := c.WriteState(&buf); err != nil {
		t.Fatal(err)
	}
	if err := b.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	var fc, fg sim.Frame
	c.Frame(&fc)
	b.Frame(&fg)
	if diffs, center, rot := frameDiff(t, &fg, &fc, 1); diffs[len(diffs)-1] != 0 || center != 0 || rot != 0 {
		t.Fatalf("a CPU state loaded on the GPU differs by %g m", diffs[len(diffs)-1])
	}
	if err := b.ReadState(bytes.NewReader(buf.Bytes()[:100])); err == nil {
		t.Fatal("a truncated state loaded")
	}
	b.Frame(&fg)
	if fg.N != fc.N || math.IsNaN(float64(fg.Pos[0][0])) {
		t.Fatal("a refused state changed the solver")
	}
}

// A scene's blast throws the water up on the GPU as on the CPU oracle, bodies left to the shape matching.
func TestGPUBlastMatchesCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	const dt = frameDt / 4
	sc := simtest.Parse(t, `{"name": "blast", "domain": {"min": [0, 0, 0], "max": [0.4, 0.6, 0.4]},
	  "particles": {"spacing": 0.02},
	  "fluid": [{"shape": "box", "center": [0.2, 0.1, 0.2], "size": [0.4, 0.2, 0.4]}],
	  "bodies": [{"shape": "sphere", "center": [0.3, 0.15, 0.2], "radius": 0.04, "density": 900}],
	  "blasts": [{"time": 0.051, "center": [0.2, 0.08, 0.2], "radius": 0.15, "speed": 3}]}`)
	c := cpbf.New()
	if err := c.Reset(sc); err != nil {
		t.Fatal(err)
	}
	g := newGPU(t)
	g.rigid.sumInIDOrder = true
	if err := g.Reset(sc); err != nil {
		t.Fatal(err)
	}
	var fc, fg sim.Frame
	for step := 1; step <= 16; step++ { // the blast goes off in step 13, from 0.05 s
		if err := c.Step(dt); err != nil {
			t.Fatal(err)
		}
		if err := g.Step(dt); err != nil {
			t.Fatal(err)
		}
		c.Frame(&fc)
		g.Frame(&fg)
		diffs, center, rot := frameDiff(t, &fg, &fc, dt)
		if bound := 0.02 * float64(g.dv.Spacing); diffs[len(diffs)-1] > bound || center > bound || rot > 1e-3 {
			t.Fatalf("after step %d: GPU and CPU differ by up to %.3g m, centres %.3g m, rotations %.3g", step, diffs[len(diffs)-1], center, rot)
		}
		up := 0.0
		for i := 0; i < fg.N; i++ {
			up = max(up, float64(fg.Vel[i][1]))
		}
		if thrown := up > 2; thrown != (step >= 13) {
			t.Fatalf("after step %d (%.4f s) the fastest particle rises at %.3f m/s", step, g.time, up)
		}
	}
}
