package scene

import (
	"fmt"
	"math"
)

// Validate checks a decoded scene; errors name the offending field's path. It also loads the mesh files that mesh
// shapes name (relative to Source, see Shape.validate) unless they already hold their geometry.
func (s *Scene) Validate() error {
	meshes := newMeshLoader(s.Source)
	d := s.Domain
	for c := 0; c < 3; c++ {
		if !(d.Max[c] > d.Min[c]) {
			return errAt(fmt.Sprintf("domain.max[%d]", c), "must be greater than domain.min[%d] (%g)", c, d.Min[c])
		}
	}
	if sz := d.Size(); sz.MaxComp() > 1000 {
		return errAt("domain", "is %v m across; slosh's scenes are at most 1000 m", sz)
	}
	p := s.Particles
	switch {
	case p.Spacing < 0:
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
		b := s.Fluid[i].Bounds()
		for c := 0; c < 3; c++ {
			if b.Max[c] <= d.Min[c] || b.Min[c] >= d.Max[c] {
				return errAt(path, "%s lies outside the domain %v–%v", s.Fluid[i].String(), d.Min, d.Max)
			}
		}
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
		if !(b.Density > 0) || b.Density > MaxBodyDensity {
			return errAt(path+".density", "%g kg/m³ is outside (0, %g]; water is 1000", b.Density, MaxBodyDensity)
		}
		bb := b.Bounds()
		for c := 0; c < 3; c++ {
			if bb.Min[c] < d.Min[c] || bb.Max[c] > d.Max[c] {
				return errAt(path, "%s does not fit inside the domain %v–%v", b.String(), d.Min, d.Max)
			}
		}
	}
	for i := range s.Emitters {
		if err := s.Emitters[i].validate(fmt.Sprintf("emitters[%d]", i), d); err != nil {
			return err
		}
	}
	if c := s.Camera; c != nil {
		if c.Eye == c.Target {
			return errAt("camera.eye", "must differ from camera.target")
		}
		if c.FovY != 0 && (c.FovY < 5 || c.FovY > 150) {
			return errAt("camera.fov", "%g degrees is outside [5, 150]", c.FovY)
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
	positive := func(field string, x float64) error {
		if !(x > 0) {
			return errAt(path+"."+field, "must be > 0")
		}
		return nil
	}
	var errs []error
	switch s.Kind {
	case ShapeBox:
		for c := 0; c < 3; c++ {
			if !(s.Size[c] > 0) {
				return errAt(fmt.Sprintf("%s.size[%d]", path, c), "must be > 0")
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
		return errAt(path+".shape", "unknown shape %q; one of box, sphere, capsule, cylinder, mesh", s.Kind)
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	if s.Kind == ShapeMesh && s.MeshData() == nil {
		if meshes == nil {
			return errAt(path+".mesh", "%q is not loaded", s.Mesh)
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
	case math.IsNaN(m.Phase) || math.IsInf(m.Phase, 0):
		return errAt(path+".phase", "must be a finite number (radians)")
	}
	if v := 2 * math.Pi * m.Amplitude / m.Period; v > MaxSpeed {
		return errAt(path+".period", "%g s moves the obstacle at up to %.3g m/s; at most %d m/s (make the period longer or the amplitude smaller)", m.Period, v, MaxSpeed)
	}
	return nil
}

// validate checks an emitter at path and normalises its direction.
func (e *Emitter) validate(path string, domain Box) error {
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
	case !(e.Speed > 0) || e.Speed > MaxSpeed:
		return errAt(path+".speed", "%g m/s is outside (0, %d]", e.Speed, MaxSpeed)
	case !(e.Start >= 0) || math.IsInf(e.Start, 0):
		return errAt(path+".start", "must be a time ≥ 0 (seconds)")
	case e.Stop != 0 && (!(e.Stop > e.Start) || math.IsInf(e.Stop, 0)):
		return errAt(path+".stop", "must be after start (%g s), or 0 for never", e.Start)
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
