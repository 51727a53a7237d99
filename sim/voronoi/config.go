package voronoi

import (
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
)

// Name is the mode's name.
const Name = "voronoi"

// Config holds every tunable of the Voronoi mode. Lengths other than Spacing are in particle spacings.
type Config struct {
	Radius     float32 // free-surface sphere radius r (§3.2), spacings
	Neighbours int32   // k: the MLS neighbourhoods' nearest neighbours (§3.4), the particle itself included
	Reach      float32 // the MLS neighbourhoods' largest distance, spacings
	Tolerance  float32 // CG stops when the residual's norm is below this fraction of the divergence's
	MaxIter    int32   // CG iterations at most
	Epsilon    float32 // ε of eq. 5, spacings: keeps a facet's coefficient finite when two sites nearly meet
	MinGap     float32 // particles nearer than this to another are removed (§3.3), spacings
	WarmStart  bool    // CG starts from the last step's pressures
	// Gradient is how the pressure gradient is fitted: GradientPaper (eq. 8–10 over the neighbours) or
	// GradientGhosts (with the boundary conditions as mirrored samples, the default)
	Gradient int32
	// VolumeCorrection is the share of an inner cell's departure from the rest volume the particles are moved to
	// undo in a step (0: off, the paper)
	VolumeCorrection float32
	Step             sim.CFL // steps per 1/60 s frame: the velocity condition
	Gravity          [3]float32

	sim.Resolution // voronoi.spacing, voronoi.particles, voronoi.budget
}

// DefaultConfig is the paper's method with a surface radius that covers a lattice's cells (their corners are
// √3/2 spacings from the site) and 16 MLS neighbours.
func DefaultConfig() Config {
	return Config{
		Radius:           1,
		Neighbours:       16,
		Reach:            2.5,
		Tolerance:        1e-4,
		MaxIter:          400,
		Epsilon:          0.01,
		MinGap:           0.1,
		WarmStart:        true,
		Gradient:         GradientGhosts,
		VolumeCorrection: DefaultVolumeCorrection,
		Step:             sim.CFL{Number: DefaultCFL, Min: 1, Max: 16, RealTimeSteps: sim.DefaultRealTimeSteps},
		Gravity:          [3]float32{0, -9.81, 0},
	}
}

// Pressure-gradient fits (Config.Gradient).
const (
	GradientPaper  = 0 // eq. 8–10: a linear MLS fit of the neighbours' pressures
	GradientGhosts = 1 // the same with a sample beyond each boundary facet of the cell holding its condition
)

// DefaultCFL is the velocity condition's number. The projection makes the velocity divergence free at every step
// whatever its length, so the step is bounded by how far the diagram may change in one: a spacing.
const DefaultCFL = 1

// MaxNeighbours bounds Config.Neighbours (the per-particle lists are this long at most).
const MaxNeighbours = 64

