package scene

import (
	"math"

	"github.com/slosh/slosh/internal/jsonmsg"
)

// Ranges of the solids' and the heat's numbers (Material).
const (
	// MaxYoungsModulus bounds E, Pa: steel is 2e11, but an explicit elastic step at a spacing of centimetres
	// would need steps of microseconds beyond about 1e8 (the sound speed √(E/ρ) sets the step).
	MaxYoungsModulus = 1e8
	// MaxPoissonRatio keeps ν below 0.5, where Lamé's λ goes to infinity.
	MaxPoissonRatio = 0.49
	// MaxStrainLimit bounds the elastic and plastic limits (strains).
	MaxStrainLimit = 100
	// MaxFracture bounds the fracture stretch.
	MaxFracture = 100
	// MaxTemperature bounds temperatures, °C, either side of zero (and no colder than absolute zero).
	MaxTemperature = 1e4
	// MinTemperature is absolute zero, °C.
	MinTemperature = -273.15
	// MaxDiffusivity bounds eq. 5.12's constant, m²/s: its explicit step Δt ≤ h²/(6c) stays above 10 µs at
	// centimetre spacings.
	MaxDiffusivity = 1
)

// validateSolid checks the solid and heat fields: a solid kind's within their ranges (E where the kind needs it,
// limits ordered, the points ordered), none of the solid fields on a liquid or sand, where they would be
// ignored.
func (m *Material) validateSolid(path string) error {
	if !(m.Temperature >= MinTemperature && m.Temperature <= MaxTemperature) {
		return errAt(path+".temperature", "%g °C is outside [%g, %g]", m.Temperature, MinTemperature, float64(MaxTemperature))
	}
	if !(m.Diffusivity >= 0 && m.Diffusivity <= MaxDiffusivity) {
		return errAt(path+".diffusivity", "%g m²/s is outside [0, %d]; 1e-4 melts a body in seconds", m.Diffusivity, MaxDiffusivity)
	}
	k := m.Kind.Canonical()
	if !k.Solid() {
		elastic := k == KindElastoplastic // its own validation checks E and ν
		for _, f := range []struct {
			name string
			set  bool
		}{{"youngs_modulus", m.YoungsModulus != 0 && !elastic}, {"poisson_ratio", m.PoissonRatio != 0 && !elastic}, {"elastic_limit", m.ElasticLimit != 0},
			{"plastic_limit", m.PlasticLimit != 0}, {"fracture", m.Fracture != 0}, {"phase_change", m.PhaseChange != nil},
			{"solid_viscosity", m.SolidViscosity != 0}} {
			if f.set {
				kinds := `"elastic", "plastic" or "rigid"`
				if f.name == "youngs_modulus" || f.name == "poisson_ratio" {
					kinds = `"elastic", "plastic", "rigid" or "elastoplastic"`
				}
				return errAt(path+"."+f.name, "is a solid's; %s is %s (give it \"kind\": %s)", jsonmsg.Quote(m.Name), jsonmsg.Quote(string(k)), kinds)
			}
		}
		return nil
	}
	needE := k != KindRigid || (m.PhaseChange != nil && m.PhaseChange.Solidifying < m.PhaseChange.Melting)
	switch {
	case needE && !(m.YoungsModulus > 0):
		return errAt(path+".youngs_modulus", "missing: an %s material needs Young's modulus E, Pa (jelly about 1e4, rubber 1e6)%s", k, rigidNote(k))
	case !(m.YoungsModulus >= 0) || m.YoungsModulus > MaxYoungsModulus:
		return errAt(path+".youngs_modulus", "%g Pa is outside [0, %g]: stiffer solids would need steps of microseconds", m.YoungsModulus, float64(MaxYoungsModulus))
	case !(m.PoissonRatio >= 0) || m.PoissonRatio > MaxPoissonRatio:
		return errAt(path+".poisson_ratio", "%g is outside [0, %g]", m.PoissonRatio, MaxPoissonRatio)
	case !(m.Fracture == 0 || m.Fracture > 1) || m.Fracture > MaxFracture:
		return errAt(path+".fracture", "%g is neither 0 (never breaks) nor a stretch in (1, %d]", m.Fracture, MaxFracture)
	case !(m.SolidViscosity >= 0) || m.SolidViscosity > MaxViscosity:
		return errAt(path+".solid_viscosity", "%g Pa·s is outside [0, %d]", m.SolidViscosity, MaxViscosity)
	}
	if err := m.validateLimits(path, k); err != nil {
		return err
	}
	if pc := m.PhaseChange; pc != nil {
		for _, t := range []struct {
			name string
			v    float64
		}{{"solidifying", pc.Solidifying}, {"melting", pc.Melting}} {
			if !(t.v >= MinTemperature && t.v <= MaxTemperature) {
				return errAt(path+".phase_change."+t.name, "%g °C is outside [%g, %g]", t.v, MinTemperature, float64(MaxTemperature))
			}
		}
		if pc.Solidifying > pc.Melting {
			return errAt(path+".phase_change", "solidifies at %g °C, above its melting point %g °C; the solidifying point is at most the melting point", pc.Solidifying, pc.Melting)
		}
	}
	return nil
}

