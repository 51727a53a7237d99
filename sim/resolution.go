package sim

import (
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// Resolution is every particle mode's resolution parameters, registered once as CFL is: the lattice spacing of the
// scene's fluid on reset (flip names its grid's cell size instead), a target particle count that sets the spacing,
// and the particle budget.
type Resolution struct {
	Spacing   float32 // particle spacing (flip: cell size) on reset, m; 0 uses the scene's
	Particles int32   // particle count on reset; 0 uses the spacing
	Budget    int32   // most particles (emitters, dropped bodies stop there); 0 is automatic (ResolveBudget)
}

// ResolutionSpec says how a mode names and bounds its resolution parameters.
type ResolutionSpec struct {
	Prefix, Group string // "pbf", "PBF|Resolution"
	// SpacingName, SpacingLabel and SpacingDesc name the spacing parameter when it is not the particle spacing
	// ("cell", "Cell size h", ...); empty is prefix.spacing.
	SpacingName, SpacingLabel, SpacingDesc string
	SpacingSoftMax                         float64
	ParticlesDesc, BudgetDesc              string  // empty: the common descriptions
	ParticlesSoftMax, BudgetSoftMax        float64 // soft ranges of the sliders
}

// Register adds the resolution parameters to s: prefix.spacing (or the spec's name), prefix.particles and
// prefix.budget, all taking effect on reset.
func (r *Resolution) Register(s *param.Set, sp ResolutionSpec) {
	name, label, desc := "spacing", "Particle spacing", "Lattice spacing of the fluid blocks on reset; 0 uses the scene's"
	if sp.SpacingName != "" {
		name, label, desc = sp.SpacingName, sp.SpacingLabel, sp.SpacingDesc
	}
	pdesc := sp.ParticlesDesc
	if pdesc == "" {
		pdesc = "Target particle count on reset (the spacing follows); 0 uses the spacing"
	}
	bdesc := sp.BudgetDesc
	if bdesc == "" {
		bdesc = "Most particles the solver holds, fixed at reset; 0 is twice the scene's, at least 65536"
	}
	s.Float(&r.Spacing, param.Spec{Name: sp.Prefix + "." + name, Label: label, Group: sp.Group, Unit: "m", Min: 0, Max: 1, SoftMin: 0, SoftMax: sp.SpacingSoftMax, OnReset: true,
		Desc: desc})
	s.Int(&r.Particles, param.Spec{Name: sp.Prefix + ".particles", Label: "Particle count", Group: sp.Group, Min: 0, Max: scene.MaxParticles, SoftMin: 0, SoftMax: sp.ParticlesSoftMax, OnReset: true,
		Log: true, Desc: pdesc})
	s.Int(&r.Budget, param.Spec{Name: sp.Prefix + ".budget", Label: "Particle budget", Group: sp.Group, Min: 0, Max: scene.MaxParticles, SoftMin: 0, SoftMax: sp.BudgetSoftMax, OnReset: true,
		Log: true, Desc: bdesc})
}

// ResolveBudget is the budget for a reset with n particles (the package function ResolveBudget).
func (r *Resolution) ResolveBudget(n int) int { return ResolveBudget(r.Budget, n) }
