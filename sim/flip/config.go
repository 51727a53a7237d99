package flip

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
)

// Name is the mode's name.
const Name = "flip"

// The pressure solves flip.pressure chooses between.
const (
	PressureUIC     = 0 // unilateral incompressibility: an LCP by MPRGP, blurred obstacles, density correction (§3.1)
	PressureClassic = 1 // bilateral incompressibility: box-filter liquid cells, sharp obstacles, PCG (§3.4's baseline)
)

// The densities flip.face_density chooses between for the pressure's acceleration on a face.
const (
	FaceDensityLiquid     = 0 // the liquid's density ρ_f
	FaceDensityRasterised = 1 // the face's rasterised density over its volume fraction (eq. 3.8)
	FaceDensitySurface    = 2 // the liquid's where a face is nearly full, the rasterised where it is not
)

// surfaceFill is how full a face must be (its rasterised density over V_f ρ_f) for FaceDensitySurface to take the
// liquid's density: below it the face is at the free surface (or beside a solid at the waterline) and its
// density is the rasterised one scaled up by 1/surfaceFill, so the two meet at surfaceFill.
const surfaceFill = 0.8

// Config holds every tunable of the FLIP mode.
type Config struct {
	Pressure    int32   // PressureUIC or PressureClassic
	FaceDensity int32   // FaceDensityLiquid or FaceDensityRasterised
	Step        sim.CFL // steps per 1/60 s frame from the fastest particle, in grid cells

	Density   float32    // ρ_f, kg/m³: the liquid's density, against which bodies float or sink
	Gravity   [3]float32 // m/s²
	FLIPRatio float32    // α of the PIC/FLIP blend: 1 is pure FLIP, 0 pure PIC (§3.2.3)

	Tolerance     float32 // relative residual at which the pressure solves stop
	MaxIterations int32   // most iterations of a pressure solve
	Correction    bool    // the density-correction LCP (UIC only)
	AirThreshold  float32 // a cell with less mass than this fraction of a full cell's is air (§3.2.1)
	Extrapolate   int32   // sweeps of velocity extrapolation (§3.2.2)
	Advect        int32   // most RK2 substeps of one particle's advection in a step, each at most a cell (§4.2.5)
	Jitter        float32 // seeding jitter as a fraction of the particle spacing
	Separation    float32 // particles in cells that are not full are kept this many spacings apart; 0 is off

	// Sand is the granular material's parameters (Zhu & Bridson 2005, §3): every granular material of a run shares
	// them; a scene's granular materials set them when it opens (SceneParams).
	Sand Sand

	// Resolution is flip.cell (Spacing: the grid's cell size h on reset, m; 0 is twice the scene's particle
	// spacing), flip.particles (the cell size follows at 8 particles per cell) and flip.budget.
	sim.Resolution
}

// Sand holds the granular material's parameters.
type Sand struct {
	FrictionAngle float32 // φ, degrees: the yield condition √3 σ̄ < sin φ p + c (eq. 1, 5) and the friction stress (eq. 2)
	Cohesion      float32 // c, Pa (eq. 5)
	WallFriction  float32 // μ of the Coulomb friction at solids (eq. 4)
	FLIPRatio     float32 // the sand's PIC/FLIP blend (§4.2.4: PIC's numerical viscosity suits sand)
}

// DefaultSand is dry sand: 30°, a pascal of cohesion (§3.4: a little steadies a pile), μ = 0.5 and nearly pure PIC.
func DefaultSand() Sand {
	return Sand{FrictionAngle: 30, Cohesion: 1, WallFriction: 0.5, FLIPRatio: 0.05}
}

// The sand parameters' names, for a scene's granular materials to set (SceneParams).
const (
	ParamFrictionAngle = "flip.sand_friction_angle"
	ParamCohesion      = "flip.sand_cohesion"
	ParamWallFriction  = "flip.sand_wall_friction"
	ParamSandFLIPRatio = "flip.sand_flip_ratio"
)

