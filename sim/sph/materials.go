package sph

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/sim/scene"
)

// A scene's materials (sim/scene, material.go) as the solver's fluids. Material number k of the scene's particles
// (0 the default material, water; k ≥ 1 the scene's Materials[k−1]) is the solver's material k, with the scene's
// rest density ρ_k and dynamic viscosity μ_k. The solver's kinematic viscosity is ν_k = μ_k/ρ_k + sph.viscosity:
// the scene's viscosity is the fluid's physical one (water's 0.001 Pa·s is ν = 10⁻⁶ m²/s, far below what damps a
// particle simulation's noise), and sph.viscosity is the artificial viscosity every SPH fluid needs on top, the
// same for all of them, followed as it changes.

// sceneMaterials returns the fluids of a scene that names materials, with sph.viscosity nu0 added, and each one's
// own kinematic viscosity μ_k/ρ_k; both nil when the scene names none.
func sceneMaterials(sc *scene.Scene, nu0 float32) (mats []Material, own []float32) {
	if len(sc.Materials) == 0 {
		return nil, nil
	}
	n := sc.MaterialCount()
	mats, own = make([]Material, n), make([]float32, n)
	for k := range n {
		m := sc.MaterialOf(k)
		own[k] = float32(m.Viscosity / m.Density)
		mats[k] = Material{RestDensity: float32(m.Density), Viscosity: own[k] + nu0}
	}
	return mats, own
}

// The density ratios Solenthaler's thesis shows each density estimate holding (004 §4.3, Figure 4.10 and §4.2.2):
// up to 100 through the number density, up to 10 (Müller's pressure force; 2 with Monaghan's) with the standard
// one.
const (
	shownRatioNumber   = 100
	shownRatioStandard = 10
)

// Warnings implements sim.Warner: a ratio of rest densities among the particles beyond what the thesis shows the
// chosen density estimate holding (it runs, with time steps its sound and force conditions shrink and interfaces
// the method was not shown to keep).
func (s *Solver) Warnings() []string {
	var used [MaxMaterials]bool
	for _, m := range s.mat {
		used[m] = true
	}
	lo, hi := math.Inf(1), 0.0
	for k, m := range s.mats {
		if k < len(used) && used[k] {
			lo, hi = min(lo, float64(m.RestDensity)), max(hi, float64(m.RestDensity))
		}
	}
	shown, how := shownRatioNumber, "the number density (Solenthaler §4.3, Figure 4.10)"
	if s.Cfg.Density == DensityStandard {
		shown, how = shownRatioStandard, "the standard density (Solenthaler §4.2.2)"
	}
	if !(hi/lo > float64(shown)) {
		return nil
	}
	return []string{fmt.Sprintf("sph: the fluids' rest densities range from %.3g to %.3g kg/m³, a ratio of %.3g, beyond the %d that %s was shown to hold: expect small time steps (frames at sph.substeps_max) and unsteady interfaces",
		lo, hi, hi/lo, shown, how)}
}

// followViscosity gives the scene's materials sph.viscosity as it is now (a scene without materials has material 0
// follow it through updateMaterials; materials given to ResetMaterials are kept as given).
func (s *Solver) followViscosity() {
	if len(s.sceneNu) != len(s.mats) {
		return
	}
	for k := range s.mats {
		s.mats[k].Viscosity = s.sceneNu[k] + s.Cfg.Viscosity
	}
}
