package sph

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/kernel"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/solid"
)

// Pressure solvers (Config.Pressure).
const (
	WCSPH  = 0 // ch. 2: Tait equation of state (eq. 2.15), explicit
	PCISPH = 1 // ch. 3: predictive-corrective (Algorithm 2)
)

// Stopping rules of the PCISPH correction (Config.Stop): which statistic of the predicted density errors
// e_i = max(ρ*_i/ρ0_i − 1, 0) must be at most η.
const (
	StopMax  = 0 // the largest e_i (Algorithm 2, line 10 read strictly): every particle within η
	StopMean = 1 // their mean over all particles: SPlisHSPlasH's rule (TimeStepPCISPH::pressureSolve)
)

// Pressure-force forms (Config.PressureForm), both in the adapted versions of §4.2.4.
const (
	FormMonaghan = 0 // eq. 4.12: −Σ_j (p_i/δ_i² + p_j/δ_j²) ∇W_ij (standard density: eq. 2.18)
	FormMuller   = 1 // eq. 4.7: −(1/δ_i) Σ_j (1/δ_j)(p_i + p_j)/2 ∇W_ij (standard density: eq. 2.17)
)

// Density models (Config.Density).
const (
	DensityNumber   = 0 // §4.2.3: ρ̃_i = m_i δ_i, δ_i = Σ_j W_ij (eq. 4.1–4.2)
	DensityStandard = 1 // eq. 2.13: ρ_i = Σ_j m_j W_ij, smeared across interfaces of different rest densities
)

// Time-step constants of the CFL conditions (ch. 2 §2.5.3, after Monaghan 1992).
const (
	LambdaSound = 0.4   // eq. 2.27: Δt_c ≤ 0.4 h/c_s (WCSPH only: PCISPH has no stiffness)
	LambdaForce = 0.25  // eq. 2.28: Δt_f ≤ 0.25 √(h/|a|max)
	LambdaVisc  = 0.125 // Monaghan's viscous condition Δt_ν ≤ 0.125 h²/ν
	Gamma       = 7     // Tait exponent γ (eq. 2.15)
)

// Config holds every tunable of the SPH mode.
type Config struct {
	Pressure      int32   // WCSPH or PCISPH
	PressureForm  int32   // FormMonaghan or FormMuller
	Density       int32   // DensityNumber or DensityStandard
	Eta           float32 // PCISPH: the predicted density error allowed (its largest or its mean: Stop), per cent
	Stop          int32   // PCISPH: StopMax or StopMean, which error η bounds
	MinIterations int32   // PCISPH: fewest correction iterations a step
	MaxIterations int32   // PCISPH: most; a step that reaches it reports so
	WarmStart     bool    // PCISPH: start each step from the last step's pressures instead of zero
	Stiffness     float32 // WCSPH: Tait k, m²/s² (speed of sound c_s = √k), γ = 7
	Step          sim.CFL // steps per 1/60 s frame: the velocity condition, plus the force, viscous and sound ones

	RestDensity  float32    // ρ0 of material 0 (the scene's fluid unless it names materials), kg/m³
	Viscosity    float32    // artificial kinematic viscosity ν, m²/s: material 0's, or added to each scene material's μ/ρ0
	Tension      float32    // interface tension coefficient θ (eq. 4.14), N/m, between different materials
	KernelRadius float32    // h in particle spacings
	Gravity      [3]float32 // m/s²

	// the solids (solids.go): scales of every solid material's Young's modulus and every material's diffusivity
	StiffnessScale float32
	HeatScale      float32
	// the elastoplastic material (elastoplastic.go): scales of every elastoplastic material's yield stress, flow
	// rate and hardening (StiffnessScale scales its E too)
	YieldScale, FlowScale, HardeningScale float32

	sim.Resolution // sph.spacing, sph.particles and sph.budget, all on reset
}