// DefaultConfig is the mode's default: UIC with density correction, the paper's blend and 8 particles per cell.
func DefaultConfig() Config {
	return Config{
		Pressure:      PressureUIC,
		FaceDensity:   FaceDensitySurface,
		Step:          sim.CFL{Number: 1, Min: 1, Max: 16, RealTimeSteps: sim.DefaultRealTimeSteps},
		Density:       1000,
		Gravity:       [3]float32{0, -9.81, 0},
		FLIPRatio:     0.95,
		Tolerance:     1e-4,
		MaxIterations: 400,
		Correction:    true,
		AirThreshold:  0.05,
		Extrapolate:   4,
		Advect:        5,
		Jitter:        0.5,
		Separation:    0.8,
		Sand:          DefaultSand(),
	}
}

// Register adds the parameters to a set; the values live in c.
func (c *Config) Register(s *param.Set) {
	s.Choice(&c.Pressure, param.Spec{Name: "flip.pressure", Label: "Pressure solve", Group: "FLIP|Solver", Items: []string{"unilateral", "incompressible"},
		Desc: "Unilateral incompressibility (cells may not exceed ρ_max but may expand freely; blurred obstacles; MPRGP) or classic incompressible FLIP (box-filter liquid cells, sharp obstacles, PCG): the comparison of §3.4"})
	s.Choice(&c.FaceDensity, param.Spec{Name: "flip.face_density", Label: "Face density", Group: "FLIP|Solver", Items: []string{"liquid", "rasterised", "surface"},
		Desc: "The density the pressure gradient divides by on a face (UIC): the liquid's; the face's rasterised density as in eq. 3.8 (livelier; the particles' sampling noise makes a resting pool shiver at a few cm/s); or (surface) the liquid's where a face is at least 80% full and the rasterised one, scaled to meet it, at the surface, where floating bodies need it"})
	c.Step.RegisterIn(s, Name, "FLIP|Time step", "cells", "grid cells")
	s.Float(&c.Tolerance, param.Spec{Name: "flip.tolerance", Label: "Solver tolerance", Group: "FLIP|Solver", Min: 1e-10, Max: 0.5, SoftMin: 1e-7, SoftMax: 1e-2, Log: true,
		Desc: "The pressure solves stop when the residual (the projected gradient for the LCPs) falls below this fraction of the right-hand side's norm"})
	s.Int(&c.MaxIterations, param.Spec{Name: "flip.max_iterations", Label: "Solver iterations (most)", Group: "FLIP|Solver", Min: 1, Max: 10000, SoftMin: 10, SoftMax: 2000,
		Desc: "Most iterations of one pressure solve; a solve that stops here shows in the panel"})
	s.Bool(&c.Correction, param.Spec{Name: "flip.density_correction", Label: "Density correction", Group: "FLIP|Solver",
		Desc: "The second LCP of §3.1 (Δt = 1, no velocity term): moves particles out of cells denser than ρ_max before they advect; UIC only"})
	s.Float(&c.AirThreshold, param.Spec{Name: "flip.air_threshold", Label: "Air threshold", Group: "FLIP|Solver", Min: 1e-4, Max: 0.9, SoftMin: 0.01, SoftMax: 0.5, Log: true,
		Desc: "A cell holding less mass than this fraction of a full cell is air and left out of the solve (§3.2.1)"})
	s.Int(&c.Extrapolate, param.Spec{Name: "flip.extrapolate", Label: "Extrapolation sweeps", Group: "FLIP|Velocity", Min: 1, Max: 64, SoftMin: 1, SoftMax: 16,
		Desc: "Sweeps of the velocity extrapolation of §3.2.2: how many cells beyond the liquid the second advection stage finds a velocity"})
	s.Int(&c.Advect, param.Spec{Name: "flip.advect_substeps", Label: "Advection substeps (most)", Group: "FLIP|Velocity", Min: 1, Max: 16, SoftMin: 1, SoftMax: 8,
		Desc: "A particle that would cross more than a cell in a step is carried through the grid's velocity in this many RK2 substeps at most, each at most a cell (Zhu & Bridson §4.2.5 take five): with flip.cfl above 1 the grid steps that many cells at a time while every particle still follows the flow's curves"})
	s.Float(&c.Separation, param.Spec{Name: "flip.separation", Label: "Particle separation", Group: "FLIP|Velocity", Unit: "× spacing", Min: 0, Max: 1.5, SoftMin: 0, SoftMax: 1,
		Desc: "Particles in cells that are not full (the surface, spray) closer than this many particle spacings are pushed apart: without it the surface's particles gather into dense sheets the grid cannot see, and the liquid loses volume; 0 turns it off"})
	s.Float(&c.FLIPRatio, param.Spec{Name: "flip.flip_ratio", Label: "FLIP ratio", Group: "FLIP|Velocity", Min: 0, Max: 1, SoftMin: 0, SoftMax: 1,
		Desc: "PIC/FLIP blend of §3.2.3: 1 takes only the grid's change (FLIP: lively, noisy), 0 the grid's velocity (PIC: damped)"})
	s.Float(&c.Density, param.Spec{Name: "flip.density", Label: "Liquid density ρ_f", Group: "FLIP|Fluid", Unit: "kg/m³", Min: 1, Max: 1e5, SoftMin: 100, SoftMax: 3000,
		Desc: "The liquid's density: bodies (densities from the scene) float when lighter and sink when heavier; the liquid alone moves the same at any value"})
	s.Vec3(&c.Gravity, param.Spec{Name: "flip.gravity", Label: "Gravity", Group: "FLIP|Fluid", Unit: "m/s²", Min: -100, Max: 100, SoftMin: -30, SoftMax: 30,
		Desc: "External acceleration applied on the grid's faces before the pressure solve"})
	s.Float(&c.Sand.FrictionAngle, param.Spec{Name: ParamFrictionAngle, Label: "Friction angle φ", Group: "FLIP|Sand", Unit: "°", Min: 0, Max: scene.MaxFrictionAngle, SoftMin: 0, SoftMax: 60,
		Desc: "The sand's internal friction (Mohr–Coulomb, eq. 1): a cell stays rigid while its shear stress is under sin φ × pressure + cohesion, and flowing sand is resisted by sin φ × pressure (eq. 2). A pile's flanks stand steeper with larger φ; 0 flows like the liquid"})
	s.Float(&c.Sand.Cohesion, param.Spec{Name: ParamCohesion, Label: "Cohesion c", Group: "FLIP|Sand", Unit: "Pa", Min: 0, Max: scene.MaxCohesion, SoftMin: 0, SoftMax: 2000, Log: true,
		Desc: "Stress the sand holds with no pressure (eq. 5): a few Pa steady a dry pile; hundreds let damp sand stand in vertical faces, and the least that holds a cut grows with its height"})
	s.Float(&c.Sand.WallFriction, param.Spec{Name: ParamWallFriction, Label: "Wall friction μ", Group: "FLIP|Sand", Min: 0, Max: scene.MaxWallFriction, SoftMin: 0, SoftMax: 1.5,
		Desc: "Coulomb friction where sand meets the walls, obstacles, the paddle and bodies (eq. 4): the tangential velocity loses μ times the normal velocity the wall stopped, down to rest. 0 slides freely"})
	s.Float(&c.Sand.FLIPRatio, param.Spec{Name: ParamSandFLIPRatio, Label: "Sand FLIP ratio", Group: "FLIP|Sand", Min: 0, Max: 1, SoftMin: 0, SoftMax: 1,
		Desc: "The PIC/FLIP blend of the sand's particles (the liquid's is flip.flip_ratio): PIC's numerical viscosity suits sand (§4.2.4), and FLIP's noise keeps a pile creeping"})
	s.Float(&c.Jitter, param.Spec{Name: "flip.jitter", Label: "Seeding jitter", Group: "FLIP|Resolution", Unit: "× spacing", Min: 0, Max: 0.9, SoftMin: 0, SoftMax: 0.9, OnReset: true,
		Desc: "Particles are seeded 2×2×2 per cell, each moved at random by up to this fraction of their spacing, so the lattice does not imprint on the flow"})
	c.Resolution.Register(s, sim.ResolutionSpec{Prefix: Name, Group: "FLIP|Resolution",
		SpacingName: "cell", SpacingLabel: "Cell size h", SpacingSoftMax: 0.2,
		SpacingDesc:      "The MAC grid's cell size on reset; 0 is twice the scene's particle spacing (8 particles per cell)",
		ParticlesDesc:    "Target particle count on reset (the cell size follows at 8 particles per cell); 0 uses the cell size",
		ParticlesSoftMax: 1 << 21,
		BudgetDesc:       "Most particles the solver holds, fixed at reset: emitters and the pouring tool stop there; 0 is twice the scene's, at least 65536",
		BudgetSoftMax:    1 << 22,
	})
}

