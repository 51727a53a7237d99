package sph

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
	simtest.Sweep(t, func() (sim.Solver, error) { return New(), nil }, simtest.Builtin(t, "dambreak"), simtest.SweepOptions{
		Steps: 60,
		Base:  []string{"sph.spacing=0.05"},
		Limit: map[string]simtest.Limit{
			"sph.particles": {Max: 20000, Reason: "16 million particles is a GPU-sized run; the sweep checks the path with 20k"},
			"sph.budget":    {Max: 100000, Reason: "the budget only sizes memory; 16 million would allocate gigabytes"},
		},
	})
}

// The parameters that act on solids at their hard minimum and maximum, on two wax blocks melting and freezing on
// the floor (meltScene): finite and inside the domain, or a clear error and recovery.
func TestSolidsParameterSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s on 2 cores; make test runs it")
	}
	simtest.Sweep(t, func() (sim.Solver, error) { return New(), nil }, simtest.Parse(t, meltScene), simtest.SweepOptions{
		Steps: 60,
		Only:  []string{"sph.stiffness_scale", "sph.heat_scale", "sph.viscosity", "sph.pressure", "sph.cfl", "sph.gravity", "sph.pressure_form", "sph.density"},
	})
}

// The parameters that act on the elastoplastic material at their hard minimum and maximum, on a plastic box
// dropped on the floor: finite and inside the domain, or a clear error and recovery.
func TestElastoplasticParameterSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s on 2 cores; make test runs it")
	}
	simtest.Sweep(t, func() (sim.Solver, error) { return New(), nil }, simtest.Parse(t, dropScene(`"youngs_modulus": 1e5, "flow_rate": 20, "yield_stress": 300, "hardening": 500`)), simtest.SweepOptions{
		Steps: 60,
		Only:  []string{"sph.stiffness_scale", "sph.yield_scale", "sph.flow_scale", "sph.hardening_scale", "sph.viscosity", "sph.pressure", "sph.cfl", "sph.gravity"},
	})
}
