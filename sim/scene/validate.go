package scene

import (
	"errors"
	"fmt"
	"math"

	"github.com/slosh/slosh/internal/jsonmsg"
)

// Validate checks a decoded scene; errors name the offending field's path. Every count, position, size and angle
// is checked against the limits (limits.go) before any arithmetic or allocation depends on it. It also loads the
// mesh files that mesh shapes name (relative to Source, see Shape.validate) unless they already hold their
// geometry. A scene with a particle spacing is checked at that spacing too (CheckSpacing).
func (s *Scene) Validate() error {
	if err := s.checkCounts(); err != nil {
		return err
	}
	if s.Flat != nil {
		return s.validateFlat()
	}
	meshes := newMeshLoader(s.Source)
	d := s.Domain
	if err := checkPoint("domain.min", d.Min); err != nil {
		return err
	}
	if err := checkPoint("domain.max", d.Max); err != nil {
		return err
	}
	for c := 0; c < 3; c++ {
		if !(d.Max[c] > d.Min[c]) {
			return errAt(fmt.Sprintf("domain.max[%d]", c), "must be greater than domain.min[%d] (%g)", c, d.Min[c])
		}
		if d.Max[c]-d.Min[c] < MinDomain {
			return errAt(fmt.Sprintf("domain.max[%d]", c), "the domain is %g m along axis %d; at least %g m", d.Max[c]-d.Min[c], c, MinDomain)
		}
	}
	if sz := d.Size(); sz.MaxComp() > 1000 {
		return errAt("domain", "is %v m across; slosh's scenes are at most 1000 m", sz)
	}
	p := s.Particles
	switch {
	case !(p.Spacing >= 0):
		return errAt("particles.spacing", "must be > 0")
	case p.Count < 0:
		return errAt("particles.count", "must be > 0")
	case p.Count > MaxParticles:
		return errAt("particles.count", "%d exceeds the limit of %d", p.Count, MaxParticles)
	case p.Spacing == 0 && p.Count == 0:
		return errAt("particles", "give a spacing (m) or a count")
	case p.Spacing > 0 && p.Spacing > d.Size().MaxComp()/2:
		return errAt("particles.spacing", "%g m is larger than half the domain", p.Spacing)
	}
	if len(s.Fluid) == 0 {
		return errAt("fluid", "a scene needs at least one fluid block")
	}
	for i := range s.Fluid {
		path := fmt.Sprintf("fluid[%d]", i)
		if err := s.Fluid[i].validate(path, meshes); err != nil {
			return err
		}
		if err := checkVector(path+".velocity", s.Fluid[i].Velocity, MaxVelocity, "m/s"); err != nil {
			return err
		}
		b := s.Fluid[i].Bounds()
		for c := 0; c < 3; c++ {
			if b.Max[c] <= d.Min[c] || b.Min[c] >= d.Max[c] {
				return errAt(path, "%s lies outside the domain %v–%v", s.Fluid[i].String(), d.Min, d.Max)
			}
		}
	}
	if err := s.validateMaterials(); err != nil {
		return err
	}
	for i := range s.Obstacles {
		path := fmt.Sprintf("obstacles[%d]", i)
		if err := s.Obstacles[i].validate(path, meshes); err != nil {
			return err
		}
		if m := s.Obstacles[i].Motion; m != nil {
			if err := m.validate(path+".motion", d); err != nil {
				return err
			}
		}
	}
	for i := range s.Bodies {
		b := &s.Bodies[i]
		path := fmt.Sprintf("bodies[%d]", i)
		if err := b.validate(path, meshes); err != nil {
			return err
		}
		if !(b.Density >= MinBodyDensity) || b.Density > MaxBodyDensity {
			return errAt(path+".density", "%g kg/m³ is outside [%g, %g]; water is 1000, air 1.2", b.Density, float64(MinBodyDensity), MaxBodyDensity)
		}
		if err := checkVector(path+".velocity", b.Velocity, MaxVelocity, "m/s"); err != nil {
			return err
		}
		if err := checkVector(path+".spin", b.Spin, MaxSpin, "rad/s"); err != nil {
			return err
		}
		bb := b.Bounds()
		for c := 0; c < 3; c++ {
			if bb.Min[c] < d.Min[c] || bb.Max[c] > d.Max[c] {
				return errAt(path, "%s does not fit inside the domain %v–%v", b.String(), d.Min, d.Max)
			}
		}
	}
	for i := range s.Emitters {
		path := fmt.Sprintf("emitters[%d]", i)
		if err := s.Emitters[i].validate(path, d); err != nil {
			return err
		}
		if _, err := s.MaterialNumber(s.Emitters[i].Material); err != nil {
			return errAt(path+".material", "%v", err)
		}
	}
	for i := range s.Blasts {
		if err := s.Blasts[i].validate(fmt.Sprintf("blasts[%d]", i), d); err != nil {
			return err
		}
	}
	for i := range s.Heaters {
		if err := s.Heaters[i].validate(fmt.Sprintf("heaters[%d]", i), meshes); err != nil {
			return err
		}
	}
	if c := s.Camera; c != nil {
		if err := checkPoint("camera.eye", c.Eye); err != nil {
			return err
		}
		if err := checkPoint("camera.target", c.Target); err != nil {
			return err
		}
		if c.Eye == c.Target {
			return errAt("camera.eye", "must differ from camera.target")
		}
		if c.FovY != 0 && !(c.FovY >= 5 && c.FovY <= 150) {
			return errAt("camera.fov", "%g degrees is outside [5, 150]", c.FovY)
		}
	}
	if p.Spacing > 0 && p.Count == 0 {
		if err := s.CheckSpacing(p.Spacing); err != nil {
			var pe *pathErr
			if errors.As(err, &pe) && pe.path == "" {
				pe.path = "particles.spacing"
			}
			return err
		}
	}
	return nil
}

