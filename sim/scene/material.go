package scene

import (
	"fmt"
	"strings"

	"github.com/slosh/slosh/internal/jsonmsg"
)

// Material is what a fluid block is made of: a scene lists its materials once, by name, and each fluid block names
// the one it holds (Fluid.Material). A block that names none holds DefaultMaterial, water. A material has a kind
// (Kind: a liquid today; sand and solids come as kinds of their own) and the parameters of its kind. How a mode uses
// density and viscosity is the mode's (a mode with one fluid ignores them); the renderer tints each fluid with its
// colour.
type Material struct {
	Name string `json:"name"`
	// Kind is what sort of material it is; "" is KindLiquid. A mode simulates the kinds it names (sim.Kinds) and
	// refuses a scene with others.
	Kind Kind `json:"kind,omitempty"`
	// Density is the rest density ρ0, kg/m³: water 1000, oil about 800.
	Density float64 `json:"density"`
	// Viscosity is the dynamic viscosity μ, Pa·s: water 0.001, olive oil about 0.08, honey about 10. 0 leaves
	// only the mode's own viscosity parameter.
	Viscosity float64 `json:"viscosity,omitempty"`
	// Color is the fluid's colour, linear RGB in [0, 1]: what thick fluid looks like (it absorbs the rest).
	Color [3]float64 `json:"color"`

	// The granular kind's parameters (Zhu & Bridson 2005, §3; KindGranular). A scene's granular materials share
	// them, because the panel tunes them together: they set the mode's sand parameters when the scene opens.

	// FrictionAngle is φ, degrees, in (0, 89]: the Mohr–Coulomb yield condition √3 σ̄ < sin φ σ_m + c (eq. 1, 5);
	// a pile's flanks stand at about this angle. Dry sand is about 30–35. Required for granular materials.
	FrictionAngle float64 `json:"friction_angle,omitempty"`
	// Cohesion is c, Pa, ≥ 0: the stress the material holds without pressure (eq. 5). Dry sand a few Pa (a little
	// steadies a pile, §3.4), damp sand that stands in vertical faces hundreds.
	Cohesion float64 `json:"cohesion,omitempty"`
	// WallFriction is μ, ≥ 0: Coulomb friction where the material meets walls, obstacles, the paddle and bodies
	// (eq. 4). 0 lets it slide freely along them (the paper's Figure 1), 0.6 holds it (Figure 2).
	WallFriction float64 `json:"wall_friction,omitempty"`

	// Heat (Solenthaler 004 §5.4.1), for every kind in mode sph: each particle carries a temperature, which
	// diffuses among neighbours (eq. 5.12) and decides a solid's phase (PhaseChange).

	// Temperature is the material's temperature at the start, °C.
	Temperature float64 `json:"temperature,omitempty"`
	// Diffusivity is the diffusion constant c of eq. 5.12, m²/s: water about 1.4e-7, far too slow to see in a
	// sitting; 1e-4 to 1e-3 melts a body in seconds. 0 is none: the material keeps its heat.
	Diffusivity float64 `json:"diffusivity,omitempty"`

	// The solids' parameters (KindElastic, KindPlastic, KindRigid; solid.go).

	// YoungsModulus is E, Pa, of the elastic solid below the solidifying point (§5.2.2): jelly about 1e4, rubber
	// 1e6. Required for elastic and plastic materials, and for rigid ones with a phase change (between the points
	// they are elastic).
	YoungsModulus float64 `json:"youngs_modulus,omitempty"`
	// PoissonRatio is ν in [0, 0.49]: how much the solid thins when stretched (rubber nearly 0.5).
	PoissonRatio float64 `json:"poisson_ratio,omitempty"`
	// ElasticLimit and PlasticLimit are a plastic material's (§5.2.4, after O'Brien et al. 2002): the deviatoric
	// elastic strain (Frobenius norm) beyond which it flows, and the most plastic strain it keeps.
	ElasticLimit float64 `json:"elastic_limit,omitempty"`
	PlasticLimit float64 `json:"plastic_limit,omitempty"`
	// Fracture is the stretch at which two body neighbours forget each other, as a multiple of their rest
	// distance (> 1): 1.5 breaks where the solid is stretched by half. 0 never breaks.
	Fracture float64 `json:"fracture,omitempty"`
	// PhaseChange gives the points where the solid melts and solidifies; nil never changes phase.
	PhaseChange *PhaseChange `json:"phase_change,omitempty"`
	// SolidViscosity is μ at the solidifying point, Pa·s: between the points the viscosity goes linearly from it
	// to Viscosity at the melting point (Figure 5.5). 0 is Viscosity throughout.
	SolidViscosity float64 `json:"solid_viscosity,omitempty"`

	// The elastoplastic material's parameters (KindElastoplastic, Gerszewski 000 ch. 4; elastoplastic.go). It
	// also takes YoungsModulus (required) and PoissonRatio, the Lamé parameters of eq. 4.9.

	// YieldStress is the stress, Pa, below which it does not flow (Bargteil et al. 2007): the Frobenius norm of
	// the deviatoric stress must exceed YieldStress + Hardening × the plastic strain it has taken.
	YieldStress float64 `json:"yield_stress,omitempty"`
	// FlowRate is ν, 1/s: the fraction of the deviatoric elastic deformation beyond the yield that flows into the
	// plastic deformation each second (capped at all of it in a step). 0 never flows: an elastic material.
	FlowRate float64 `json:"flow_rate,omitempty"`
	// Hardening is K, Pa: how much the yield stress grows per unit of accumulated plastic strain. Negative softens.
	Hardening float64 `json:"hardening,omitempty"`
	// Variant is one of the chapter's variants: "" (eq. 4.9 on the elastic singular values), "hyperelastic"
	// (the singular values squared before the stress, Figure 4.4) or "non-newtonian" (the flow rate divided by
	// the stress in units of the shear modulus, so the material flows readily under small stresses, Figure 4.2).
	Variant string `json:"variant,omitempty"`
}

