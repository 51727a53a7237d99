package pbf

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/slosh/slosh/internal/machine"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/simtest"
)

// column is the collapse of issue 10: a square column of water 0.146 m wide and 0.292 m high against the left
// wall of a tank 0.8 × 0.4 × 0.06 m, at 0.005 m spacing (about 20k particles).
const column = `{
  "name": "column", "domain": {"min": [0, 0, 0], "max": [0.8, 0.4, 0.06]},
  "particles": {"spacing": 0.005},
  "fluid": [{"shape": "box", "center": [0.073, 0.146, 0.03], "size": [0.146, 0.292, 0.06]}]
}`

// collapse runs the column for whole frames until t ≥ until and returns the front (the largest x of any
// particle), the fastest speed seen at the end of any frame and the substeps each frame took.
func collapse(t *testing.T, until float64, sets ...string) (front, fastest float64, substeps []int, s *Solver) {
	t.Helper()
	s = New()
	for _, a := range sets {
		if err := s.Params().Assign(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Reset(simtest.Parse(t, column)); err != nil {
		t.Fatal(err)
	}
	for frames := 0; s.time < until-1e-9; frames++ {
		n := s.BeginFrame(sim.FrameDt)
		substeps = append(substeps, n)
		for k := 0; k < n; k++ {
			if err := s.Step(sim.FrameDt / float64(n)); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := s.time, float64(frames+1)*sim.FrameDt; math.Abs(got-want) > 1e-12 {
			t.Fatalf("frame %d of %d steps ends at t=%.15f, want %.15f", frames, n, got, want)
		}
		fastest = math.Max(fastest, s.Stats().MaxSpeed)
	}
	for _, x := range s.x {
		front = math.Max(front, float64(x[0]))
	}
	return front, fastest, substeps, s
}

// At the default settings the time step follows the resolution: the column collapses with no particle faster than
// 1.5 × the dam-break front speed 2√(gH), and its front at t = 0.25 s is within one spacing of a run at a fixed 8
// substeps (where the fixed 4 substeps of before shot particles along the floor at 20–28 m/s).
func TestColumnCollapseFollowsTheCFLCondition(t *testing.T) {
	if testing.Short() {
		t.Skip("about 18 s on 2 cores: a physics validation; make test runs it")
	}
	const until, spacing = 0.25, 0.005
	front, fastest, substeps, s := collapse(t, until)
	limit := 1.5 * 2 * math.Sqrt(9.81*0.292)
	front8, fastest8, _, _ := collapse(t, until, "pbf.substeps=8", "pbf.substeps_max=8")
	t.Logf("%d particles; default: substeps %v, front %.4f m, fastest %.2f m/s; fixed 8: front %.4f m, fastest %.2f m/s",
		len(s.x), substeps, front, fastest, front8, fastest8)
	if fastest > limit {
		t.Errorf("the fastest particle reached %.2f m/s, more than 1.5 × 2√(gH) = %.2f m/s", fastest, limit)
	}
	if math.Abs(front-front8) > spacing {
		t.Errorf("the front at t=%.2f s is at %.4f m, %.4f m from the fixed-8-substep run's %.4f m (more than a spacing)",
			until, front, math.Abs(front-front8), front8)
	}
	if st := s.Stats(); st.Substeps != substeps[len(substeps)-1] {
		t.Errorf("Stats say %d substeps, the frame took %d", st.Substeps, substeps[len(substeps)-1])
	}
}

// XSPH smooths as much per second at any time step: c at 1/240 s, and two steps of half that take as much of the
// relative velocity as one whole (so a resolution that takes twice the substeps is not twice as viscous).
func TestXSPHPerStepFollowsTheTimeStep(t *testing.T) {
	for _, c := range []float32{0, 0.01, 0.1, 0.5, 1} {
		if got := XSPHPerStep(c, XSPHRefDt); math.Abs(float64(got-c)) > 1e-7 {
			t.Errorf("c=%g at the reference step: %g", c, got)
		}
		for _, dt := range []float64{XSPHRefDt / 3, XSPHRefDt / 2, 2 * XSPHRefDt} {
			half, whole := float64(XSPHPerStep(c, dt/2)), float64(XSPHPerStep(c, dt))
			if kept := (1 - half) * (1 - half); math.Abs(kept-(1-whole)) > 1e-6 {
				t.Errorf("c=%g: two steps of %g s keep %g of the relative velocity, one of %g s keeps %g", c, dt/2, kept, dt, 1-whole)
			}
		}
	}
}

// A particle budget and kernel radius whose neighbour lists would not fit in memory are refused before anything is
// allocated, with the numbers and what to lower; a live change of the kernel radius is checked the same way.
func TestMemoryIsCheckedBeforeAllocating(t *testing.T) {
	c := DefaultConfig()
	c.KernelRadius = 4
	dv, err := Derive(&c, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	need := int64(scene.MaxParticles) * BytesPerParticle(dv.Stride)
	if err := CheckMemory(scene.MaxParticles, dv, need-1); err == nil || !strings.Contains(err.Error(), "pbf.kernel_radius") {
		t.Errorf("16M particles at h = 4 spacings in %d bytes: %v", need-1, err)
	}
	if err := CheckMemory(scene.MaxParticles, dv, need); err != nil {
		t.Errorf("exactly enough memory: %v", err)
	}
	if need <= machine.MemoryBudget(0, 0) {
		t.Logf("this machine would hold %s; the reset below is not refused here", machine.Bytes(need))
		return
	}
	s := New()
	for _, a := range []string{"pbf.kernel_radius=4", fmt.Sprintf("pbf.budget=%d", scene.MaxParticles)} {
		if err := s.Params().Assign(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Reset(simtest.Builtin(t, "pool")); err == nil || !strings.Contains(err.Error(), "memory") {
		t.Fatalf("a reset needing %s: %v", machine.Bytes(need), err)
	}
	// the same budget at h = 2 spacings fits; raising the radius live is refused at the next step
	s.Cfg.KernelRadius = 2
	if err := s.Reset(simtest.Builtin(t, "pool")); err != nil {
		t.Logf("this machine cannot hold the budget at h = 2 either: %v", err)
		return
	}
	s.Cfg.KernelRadius = 4
	if err := s.Step(1.0 / 240); err == nil || !strings.Contains(err.Error(), "memory") {
		t.Fatalf("a step after raising the kernel radius: %v", err)
	}
}

// Real-time mode on the thrown block (6 m/s, over its 2.7 m/s limit at 2 steps a frame) and a collapsing column:
// every frame takes at most realtime_substeps steps, even below pbf.substeps = 4, and no particle, fluid or body,
// ends a step faster than pbf.cfl spacings a step (simtest.RealTimeRun checks both after every step, against
// CFL.SpeedLimit). The body (a light sphere in the column) is clamped particle by particle as FleX clamps.
func TestRealTimeModeClampsSpeeds(t *testing.T) {
	sc := simtest.Parse(t, strings.Replace(simtest.ThrownBlock, `"fluid"`,
		`"bodies": [{"shape": "sphere", "center": [0.2, 0.2, 0.045], "radius": 0.03, "density": 500, "velocity": [0, -5, 0]}], "fluid"`, 1))
	s := New()
	simtest.RealTimeOn(t, s, 2)
	clamped, first := simtest.RealTimeRun(t, simtest.RealTime{Solver: s, Scene: sc, Frames: 6,
		Spacing: sc.Particles.Spacing, CFL: func() sim.CFL { return s.Cfg.Step }})
	limit := s.Cfg.Step.SpeedLimit(sc.Particles.Spacing, sim.FrameDt/2)
	t.Logf("%d particles; the first step's fastest %.4f m/s at a limit of %.4f m/s; %d speeds clamped in 6 frames", len(s.x), first, limit, clamped)
	if clamped == 0 {
		t.Errorf("no speed clamped: the scene did not test the clamp")
	}
}