// validate checks the fields of a shape at path. A mesh shape whose geometry is not attached yet loads its file
// through meshes: relative to the scene file, else among the shipped meshes (a shipped scene only uses those).
func (s *Shape) validate(path string, meshes *meshLoader) error {
	unused := func(field string, set bool) error {
		if set {
			return errAt(path+"."+field, "is not used by a %s", s.Kind)
		}
		return nil
	}
	zero := Vec3{}
	positive := func(field string, x float64) error { return checkLength(path+"."+field, x) }
	var errs []error
	switch s.Kind {
	case ShapeBox:
		for c := 0; c < 3; c++ {
			if err := checkLength(fmt.Sprintf("%s.size[%d]", path, c), s.Size[c]); err != nil {
				return err
			}
		}
		errs = append(errs, unused("radius", s.Radius != 0), unused("height", s.Height != 0),
			unused("a", s.A != zero), unused("b", s.B != zero), unused("mesh", s.Mesh != ""), unused("extent", s.Extent != 0))
	case ShapeSphere:
		errs = append(errs, positive("radius", s.Radius), unused("size", s.Size != zero), unused("height", s.Height != 0),
			unused("a", s.A != zero), unused("b", s.B != zero), unused("rotation", s.Rotation != zero), unused("mesh", s.Mesh != ""),
			unused("extent", s.Extent != 0))
	case ShapeCapsule:
		errs = append(errs, positive("radius", s.Radius), unused("center", s.Center != zero), unused("size", s.Size != zero),
			unused("height", s.Height != 0), unused("rotation", s.Rotation != zero), unused("mesh", s.Mesh != ""),
			unused("extent", s.Extent != 0))
	case ShapeCylinder:
		errs = append(errs, positive("radius", s.Radius), positive("height", s.Height), unused("size", s.Size != zero),
			unused("a", s.A != zero), unused("b", s.B != zero), unused("mesh", s.Mesh != ""), unused("extent", s.Extent != 0))
	case ShapeMesh:
		if s.Mesh == "" {
			return errAt(path+".mesh", "missing: the OBJ file, relative to the scene file, or a shipped mesh (%s)", shippedMeshes())
		}
		if s.Size != zero {
			return errAt(path+".size", "is not used by a mesh; give the longest side of its bounding box as extent (m)")
		}
		errs = append(errs, positive("extent", s.Extent), unused("radius", s.Radius != 0), unused("height", s.Height != 0),
			unused("a", s.A != zero), unused("b", s.B != zero))
	case "":
		return errAt(path+".shape", "missing; one of box, sphere, capsule, cylinder, mesh")
	default:
		return errAt(path+".shape", "unknown shape %s; one of box, sphere, capsule, cylinder, mesh", jsonmsg.Quote(s.Kind))
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	// positions and angles are bounded before anything (bounds, volumes, the rotation matrix) is computed
	if s.Kind == ShapeCapsule {
		if err := checkPoint(path+".a", s.A); err != nil {
			return err
		}
		if err := checkPoint(path+".b", s.B); err != nil {
			return err
		}
	} else if err := checkPoint(path+".center", s.Center); err != nil {
		return err
	}
	if err := checkAngles(path+".rotation", s.Rotation); err != nil {
		return err
	}
	if s.Kind == ShapeMesh && len(s.Mesh) > maxMeshNameBytes {
		return errAt(path+".mesh", "%s is longer than the %d bytes a file name may have", jsonmsg.Quote(s.Mesh), maxMeshNameBytes)
	}
	if s.Kind == ShapeMesh && s.MeshData() == nil {
		if meshes == nil {
			return errAt(path+".mesh", "%s is not loaded", jsonmsg.Quote(s.Mesh))
		}
		md, err := meshes.load(s.Mesh)
		if err != nil {
			return errAt(path+".mesh", "%v", err)
		}
		s.meshData = md
	}
	return nil
}

// MaxSpeed bounds an emitter's speed and a moving obstacle's peak speed (m/s): a jet faster than this is a typo,
// and no time step would follow it.
const MaxSpeed = 100

// minPeriod and maxPhase bound a motion's period (s) and phase (radians), so its sine's argument stays finite.
const (
	minPeriod = 1e-3
	maxPhase  = 1e4
)

// validate checks an obstacle's motion at path and normalises its axis. Only translation is described, so the
// moving shape stays the valid shape it was placed as; amplitude is bounded by the domain's size and the peak
// speed 2π·Amplitude/Period by MaxSpeed.
func (m *Motion) validate(path string, domain Box) error {
	if err := unitVector(&m.Axis, path+".axis"); err != nil {
		return err
	}
	size := domain.Size().MaxComp()
	switch {
	case !(m.Amplitude >= 0) || m.Amplitude > size:
		return errAt(path+".amplitude", "%g m is outside [0, %g] (the domain's size)", m.Amplitude, size)
	case !(m.Period > 0) || math.IsInf(m.Period, 0):
		return errAt(path+".period", "must be > 0 (seconds)")
	case m.Period < minPeriod:
		return errAt(path+".period", "%g s is out of range: at least %g s", m.Period, minPeriod)
	case math.IsNaN(m.Phase) || math.IsInf(m.Phase, 0):
		return errAt(path+".phase", "must be a finite number (radians)")
	case math.Abs(m.Phase) > maxPhase:
		return errAt(path+".phase", "%g is out of range: a phase is radians within ±%g", m.Phase, float64(maxPhase))
	}
	if v := 2 * math.Pi * m.Amplitude / m.Period; v > MaxSpeed {
		return errAt(path+".period", "%g s moves the obstacle at up to %.3g m/s; at most %d m/s (make the period longer or the amplitude smaller)", m.Period, v, MaxSpeed)
	}
	return nil
}

// validate checks an emitter at path and normalises its direction. Its disc may be no larger than the domain's
// largest cross-section: a wider one pours particles the walls only pile up.
func (e *Emitter) validate(path string, domain Box) error {
	if err := checkPoint(path+".center", e.Center); err != nil {
		return err
	}
	for c := 0; c < 3; c++ {
		if !(e.Center[c] > domain.Min[c] && e.Center[c] < domain.Max[c]) {
			return errAt(path+".center", "%v lies outside the domain %v–%v", e.Center, domain.Min, domain.Max)
		}
	}
	if err := unitVector(&e.Direction, path+".direction"); err != nil {
		return err
	}
	size := domain.Size().MaxComp()
	switch {
	case !(e.Radius > 0) || e.Radius > size:
		return errAt(path+".radius", "%g m is outside (0, %g] (the domain's size)", e.Radius, size)
	case math.Pi*e.Radius*e.Radius > crossSection(domain):
		a := crossSection(domain)
		return errAt(path+".radius", "%g m makes a disc of %.3g m², larger than the domain's largest cross-section (%.3g m²); at most %.3g m",
			e.Radius, math.Pi*e.Radius*e.Radius, a, math.Sqrt(a/math.Pi))
	case !(e.Speed > 0) || e.Speed > MaxSpeed:
		return errAt(path+".speed", "%g m/s is outside (0, %d]", e.Speed, MaxSpeed)
	case !(e.Start >= 0) || math.IsInf(e.Start, 0):
		return errAt(path+".start", "must be a time ≥ 0 (seconds)")
	case e.Stop != 0 && (!(e.Stop > e.Start) || math.IsInf(e.Stop, 0)):
		return errAt(path+".stop", "must be after start (%g s), or 0 for never", e.Start)
	}
	return nil
}

// MaxBlastTime bounds a blast's time (s): a day of simulated time, far beyond any sitting.
const MaxBlastTime = 86400

// validate checks a blast at path: its centre inside the domain, a radius no larger than the domain, a speed
// within MaxSpeed and a time within [0, MaxBlastTime].
func (b *Blast) validate(path string, domain Box) error {
	if err := checkPoint(path+".center", b.Center); err != nil {
		return err
	}
	for c := 0; c < 3; c++ {
		if !(b.Center[c] >= domain.Min[c] && b.Center[c] <= domain.Max[c]) {
			return errAt(path+".center", "%v lies outside the domain %v–%v", b.Center, domain.Min, domain.Max)
		}
	}
	size := domain.Size().MaxComp()
	switch {
	case !(b.Time >= 0) || b.Time > MaxBlastTime:
		return errAt(path+".time", "%g s is outside [0, %d] (seconds of simulated time)", b.Time, MaxBlastTime)
	case !(b.Radius > 0) || b.Radius > size:
		return errAt(path+".radius", "%g m is outside (0, %g] (the domain's size)", b.Radius, size)
	case b.Radius < MinLength:
		return errAt(path+".radius", "%g m is out of range: at least %g m", b.Radius, MinLength)
	case !(b.Speed > 0) || b.Speed > MaxSpeed:
		return errAt(path+".speed", "%g m/s is outside (0, %d]", b.Speed, MaxSpeed)
	}
	return nil
}

// unitVector checks that *v is a finite non-zero vector and scales it to unit length. A vector already of unit
// length to rounding is left as it is, so that a saved scene reads back identical.
func unitVector(v *Vec3, path string) error {
	for c := 0; c < 3; c++ {
		if math.IsNaN(v[c]) || math.IsInf(v[c], 0) {
			return errAt(path, "%v is not a finite vector", *v)
		}
	}
	l := v.Len()
	if !(v.Abs().MaxComp() > 0) {
		return errAt(path, "must be a non-zero vector")
	}
	if math.Abs(l-1) > 1e-12 {
		u := v.Scale(1 / v.Abs().MaxComp()) // no overflow or underflow in the length
		*v = u.Scale(1 / u.Len())
	}
	return nil
}

// crossSection is the area of the domain's largest face (m²).
func crossSection(domain Box) float64 {
	sz := domain.Size()
	return max(sz[0]*sz[1], sz[1]*sz[2], sz[0]*sz[2])
}
