package game

import (
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/param"
)

// Name is the mode's short name.
const Name = "reduced"

// Feedback choices: how the panels' velocity reaches the reduced fluid (000 §5.3.4).
const (
	FeedbackQuadtree int32 = iota // evaluated at quadtree nodes where the error metric allows, the default
	FeedbackNaive                 // evaluated at every face of the background grid
	FeedbackOff                   // not at all: the bodies feel the fluid but leave no wake
)

// Dynamic pressure choices: the two readings of eq. 5.21 (sim/reduced/panel: ImpactForces and Forces).
const (
	PressureImpact    int32 = iota // the flow pushes the faces it runs into: currents carry bodies, the default
	PressureBernoulli              // ½ρ|u|² suction along the outward normals: potential flow, no drag
	PressureOff
)

// DefaultStrength is the share of the panels' flow the reduced fluid takes each step. §5.3.4 feeds all of it
// back, every step: the panels have no memory, and each step's field is what the reduced fluid has not yet
// learnt of the bodies. But a basis of a few dozen smooth modes cannot learn the flow round a body a few cells
// wide, so each step adds the same unrepresentable part's projection again, and it accumulates: at full strength a
// crate held in a 0.5 m/s current across a 2 × 1.2 m box stopped the current at the crate (0.40 → 0.09 m/s in ten
// frames, the crate never carried), and two falling discs stirred the water so hard that the upper one was thrown
// back to the top. A tenth keeps the wake and the drafting of Figure 5.5 (the upper disc catches up with the lower;
// the tests measure it) while a current carries a crate (0.33 → 0.15 m/s at the crate over a second, the crate
// drifting 7 cm with it, 4 cm since it has the inertia of the water around it); 0.2 already threw the upper disc
// up again once the lower had landed.
const DefaultStrength = 0.1

// View choices: the picture under the bodies and tracers.
const (
	ViewDye   int32 = iota // dye carried by the flow
	ViewSpeed              // the speed of the combined field
	ViewNone               // tracers alone
)

// Config is every parameter of the mode.
type Config struct {
	Modes     int32   // eigenmodes of the basis (drawn currents come on top)
	Grid      int32   // background grid cells along the rectangle's longer side
	Viscosity float32 // ν, m²/s
	Density   float32 // the fluid's density per unit area, kg/m²
	Gravity   float32 // downwards, m/s²
	Buoyancy  bool    // eq. 5.22's buoyancy on the bodies
	Pressure  int32   // eq. 5.21's dynamic pressure on the bodies: PressureImpact, PressureBernoulli or PressureOff

	PanelLength float32 // a panel's length in grid cells
	Tolerance   float32 // Schwarz iterations stop when the panel strengths change by less than this, relative
	Iterations  int32   // most Schwarz iterations a step
	Feedback    int32   // FeedbackQuadtree, FeedbackNaive or FeedbackOff
	Strength    float32 // the share of the panels' flow fed back each step
	Threshold   float32 // the quadtree's error threshold, m/s per unit panel strength

	Tracers     int32   // tracer particles carried by the flow
	View        int32   // ViewDye, ViewSpeed or ViewNone
	StrokeSpeed float32 // the speed of the currents the player draws, m/s
	StrokeWidth float32 // their width, in grid cells

	Step sim.CFL
}

// DefaultConfig is the game of Figure 5.6: 73 eigenmodes on a 65×65 grid.
func DefaultConfig() Config {
	return Config{
		Modes: 73, Grid: 65, Viscosity: 1e-4, Density: 1000, Gravity: 9.81, Buoyancy: true, Pressure: PressureImpact,
		PanelLength: 1, Tolerance: 1e-3, Iterations: 20, Feedback: FeedbackQuadtree, Strength: DefaultStrength, Threshold: 0.05,
		Tracers: 3000, View: ViewDye, StrokeSpeed: 0.6, StrokeWidth: 4,
		Step: sim.CFL{Number: 1, Min: 1, Max: 8},
	}
}

