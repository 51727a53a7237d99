package replay

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/pbf"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// sittingScene is simtest.HandsScene (a pool with a floating sphere, a moving obstacle and an emitter) at a finer
// spacing: about 1700 particles.
var sittingScene = strings.Replace(simtest.HandsScene, `"spacing": 0.025`, `"spacing": 0.02`, 1)

const frameDt = 1.0 / 60

// sitting is what a session at the sandbox did with the CPU PBF solver, recorded by a Log as the app records it.
type sitting struct {
	solver  *pbf.Solver
	file    *File
	drained int   // particles the drain removed
	poured  int   // particles the tool's emitter added
	ends    []int // the step count at the end of each frame
}

// runSitting plays a scripted session of 40 display frames: a drain and its undo, a dropped sphere thrown and
// taken out again, the paddle stirring, a pour, and parameter changes (vorticity, then iterations and substeps
// together, then the XSPH viscosity changed just before a tool call without a Params in between). Every tool
// call goes through the Log's Hands; the Log's Params runs before each frame, as the app calls it.
func runSitting(t *testing.T) *sitting {
	t.Helper()
	sc := simtest.Parse(t, sittingScene)
	s := pbf.New()
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	var log Log
	log.SoftwareVersion = "test"
	if err := log.Start(s.Name(), sc, s.Params(), frameDt); err != nil {
		t.Fatal(err)
	}
	h, ok := log.Hands(s)
	if !ok {
		t.Fatal("the CPU PBF solver has no Hands")
	}
	set := func(name, value string) {
		t.Helper()
		if err := s.Params().SetString(name, value); err != nil {
			t.Fatal(err)
		}
	}
	out := &sitting{solver: s}
	var gone []sim.Particle
	var beforePour int
	for frame := 0; frame < 40; frame++ {
		switch {
		case frame == 2:
			var err error
			if gone, err = h.Drain([3]float32{0.3, 0.06, 0.1}, 0.05); err != nil {
				t.Fatal(err)
			}
			out.drained = len(gone)
		case frame == 5:
			set("pbf.vorticity", "0.1")
		case frame == 6: // undo the drain
			pos, vel := make([][3]float32, len(gone)), make([][3]float32, len(gone))
			for i, p := range gone {
				pos[i], vel[i] = p.Pos, p.Vel
			}
			if k := h.AddFluid(pos, vel); k != len(gone) {
				t.Fatalf("the undo added %d of %d particles", k, len(gone))
			}
		case frame == 8:
			b := scene.Body{Shape: scene.Shape{Kind: scene.ShapeSphere, Center: scene.Vec3{0.12, 0.26, 0.1}, Radius: 0.035}, Density: 700}
			if i, _, err := h.AddBody(b); err != nil || i != 1 {
				t.Fatalf("drop: body %d, %v", i, err)
			}
		case frame >= 10 && frame < 14: // a grab: the body follows the cursor
			h.DriveBody(1, [3]float32{0.5 + 0.1*float32(frame), 0.3, -0.05}, true)
		case frame == 14: // and the throw
			h.DriveBody(1, [3]float32{}, false)
		case frame >= 15 && frame < 19: // the paddle stirs the pool
			h.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: [3]float32{0.1 + 0.03*float32(frame-15), 0.08, 0.1}, Radius: 0.04}})
		case frame >= 19 && frame < 24: // a pour
			if frame == 19 {
				beforePour = s.Stats().Particles
			}
			h.SetTools(sim.Tools{Emitter: &scene.Emitter{Center: scene.Vec3{0.3 + 0.005*float64(frame-19), 0.3, 0.1},
				Direction: scene.Vec3{0, -1, 0}, Radius: 0.02, Speed: 1.5}})
		case frame == 24:
			out.poured = s.Stats().Particles - beforePour
			h.SetTools(sim.Tools{})
		case frame == 26:
			set("pbf.iterations", "5")
			set("pbf.substeps", "3")
		case frame == 30:
			if err := h.RemoveBody(1); err != nil {
				t.Fatal(err)
			}
		case frame == 33:
			// changed between frames and used at once: the Hands log it before the call
			set("pbf.xsph_c", "0.05")
			h.SetTools(sim.Tools{Paddle: &sim.Paddle{Center: [3]float32{0.25, 0.1, 0.12}, Radius: 0.03}})
		case frame == 35:
			h.SetTools(sim.Tools{})
		}
		log.Params(s)
		n := s.BeginFrame(frameDt)
		for k := 0; k < n; k++ {
			if err := s.Step(frameDt / float64(n)); err != nil {
				t.Fatalf("frame %d: %v", frame, err)
			}
		}
		out.ends = append(out.ends, s.Stats().Steps)
	}
	// a last action after the last step, as when the tools are put away before saving
	h.DriveBody(0, [3]float32{}, false)
	f, err := log.Snapshot(s.Stats().Steps)
	if err != nil {
		t.Fatal(err)
	}
	out.file = f
	return out
}

