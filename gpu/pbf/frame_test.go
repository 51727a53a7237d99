package pbf

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/par"
	"github.com/slosh/slosh/sim/simtest"
)

// tallColumn is a column of water about to collapse: the CFL condition plans its frames from the dam-break speed
// of its height, so it takes more than the fewest substeps from the first frame on.
const tallColumn = `{
  "name": "column", "domain": {"min": [0, 0, 0], "max": [0.6, 0.5, 0.1]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.05, 0.2, 0.05], "size": [0.1, 0.4, 0.1]}]
}`

// fallingBlob is a blob of water thrown down a tall shaft: its speed grows by g each second, so plans made from
// states a frame or two apart differ.
const fallingBlob = `{
  "name": "blob", "domain": {"min": [0, 0, 0], "max": [0.2, 3, 0.2]},
  "particles": {"spacing": 0.02},
  "fluid": [{"shape": "box", "center": [0.1, 2.8, 0.1], "size": [0.1, 0.1, 0.1], "velocity": [0, -3, 0]}]
}`

// frames runs n frames planned by BeginFrame and returns their substeps and the frame read back at the start of
// each (what the frame was planned from, reachLag frames later).
func frames(t *testing.T, s *Solver, n int) (substeps []int, starts []sim.Frame) {
	t.Helper()
	for f := 0; f < n; f++ {
		var start sim.Frame
		s.Frame(&start)
		starts = append(starts, start)
		k := s.BeginFrame(frameDt)
		substeps = append(substeps, k)
		for i := 0; i < k; i++ {
			if err := s.Step(frameDt / float64(k)); err != nil {
				t.Fatalf("frame %d: %v", f, err)
			}
		}
		if st := s.Stats(); st.Substeps != k {
			t.Fatalf("frame %d: Stats say %d substeps, BeginFrame chose %d", f, st.Substeps, k)
		}
	}
	return substeps, starts
}

// planned is the substeps the CFL condition gives a frame planned from the state f, measured reachLag frames
// before the frame: from the float64 measurement and from the same rounded to float32, as the GPU holds it.
func planned(s *Solver, f *sim.Frame) (a, b int) {
	v2, h := sim.MeasureReach(par.Pool{}, f.Pos[:f.N], f.Vel[:f.N], s.Cfg.Gravity)
	ahead := float64(reachLag+1) * frameDt
	d := float64(s.dv.Spacing)
	a = s.Cfg.Step.Substeps(sim.FrameSpeed(v2, h, s.Cfg.Gravity, ahead), d, frameDt)
	b = s.Cfg.Step.Substeps(sim.FrameSpeed(float64(float32(v2)), float64(float32(h)), s.Cfg.Gravity, ahead), d, frameDt)
	return a, b
}

// The GPU plans each frame from the measurement of the state reachLag frames before it (the reset's in the first
// frames), so it never waits for the GPU; the choice follows the CFL condition on that state.
func TestGPUPlansFramesFromOlderStates(t *testing.T) {
	if testing.Short() {
		t.Skip("about 3 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	sc := simtest.Parse(t, tallColumn)
	s := newGPU(t)
	assign(t, s, "pbf.substeps=1", "pbf.cfl=0.5")
	if err := s.Reset(sc); err != nil {
		t.Fatal(err)
	}
	substeps, starts := frames(t, s, 12)
	t.Logf("%d particles, substeps %v", s.n, substeps)
	for f, n := range substeps {
		from := &starts[0]
		if f >= reachLag {
			from = &starts[f-reachLag]
		}
		if a, b := planned(s, from); n != a && n != b {
			t.Errorf("frame %d took %d substeps; the state it was planned from gives %d", f, n, a)
		}
		if n < 2 {
			t.Errorf("frame %d took %d substeps: a 0.4 m column at 0.02 m spacing and CFL 0.5 needs more", f, n)
		}
	}
}

// A state saved mid-run and loaded into a fresh solver plans its next frames as the saved run does (the state
// carries the measurements the next frames are planned from), so the two go on bit for bit — also when saved
// within reachLag frames of the reset.
func TestGPUStateKeepsTheFramePlan(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores: a GPU simulation run on the shared context; make test runs it")
	}
	sc := simtest.Parse(t, fallingBlob)
	for _, at := range []int{1, 5} {
		t.Run(fmt.Sprintf("saved after %d frames", at), func(t *testing.T) {
			a := newGPU(t)
			assign(t, a, "pbf.substeps=1", "pbf.cfl=0.5")
			if err := a.Reset(sc); err != nil {
				t.Fatal(err)
			}
			frames(t, a, at)
			var buf bytes.Buffer
			if err := a.WriteState(&buf); err != nil {
				t.Fatal(err)
			}
			b := newGPU(t)
			assign(t, b, "pbf.substeps=1", "pbf.cfl=0.5")
			if err := b.Reset(sc); err != nil {
				t.Fatal(err)
			}
			if err := b.ReadState(bytes.NewReader(buf.Bytes())); err != nil {
				t.Fatal(err)
			}
			na, _ := frames(t, a, 6)
			nb, _ := frames(t, b, 6)
			t.Logf("substeps after the save: %v", na)
			if fmt.Sprint(na) != fmt.Sprint(nb) {
				t.Fatalf("after the load the frames took %v substeps, the saved run's %v", nb, na)
			}
			var fa, fb sim.Frame
			a.Frame(&fa)
			b.Frame(&fb)
			for i := 0; i < fa.N; i++ {
				if fa.Pos[i] != fb.Pos[i] || fa.Vel[i] != fb.Vel[i] {
					t.Fatalf("particle %d differs after 6 frames: %v vs %v", i, fa.Pos[i], fb.Pos[i])
				}
			}
		})
	}
}
