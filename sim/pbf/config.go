package pbf

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/kernel"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/solid"
)

// Config holds every tunable of Position Based Fluids. The CPU solver and the GPU solver (gpu/pbf) register the
// same parameters under the same names, so presets and --set work alike for both.
type Config struct {
	Iterations int32   // density-constraint iterations per step (Algorithm 1, line 8)
	Step       sim.CFL // steps per 1/60 s frame, from the fastest particle

	RestDensity  float32    // ρ0, kg/m³: the fluid's density, against which bodies float or sink (see Register)
	KernelRadius float32    // h in particle spacings
	Gravity      [3]float32 // m/s²

	Epsilon    float32 // CFM relaxation ε (eq. 11), relative to the reference Σ|∇C|²
	Unilateral bool    // clamp C_i ≥ 0: particles push apart but never pull together
	ScorrK     float32 // artificial pressure strength k (eq. 13), relative to the reference Σ|∇C|²
	ScorrN     int32   // exponent n (eq. 13)
	ScorrDq    float32 // |Δq| as a fraction of h (eq. 13)

	Vorticity float32 // vorticity confinement ε (eq. 16), m/s
	XSPH      float32 // XSPH viscosity c (eq. 17) in Monaghan's form, c Σ_j (m/ρ0) v_ij W_ij: see DefaultConfig

	// Resolution is the particle spacing and count on reset and the budget (pbf.spacing, pbf.particles,
	// pbf.budget), registered as every particle mode registers them.
	sim.Resolution
}

// XSPHRefDt is the step the XSPH viscosity c is given for: one of the paper's 4 substeps of a 1/60 s frame.
const XSPHRefDt = 1.0 / 240

// XSPHPerStep is the XSPH blend for a step of dt seconds that smooths as much per second as c does per step of
// XSPHRefDt: 1 − (1 − c)^(dt/XSPHRefDt). XSPH takes a fraction of the neighbours' relative velocity each step, so
// without this the viscosity would grow with the substeps the CFL condition takes (twice as viscous at a spacing
// that takes 8 substeps as at one that takes 4). At dt = XSPHRefDt it is c.
func XSPHPerStep(c float32, dt float64) float32 {
	if !(c > 0) {
		return 0
	}
	if c >= 1 {
		return 1
	}
	return float32(1 - math.Pow(1-float64(c), dt/XSPHRefDt))
}

// ScorrRefDt is the step the artificial pressure k (eq. 13) is given for: one of the paper's 4 substeps of a 1/60 s
// frame, as XSPHRefDt.
const ScorrRefDt = 1.0 / 240

// ScorrPerStep is the factor on k for a step of dt seconds: (dt/ScorrRefDt)², at most 1. s_corr is Monaghan's
// artificial pressure (§4 of the paper; Monaghan 2000): a pressure, that is a force, entered in eq. 14 beside
// λ_i + λ_j, which are positions. A force f moves a particle f Δt²/m in a step, so below the paper's step s_corr's
// displacement shrinks with Δt²; given as a fixed displacement per step, its acceleration grew as 1/Δt², and the
// substeps the CFL condition adds for fast particles made it stronger still: with one solver iteration a resting
// pool ran away to 190 m/s at 32 substeps. Above the paper's step it stays the paper's displacement: the tensile
// correction is a small push between close neighbours, and grown by (Δt/ScorrRefDt)² at 1/120 s (4×) it swelled a
// pool to twice its depth. At dt = ScorrRefDt it is 1, so the paper's setting (k = 0.1 at 4 substeps) is unchanged.
func ScorrPerStep(dt float64) float32 {
	if !(dt > 0) {
		return 0
	}
	r := min(dt/ScorrRefDt, 1)
	return float32(r * r)
}

// EpsilonIterations is the iteration count the CFM ε is given for: the default's (DefaultConfig) 3.
const EpsilonIterations = 3