// Register adds the parameters to a set; the values live in c.
func (c *Config) Register(s *param.Set) {
	s.Int(&c.Modes, param.Spec{Name: "reduced.modes", Label: "Eigenmodes", Group: "Reduced|Fluid", Min: 4, Max: 400, SoftMin: 8, SoftMax: 200, OnReset: true,
		Desc: "Laplacian eigenfunctions of the rectangle in the velocity basis, the smoothest first (§5.1; the game of Figure 5.6 has 73); drawn currents join them"})
	s.Int(&c.Grid, param.Spec{Name: "reduced.grid", Label: "Grid cells", Group: "Reduced|Fluid", Min: 8, Max: 512, SoftMin: 16, SoftMax: 256, OnReset: true,
		Desc: "Cells of the staggered background grid along the rectangle's longer side (65 in Table 5.1): drawing, tracers, dye and the panels' feedback live on it"})
	s.Float(&c.Viscosity, param.Spec{Name: "reduced.viscosity", Label: "Viscosity ν", Group: "Reduced|Fluid", Unit: "m²/s", Min: 0, Max: 1, SoftMin: 0, SoftMax: 0.01,
		Desc: "Kinematic viscosity: each mode decays at ν times its eigenvalue (the diagonal D of §5.1)"})
	s.Float(&c.Density, param.Spec{Name: "reduced.fluid_density", Label: "Fluid density", Group: "Reduced|Fluid", Unit: "kg/m²", Min: 1, Max: 1e5, SoftMin: 100, SoftMax: 3000,
		Desc: "The fluid's density per unit area, against which bodies float (lighter) or sink (heavier), and the ρ of the dynamic pressure (eq. 5.20)"})
	s.Float(&c.Gravity, param.Spec{Name: "reduced.gravity", Label: "Gravity", Group: "Reduced|Bodies", Unit: "m/s²", Min: 0, Max: 100, SoftMin: 0, SoftMax: 30,
		Desc: "Downward acceleration of the bodies (Box2D) and the depth pressure of the buoyancy"})
	s.Bool(&c.Buoyancy, param.Spec{Name: "reduced.buoyancy", Label: "Buoyancy", Group: "Reduced|Bodies",
		Desc: "Buoyancy on the bodies' panels, −ρ A h g n (eq. 5.22): light bodies rise and heavy ones sink slowly; off, every body falls"})
	s.Choice(&c.Pressure, param.Spec{Name: "reduced.dynamic_pressure", Label: "Dynamic pressure", Group: "Reduced|Bodies", Items: []string{"impact", "bernoulli", "off"},
		Desc: "The flow's dynamic pressure q = ½ρu² on the bodies' panels, A q n (eq. 5.20–5.21), in one of its two readings: impact, the flow pushing the faces it runs into (currents carry the bodies downstream); bernoulli, suction where the flow past a face is fast (potential flow: no drag, bodies drawn into jets); or none"})
	s.Float(&c.PanelLength, param.Spec{Name: "reduced.panel_length", Label: "Panel length", Group: "Reduced|Panels", Unit: "cells", Min: 0.25, Max: 8, SoftMin: 0.5, SoftMax: 4, OnReset: true,
		Desc: "Bodies are cut into vortex panels of about this many grid cells (§5.3.1), an odd number per side"})
	s.Float(&c.Tolerance, param.Spec{Name: "reduced.schwarz_tolerance", Label: "Schwarz tolerance", Group: "Reduced|Panels", Min: 1e-8, Max: 1, SoftMin: 1e-6, SoftMax: 0.1, Log: true,
		Desc: "The Schwarz iterations between bodies (§5.3.2) stop when the panel strengths change by less than this, relative to their size"})
	s.Int(&c.Iterations, param.Spec{Name: "reduced.schwarz_iterations", Label: "Schwarz iterations (most)", Group: "Reduced|Panels", Min: 0, Max: 200, SoftMin: 0, SoftMax: 50,
		Desc: "Most Schwarz iterations a step; 0 solves each body alone, blind to the others"})
	s.Choice(&c.Feedback, param.Spec{Name: "reduced.feedback", Label: "Feedback", Group: "Reduced|Panels", Items: []string{"quadtree", "naive", "off"},
		Desc: "How the panels' velocity reaches the background grid and is fed back into the reduced fluid (§5.3.4): through the quadtree, at every grid face, or (off) through the quadtree for the tracers and the dye but not into the fluid: no wakes"})
	s.Float(&c.Strength, param.Spec{Name: "reduced.feedback_strength", Label: "Feedback strength", Group: "Reduced|Panels", Min: 0, Max: 1, SoftMin: 0, SoftMax: 0.5,
		Desc: "The share of the panels' flow the reduced fluid takes each step (§5.3.4 feeds back all of it): 1 is the paper's, where a crate blocks a current of its own width within a few frames in a basis of a few dozen modes; lower keeps currents alive and wakes milder"})
	s.Float(&c.Threshold, param.Spec{Name: "reduced.quadtree_threshold", Label: "Quadtree threshold", Group: "Reduced|Panels", Unit: "m/s", Min: 0, Max: 10, SoftMin: 0, SoftMax: 1,
		Desc: "The quadtree feedback evaluates a panel once for a whole node where the precomputed error of doing so (eq. 5.19) is below this per unit strength; 0 is the naive feedback"})
	s.Int(&c.Tracers, param.Spec{Name: "reduced.tracers", Label: "Tracers", Group: "Reduced|View", Min: 0, Max: 1 << 20, SoftMin: 0, SoftMax: 50000, OnReset: true,
		Desc: "Tracer particles carried by the combined field (the reduced fluid plus the panels)"})
	s.Choice(&c.View, param.Spec{Name: "reduced.view", Label: "Picture", Group: "Reduced|View", Items: []string{"dye", "speed", "none"},
		Desc: "Under the bodies: dye carried by the flow, the flow's speed, or nothing but the tracers"})
	s.Float(&c.StrokeSpeed, param.Spec{Name: "reduced.stroke_speed", Label: "Current speed", Group: "Reduced|Game", Unit: "m/s", Min: 0.01, Max: 10, SoftMin: 0.05, SoftMax: 3,
		Desc: "How fast the currents you draw run"})
	s.Float(&c.StrokeWidth, param.Spec{Name: "reduced.stroke_width", Label: "Current width", Group: "Reduced|Game", Unit: "cells", Min: 1, Max: 32, SoftMin: 1, SoftMax: 16,
		Desc: "How wide the currents you draw are, in grid cells"})
	// No real-time mode (sim.CFL's reduced.realtime): the game has no particle velocities to clamp. Its flow is the
	// eigenmodes' coefficients, advanced by an exponential that conserves their energy at any step (its own
	// sub-steps keep the Taylor series short), and the tracers, the dye and Box2D follow that field; a speed
	// clamp would have to scale the whole flow down, which is not FleX's clamp. Its steps are cheap (8 at most).
	c.Step.RegisterWithoutRealTime(s, "reduced", "Reduced|Time step", "cells", "grid cells")
}
