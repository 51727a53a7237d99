package game

import (
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/simtest"
)

// Every parameter at its hard minimum and maximum on a small level (a crate on the floor, a rock, a float, a
// current through them), for 40 steps: finite tracers inside the rectangle, or a clear error and recovery.
func TestParameterSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("about 30 s on 2 cores: a sweep over every parameter; make test runs it")
	}
	simtest.Sweep(t, func() (sim.Solver, error) { return New(), nil }, simtest.Parse(t, sweepLevel), simtest.SweepOptions{
		Steps: 40,
		Limit: map[string]simtest.Limit{
			"reduced.tracers": {Max: 20000, Reason: "a million tracers only costs time; the sweep checks the path with 20k"},
			"reduced.grid":    {Max: 160, Reason: "a 512-cell grid only costs time (its basis is 40 MB); the sweep checks 160"},
		},
	})
}

const sweepLevel = `{"name":"sweep","flat":{"size":[2,1.2],
	"bodies":[{"shape":"box","center":[0.3,0.08],"size":[0.14,0.14],"density":1010,"crate":true},
	{"shape":"polygon","center":[1,0],"points":[[-0.25,0],[0.25,0],[0.12,0.3],[-0.1,0.32]],"static":true},
	{"shape":"circle","center":[1.2,1],"radius":0.06,"density":500}],
	"currents":[{"points":[[0.1,0.15],[1,0.5],[1.9,0.9]],"speed":0.8,"width":0.3}],
	"goal":{"zone":{"min":[1.55,0.8],"max":[1.97,1.17]},"crates":1,"time":60}}}`
