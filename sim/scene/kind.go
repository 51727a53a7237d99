package scene

import (
	"fmt"
	"strings"

	"github.com/slosh/slosh/internal/jsonmsg"
)

// Kind is what sort of material a Material is: it says which parameters the material has and how particles of it
// behave and are drawn (its Phase). Each kind is written once, here, with its parameters in Material; a mode says
// which kinds it simulates.
type Kind string

// The kinds of material.
const (
	// KindLiquid is a fluid: density, viscosity and colour. "" means it too, so that scenes written before kinds
	// existed read as they did.
	KindLiquid Kind = "liquid"
	// KindGranular is sand (Zhu & Bridson 2005, §3): density, colour, the friction angle φ, the cohesion c and the
	// friction μ against walls, obstacles and bodies (Material's granular fields). Mode flip simulates it.
	KindGranular Kind = "granular"
	// KindElastic, KindPlastic and KindRigid are Solenthaler's solids (004 ch. 5; Material's solid fields): what
	// the material is below its solidifying point. An elastic solid has Young's modulus E and Poisson's ratio ν
	// (§5.2); a plastic one also an elastic and a plastic limit (§5.2.4); a rigid one moves as a rigid body of its
	// particles (§5.3). Between the solidifying and the melting point each is elastic with E falling to zero, above
	// the melting point liquid (Figure 5.5). Mode sph simulates them.
	KindElastic Kind = "elastic"
	KindPlastic Kind = "plastic"
	KindRigid   Kind = "rigid"
	// KindElastoplastic is Gerszewski's point-based elastoplastic material (000 ch. 4; Material's elastoplastic
	// fields, elastoplastic.go): dough, clay and jelly whose deformation gradient each particle composes step by
	// step from its neighbours' motion, with Bargteil's multiplicative plasticity. Mode sph simulates it.
	KindElastoplastic Kind = "elastoplastic"
)

// Phase is how particles of a material are drawn, meshed and exported: a liquid's make the water surface; grains and
// solids are drawn as particles (or their own surfaces), never as water.
type Phase uint8

// The phases.
const (
	PhaseLiquid   Phase = iota // part of the liquid's surface
	PhaseGranular              // grains: sand
	PhaseSolid                 // an elastic or plastic solid's particles (or a rigid one's between its points)
	PhaseRigid                 // a rigid body's particles
)

// String names the phase, as the exporters write it.
func (p Phase) String() string {
	switch p {
	case PhaseLiquid:
		return "liquid"
	case PhaseGranular:
		return "granular"
	case PhaseSolid:
		return "solid"
	case PhaseRigid:
		return "rigid"
	}
	return "unknown"
}

// Phase is the phase of the kind's particles, and whether this slosh knows the kind at all.
func (k Kind) Phase() (Phase, bool) {
	switch k {
	case "", KindLiquid:
		return PhaseLiquid, true
	case KindGranular:
		return PhaseGranular, true
	case KindElastic, KindPlastic, KindElastoplastic:
		return PhaseSolid, true
	case KindRigid:
		return PhaseRigid, true
	}
	return 0, false
}

// Canonical is the kind's name ("" is KindLiquid).
func (k Kind) Canonical() Kind {
	if k == "" {
		return KindLiquid
	}
	return k
}

// Kinds lists the kinds this slosh knows, in the order of their documentation.
func Kinds() []Kind {
	return []Kind{KindLiquid, KindGranular, KindElastic, KindPlastic, KindRigid, KindElastoplastic}
}

// Solid says whether the kind is one of Solenthaler's solids (elastic, plastic, rigid).
func (k Kind) Solid() bool { return k == KindElastic || k == KindPlastic || k == KindRigid }

// OwnSurface says whether the kind's particles make a surface of their own, apart from the liquid's, in meshes:
// sand's grains and the elastoplastic material's dough. Solenthaler's solids change phase with temperature, so
// their particles are drawn as particles and not meshed.
func (k Kind) OwnSurface() bool { return k == KindGranular || k == KindElastoplastic }

// Body says whether a block of the kind is a body that keeps its shape for a while: Solenthaler's solids and the
// elastoplastic material, what the tools' drop-body button drops.
func (k Kind) Body() bool { return k.Solid() || k == KindElastoplastic }

func kindNames() string {
	var names []string
	for _, k := range Kinds() {
		names = append(names, jsonmsg.Quote(string(k)))
	}
	return strings.Join(names, ", ")
}

// PhaseOf is the phase of material number k (MaterialOf's numbering).
func (s *Scene) PhaseOf(k int) Phase {
	p, _ := s.MaterialOf(k).Kind.Phase()
	return p
}

// CheckKinds says whether a mode that simulates the kinds given can run the scene: an error names the first
// material of another kind, its kind, the mode and the kinds it simulates.
func (s *Scene) CheckKinds(mode string, kinds []Kind) error {
	for i := range s.Materials {
		k := s.Materials[i].Kind.Canonical()
		ok := false
		for _, have := range kinds {
			ok = ok || have.Canonical() == k
		}
		if !ok {
			var names []string
			for _, have := range kinds {
				names = append(names, string(have.Canonical()))
			}
			return errAt(fmt.Sprintf("materials[%d].kind", i), "the material %s is %s, which mode %s does not simulate (it simulates %s)",
				jsonmsg.Quote(s.Materials[i].Name), jsonmsg.Quote(string(k)), mode, strings.Join(names, ", "))
		}
	}
	return nil
}
