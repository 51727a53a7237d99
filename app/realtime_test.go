package app

import (
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/reduced/game"
)

// Every particle mode of the table has real-time mode's two parameters (sim.CFL registers them beside the CFL
// number, under the same prefix), off and with a cap of sim.DefaultRealTimeSteps by default, within
// [1, sim.MaxSubsteps]; the 2D game registers neither (its step has no particle speeds to clamp: game/config.go).
func TestRealTimeParamsInEveryMode(t *testing.T) {
	seen := 0
	for _, m := range Modes() {
		set := m.Params()
		cfl, ok := sim.ParamNamed(set, "cfl")
		if !ok {
			t.Errorf("mode %s has no CFL number", m.Name)
			continue
		}
		prefix := strings.TrimSuffix(cfl.Name, ".cfl")
		on, okOn := set.Lookup(prefix + ".realtime")
		most, okMost := set.Lookup(prefix + ".realtime_substeps")
		if m.Name == game.Name {
			if okOn || okMost {
				t.Errorf("mode %s registers real-time mode, which its step cannot honour", m.Name)
			}
			continue
		}
		seen++
		if !okOn || !okMost {
			t.Errorf("mode %s lacks %s.realtime or %s.realtime_substeps", m.Name, prefix, prefix)
			continue
		}
		if on.Kind != param.Bool || on.Default().B || on.Label != "Real-time mode" || !strings.Contains(on.Desc, "clamped") {
			t.Errorf("mode %s: %s is %v, default %v, label %q, %q", m.Name, on.Name, on.Kind, on.Default().B, on.Label, on.Desc)
		}
		if most.Kind != param.Int || most.Default().F != sim.DefaultRealTimeSteps || most.Min != 1 || most.Max != sim.MaxSubsteps {
			t.Errorf("mode %s: %s is %v, default %g, bounds [%g, %g]", m.Name, most.Name, most.Kind, most.Default().F, most.Min, most.Max)
		}
	}
	if seen < 5 {
		t.Errorf("%d modes with real-time mode, want pbf, pbf-cpu, flip, sph and voronoi", seen)
	}
}

// newRTSolver is newCapSolver (fake.substeps_max = 8) with real-time mode's parameters.
func newRTSolver(on bool, most int32) *capSolver {
	s := newCapSolver()
	s.set.Bool(&on, param.Spec{Name: "fake.realtime"})
	s.set.Int(&most, param.Spec{Name: "fake.realtime_substeps", Min: 1, Max: 256})
	return s
}

// In real-time mode a frame at substeps_max within the real-time cap breaks no condition (the mode clamps its
// speeds), so capWatch says nothing however long it lasts; a frame over the cap (sph's stability conditions) or real
// time off is watched as before.
func TestCapWatchRealTime(t *testing.T) {
	for _, tc := range []struct {
		on    bool
		most  int32
		speak bool
	}{{true, 8, false}, {true, 16, false}, {true, 2, true}, {false, 8, true}} {
		s := newRTSolver(tc.on, tc.most)
		var c capWatch
		said := ""
		for f := 0; f < 3*capFrames; f++ {
			if msg := c.frame(s, 8); msg != "" {
				said = msg
			}
		}
		if (said != "") != tc.speak {
			t.Errorf("real time %v, cap %d, 8 steps a frame at the most: said %q", tc.on, tc.most, said)
		}
	}
}

// How a run says it stepped (slosh run's header, bench's time_step, the export sidecar) names real-time mode when
// it is on: the cap replaces the CFL condition's most steps, and speeds are clamped.
func TestTimeSteppingNamesRealTime(t *testing.T) {
	set := Modes()[0].Params()
	if got := timeStepping(set); strings.Contains(got, "real-time") {
		t.Fatalf("real-time mode is off by default, yet the time stepping reads %q", got)
	}
	for _, a := range []string{"pbf.realtime=true", "pbf.realtime_substeps=3"} {
		if err := set.Assign(a); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := timeStepping(set), "CFL 1.5, 4–32 substeps, real-time mode: at most 3, speeds clamped"; got != want {
		t.Fatalf("time stepping %q, want %q", got, want)
	}
}
