package scene

import (
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/jsonmsg"
)

// Limits on what a scene file may ask for. Scenes are shared, so a file is checked against these before anything
// is computed or allocated from it; every refusal names the field, the value and the limit.
const (
	// MaxFileBytes bounds a scene file: the largest scene the counts below allow is a few hundred kilobytes.
	MaxFileBytes = 1 << 20

	// MaxCoord bounds every position (m): domain corners, centres, capsule ends, emitters, the camera. The solvers
	// compute in 32-bit floats, and arithmetic on larger numbers (a rotated box's corners, squared distances)
	// could overflow.
	MaxCoord = 1e4
	// MinLength and MaxLength bound every size (m): box sides, radii, heights, mesh extents.
	MinLength = 1e-6
	MaxLength = 1e4
	// MinDomain is the smallest side of the domain (m).
	MinDomain = 1e-3
	// MinSpacing is the finest particle spacing (m): below it the solvers' 32-bit kernel constants (1/h⁹)
	// overflow.
	MinSpacing = 1e-4
	// MaxDegrees bounds a rotation angle: ten turns either way.
	MaxDegrees = 3600
	// MaxVelocity bounds the initial velocity of fluid blocks and bodies (m/s): faster than sound in water, and
	// the step a solver would need to follow it, is a typo. Emitters and moving obstacles have MaxSpeed.
	MaxVelocity = 1000
	// MaxSpin bounds a body's angular velocity (rad/s), about 1600 turns a second.
	MaxSpin = 1e4
	// MinBodyDensity bounds a body's density from below (kg/m³): air is 1.2. Lighter bodies have inverse masses
	// that the solvers' 32-bit arithmetic cannot hold next to the fluid's.
	MinBodyDensity = 1

	// MaxFluidBlocks bounds the fluid blocks: sampling tests every lattice point against the blocks.
	MaxFluidBlocks = 256
	// MaxObstacles bounds the obstacles: every particle is tested against every obstacle in each of the
	// solver's iterations, so a step's time grows with particles × obstacles.
	MaxObstacles = 256
	// MaxBodies bounds the rigid bodies: the solvers' work on bodies grows faster than their number.
	MaxBodies = 256
	// MaxEmitters bounds the emitters: each one adds a disc of particles whenever its stream has moved a spacing.
	MaxEmitters = 64
	// MaxBlasts bounds the blasts: each one is tested against every particle in the step it fires.
	MaxBlasts = 64
	// MaxHeaters bounds the heaters: each one tests every particle each step.
	MaxHeaters = 64
	// MaxMaterials bounds a scene's materials: each particle carries its material number in a byte, and the
	// renderer keeps the palette (the default material and these) in one uniform array.
	MaxMaterials = 16
	// MaxMeshFiles bounds the distinct OBJ files a scene names (a file may be used by any number of shapes):
	// each gets its own distance grid, kept in memory and on the GPU.
	MaxMeshFiles = 32
	// MaxDiscPoints bounds the particles of one emitter's disc: a layer that size, added each time the stream
	// moves a spacing, reaches the particle limit within 16 layers.
	MaxDiscPoints = 1 << 20

	// maxNameBytes, maxModeBytes, maxDescriptionBytes and maxParamNameBytes bound the scene's strings.
	maxNameBytes        = 200
	maxModeBytes        = 64
	maxDescriptionBytes = 4000
	maxParamNameBytes   = 100
	maxMeshNameBytes    = 1024
	// maxVisited bounds the lattice points sampling visits (the box around the fluid blocks at the spacing), so
	// that a fine spacing with little fluid in a wide box cannot keep it busy for minutes.
	maxVisited = 16 * MaxParticles
)

// checkCounts refuses scenes with more fluid blocks, obstacles, bodies or emitters than the limits, and strings
// longer than anyone writes.
func (s *Scene) checkCounts() error {
	for _, c := range []struct {
		path     string
		n, limit int
		why      string
	}{
		{"materials", len(s.Materials), MaxMaterials, "particles carry their material number in a byte and the renderer's palette is small: share a material between blocks"},
		{"fluid", len(s.Fluid), MaxFluidBlocks, "sampling tests every lattice point against the blocks: merge blocks into larger ones"},
		{"obstacles", len(s.Obstacles), MaxObstacles, "every particle is tested against every obstacle in each solver iteration: merge obstacles, or use one mesh for many"},
		{"bodies", len(s.Bodies), MaxBodies, "the solvers' work on bodies grows faster than their number"},
		{"emitters", len(s.Emitters), MaxEmitters, "each emitter adds a disc of particles every time its stream moves a spacing: use fewer, wider ones"},
		{"blasts", len(s.Blasts), MaxBlasts, "each blast visits every particle in the step it fires: use fewer, wider ones"},
		{"heaters", len(s.Heaters), MaxHeaters, "each heater tests every particle each step: use fewer, larger ones"},
	} {
		if c.n > c.limit {
			return errAt(c.path, "%d entries, over the limit of %d (%s)", c.n, c.limit, c.why)
		}
	}
	for _, c := range []struct {
		path  string
		s     string
		limit int
	}{{"name", s.Name, maxNameBytes}, {"mode", s.Mode, maxModeBytes}, {"description", s.Description, maxDescriptionBytes}} {
		if len(c.s) > c.limit {
			return errAt(c.path, "%s is longer than the %d bytes allowed", jsonmsg.Quote(c.s), c.limit)
		}
	}
	for k := range s.Params {
		if len(k) > maxParamNameBytes {
			return errAt("params", "%s is not a parameter name: names are at most %d bytes (see slosh params)", jsonmsg.Quote(k), maxParamNameBytes)
		}
	}
	return nil
}

// checkPoint refuses a position with a coordinate that is not a finite number within ±MaxCoord, before any
// arithmetic on it.
func checkPoint(path string, p Vec3) error {
	for c := 0; c < 3; c++ {
		if !(math.Abs(p[c]) <= MaxCoord) {
			return errAt(fmt.Sprintf("%s[%d]", path, c), "%g is out of range: positions lie within ±%g m of the origin", p[c], float64(MaxCoord))
		}
	}
	return nil
}

// checkLength refuses a size that is not > 0, or outside [MinLength, MaxLength].
func checkLength(path string, x float64) error {
	switch {
	case !(x > 0):
		return errAt(path, "must be > 0")
	case x < MinLength || x > MaxLength:
		return errAt(path, "%g m is out of range: sizes lie within [%g, %g] m", x, MinLength, float64(MaxLength))
	}
	return nil
}

// checkAngles refuses rotation angles that are not finite or beyond ±MaxDegrees.
func checkAngles(path string, r Vec3) error {
	for c := 0; c < 3; c++ {
		if !(math.Abs(r[c]) <= MaxDegrees) {
			return errAt(fmt.Sprintf("%s[%d]", path, c), "%g is out of range: rotations are degrees within ±%d", r[c], MaxDegrees)
		}
	}
	return nil
}

// checkVector refuses a vector whose length is not finite or over limit (unit says what it measures).
func checkVector(path string, v Vec3, limit float64, unit string) error {
	for c := 0; c < 3; c++ {
		if !(math.Abs(v[c]) <= limit) {
			return errAt(fmt.Sprintf("%s[%d]", path, c), "%g %s is out of range: at most %g", v[c], unit, limit)
		}
	}
	if l := v.Len(); l > limit {
		return errAt(path, "%v is %.4g %s long; at most %g", v, l, unit, limit)
	}
	return nil
}