// rigidNote explains why a rigid material needs E.
func rigidNote(k Kind) string {
	if k == KindRigid {
		return " (a rigid material that melts is elastic between its solidifying and melting points)"
	}
	return ""
}

// validateLimits checks the elastic and plastic limits: a plastic material's, ordered; none on the others.
func (m *Material) validateLimits(path string, k Kind) error {
	if k != KindPlastic {
		if m.ElasticLimit != 0 || m.PlasticLimit != 0 {
			field := "elastic_limit"
			if m.ElasticLimit == 0 {
				field = "plastic_limit"
			}
			return errAt(path+"."+field, "is a plastic material's; %s is %s (give it \"kind\": \"plastic\")", jsonmsg.Quote(m.Name), jsonmsg.Quote(string(k)))
		}
		return nil
	}
	switch {
	case !(m.ElasticLimit > 0) || m.ElasticLimit > MaxStrainLimit:
		return errAt(path+".elastic_limit", "%g is missing or outside (0, %d]: the strain a plastic material bears before it flows, e.g. 0.05", m.ElasticLimit, MaxStrainLimit)
	case !(m.PlasticLimit >= m.ElasticLimit) || m.PlasticLimit > MaxStrainLimit:
		return errAt(path+".plastic_limit", "%g is missing or outside [elastic_limit %g, %d]: the most plastic strain it keeps", m.PlasticLimit, m.ElasticLimit, MaxStrainLimit)
	}
	return nil
}

// Heater warms or cools the particles inside its shape (004 §5.4.1: "outside influences", the heated ground of
// Figure 5.7): each particle's temperature T relaxes towards Temperature at Rate, T ← T + (Temperature − T)(1 −
// e^(−Rate Δt)), between Start and Stop (simulated seconds; Stop 0 is never).
type Heater struct {
	Shape
	Temperature float64 `json:"temperature"` // °C
	Rate        float64 `json:"rate"`        // 1/s
	Start       float64 `json:"start,omitempty"`
	Stop        float64 `json:"stop,omitempty"`
}

// MaxHeatRate bounds a heater's rate, 1/s: faster is a temperature set at once.
const MaxHeatRate = 1e4

// Active says whether the heater acts at time t.
func (h *Heater) Active(t float64) bool { return t >= h.Start && (h.Stop == 0 || t < h.Stop) }

// Relax is the temperature T becomes after dt inside an active heater.
func (h *Heater) Relax(T, dt float64) float64 {
	return T + (h.Temperature-T)*(-math.Expm1(-h.Rate*dt))
}

