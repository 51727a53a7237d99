// Package scene describes what a simulation starts from: the domain (the tank), blocks of fluid, static
// obstacles, the camera, and parameter overrides. Every mode reads the same scene file and says which parts it
// cannot honour.
//
// Scenes are strict JSON in metres, seconds and kilograms. Unknown fields and out-of-range values are errors that
// name the file and the field's path: `scenes/pool.json: fluid[1].size: must be > 0`.
//
// Shapes are analytic (box, sphere, capsule, cylinder) or triangle meshes: {"shape": "mesh", "mesh": "bunny.obj",
// "extent": 0.3, "center": [...], "rotation": [...]}, an OBJ file relative to the scene file or one of the shipped
// meshes (assets/meshes), scaled so that the longest side of its bounding box is extent. Validation loads each
// mesh file once per scene, checks that it is a closed solid (sim/mesh) and keeps its signed distance grid on the
// shape, so that SDF, Distance, Bounds and Volume work for meshes as for the analytic shapes.
//
// Things that move: rigid bodies (posed by Shape.Posed as they turn and travel), obstacles with a Motion (a
// kinematic translation, Obstacle.ShapeAt), and emitters that pour discs of particles (Emitter.Disc) while
// Active. Blasts push the fluid outward once, at a time (Blast.Fires). Marshal writes a scene back as a file Parse
// reads to the same scene.
package scene

import (
	"encoding/json"

	"github.com/slosh/slosh/sim/mesh"
)

// Vec3 is a point or vector in metres (sim/mesh's, which owns the geometry).
type Vec3 = mesh.Vec3

// Scene is a whole scene file.
type Scene struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Mode is the mode the scene opens in when none is asked for.
	Mode string `json:"mode,omitempty"`

	Domain    Box       `json:"domain"`
	Particles Particles `json:"particles"`
	// Materials are the fluids the blocks are made of, by name (material.go); none: every block is water.
	Materials []Material `json:"materials,omitempty"`
	Fluid     []Fluid    `json:"fluid"`
	Obstacles []Obstacle `json:"obstacles,omitempty"`
	Bodies    []Body     `json:"bodies,omitempty"`
	Emitters  []Emitter  `json:"emitters,omitempty"`
	Blasts    []Blast    `json:"blasts,omitempty"`
	// Heaters warm or cool the particles inside them (solid.go); mode sph reads them.
	Heaters []Heater    `json:"heaters,omitempty"`
	Camera  *Camera     `json:"camera,omitempty"`
	Params  ParamValues `json:"params,omitempty"`
	// Flat makes this a 2D scene for the reduced mode (flat.go): a rectangle of fluid with bodies, currents and
	// a goal, and none of the 3D parts above.
	Flat *Flat `json:"flat,omitempty"`

	// Source is where the scene came from (a file path or "builtin:NAME"); not part of the file.
	Source string `json:"-"`
}

// Box is an axis-aligned box given by its corners.
type Box struct {
	Min Vec3 `json:"min"`
	Max Vec3 `json:"max"`
}

// Size is Max − Min.
func (b Box) Size() Vec3 { return b.Max.Sub(b.Min) }

// Center is the middle of the box.
func (b Box) Center() Vec3 { return b.Min.Add(b.Max).Scale(0.5) }

// Particles sets the resolution: a lattice spacing, or a target particle count from which the spacing is derived.
type Particles struct {
	Spacing float64 `json:"spacing,omitempty"` // m
	Count   int     `json:"count,omitempty"`   // overrides Spacing when > 0
}

// Fluid is a block of fluid at rest or moving with an initial velocity, made of the material it names (one of the
// scene's Materials; "" is DefaultMaterial, water).
type Fluid struct {
	Shape
	Velocity Vec3   `json:"velocity,omitempty"`
	Material string `json:"material,omitempty"`
}