// EpsilonScale is the factor on ε for a solver of n iterations a step: EpsilonIterations/n below EpsilonIterations,
// 1 from there on. The iterations are Jacobi: every λ_j is computed as if its constraint were alone, and the sum
// of a particle's ~30 corrections (eq. 14) overshoots; the next iteration corrects the overshoot, but with one or
// two a step nothing does, and the overshoot, carried into the velocity (Algorithm 1, line 21), is what turned a
// resting pool into spray at one iteration even without s_corr's push. Relaxing each iteration more when there are
// fewer of them makes fewer iterations mean softer, more compressible water (a step removes about
// 1 − (1 − 1/(1+ε))^n of the density error: 25% at one iteration, 64% at two, 88% at three at ε = 1) and never an
// explosion; at 3 iterations and more nothing changes.
func EpsilonScale(n int32) float32 {
	if n >= EpsilonIterations || n < 1 {
		return 1
	}
	return float32(EpsilonIterations) / float32(n)
}

// DefaultCFL is the default CFL number of both PBF solvers: the fastest particle crosses at most this many
// spacings a step. It keeps the shipped scenes (0.018 m spacing, fronts of about 5 m/s) at the paper's 4 substeps
// and gives finer spacings the steps they need (a 0.005 m dam break takes about 8).
const DefaultCFL = 1.5

// DefaultConfig is the paper's dam-break setting (Table 1: 4 sub-steps, 3 iterations) with its s_corr and XSPH
// constants. The sub-steps matter more than the iterations: at 2 sub-steps × 4 iterations the dam break's impact on
// the far wall compresses edge particles by 60%, and the correction launches them along the tank's edges at up
// to 16 m/s; at 4 × 3 the fastest particle is the 5 m/s front.
//
// XSPH: eq. 17 of the paper, v_i += c Σ_j v_ij W_ij, sums the raw kernel, whose values are 1/volume, so its c is a
// volume, in units the paper does not give, and its effect grows with the cube of the resolution: in metres at the
// shipped 0.018 m spacing, c = 0.01 would add 1700 times the neighbourhood's relative velocity per step, which
// diverges (on a lattice at h = 2 spacings XSPH over-relaxes from 0.96 times and diverges from 1.9 times). The
// solvers use Monaghan's form, v_i += c Σ_j (m/ρ0) v_ij W_ij: (m/ρ0) Σ_j W_ij is 1 in a filled neighbourhood at any
// spacing, so c is the fraction of the neighbourhood's relative velocity taken per step, the same at every
// resolution. The paper's c = 0.01 is this c with the particle volume m/ρ0 as the unit of volume (or lengths in
// particle spacings: 1% apart at h = 2 spacings, where m/ρ0 = spacing³/1.0098): the gentle smoothing it describes.
func DefaultConfig() Config {
	return Config{
		Iterations:   3,
		Step:         sim.CFL{Number: DefaultCFL, Min: 4, Max: 32, RealTimeSteps: sim.DefaultRealTimeSteps},
		RestDensity:  1000,
		KernelRadius: 2,
		Gravity:      [3]float32{0, -9.81, 0},
		Epsilon:      1,
		ScorrK:       0.1,
		ScorrN:       4,
		ScorrDq:      0.2,
		Vorticity:    0.02,
		XSPH:         0.01,
	}
}