// PhaseChange is a solid's melting and solidifying points, °C (004 Figure 5.5): above Melting its particles are
// liquid, below Solidifying solid (rigid or elastic with the full E, as the kind says), in between elastic with E
// falling linearly to zero at Melting. Solidifying = Melting leaves out the elastic stage.
type PhaseChange struct {
	Solidifying float64 `json:"solidifying"`
	Melting     float64 `json:"melting"`
}

// Granular ranges: a friction angle of 90° would make sin φ 1 and the material rigid under any pressure.
const (
	MaxFrictionAngle = 89
	MaxCohesion      = 1e6 // Pa: stiff clay holds about 1e5
	MaxWallFriction  = 10
)

// Ranges of a material's numbers (limits.go has the counts).
const (
	// MinMaterialDensity and MaxMaterialDensity bound a material's rest density (kg/m³), as a body's: air is 1.2,
	// osmium about 22600.
	MinMaterialDensity = 1
	MaxMaterialDensity = 1e5
	// MaxViscosity bounds a material's dynamic viscosity (Pa·s): a million times water's. Anything thicker is
	// a solid to these solvers, and the explicit viscosity step would need steps shorter than a microsecond.
	MaxViscosity = 1000
	// maxMaterialNameBytes bounds a material's name.
	maxMaterialNameBytes = 64
)

// DefaultMaterial is what a fluid block that names no material holds: water at 1000 kg/m³ and 0.001 Pa·s, in the
// renderer's default water colour.
func DefaultMaterial() Material {
	return Material{Name: "water", Density: 1000, Viscosity: 0.001, Color: [3]float64{0.12, 0.40, 0.85}}
}

// Material numbers, as scene.Particle.Material and sim.Frame.Material carry them: 0 is DefaultMaterial and k ≥ 1 is
// Materials[k−1], so that a particle made without a material (its zero value) is water.

// MaterialNumber is the material number of a fluid block's material name: 0 for "" (the default material), k for
// Materials[k−1]. An unknown name is an error naming it and the defined materials.
func (s *Scene) MaterialNumber(name string) (int, error) {
	if name == "" {
		return 0, nil
	}
	for k := range s.Materials {
		if s.Materials[k].Name == name {
			return k + 1, nil
		}
	}
	if len(s.Materials) == 0 {
		return 0, fmt.Errorf("unknown material %s: the scene defines no materials (list them in its \"materials\", or leave the block's material out for water)", jsonmsg.Quote(name))
	}
	names := make([]string, len(s.Materials))
	for k := range s.Materials {
		names[k] = jsonmsg.Quote(s.Materials[k].Name)
	}
	return 0, fmt.Errorf("unknown material %s; the scene's materials are %s", jsonmsg.Quote(name), strings.Join(names, ", "))
}

// MaterialOf is the material with number k (see MaterialNumber): DefaultMaterial for 0 and for numbers the scene
// does not have.
func (s *Scene) MaterialOf(k int) Material {
	if k >= 1 && k <= len(s.Materials) {
		return s.Materials[k-1]
	}
	return DefaultMaterial()
}

// MaterialCount is the number of material numbers the scene's particles may carry: its materials and the default.
func (s *Scene) MaterialCount() int { return len(s.Materials) + 1 }

