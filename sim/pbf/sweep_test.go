package pbf

import (
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/simtest"
)

// Every parameter at its hard minimum and maximum on the dam break for 60 steps: finite and inside the domain,
// or a clear error and recovery.
func TestParameterSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("about 30 s on 2 cores: a sweep over every parameter; make test runs it")
	}
	simtest.Sweep(t, func() (sim.Solver, error) { return New(), nil }, builtin(t, "dambreak"), simtest.SweepOptions{
		Steps: 60,
		Base:  []string{"pbf.spacing=0.05"},
		Limit: map[string]simtest.Limit{
			"pbf.particles": {Max: 20000, Reason: "16 million particles is a GPU-sized run; the CPU sweep checks the path with 20k"},
		},
	})
}