// Register adds the parameters to a set; the values live in c.
func (c *Config) Register(s *param.Set) {
	s.Float(&c.Radius, param.Spec{Name: "voronoi.radius", Label: "Surface radius r", Group: "Voronoi|Solver", Unit: "× spacing", Min: 0.6, Max: 3, SoftMin: 0.8, SoftMax: 2,
		Desc: "The free surface is the union of spheres of this radius around the particles (§3.2): cells are clipped to it. Below √3/2 spacings it cuts into a resting lattice's cells; larger radii swell the surface"})
	s.Int(&c.Neighbours, param.Spec{Name: "voronoi.neighbours", Label: "MLS neighbours k", Group: "Voronoi|Solver", Min: 4, Max: MaxNeighbours, SoftMin: 8, SoftMax: 32,
		Desc: "The moving least-squares fits (velocity at facets and for advection, the pressure gradient) use the k nearest particles of the same connected component (§3.4)"})
	s.Float(&c.Reach, param.Spec{Name: "voronoi.reach", Label: "MLS reach", Group: "Voronoi|Solver", Unit: "× spacing", Min: 1.2, Max: 4, SoftMin: 1.5, SoftMax: 3,
		Desc: "Farthest an MLS neighbour may be (§3.4: the nearest k, subject to a maximum distance)"})
	s.Float(&c.Tolerance, param.Spec{Name: "voronoi.tolerance", Label: "Solve tolerance", Group: "Voronoi|Solver", Min: 1e-8, Max: 0.1, SoftMin: 1e-6, SoftMax: 1e-2, Log: true,
		Desc: "Conjugate gradients stop when the residual (the volume-weighted divergence left) is this fraction of the divergence before the solve"})
	s.Int(&c.MaxIter, param.Spec{Name: "voronoi.max_iterations", Label: "Solve iterations (most)", Group: "Voronoi|Solver", Min: 1, Max: 10000, SoftMin: 20, SoftMax: 2000, Log: true,
		Desc: "Most conjugate-gradient iterations a step; a step that stops here keeps its residual, and the panel shows it"})
	s.Bool(&c.WarmStart, param.Spec{Name: "voronoi.warm_start", Label: "Warm start", Group: "Voronoi|Solver",
		Desc: "Start each solve from the last step's pressures (fewer iterations; the same answer to the tolerance)"})
	s.Float(&c.Epsilon, param.Spec{Name: "voronoi.epsilon", Label: "ε (eq. 5)", Group: "Voronoi|Solver", Unit: "× spacing", Min: 1e-4, Max: 0.5, SoftMin: 1e-3, SoftMax: 0.1, Log: true,
		Desc: "Added to the distance between two sites in a facet's pressure gradient (eq. 5), and the least distance from a site to an air facet (eq. 11)"})
	s.Float(&c.MinGap, param.Spec{Name: "voronoi.min_gap", Label: "Removal distance", Group: "Voronoi|Solver", Unit: "× spacing", Min: 0, Max: 0.5, SoftMin: 0, SoftMax: 0.3,
		Desc: "A particle closer than this to another is removed, keeping the system well conditioned (§3.3); 0 removes only coincident ones"})
	s.Choice(&c.Gradient, param.Spec{Name: "voronoi.gradient", Label: "Pressure gradient", Group: "Voronoi|Solver", Items: []string{"paper", "ghosts"},
		Desc: "paper: a linear MLS fit of the neighbours' pressures (eq. 8–10), blind to the free surface, so surface particles are under-corrected (with the volume correction off a dam break sprays at 20 m/s); ghosts: the fit also takes one sample at p = 0 at the mirror of the particle in its air facets, where eq. 11 puts the air's pressure, where the air lies on one side. Either way a neighbourhood too small to fit (a drop) takes its gradient from its cell's facets"})
	s.Float(&c.VolumeCorrection, param.Spec{Name: "voronoi.volume_correction", Label: "Volume correction", Group: "Voronoi|Solver", Min: 0, Max: 1, SoftMin: 0, SoftMax: 0.5,
		Desc: "Share of an inner cell's departure from a particle's rest volume that the particles are moved (not accelerated) to undo each step, by a second solve on the same cells; 0 is the paper, whose collocated projection lets a splashing liquid lose volume"})
	c.Step.Register(s, "voronoi", "Voronoi|Time step")
	s.Vec3(&c.Gravity, param.Spec{Name: "voronoi.gravity", Label: "Gravity", Group: "Voronoi|Fluid", Unit: "m/s²", Min: -100, Max: 100, SoftMin: -30, SoftMax: 30,
		Desc: "External acceleration"})
	c.Resolution.Register(s, sim.ResolutionSpec{Prefix: "voronoi", Group: "Voronoi|Resolution",
		SpacingSoftMax: 0.1, ParticlesSoftMax: 1 << 18, BudgetSoftMax: 1 << 20})
}

// DefaultVolumeCorrection is voronoi.volume_correction's default.
const DefaultVolumeCorrection = 0.5