// DefaultConfig is PCISPH at η = 1 % with the paper's minimum of 3 iterations, the adapted multi-fluid equations,
// and a Tait stiffness that holds WCSPH's density error near 1 % on the dam break.
func DefaultConfig() Config {
	return Config{
		Pressure:      PCISPH,
		PressureForm:  FormMonaghan,
		Density:       DensityNumber,
		Eta:           1,
		Stop:          StopMax,
		MinIterations: 3,
		MaxIterations: 50,
		WarmStart:     false,
		Stiffness:     DefaultStiffness,
		Step:          sim.CFL{Number: DefaultCFL, Min: 1, Max: sim.MaxSubsteps, RealTimeSteps: sim.DefaultRealTimeSteps},
		RestDensity:   1000,
		Viscosity:     DefaultViscosity,
		Tension:       1,
		KernelRadius:  2,
		Gravity:       [3]float32{0, -9.81, 0},

		StiffnessScale: 1,
		HeatScale:      1,
		YieldScale:     1,
		FlowScale:      1,
		HardeningScale: 1,
	}
}

// DefaultCFL is the velocity condition's number: the fastest particle crosses at most this many spacings a step
// (0.25 h at h = 2 spacings). At 1 the dam break takes twice the PCISPH iterations per step for 1.5 times the step,
// and the odd step runs out of iterations.
const DefaultCFL = 0.5

// DefaultStiffness is the Tait k of WCSPH, m²/s² (c_s ≈ 316 m/s): on a small dam break (a 0.3 m column, 0.02 m
// spacing) WCSPH's largest density error at its sound-speed step is 2.2 % at k = 10⁴ and 1.0 % at 10⁵. Eq. 2.26
// (k = v²/η with the front speed) asks for 30 times less, as in the paper, whose Table 3.1 needed 7·10⁴.
const DefaultStiffness = 1e5

// MaxKernelRadius is the largest kernel radius offered, in spacings. Above 2 a resting tank does not settle: it
// stirs (at 2.2 spacings the fastest particle moves at 0.5 m/s after 0.7 s, at 2.5 at 1.5 m/s, with WCSPH too),
// where at 2 it is 0.03 m/s, although the walls balance the hydrostatic pressure as well at 2.5 as at 2. Most
// likely this is the pairing instability of kernels whose Fourier transform goes negative, as poly6's does, which
// sets in with the neighbour count (Dehnen & Aly 2012): 32 neighbours at 2 spacings, 65 at 2.5.
const MaxKernelRadius = 2.0

// DefaultViscosity is ν of the default fluid, m²/s.
const DefaultViscosity = 0.005

