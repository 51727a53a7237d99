package flip

import (
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/simtest"
)

// Every parameter at its hard minimum and maximum on the dam break: finite and inside the domain, or a clear error.
func TestParameterSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("about 6 s on 2 cores: a sweep over every parameter; make test runs it")
	}
	simtest.Sweep(t, func() (sim.Solver, error) { return New(), nil }, builtin(t, "dambreak"), simtest.SweepOptions{
		Steps: 30,
		Base:  []string{"flip.cell=0.1"},
		Limit: map[string]simtest.Limit{
			"flip.particles":      {Max: 20000, Reason: "16 million particles is a workstation run; the sweep checks the path with 20k"},
			"flip.max_iterations": {Max: 2000, Reason: "10000 iterations of a solve that converges in 30 only costs time"},
		},
	})
}

// The sand's parameters at their bounds, and every other, on a scene with sand: finite and inside the domain, or a
// clear error.
func TestParameterSweepSand(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep over every parameter on a sand scene; make test runs it")
	}
	simtest.Sweep(t, func() (sim.Solver, error) { return New(), nil }, builtin(t, "sand-column"), simtest.SweepOptions{
		Steps: 20,
		Base:  []string{"flip.cell=0.08"},
		Limit: map[string]simtest.Limit{
			"flip.particles":      {Max: 20000, Reason: "16 million particles is a workstation run; the sweep checks the path with 20k"},
			"flip.max_iterations": {Max: 2000, Reason: "10000 iterations of a solve that converges in 30 only costs time"},
		},
	})
}