// validate checks a material at path: a name, a kind this slosh knows, a density, a viscosity and a colour within
// their ranges.
func (m *Material) validate(path string) error {
	if _, ok := m.Kind.Phase(); !ok {
		return errAt(path+".kind", "%s is not a kind of material this slosh simulates; the kinds are %s", jsonmsg.Quote(string(m.Kind)), kindNames())
	}
	switch {
	case m.Name == "":
		return errAt(path+".name", "missing: fluid blocks name their material by it")
	case len(m.Name) > maxMaterialNameBytes:
		return errAt(path+".name", "%s is longer than the %d bytes allowed", jsonmsg.Quote(m.Name), maxMaterialNameBytes)
	case !(m.Density >= MinMaterialDensity) || m.Density > MaxMaterialDensity:
		return errAt(path+".density", "%g kg/m³ is outside [%d, %g]; water is 1000, oil about 800", m.Density, MinMaterialDensity, float64(MaxMaterialDensity))
	case !(m.Viscosity >= 0) || m.Viscosity > MaxViscosity:
		return errAt(path+".viscosity", "%g Pa·s is outside [0, %d]; water is 0.001, honey about 10", m.Viscosity, MaxViscosity)
	}
	if err := m.validateGranular(path); err != nil {
		return err
	}
	if err := m.validateSolid(path); err != nil {
		return err
	}
	if err := m.validateElastoplastic(path); err != nil {
		return err
	}
	for c := 0; c < 3; c++ {
		if !(m.Color[c] >= 0 && m.Color[c] <= 1) {
			return errAt(fmt.Sprintf("%s.color[%d]", path, c), "%g is outside [0, 1]: colours are linear RGB", m.Color[c])
		}
	}
	return nil
}

// validateGranular checks the granular fields: a granular material's within their ranges (the friction angle given),
// and none on a liquid, where they would be ignored.
func (m *Material) validateGranular(path string) error {
	if m.Kind.Canonical() != KindGranular {
		for _, f := range []struct {
			name string
			v    float64
		}{{"friction_angle", m.FrictionAngle}, {"cohesion", m.Cohesion}, {"wall_friction", m.WallFriction}} {
			if f.v != 0 {
				return errAt(path+"."+f.name, "is a granular material's; %s is %s (give it \"kind\": \"granular\" to make it sand)", jsonmsg.Quote(m.Name), jsonmsg.Quote(string(m.Kind.Canonical())))
			}
		}
		return nil
	}
	switch {
	case m.Viscosity != 0:
		return errAt(path+".viscosity", "a granular material has no viscosity: its friction angle and cohesion say how it resists flowing")
	case !(m.FrictionAngle > 0) || m.FrictionAngle > MaxFrictionAngle:
		return errAt(path+".friction_angle", "%g° is missing or outside (0, %d]: dry sand is about 30–35 (frictionless grains: the flip.sand_friction_angle parameter takes 0)", m.FrictionAngle, MaxFrictionAngle)
	case !(m.Cohesion >= 0) || m.Cohesion > MaxCohesion:
		return errAt(path+".cohesion", "%g Pa is outside [0, %g]: dry sand a few Pa, damp sand hundreds", m.Cohesion, float64(MaxCohesion))
	case !(m.WallFriction >= 0) || m.WallFriction > MaxWallFriction:
		return errAt(path+".wall_friction", "%g is outside [0, %d]: sand on wood is about 0.5", m.WallFriction, MaxWallFriction)
	}
	return nil
}

// FirstGranular is the number (MaterialNumber's) of the scene's first granular material, or 0 when it has none.
func (s *Scene) FirstGranular() int {
	for k := range s.Materials {
		if s.Materials[k].Kind.Canonical() == KindGranular {
			return k + 1
		}
	}
	return 0
}

// validateMaterials checks the materials (unique names) and that every fluid block's material is one of them.
func (s *Scene) validateMaterials() error {
	seen := make(map[string]int, len(s.Materials))
	for k := range s.Materials {
		path := fmt.Sprintf("materials[%d]", k)
		if err := s.Materials[k].validate(path); err != nil {
			return err
		}
		if j, dup := seen[s.Materials[k].Name]; dup {
			return errAt(path+".name", "%s is also the name of materials[%d]; names must differ", jsonmsg.Quote(s.Materials[k].Name), j)
		}
		seen[s.Materials[k].Name] = k
		if first := s.FirstGranular(); first > 0 && first-1 < k && s.Materials[k].Kind.Canonical() == KindGranular {
			f, m := &s.Materials[first-1], &s.Materials[k]
			if f.FrictionAngle != m.FrictionAngle || f.Cohesion != m.Cohesion || f.WallFriction != m.WallFriction {
				return errAt(path, "granular materials of one scene share friction_angle, cohesion and wall_friction (the panel tunes them together); %s differs from %s (materials[%d])",
					jsonmsg.Quote(m.Name), jsonmsg.Quote(f.Name), first-1)
			}
		}
	}
	for i := range s.Fluid {
		if _, err := s.MaterialNumber(s.Fluid[i].Material); err != nil {
			return errAt(fmt.Sprintf("fluid[%d].material", i), "%v", err)
		}
	}
	return nil
}