// SceneParams is what a scene's granular materials say of the sand parameters: the first granular material's
// friction angle, cohesion and wall friction (scene validation makes a scene's granular materials agree), nil for
// a scene without sand. The window and the command line apply them when the scene opens, under the scene's own
// params.
func SceneParams(sc *scene.Scene) scene.ParamValues {
	k := sc.FirstGranular()
	if k == 0 {
		return nil
	}
	m := sc.MaterialOf(k)
	num := func(v float64) json.RawMessage { return json.RawMessage(strconv.FormatFloat(v, 'g', -1, 64)) }
	return scene.ParamValues{
		ParamFrictionAngle: num(m.FrictionAngle),
		ParamCohesion:      num(m.Cohesion),
		ParamWallFriction:  num(m.WallFriction),
	}
}

// ResolveCell picks the grid cell size for a scene: a particle count wins over a cell size, and either over the
// scene's own particle spacing (two spacings a cell).
func ResolveCell(c *Config, sc *scene.Scene) (float64, error) {
	switch {
	case c.Particles > 0:
		d, err := sc.SpacingFor(int(c.Particles))
		return 2 * d, err
	case c.Spacing > 0:
		// the decimal the user typed, not the float32 nearest it: 0.05 as float32 is 0.0500000007, and a
		// domain of 0.8 m would hold 15.99999 cells, losing the last layer of particles
		return strconv.ParseFloat(strconv.FormatFloat(float64(c.Spacing), 'g', -1, 32), 64)
	}
	d, err := sc.Spacing(sc.Particles.Spacing, sc.Particles.Count)
	if err != nil {
		return 0, err
	}
	return 2 * d, nil
}

// MaxCells bounds the grid: a domain of more cells than this at the chosen cell size is refused before anything is
// allocated (about 60 bytes a cell for the fields and the solver's vectors: 3.6 GB).
const MaxCells = 1 << 26

// gridSize is the grid over a domain at cell size h, checked against MaxCells.
func gridSize(dom scene.Box, h float64) ([3]int, error) {
	var n [3]int
	cells := 1.0
	for k := 0; k < 3; k++ {
		e := dom.Max[k] - dom.Min[k]
		c := e / h
		if !(c >= 1) {
			return n, fmt.Errorf("flip: the domain is %.3g m along %c, less than one cell of %.3g m: lower flip.cell", e, "xyz"[k], h)
		}
		c = float64(int(c + 0.999999))
		cells *= c
		n[k] = int(c)
	}
	if cells > MaxCells {
		return n, fmt.Errorf("flip: a grid of %d×%d×%d cells of %.3g m exceeds the limit of %d cells: raise flip.cell or lower flip.particles", n[0], n[1], n[2], h, MaxCells)
	}
	return n, nil
}