// Register adds the parameters to a set; the values live in c.
func (c *Config) Register(s *param.Set) {
	s.Choice(&c.Pressure, param.Spec{Name: "sph.pressure", Label: "Pressure solver", Group: "SPH|Solver", Items: []string{"wcsph", "pcisph"},
		Desc: "WCSPH: the Tait equation of state with stiffness k, small time steps (ch. 2); PCISPH: predicted densities corrected until the error is below η, large time steps (ch. 3)"})
	s.Float(&c.Eta, param.Spec{Name: "sph.eta", Label: "Density error η", Group: "SPH|Solver", Unit: "%", Min: 0.01, Max: 10, SoftMin: 0.05, SoftMax: 5, Log: true,
		Desc: "PCISPH: iterate until the predicted density error is below this (Algorithm 2, line 10): the largest or the mean, as the stopping rule says"})
	s.Choice(&c.Stop, param.Spec{Name: "sph.stop", Label: "Stopping rule", Group: "SPH|Solver", Items: []string{"max", "mean"},
		Desc: "PCISPH: which predicted density error must be at most η (each particle's error max(ρ*/ρ0 − 1, 0)). max: the largest, every particle within η (stricter); mean: their average over all particles, SPlisHSPlasH's rule (which averages the signed error, so this one is a little stricter), met in fewer iterations while single particles stay above η"})
	s.Int(&c.MinIterations, param.Spec{Name: "sph.min_iterations", Label: "Iterations (fewest)", Group: "SPH|Solver", Min: 1, Max: 50, SoftMin: 1, SoftMax: 10,
		Desc: "PCISPH: fewest correction iterations a step, so pressure information spreads (§3.2.3: 3)"})
	s.Int(&c.MaxIterations, param.Spec{Name: "sph.max_iterations", Label: "Iterations (most)", Group: "SPH|Solver", Min: 1, Max: 200, SoftMin: 5, SoftMax: 100,
		Desc: "PCISPH: most correction iterations a step; a step that stops here keeps its density error, and the panel shows it"})
	s.Bool(&c.WarmStart, param.Spec{Name: "sph.warm_start", Label: "Warm start", Group: "SPH|Solver",
		Desc: "PCISPH: start each step's correction from the last step's pressures instead of from zero (Algorithm 2 as printed, the default). Fewer iterations, but the pressure becomes a sum of the errors of every step before, and water at rest rocks on it (a resting tank: 0.8 m/s after 2 s against 0.03 m/s)"})
	s.Float(&c.Stiffness, param.Spec{Name: "sph.stiffness", Label: "Stiffness k", Group: "SPH|Solver", Unit: "m²/s²", Min: 10, Max: 1e7, SoftMin: 100, SoftMax: 1e6, Log: true,
		Desc: "WCSPH: Tait stiffness k (eq. 2.15, γ = 7); the speed of sound is √k and the time step shrinks with it (eq. 2.27)"})
	s.Choice(&c.PressureForm, param.Spec{Name: "sph.pressure_form", Label: "Pressure force", Group: "SPH|Solver", Items: []string{"monaghan", "muller"},
		Desc: "Pressure force: Monaghan's symmetric form (eq. 2.18, adapted eq. 4.12) or Müller's averaged form (eq. 2.17, adapted eq. 4.7)"})
	s.Choice(&c.Density, param.Spec{Name: "sph.density", Label: "Density", Group: "SPH|Solver", Items: []string{"number", "standard"},
		Desc: "number: each particle counts its neighbours as its own fluid, ρ̃ = m_i Σ W (§4.2.3), sharp at interfaces; standard: ρ = Σ m_j W (eq. 2.13), smeared across fluids of different densities"})
	c.Step.Register(s, "sph", "SPH|Time step")
	for _, name := range []string{"sph.realtime", "sph.realtime_substeps"} { // what real-time mode caps here
		p, _ := s.Lookup(name)
		p.Desc += ". In sph the cap is on the velocity condition alone: the force, viscous and sound conditions are stability limits, a step longer than they allow blows up, so they still add steps (up to sph.substeps_max) and Stats show \"" + FigStabilitySteps + "\" when they do"
	}
	s.Float(&c.RestDensity, param.Spec{Name: "sph.rest_density", Label: "Rest density ρ0", Group: "SPH|Fluid", Unit: "kg/m³", Min: 1, Max: 1e5, SoftMin: 100, SoftMax: 3000, OnReset: true,
		Desc: "Rest density of the scene's fluid when the scene names no materials (a scene's materials have their own)"})
	s.Float(&c.Viscosity, param.Spec{Name: "sph.viscosity", Label: "Viscosity ν", Group: "SPH|Fluid", Unit: "m²/s", Min: 0, Max: 0.5, SoftMin: 0, SoftMax: 0.05,
		Desc: "Artificial viscosity ν every SPH fluid needs to damp its particle noise (μ = ρ0 ν in eq. 2.19 / 4.13): the fluid's viscosity when the scene names no materials, and added to each of a scene's materials' own μ/ρ0; large values make honey"})
	s.Float(&c.Tension, param.Spec{Name: "sph.tension", Label: "Interface tension θ", Group: "SPH|Fluid", Unit: "N/m", Min: 0, Max: 100, SoftMin: 0, SoftMax: 20,
		Desc: "Tension between different fluids (eq. 4.14, colour field): rounds blobs of one fluid in another; 0 is miscible. The free surface feels none"})
	s.Float(&c.KernelRadius, param.Spec{Name: "sph.kernel_radius", Label: "Kernel radius h", Group: "SPH|Fluid", Unit: "× spacing", Min: 1.5, Max: MaxKernelRadius, SoftMin: 1.5, SoftMax: MaxKernelRadius,
		Desc: "Smoothing radius h in particle spacings (2: 32 neighbours at rest); larger radii stir resting water along the floor and are not offered"})
	s.Vec3(&c.Gravity, param.Spec{Name: "sph.gravity", Label: "Gravity", Group: "SPH|Fluid", Unit: "m/s²", Min: -100, Max: 100, SoftMin: -30, SoftMax: 30,
		Desc: "External acceleration"})
	s.Float(&c.StiffnessScale, param.Spec{Name: "sph.stiffness_scale", Label: "Solid stiffness ×", Group: "SPH|Solids", Min: 0.01, Max: 100, SoftMin: 0.1, SoftMax: 10, Log: true,
		Desc: "Multiplies every solid and elastoplastic material's Young's modulus E (the scene gives each its own): 2 makes jelly twice as stiff; the elastic step condition shortens the steps as √E"})
	s.Float(&c.HeatScale, param.Spec{Name: "sph.heat_scale", Label: "Heat diffusion ×", Group: "SPH|Solids", Min: 0, Max: 100, SoftMin: 0, SoftMax: 10,
		Desc: "Multiplies every material's diffusivity c (eq. 5.12): 0 stops heat moving between particles (heaters and the heat tool still act), 2 melts a body twice as fast"})
	s.Float(&c.YieldScale, param.Spec{Name: "sph.yield_scale", Label: "Yield stress ×", Group: "SPH|Elastoplastic", Min: 0, Max: 100, SoftMin: 0, SoftMax: 10,
		Desc: "Multiplies every elastoplastic material's yield stress (the scene gives each its own): the deviatoric stress below it does not flow, so more keeps more of the shape; 0 flows under any stress"})
	s.Float(&c.FlowScale, param.Spec{Name: "sph.flow_scale", Label: "Flow rate ×", Group: "SPH|Elastoplastic", Min: 0, Max: 100, SoftMin: 0, SoftMax: 10,
		Desc: "Multiplies every elastoplastic material's flow rate ν: how fast the stress beyond the yield turns into permanent deformation. 0 makes the materials purely elastic"})
	s.Float(&c.HardeningScale, param.Spec{Name: "sph.hardening_scale", Label: "Hardening ×", Group: "SPH|Elastoplastic", Min: 0, Max: 100, SoftMin: 0, SoftMax: 10,
		Desc: "Multiplies every elastoplastic material's hardening K: how much the yield stress grows with the plastic strain already taken"})
	c.Resolution.Register(s, sim.ResolutionSpec{Prefix: "sph", Group: "SPH|Resolution", SpacingSoftMax: 0.1, ParticlesSoftMax: 1 << 20, BudgetSoftMax: 1 << 22})
}

