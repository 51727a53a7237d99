package surface

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/param"
)

// Config holds the tunables of the anisotropic kernels. The CPU pass (Anisotropy) and the GPU pass (gpu/surface)
// read the same values under the same parameter names.
type Config struct {
	Enabled bool    // false: isotropic spheres of radius k_s·R_p at the raw positions
	Radius  float32 // neighbourhood radius r, in particle spacings
	Kr      float32 // k_r: the largest axis is at most k_r times the smallest
	Ks      float32 // k_s: scale of the stretched kernels (1: spheres of radius R_p in the bulk)
	Kn      float32 // k_n: radius of the isotropic kernels of sparse particles, in particle radii
	Neps    int32   // N_ε: particles with at most this many neighbours stay isotropic
	Lambda  float32 // λ: Laplacian smoothing of the kernel centres
}

// DefaultConfig is Yu & Turk's setting (k_r = 4, k_n = 0.5, N_ε = 25, λ = 0.9) over twice the PBF kernel radius,
// with k_s normalised so that 1 gives spheres of the particle radius inside the fluid.
func DefaultConfig() Config {
	return Config{Enabled: true, Radius: 4, Kr: 4, Ks: 1, Kn: 0.5, Neps: 25, Lambda: 0.9}
}

// Register adds the parameters to a set; the values live in c.
func (c *Config) Register(s *param.Set) {
	const group = "Surface|Anisotropy"
	s.Bool(&c.Enabled, param.Spec{Name: "surface.enabled", Label: "Anisotropic kernels", Group: group,
		Desc: "Stretch each particle's splat along its neighbourhood (Yu & Turk 2013); off draws spheres at the particles"})
	s.Float(&c.Radius, param.Spec{Name: "surface.radius", Label: "Neighbourhood radius r", Group: group, Unit: "× spacing", Min: 1.5, Max: 8, SoftMin: 2, SoftMax: 6,
		Desc: "Radius of the weighted neighbourhood whose covariance shapes each kernel, in particle spacings"})
	s.Float(&c.Kr, param.Spec{Name: "surface.kr", Label: "Max stretch k_r", Group: group, Min: 1, Max: 20, SoftMin: 1, SoftMax: 10,
		Desc: "Largest ratio of a kernel's longest to its shortest axis (1 keeps them round)"})
	s.Float(&c.Ks, param.Spec{Name: "surface.ks", Label: "Kernel scale k_s", Group: group, Min: 0.1, Max: 4, SoftMin: 0.5, SoftMax: 2,
		Desc: "Scale of the stretched kernels; 1 gives spheres of the particle radius inside the fluid"})
	s.Float(&c.Kn, param.Spec{Name: "surface.kn", Label: "Spray radius k_n", Group: group, Unit: "× radius", Min: 0.05, Max: 2, SoftMin: 0.2, SoftMax: 1,
		Desc: "Radius of the round kernels of particles with few neighbours (spray), in particle radii"})
	s.Int(&c.Neps, param.Spec{Name: "surface.neps", Label: "Min neighbours N_ε", Group: group, Min: 0, Max: 500, SoftMin: 0, SoftMax: 100,
		Desc: "Particles with at most this many neighbours keep round kernels instead of stretched ones"})
	s.Float(&c.Lambda, param.Spec{Name: "surface.lambda", Label: "Centre smoothing λ", Group: group, Min: 0, Max: 1,
		Desc: "Moves each kernel's centre towards its neighbours' weighted mean (0: at the particle), smoothing the surface"})
}

// Derived are the constants of a pass, computed once from the configuration and the particle radius. The CPU and
// GPU passes use the same values.
type Derived struct {
	ParticleRadius float32 // R_p, half the particle spacing, m
	R              float32 // neighbourhood radius r, m
	InvR           float32 // 1 / r
	// SigmaRef is σ_ref, the weighted variance along one axis of a particle inside a filled cubic lattice of
	// spacing 2·R_p, m²: the covariance eigenvalue that maps to a semi-axis of R_p.
	SigmaRef    float32
	InvSigmaRef float32 // 1 / σ_ref
	// LatticeNeighbours is N_i of a particle inside a filled lattice (the lattice points within r).
	LatticeNeighbours int
	// InteriorNeighbours and InteriorOffset2 are the interior rule's bounds (InteriorFill, InteriorOffset): at least
	// that many neighbours, and a squared mean offset below that, m².
	InteriorNeighbours int
	InteriorOffset2    float32
}

// Derive computes the constants for a configuration and particle radius R_p (m).
func Derive(c *Config, particleRadius float64) (Derived, error) {
	if !(particleRadius > 0) || math.IsInf(particleRadius, 0) {
		return Derived{}, fmt.Errorf("surface: particle radius %g must be positive", particleRadius)
	}
	if !(c.Radius > 1) || math.IsInf(float64(c.Radius), 0) {
		return Derived{}, fmt.Errorf("surface: neighbourhood radius %g must exceed one particle spacing", c.Radius)
	}
	d := 2 * particleRadius
	r := float64(c.Radius) * d
	// σ_ref = Σ_j w_ij x_j² / Σ_j w_ij over the lattice points within r of the origin (the origin included); the
	// lattice mean is the origin, so this is the per-axis weighted variance. It scales with d², so sum in
	// spacings and scale once.
	rs := float64(c.Radius)
	n := int(math.Ceil(rs))
	var sw, swx2 float64
	count := 0
	for k := -n; k <= n; k++ {
		for j := -n; j <= n; j++ {
			for i := -n; i <= n; i++ {
				q2 := float64(i*i + j*j + k*k)
				if q2 >= rs*rs {
					continue
				}
				if i != 0 || j != 0 || k != 0 {
					count++
				}
				q := math.Sqrt(q2) / rs
				w := 1 - q*q*q
				sw += w
				swx2 += w * float64(i*i)
			}
		}
	}
	dv := Derived{
		ParticleRadius:     float32(particleRadius),
		R:                  float32(r),
		InvR:               float32(1 / r),
		SigmaRef:           float32(swx2 / sw * d * d),
		InvSigmaRef:        float32(sw / (swx2 * d * d)),
		LatticeNeighbours:  count,
		InteriorNeighbours: int(math.Ceil(InteriorFill * float64(count))),
		InteriorOffset2:    float32((InteriorOffset * r) * (InteriorOffset * r)),
	}
	if !(dv.SigmaRef > 0) || !(dv.InvSigmaRef > 0) || math.IsInf(float64(dv.SigmaRef), 0) || math.IsInf(float64(dv.InvSigmaRef), 0) || !(dv.R > 0) || math.IsInf(float64(dv.R), 0) {
		return Derived{}, fmt.Errorf("surface: particle radius %g m is out of float32 range for a %g-spacing neighbourhood", particleRadius, c.Radius)
	}
	return dv, nil
}