// Body is a rigid body: a solid that moves with the fluid and floats or sinks by its density relative to the
// fluid's. Where it is placed it displaces the fluid (the fluid's lattice points inside it are left out).
type Body struct {
	Shape
	Density  float64 `json:"density"`            // kg/m³
	Velocity Vec3    `json:"velocity,omitempty"` // of its centre of mass, m/s
	Spin     Vec3    `json:"spin,omitempty"`     // angular velocity, rad/s
}

// MaxBodyDensity bounds a body's density: osmium is about 22600 kg/m³.
const MaxBodyDensity = 1e5

// Obstacle is a solid the fluid flows around: static, or moved along a path (a wave-maker's paddle) when Motion is
// set. A moving obstacle is kinematic: it pushes fluid and bodies and nothing pushes it.
type Obstacle struct {
	Shape
	Motion *Motion `json:"motion,omitempty"`
}

// Motion is a kinematic obstacle's path: a translation by Axis·Amplitude·sin(2π t/Period + Phase) from where the
// shape is placed, t the simulated time in seconds.
type Motion struct {
	Axis      Vec3    `json:"axis"`            // direction; validation normalises it
	Amplitude float64 `json:"amplitude"`       // m
	Period    float64 `json:"period"`          // s
	Phase     float64 `json:"phase,omitempty"` // radians
}

// Emitter pours fluid: every time the stream has moved one particle spacing it adds a disc of particles of the
// given radius at Center, moving at Speed along Direction, between Start and Stop (simulated seconds; Stop 0 is
// never). The particles are of Material, named as a fluid block names its material.
type Emitter struct {
	Center    Vec3    `json:"center"`
	Direction Vec3    `json:"direction"` // validation normalises it
	Radius    float64 `json:"radius"`    // m
	Speed     float64 `json:"speed"`     // m/s
	Start     float64 `json:"start,omitempty"`
	Stop      float64 `json:"stop,omitempty"`
	// Material is the name of one of the scene's Materials; "" is DefaultMaterial, water. A mode without
	// materials pours its one fluid whatever the name.
	Material string `json:"material,omitempty"`
}

// Blast is an impulse in the fluid, an explosion under water: at simulated time Time (s) every fluid particle
// within Radius of Center gets an outward velocity added once, Speed·(1 − r/Radius) along the direction from
// Center to the particle (r its distance from Center), so the push is Speed at the centre and fades to nothing
// at the rim. A particle exactly at Center is pushed straight up (against gravity's usual direction, +y).
// sim/blast applies blasts for the solvers.
type Blast struct {
	Time   float64 `json:"time"`   // s, ≥ 0
	Center Vec3    `json:"center"` // m, inside the domain
	Radius float64 `json:"radius"` // m
	Speed  float64 `json:"speed"`  // m/s at the centre
}

// Fires reports whether the blast goes off in the step from t0 to t1 (s): t0 ≤ Time < t1, so that steps which
// tile time fire it exactly once.
func (b *Blast) Fires(t0, t1 float64) bool { return t0 <= b.Time && b.Time < t1 }

// Camera is the initial view.
type Camera struct {
	Eye    Vec3    `json:"eye"`
	Target Vec3    `json:"target"`
	FovY   float64 `json:"fov,omitempty"` // degrees
}

// ParamValues are parameter overrides by full name, checked against the solver's param.Set when the scene is
// opened in a mode: {"pbf.iterations": 4, "pbf.gravity": [0, -9.81, 0]}.
type ParamValues map[string]json.RawMessage

// Bounds returns the box that holds the domain and everything in it, moving obstacles wherever they go.
func (s *Scene) Bounds() Box {
	b := s.Domain
	for _, o := range s.Obstacles {
		ob := o.Bounds()
		if m := o.Motion; m != nil {
			// the path is a segment from −Amplitude to +Amplitude along Axis
			d := m.Axis.Scale(m.Amplitude)
			ob.Min, ob.Max = ob.Min.Sub(d.Abs()), ob.Max.Add(d.Abs())
		}
		b.Min, b.Max = b.Min.Min(ob.Min), b.Max.Max(ob.Max)
	}
	return b
}