// Derived are the constants of a step, from the configuration and the particle spacing.
type Derived struct {
	Spacing float32 // d, m
	H       float32 // kernel radius, m
	Radius  float32 // a particle's radius for drawing (half a spacing), m
	// Contact is the collision projection's radius. For PCISPH a quarter of a spacing: the walls' pressure (the
	// density map) holds the water off them, and the projection only catches what gets past it. At half a spacing
	// the resting first layer, which sits there, was projected in every step: its predicted positions stopped
	// answering its pressure, which wound up to twice the hydrostatic and stirred the tank (fastest particle
	// 0.06 m/s after 2 s against 0.03 m/s). WCSPH keeps half a spacing: its Tait pressure grows as (ρ/ρ0)⁷, and a
	// particle let within a quarter spacing of a wall takes the walls' whole density at once (two fluids at 1:10
	// blew up).
	Contact float32
	V0      float32 // rest volume of a particle: a filled lattice has Σ_j V0 W_ij = 1 (m_i = ρ0_i V0)

	Poly6 kernel.Poly6[float32]     // densities (eq. 2.20)
	Spiky kernel.Spiky[float32]     // pressure and colour gradients (eq. 2.21)
	Visc  kernel.Viscosity[float32] // viscosity Laplacian (eq. 2.22)
	Wall  solid.WallKernel          // the solids' density Φ and gradient (sim/solid, boundary.go)
	Ghost solid.WallMoment          // the solids' first moment, for ghost pressures with the hydrostatic gradient
	Edges solid.Ghosts              // the ghosts beyond the box's edges and corners, summed directly
	W0    float32                   // poly6 at 0, the self term

	// G is Σ_j |∇W_ij|² over the filled prototype neighbourhood at the rest spacing (Σ_j ∇W_ij is zero there):
	// the denominator of δ (eq. 3.7).
	G float64

	Stride int // neighbour-list capacity: the lattice points within 1.3h
}