// validate checks a heater at path: its shape, a temperature and a rate within their ranges, a time window.
func (h *Heater) validate(path string, meshes *meshLoader) error {
	if err := h.Shape.validate(path, meshes); err != nil {
		return err
	}
	switch {
	case !(h.Temperature >= MinTemperature && h.Temperature <= MaxTemperature):
		return errAt(path+".temperature", "%g °C is outside [%g, %g]", h.Temperature, MinTemperature, float64(MaxTemperature))
	case !(h.Rate > 0) || h.Rate > MaxHeatRate:
		return errAt(path+".rate", "%g /s is outside (0, %g]: 1 brings a particle most of the way in a second", h.Rate, float64(MaxHeatRate))
	case !(h.Start >= 0) || h.Start > MaxBlastTime:
		return errAt(path+".start", "%g s is outside [0, %g]", h.Start, float64(MaxBlastTime))
	case !(h.Stop == 0 || h.Stop > h.Start) || h.Stop > MaxBlastTime:
		return errAt(path+".stop", "%g s is neither 0 (never stops) nor after the start %g s", h.Stop, h.Start)
	}
	return nil
}

// Ranges of the elastoplastic material's numbers (Material).
const (
	// MaxYieldStress bounds the yield stress and the hardening, Pa (at most MaxYoungsModulus: a stress is E times a
	// strain).
	MaxYieldStress = MaxYoungsModulus
	// MaxFlowRate bounds the flow rate, 1/s: 1e4 flows everything beyond the yield within a 0.1 ms step.
	MaxFlowRate = 1e4
)

// The elastoplastic variants (Material.Variant).
const (
	VariantStandard     = ""
	VariantHyperelastic = "hyperelastic"
	VariantNonNewtonian = "non-newtonian"
)

// validateElastoplastic checks the elastoplastic fields: an elastoplastic material's E (required), ν, yield
// stress, flow rate, hardening and variant within their ranges; none of them on another kind.
func (m *Material) validateElastoplastic(path string) error {
	k := m.Kind.Canonical()
	if k != KindElastoplastic {
		for _, f := range []struct {
			name string
			set  bool
		}{{"yield_stress", m.YieldStress != 0}, {"flow_rate", m.FlowRate != 0}, {"hardening", m.Hardening != 0}, {"variant", m.Variant != ""}} {
			if f.set {
				return errAt(path+"."+f.name, "is an elastoplastic material's; %s is %s (give it \"kind\": \"elastoplastic\")", jsonmsg.Quote(m.Name), jsonmsg.Quote(string(k)))
			}
		}
		return nil
	}
	switch {
	case !(m.YoungsModulus > 0) || m.YoungsModulus > MaxYoungsModulus:
		return errAt(path+".youngs_modulus", "%g Pa is missing or outside (0, %g]: dough is about 1e4, clay 1e5–1e6", m.YoungsModulus, float64(MaxYoungsModulus))
	case !(m.PoissonRatio >= 0) || m.PoissonRatio > MaxPoissonRatio:
		return errAt(path+".poisson_ratio", "%g is outside [0, %g]", m.PoissonRatio, MaxPoissonRatio)
	case !(m.YieldStress >= 0) || m.YieldStress > MaxYieldStress:
		return errAt(path+".yield_stress", "%g Pa is outside [0, %g]", m.YieldStress, float64(MaxYieldStress))
	case !(m.FlowRate >= 0) || m.FlowRate > MaxFlowRate:
		return errAt(path+".flow_rate", "%g /s is outside [0, %g]: 0 never flows (elastic), 10 flows readily", m.FlowRate, float64(MaxFlowRate))
	case !(math.Abs(m.Hardening) <= MaxYieldStress):
		return errAt(path+".hardening", "%g Pa is outside [%g, %g]", m.Hardening, -float64(MaxYieldStress), float64(MaxYieldStress))
	case m.Variant != VariantStandard && m.Variant != VariantHyperelastic && m.Variant != VariantNonNewtonian:
		return errAt(path+".variant", "%s is not a variant; the variants are \"\" (standard), %q and %q", jsonmsg.Quote(m.Variant), VariantHyperelastic, VariantNonNewtonian)
	}
	return nil
}
