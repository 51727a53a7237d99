package voronoi

import (
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/simtest"
)

// sweepScene is a tiny dam break, 80 particles at 4 cm (the scene's own spacing, which voronoi.spacing=0 uses):
// the sweep runs it some forty times.
const sweepScene = `{
  "name": "sweep-dambreak", "domain": {"min": [0, 0, 0], "max": [0.4, 0.32, 0.16]},
  "particles": {"spacing": 0.04},
  "fluid": [{"shape": "box", "center": [0.08, 0.1, 0.08], "size": [0.16, 0.2, 0.16]}]
}`

// Every parameter at its hard minimum and maximum on a tiny dam break for 60 steps: finite and inside the domain,
// or a clear error and recovery.
func TestParameterSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("about 14 s on 2 cores: a sweep over every parameter; make test runs it")
	}
	simtest.Sweep(t, func() (sim.Solver, error) { return New(), nil }, simtest.Parse(t, sweepScene), simtest.SweepOptions{
		Steps: 60,
		Limit: map[string]simtest.Limit{
			"voronoi.particles": {Max: 300, Reason: "16 million particles would take days on the CPU; the sweep checks the path with 300"},
			"voronoi.budget":    {Max: 100000, Reason: "the budget only sizes memory; 16 million would allocate gigabytes"},
		},
	})
}