// Derive computes the constants for a configuration and particle spacing d.
func Derive(c *Config, d float64) (Derived, error) {
	if !(d > 0) || math.IsInf(d, 0) {
		return Derived{}, fmt.Errorf("sph: particle spacing %g must be positive", d)
	}
	if !(c.KernelRadius >= 1.5 && c.KernelRadius <= MaxKernelRadius) {
		return Derived{}, fmt.Errorf("sph: kernel radius %g spacings is outside 1.5–%g", c.KernelRadius, MaxKernelRadius)
	}
	h := float64(c.KernelRadius) * d
	p6 := kernel.NewPoly6(h)
	sp := kernel.NewSpiky(h)
	n := int(math.Ceil(1.3*h/d)) + 1
	wsum, g2 := 0.0, 0.0
	capacity := 0
	for k := -n; k <= n; k++ {
		for j := -n; j <= n; j++ {
			for i := -n; i <= n; i++ {
				x, y, z := float64(i)*d, float64(j)*d, float64(k)*d
				r2 := x*x + y*y + z*z
				self := i == 0 && j == 0 && k == 0
				if r2 < 1.69*h*h && !self {
					capacity++
				}
				if r2 >= h*h {
					continue
				}
				wsum += p6.W(r2)
				if !self {
					gx, gy, gz := sp.Grad(x, y, z)
					g2 += gx*gx + gy*gy + gz*gz
				}
			}
		}
	}
	v0 := 1 / wsum
	dv := Derived{
		Spacing: float32(d), H: float32(h), Radius: float32(0.5 * d), Contact: float32(0.5 * d), V0: float32(v0),
		Poly6: kernel.NewPoly6(float32(h)), Spiky: kernel.NewSpiky(float32(h)), Visc: kernel.NewViscosity(float32(h)),
		Wall: solid.NewWallKernel(h, d, v0), Ghost: solid.NewWallMoment(h, d, v0), Edges: solid.NewGhosts(h, d, v0), G: g2,
		Stride: min(512, max(32, (capacity+7)/8*8)),
	}
	dv.W0 = dv.Poly6.W(0)
	if c.Pressure == PCISPH {
		dv.Contact = float32(0.25 * d)
	}
	return dv, nil
}

// PCIFactor is δ/ρ0 of eq. 3.7 for a step dt: the pressure p̃_i = PCIFactor·ρ0_i·e_i (eq. 3.8) undoes a relative
// density error e_i = ρ*_i/ρ0_i − 1 in the prototype neighbourhood. With m = ρ0 V0, β = 2Δt²m²/ρ0² and Σ_j ∇W_ij = 0
// in the prototype, δ = ρ0²/(2Δt²m²G) and p̃ = δ ρ0 e = ρ0 e/(2Δt² V0² G). Müller's form (eq. 4.7) pushes with
// half the force of Monaghan's for the same pressures (its (p_i + p_j)/2 against p_i + p_j), so it takes twice δ.
func (dv *Derived) PCIFactor(dt float64, form int32) float64 {
	v0 := float64(dv.V0)
	k := 1 / (2 * dt * dt * v0 * v0 * dv.G)
	if form == FormMuller {
		k *= 2
	}
	return k
}

// StableDt is the largest step the stiffness (WCSPH, eq. 2.27, with the speed of sound √(k·ratio) a light
// particle feels beside a heavy one) and the viscosity (Monaghan's 0.125 h²/ν) allow: constants of the
// configuration and the materials (Solver.stiffest), so Step keeps within them whatever step it is given.
func StableDt(c *Config, dv *Derived, nu, ratio float64) float64 {
	dt := math.Inf(1)
	h := float64(dv.H)
	if c.Pressure == WCSPH && c.Stiffness > 0 {
		dt = LambdaSound * h / math.Sqrt(float64(c.Stiffness)*ratio)
	}
	if nu > 0 {
		dt = math.Min(dt, LambdaVisc*h*h/nu)
	}
	return dt
}