// Register adds the parameters to a set; the values live in c.
func (c *Config) Register(s *param.Set) {
	s.Int(&c.Iterations, param.Spec{Name: "pbf.iterations", Label: "Solver iterations", Group: "PBF|Solver", Min: 1, Max: 100, SoftMin: 1, SoftMax: 20,
		Desc: "Density-constraint iterations per step (Algorithm 1); more iterations, less compression"})
	c.Step.Register(s, "pbf", "PBF|Time step")
	s.Float(&c.Epsilon, param.Spec{Name: "pbf.cfm_epsilon", Label: "CFM ε", Group: "PBF|Solver", Min: 1e-6, Max: 100, SoftMin: 1e-4, SoftMax: 10, Log: true,
		Desc: "Constraint force mixing relaxation ε of eq. 11, relative to Σ|∇C|² of a filled neighbourhood, at 3 solver iterations or more (with fewer, each iteration relaxes 3/n times as much: softer water, never overshoot); larger is softer and steadier"})
	s.Bool(&c.Unilateral, param.Spec{Name: "pbf.unilateral", Label: "Push only (C ≥ 0)", Group: "PBF|Solver",
		Desc: "Clamp the density constraint at zero, so particles only push apart: no cohesion at the free surface"})
	s.Float(&c.RestDensity, param.Spec{Name: "pbf.rest_density", Label: "Rest density ρ0", Group: "PBF|Fluid", Unit: "kg/m³", Min: 1, Max: 1e5, SoftMin: 100, SoftMax: 3000,
		Desc: "The fluid's density: bodies (their densities in kg/m³ come from the scene) float when lighter and sink when heavier, and a change acts at once, so a floating duck rises or sinks; the fluid alone moves the same at any value (its particle mass follows ρ0)"})
	s.Float(&c.KernelRadius, param.Spec{Name: "pbf.kernel_radius", Label: "Kernel radius h", Group: "PBF|Fluid", Unit: "× spacing", Min: 1.05, Max: 4, SoftMin: 1.5, SoftMax: 3,
		Desc: "Smoothing radius h of the poly6 and spiky kernels, in particle spacings"})
	s.Vec3(&c.Gravity, param.Spec{Name: "pbf.gravity", Label: "Gravity", Group: "PBF|Fluid", Unit: "m/s²", Min: -100, Max: 100, SoftMin: -30, SoftMax: 30,
		Desc: "External acceleration applied before prediction (Algorithm 1, line 2)"})
	s.Float(&c.ScorrK, param.Spec{Name: "pbf.scorr_k", Label: "s_corr k", Group: "PBF|Tensile instability", Min: 0, Max: 10, SoftMin: 0, SoftMax: 1,
		Desc: "Artificial pressure strength k of eq. 13 (the paper's 0.1), relative to Σ|∇C|² of a filled neighbourhood, for a step of 1/240 s: it is a pressure, a force, so its push on the positions follows Δt² (a quarter as much per step at twice the substeps); 0 turns it off"})
	s.Int(&c.ScorrN, param.Spec{Name: "pbf.scorr_n", Label: "s_corr n", Group: "PBF|Tensile instability", Min: 1, Max: 8,
		Desc: "Exponent n of eq. 13 (the paper's 4)"})
	s.Float(&c.ScorrDq, param.Spec{Name: "pbf.scorr_dq", Label: "s_corr |Δq|", Group: "PBF|Tensile instability", Unit: "× h", Min: 0, Max: 0.95, SoftMin: 0.05, SoftMax: 0.5,
		Desc: "Distance |Δq| of eq. 13 as a fraction of h (the paper suggests 0.1 to 0.3)"})
	s.Float(&c.Vorticity, param.Spec{Name: "pbf.vorticity", Label: "Vorticity ε", Group: "PBF|Velocity", Unit: "m/s", Min: 0, Max: 10, SoftMin: 0, SoftMax: 0.5,
		Desc: "Vorticity confinement strength ε of eq. 16: puts back rotation that damping removed"})
	s.Float(&c.XSPH, param.Spec{Name: "pbf.xsph_c", Label: "XSPH viscosity c", Group: "PBF|Velocity", Min: 0, Max: 1, SoftMin: 0, SoftMax: 0.2,
		Desc: "XSPH viscosity of eq. 17 in Monaghan's form, v_i += c Σ_j (m/ρ0) v_ij W_ij: the fraction of the neighbours' relative velocity each particle takes per 1/240 s (per step at other time steps, as much per second), at any spacing (the paper's raw-kernel c = 0.01 with the particle volume as unit); bodies take the reaction"})
	c.Resolution.Register(s, sim.ResolutionSpec{Prefix: "pbf", Group: "PBF|Resolution",
		SpacingSoftMax: 0.1, ParticlesSoftMax: 1 << 20, BudgetSoftMax: 1 << 22,
		BudgetDesc: "Most particles the solver holds, fixed at reset: emitters and dropped objects stop there (the GPU allocates for it); 0 is twice the scene's, at least 65536"})
}