// frameOf copies a solver's frame.
func frameOf(s sim.Solver) *sim.Frame {
	var f sim.Frame
	s.Frame(&f)
	return &f
}

// frameDiff describes the first difference between two frames, bit for bit; "" when they are identical.
func frameDiff(a, b *sim.Frame) string {
	if a.N != b.N || a.Steps != b.Steps || a.Time != b.Time || len(a.Bodies) != len(b.Bodies) {
		return fmt.Sprintf("%d particles, %d bodies at step %d t=%v vs %d particles, %d bodies at step %d t=%v",
			a.N, len(a.Bodies), a.Steps, a.Time, b.N, len(b.Bodies), b.Steps, b.Time)
	}
	for i := 0; i < a.N; i++ {
		if a.Pos[i] != b.Pos[i] || a.Vel[i] != b.Vel[i] || a.ID[i] != b.ID[i] || a.Rho[i] != b.Rho[i] {
			return fmt.Sprintf("particle %d: %v %v id %d vs %v %v id %d", i, a.Pos[i], a.Vel[i], a.ID[i], b.Pos[i], b.Vel[i], b.ID[i])
		}
	}
	for i := range a.Body {
		if a.Body[i] != b.Body[i] {
			return fmt.Sprintf("particle %d belongs to body %d vs %d", i, a.Body[i], b.Body[i])
		}
	}
	for k := range a.Bodies {
		if a.Bodies[k] != b.Bodies[k] {
			return fmt.Sprintf("body %d: %+v vs %+v", k, a.Bodies[k], b.Bodies[k])
		}
	}
	return ""
}

// The key property: a sitting written to a file, read back and played on a fresh solver ends bit for bit where the
// sitting ended; and the comparison can fail: leaving out any one of several actions changes the result.
func TestReplayReproducesSittingBitForBit(t *testing.T) {
	if testing.Short() {
		t.Skip("about 19 s on 2 cores: a check that steps whole scenes; make test runs it")
	}
	live := runSitting(t)
	if live.drained == 0 || live.poured == 0 {
		t.Fatalf("the script did too little: drained %d, poured %d", live.drained, live.poured)
	}
	ops := map[Op]int{}
	for _, a := range live.file.Actions {
		ops[a.Op]++
	}
	for _, op := range []Op{OpParams, OpAddFluid, OpDrain, OpAddBody, OpRemoveBody, OpDriveBody, OpSetTools} {
		if ops[op] == 0 {
			t.Fatalf("the recording has no %s action: %v", op, ops)
		}
	}
	if ops[OpParams] != 3 {
		t.Fatalf("want 3 params actions (vorticity; iterations and substeps; xsph), got %d", ops[OpParams])
	}
	want := frameOf(live.solver)
	if want.Steps != live.file.Steps || want.Steps < 26*4+14*3 {
		t.Fatalf("the sitting took %d steps, the file says %d; want at least %d", want.Steps, live.file.Steps, 26*4+14*3)
	}

	path := filepath.Join(t.TempDir(), "sitting.replay.json")
	if err := Write(path, live.file); err != nil {
		t.Fatal(err)
	}
	f, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var ends []int
	s := pbf.New()
	if err := Run(s, f, func(int) error { ends = append(ends, s.Stats().Steps); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ends) != fmt.Sprint(live.ends) {
		t.Errorf("the replay's frames ended at steps %v, the sitting's at %v", ends, live.ends)
	}
	if d := frameDiff(want, frameOf(s)); d != "" {
		t.Fatalf("the replay differs from the sitting: %s", d)
	}

	// each of these, left out, must show
	nth := func(n int, match func(a *Action) bool) int {
		for i := range f.Actions {
			if match(&f.Actions[i]) {
				if n == 0 {
					return i
				}
				n--
			}
		}
		t.Fatal("no such action")
		return -1
	}
	paddle := func(a *Action) bool { return a.Op == OpSetTools && a.Tools.Paddle != nil }
	pour := func(a *Action) bool { return a.Op == OpSetTools && a.Tools.Emitter != nil }
	grab := func(a *Action) bool { return a.Op == OpDriveBody && a.Drive.On }
	changes := func(name string) func(a *Action) bool {
		return func(a *Action) bool { _, ok := a.Params[name]; return ok }
	}
	for _, c := range []struct {
		name  string
		index int
	}{
		{"the vorticity change", nth(0, changes("pbf.vorticity"))},
		{"the xsph change", nth(0, changes("pbf.xsph_c"))},
		{"one paddle position", nth(2, paddle)},
		{"the first grab frame", nth(0, grab)},
		{"the last pour position", nth(4, pour)},
	} {
		t.Run("without "+c.name, func(t *testing.T) {
			g := *f
			g.Actions = append(append([]Action(nil), f.Actions[:c.index]...), f.Actions[c.index+1:]...)
			s := pbf.New()
			if err := Run(s, &g, nil); err != nil {
				t.Fatal(err)
			}
			if frameDiff(want, frameOf(s)) == "" {
				t.Fatal("the replay without it is identical to the sitting: the comparison proves nothing")
			}
		})
	}
}
