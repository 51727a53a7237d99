package upsample

import "github.com/slosh/slosh/sim/param"

// Params are the panel's copies of the tunables, in the types param.Set binds (Config's are wider for callers).
type Params struct {
	Levels       int32
	Detect, Keep float32
	Beta         float32
}

// DefaultParams are DefaultConfig's values.
func DefaultParams() Params {
	c := DefaultConfig()
	return Params{Levels: int32(c.Levels), Detect: float32(c.Detect), Keep: float32(c.Keep), Beta: float32(c.Beta)}
}

// Register adds the parameters to a set; the values live in p.
func (p *Params) Register(s *param.Set) {
	const group = "Surface|Upsampling"
	s.Int(&p.Levels, param.Spec{Name: "upsample.levels", Label: "Refinement levels", Group: group, Min: 0, Max: MaxLevels, SoftMax: 4,
		Desc: "Refinement steps over the surface particles; each adds children between neighbour pairs and multiplies the points by about 3–4 (Solenthaler §6.2)"})
	s.Float(&p.Detect, param.Spec{Name: "upsample.detect", Label: "Surface threshold", Group: group, Unit: "× r", Min: 0.01, Max: 0.99, SoftMax: 0.5,
		Desc: "A particle becomes surface when the centre of mass of its neighbours lies farther than this from it (eq. 6.1)"})
	s.Float(&p.Keep, param.Spec{Name: "upsample.keep", Label: "Stay-surface threshold", Group: group, Unit: "× r", Min: 0, Max: 0.99, SoftMax: 0.5,
		Desc: "A surface particle stays surface while its centre-of-mass distance exceeds this (at most the surface threshold), so particles near it do not flicker"})
	s.Float(&p.Beta, param.Spec{Name: "upsample.beta", Label: "Collision distance β", Group: group, Unit: "× r_i", Min: 0.01, Max: maxBeta,
		Desc: "Children closer than β to an existing point are rejected and pull it towards them (§6.2.3); larger gives fewer, more even points"})
}

// Config returns base with p's values in place of its own. The panel can set the stay-surface threshold above the
// surface threshold; it is then taken as equal to it.
func (p Params) Config(base Config) Config {
	base.Levels, base.Detect, base.Beta = int(p.Levels), float64(p.Detect), float64(p.Beta)
	base.Keep = float64(min(p.Keep, p.Detect))
	return base
}