// Derived are the constants a step needs, computed once from the configuration and the particle spacing. The CPU
// and GPU solvers use the same values, so their arithmetic agrees.
type Derived struct {
	Spacing float32 // particle spacing d, m
	From    float64 // d exactly as given to Derive: what a saved state records
	H       float32 // kernel radius, m
	Radius  float32 // collision radius (half a spacing), m
	Rho0    float32
	Mass    float32 // particle mass: a filled lattice sums to exactly ρ0
	MOverR0 float32 // m/ρ0, the particle volume at rest

	Poly6  kernel.Poly6[float32]
	Spiky  kernel.Spiky[float32]
	Wall   solid.WallKernel
	W0     float32 // poly6 at 0 (the self contribution)
	InvWDq float32 // 1 / poly6(|Δq|)

	// Grad2Ref is Σ_k |∇_k C_i|² of a particle inside a filled lattice: the scale of the denominator of eq. 11.
	Grad2Ref   float32
	EpsilonAbs float32 // ε of eq. 11 in absolute units, for the configured iterations (EpsilonScale)
	ScorrKAbs  float32 // k of eq. 13 in absolute units at a step of ScorrRefDt (ScorrPerStep gives other steps')

	// Stride is the neighbour-list capacity per particle: the lattice points within 1.3h, room for strong
	// compression; lists are cut beyond it and Stats.NeighborsClipped counts the particles cut short.
	Stride int
}

// SameSpacing says whether a state's spacing (State.Spacing, rounded or not) is the one dv was derived from, so that
// a load keeps dv; otherwise it derives dv again from the state's.
func (dv *Derived) SameSpacing(st *State) bool {
	if st.Rounded {
		return float32(st.Spacing) == dv.Spacing
	}
	return st.Spacing == dv.From
}

// Derive computes the constants for a configuration and particle spacing d.
func Derive(c *Config, d float64) (Derived, error) {
	if !(d > 0) {
		return Derived{}, fmt.Errorf("pbf: particle spacing %g must be positive", d)
	}
	h := float64(c.KernelRadius) * d
	dv := Derived{Spacing: float32(d), From: d, H: float32(h), Radius: float32(0.5 * d), Rho0: c.RestDensity}
	p6 := kernel.NewPoly6(h)
	sp := kernel.NewSpiky(h)
	// Sum the kernel and gradients over the lattice points within h of the origin.
	n := int(math.Ceil(1.3*h/d)) + 1
	wsum, g2 := 0.0, 0.0
	capacity := 0 // lattice points within 1.3h: room for strong compression
	for k := -n; k <= n; k++ {
		for j := -n; j <= n; j++ {
			for i := -n; i <= n; i++ {
				x, y, z := float64(i)*d, float64(j)*d, float64(k)*d
				r2 := x*x + y*y + z*z
				if r2 < 1.69*h*h && (i != 0 || j != 0 || k != 0) {
					capacity++
				}
				if r2 >= h*h {
					continue
				}
				wsum += p6.W(r2)
				if i != 0 || j != 0 || k != 0 {
					gx, gy, gz := sp.Grad(x, y, z)
					g2 += gx*gx + gy*gy + gz*gz
				}
			}
		}
	}
	mass := float64(c.RestDensity) / wsum
	mr := mass / float64(c.RestDensity)
	dv.Mass = float32(mass)
	dv.MOverR0 = float32(mr)
	dv.Poly6 = kernel.NewPoly6(float32(h))
	dv.Spiky = kernel.NewSpiky(float32(h))
	dv.Wall = solid.NewWallKernel(h, d, mr)
	dv.W0 = dv.Poly6.W(0)
	dq := float64(c.ScorrDq) * h
	dv.InvWDq = float32(1 / p6.W(dq*dq))
	dv.Grad2Ref = float32(mr * mr * g2)
	dv.EpsilonAbs = c.Epsilon * EpsilonScale(c.Iterations) * dv.Grad2Ref
	dv.ScorrKAbs = c.ScorrK / dv.Grad2Ref
	dv.Stride = min(512, max(32, (capacity+7)/8*8))
	return dv, nil
}
