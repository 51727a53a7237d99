package field

import (
	"fmt"

	"github.com/slosh/slosh/sim/param"
)

// Settings are the meshing parameters as the panel, --set and presets see them: lengths in particle spacings.
// Config turns them into a Config for a particle spacing.
type Settings struct {
	Support float32 // R, in particle spacings
	Cell    float32 // h, in particle spacings
	Correct bool
	TLow    float32
	THigh   float32
	Smooth  int32
}

// DefaultSettings are DefaultConfig's values.
func DefaultSettings() Settings {
	return Settings{Support: defaultSupport, Cell: defaultCell, Correct: true, TLow: defaultTLow, THigh: defaultTHigh, Smooth: defaultSmooth}
}

// Register adds the parameters to a set; the values live in s.
func (s *Settings) Register(ps *param.Set) {
	const group = "Surface|Mesh"
	ps.Float(&s.Support, param.Spec{Name: "mesh.support", Label: "Neighbourhood R", Group: group, Unit: "× spacing", Min: 1, Max: 6, SoftMin: 1.5, SoftMax: 4,
		Desc: "Radius of the particles' weighted mean x̄ in φ = |x − x̄| − r (Zhu & Bridson: twice the spacing); larger is smoother"})
	ps.Float(&s.Cell, param.Spec{Name: "mesh.cell", Label: "Grid cell h", Group: group, Unit: "× spacing", Min: 0.1, Max: 2, SoftMin: 0.25, SoftMax: 1, Log: true,
		Desc: "Spacing of the grid the surface is sampled on and marched; half the particle spacing by default"})
	ps.Bool(&s.Correct, param.Spec{Name: "mesh.correct", Label: "Concave correction", Group: group,
		Desc: "Pull the surface in where the weighted mean moves faster than the query point (Solenthaler, 004 eq. 6.20–6.23): no blobs in concave corners or between separated particles"})
	ps.Float(&s.TLow, param.Spec{Name: "mesh.t_low", Label: "Correction t_low", Group: group, Min: 0, Max: 10, SoftMin: 0, SoftMax: 2,
		Desc: "Largest eigenvalue of ∇x̄ below which the surface keeps its full distance r"})
	ps.Float(&s.THigh, param.Spec{Name: "mesh.t_high", Label: "Correction t_high", Group: group, Min: 0.1, Max: 20, SoftMin: 1, SoftMax: 5,
		Desc: "Largest eigenvalue of ∇x̄ at which the surface has contracted onto the weighted mean"})
	ps.Rule(func() error { return s.Check() }) // the live values, not a copy taken now
	ps.Int(&s.Smooth, param.Spec{Name: "mesh.smooth", Label: "Smoothing passes", Group: group, Min: 0, Max: MaxSmooth,
		Desc: "Passes of grid smoothing that only lowers φ (002 §5), so the surface never shrinks"})
}

// Check says, in the parameters' own names, what would make Config fail at any spacing: the thresholds out of
// order, a correction that removes a flat surface, or a support and grid that cannot hold the surface's band. The
// settings are in spacings, so one spacing stands for all.
func (s Settings) Check() error {
	if s.Correct && !(s.THigh > s.TLow) {
		return fmt.Errorf("mesh.t_high %g must exceed mesh.t_low %g (or turn mesh.correct off)", s.THigh, s.TLow)
	}
	c := Config{Support: float64(s.Support), Cell: float64(s.Cell), Correct: s.Correct, TLow: float64(s.TLow), THigh: float64(s.THigh),
		Smooth: int(s.Smooth), Workers: 1}
	r, err := FlatRadius(1, c)
	if err != nil {
		off := c
		off.Correct = false
		if _, err := FlatRadius(1, off); err == nil {
			return fmt.Errorf("at mesh.support %g and mesh.t_high %g the correction removes a flat surface entirely: raise either, or turn mesh.correct off",
				s.Support, s.THigh)
		}
		return fmt.Errorf("mesh.support %g spacings is too small to make a surface of a flat lattice: raise it", s.Support)
	}
	switch {
	case c.Support <= r:
		return fmt.Errorf("mesh.support %g spacings does not reach beyond the surface's distance r = %.3g spacings: raise it", s.Support, r)
	case c.Cell > c.Support-r:
		return fmt.Errorf("mesh.cell %g spacings is more than mesh.support − r = %.3g spacings, so the grid would miss the surface: lower mesh.cell or raise mesh.support",
			s.Cell, c.Support-r)
	case c.Support > 64*c.Cell:
		return fmt.Errorf("mesh.support %g spacings is more than 64 cells of mesh.cell %g: raise mesh.cell", s.Support, s.Cell)
	}
	return nil
}

// Config is the configuration for particles spacing m apart, with the radius r from FlatRadius and workers
// workers (0: GOMAXPROCS).
func (s Settings) Config(spacing float64, workers int) (Config, error) {
	if err := s.Check(); err != nil {
		return Config{}, err
	}
	c := Config{
		Support: float64(s.Support) * spacing,
		Cell:    float64(s.Cell) * spacing,
		Correct: s.Correct,
		TLow:    float64(s.TLow),
		THigh:   float64(s.THigh),
		Smooth:  int(s.Smooth),
		Workers: workers,
	}
	r, err := FlatRadius(spacing, c)
	if err != nil {
		return Config{}, fmt.Errorf("field: settings: %w", err)
	}
	c.Radius = r
	if err := c.Check(); err != nil {
		return Config{}, fmt.Errorf("field: settings: %w", err)
	}
	return c, nil
}
