// Package usd writes a whole run as one USD stage (Pixar's Universal Scene Description, the text form usda), the
// format Houdini's Solaris, Omniverse and usdview are built around and Blender imports: the particles as a Points
// prim with their velocities, ids and per-particle values, the fluid's surface (and each granular material's) as a
// Mesh per frame, each rigid body as a Mesh moved by a transform over time, and the camera.
//
// # The layout
//
// A run of hundreds of frames with a hundred thousand particles is gigabytes of samples, so it is not one file.
// Each frame is a layer of its own, usd.000001.usda on (FrameName), holding that frame's values as time samples at
// its time code; the small root stage, slosh.usda (RootName), defines the prims and stitches the frames together
// with USD's value clips — the mechanism USD provides for per-frame caches (the `clips` metadata on /World, a
// template naming usd.######.usda from 1 to the last frame: each frame's layer is the active clip at its time
// code). The root is a few hundred bytes whatever the run's length, so rewriting it after every frame is cheap. A
// manifest layer, usd_manifest.usda (ManifestName), declares which attributes the clips supply, so that a reader
// opening the stage need not open every frame to find out.
//
//	slosh.usda            the stage: time range, frame rate, up axis, units; /World and its prims; the clips
//	usd_manifest.usda     the attributes the clips hold, without values
//	usd.000001.usda ...   frame 1's samples; each also opens on its own as a one-frame stage
//
// Opening slosh.usda plays the run. Time code k is frame k (startTimeCode 1), timeCodesPerSecond the export's
// frame rate, metersPerUnit 1 and upAxis Y, as slosh's scenes are.
//
// # The prims
//
//	/World                       Xform, the clips' anchor
//	/World/Particles             Points: points, velocities (m/s), ids (int64, stable across frames), widths
//	                             (constant, the particles' diameter), extent, and as vertex primvars the other
//	                             columns of the particle export (export.FrameColumns: density ρ/ρ0, and body,
//	                             material, phase and temperature where the run has them)
//	/World/Surface               Mesh: the liquid's surface, triangles wound counter-clockwise seen from outside
//	                             (USD's rightHanded orientation), vertex normals, and velocities at the vertices
//	                             (the particles' mean, for motion blur)
//	/World/Grains/<material>     Mesh: a granular material's surface (sand, dough), apart from the liquid's
//	/World/Bodies/Body<b>        Mesh: rigid body b as the scene placed it, moved by xformOp:transform over time
//	/World/Camera                Camera: the scene's view
//
// Values are written as the shortest decimal that reads back to the same float32 (or float64): a round trip
// through a USD reader is exact.
package usd

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/trimesh"
)

// The files of an export, beside its sidecar.
const (
	RootName     = "slosh.usda"
	ManifestName = "usd_manifest.usda"
)

// FrameName is the layer of frame n (counting from 1), relative to the root stage: usd.000001.usda on. The
// number sits between dots because USD's clip templates take only a section of #s (usd.######.usda).
func FrameName(n int) string { return fmt.Sprintf("usd.%06d.usda", n) }

// IsFileName reports whether name is the base name of a file this package writes (RootName, ManifestName or a
// FrameName).
func IsFileName(name string) bool {
	if name == RootName || name == ManifestName {
		return true
	}
	rest, ok := strings.CutPrefix(name, "usd.")
	if !ok {
		return false
	}
	n, ok := strings.CutSuffix(rest, ".usda")
	if !ok || len(n) < 6 || len(n) > 6 && n[0] == '0' {
		return false
	}
	for _, c := range []byte(n) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Primvar is a per-particle value of the Points prim beside its positions, velocities and ids: one of the columns
// the particle export writes (export.FrameColumns: density, body, material, phase, temperature, ...), so that a
// value a solver adds to its frames reaches the PLY frames and the stage alike. Its USD type follows the column's:
// float[], int[] or uint[].
type Primvar struct {
	Name, Type string
}

// skipped are the columns the Points prim holds as its own attributes rather than as primvars.
func skipped(name string) bool {
	switch name {
	case "x", "y", "z", "vx", "vy", "vz", "id":
		return true
	}
	return false
}

// FramePrimvars are the primvars of a frame's columns (export.FrameColumns, as the PLY frame has them), in their
// order, with those columns.
func FramePrimvars(all []export.Column) ([]Primvar, []export.Column) {
	var pv []Primvar
	var cols []export.Column
	for _, c := range all {
		if skipped(c.Name) {
			continue
		}
		pv = append(pv, Primvar{Name: c.Name, Type: c.Type() + "[]"})
		cols = append(cols, c)
	}
	return pv, cols
}

// AddPrimvars adds to have those of more it lacks, keeping the order in which they came.
func AddPrimvars(have []Primvar, more []Primvar) []Primvar {
	for _, p := range more {
		if !slices.Contains(have, p) {
			have = append(have, p)
		}
	}
	return have
}

// Camera is the stage's camera: where it is, what it looks at, which way is up, its vertical field of view in
// degrees, the picture's width over height and its clipping range, m.
type Camera struct {
	Eye, Target, Up [3]float64
	FovY, Aspect    float64
	Near, Far       float64
}

// Stage describes the root stage: the frames written so far and what the prims hold.
type Stage struct {
	Doc    string  // a line saying what made the run
	FPS    float64 // frames per simulated second
	Frames int     // frames written: time codes 1..Frames, layers FrameName(1..Frames)
	Radius float64 // the particles' radius, m: their widths are twice it
	// Primvars are the per-particle values the frames carry (AddPrimvars of each frame's FramePrimvars).
	Primvars []Primvar
	// Surface says the frames carry the liquid's surface; Grains names the granular materials' surfaces (each a
	// valid identifier, export.ObjectName), in the frames' order.
	Surface bool
	Grains  []string
	// Velocities says the frames carry the surfaces' (the liquid's and the grains') velocities at their vertices.
	Velocities bool
	// Bodies are the rigid bodies' shapes tessellated where the scene placed them; each frame's Poses move them.
	Bodies []*trimesh.Mesh
	Camera *Camera // nil: none
}

// FrameData is one frame's samples.
type FrameData struct {
	N         int        // its time code, counting from 1
	Particles *sim.Frame // positions, velocities and ids; its other values are Columns
	// Columns are the frame's other per-particle values, written as primvars (FramePrimvars' columns).
	Columns []export.Column
	Surface *trimesh.Mesh // the liquid's surface; nil when the stage has none
	// SurfaceVelocities are the surface's velocities at its vertices, one a vertex (for motion blur: the mesh's
	// topology changes every frame, so a renderer cannot difference its points); nil: none (and so for Grains).
	SurfaceVelocities [][3]float32
	Grains            []Grain // each granular material's, in Stage.Grains' order
	// Poses are the rigid bodies' poses, in Stage.Bodies' order; nil when the bodies are not written this frame.
	Poses []sim.BodyState
	Doc   string
}

// Grain is a granular material's surface in a frame, under the name the stage gives it.
type Grain struct {
	Name       string
	Mesh       *trimesh.Mesh
	Velocities [][3]float32 // at the mesh's vertices, as FrameData.SurfaceVelocities; nil: none
}

// WriteFrame writes f as a layer that supplies its frame's values to the stage (and opens on its own as a
// one-frame stage). It refuses non-finite positions, velocities or mesh points, naming the first.
func WriteFrame(w io.Writer, f *FrameData) error {
	if f.N < 1 {
		return fmt.Errorf("usd: frame %d: time codes count from 1", f.N)
	}
	p := f.Particles
	if p == nil || p.N < 0 || len(p.Pos) < p.N || len(p.Vel) < p.N || len(p.ID) < p.N || len(p.Rho) < p.N {
		return fmt.Errorf("usd: frame %d: the particles' arrays are shorter than their count", f.N)
	}
	e := newEnc(w)
	e.line("#usda 1.0")
	e.line("(")
	e.line(`    doc = ` + quote(f.Doc))
	e.line(fmt.Sprintf("    startTimeCode = %d", f.N))
	e.line(fmt.Sprintf("    endTimeCode = %d", f.N))
	e.line(`    defaultPrim = "World"`)
	e.line(`    upAxis = "Y"`)
	e.line("    metersPerUnit = 1")
	e.line(")")
	e.line("")
	e.line(`def Xform "World"`)
	e.line("{")
	e.line(`    def Points "Particles"`)
	e.line("    {")
	e.indent = "        "
	if err := e.particles(f.N, p, f.Columns); err != nil {
		return fmt.Errorf("usd: frame %d: %w", f.N, err)
	}
	e.line("    }")
	if f.Surface != nil {
		e.line(`    def Mesh "Surface"`)
		e.line("    {")
		e.indent = "        "
		if err := e.mesh(f.N, f.Surface, f.SurfaceVelocities); err != nil {
			return fmt.Errorf("usd: frame %d: the surface: %w", f.N, err)
		}
		e.line("    }")
	}
	if len(f.Grains) > 0 {
		e.line(`    def Scope "Grains"`)
		e.line("    {")
		e.indent = "            "
		for _, g := range f.Grains {
			e.line("        def Mesh " + quote(g.Name))
			e.line("        {")
			if err := e.mesh(f.N, g.Mesh, g.Velocities); err != nil {
				return fmt.Errorf("usd: frame %d: %s's surface: %w", f.N, g.Name, err)
			}
			e.line("        }")
		}
		e.line("    }")
	}
	if f.Poses != nil {
		e.line(`    def Scope "Bodies"`)
		e.line("    {")
		for b, pose := range f.Poses {
			m, ok := transform(pose)
			if !ok {
				return fmt.Errorf("usd: frame %d: body %d's pose is not finite", f.N, b)
			}
			e.line(fmt.Sprintf(`        def Mesh "Body%d"`, b))
			e.line("        {")
			e.indent = "            "
			e.sampled("matrix4d", "xformOp:transform", f.N, false, func() { e.matrix(m) })
			e.line("        }")
		}
		e.line("    }")
	}
	e.line("}")
	return e.flush()
}

// particles writes the Points prim's samples at time code n.
func (e *enc) particles(n int, p *sim.Frame, cols []export.Column) error {
	lo, hi := [3]float32{}, [3]float32{}
	for i := range p.N {
		for k := range 3 {
			v := p.Pos[i][k]
			if !finite(v) {
				return fmt.Errorf("particle %d (id %d) has a non-finite position", i, p.ID[i])
			}
			if !finite(p.Vel[i][k]) {
				return fmt.Errorf("particle %d (id %d) has a non-finite velocity", i, p.ID[i])
			}
			if i == 0 || v < lo[k] {
				lo[k] = v
			}
			if i == 0 || v > hi[k] {
				hi[k] = v
			}
		}
	}
	e.sampled("point3f[]", "points", n, true, func() {
		for i := range p.N {
			e.sep(i)
			e.vec3(p.Pos[i][0], p.Pos[i][1], p.Pos[i][2])
		}
	})
	e.sampled("vector3f[]", "velocities", n, true, func() {
		for i := range p.N {
			e.sep(i)
			e.vec3(p.Vel[i][0], p.Vel[i][1], p.Vel[i][2])
		}
	})
	e.sampled("int64[]", "ids", n, true, func() {
		for i := range p.N {
			e.sep(i)
			e.buf = strconv.AppendUint(e.buf, uint64(p.ID[i]), 10)
		}
	})
	if p.N > 0 {
		r := p.Radius // the extent holds the particles' spheres
		e.sampled("float3[]", "extent", n, true, func() {
			e.vec3(lo[0]-r, lo[1]-r, lo[2]-r)
			e.str(", ")
			e.vec3(hi[0]+r, hi[1]+r, hi[2]+r)
		})
	}
	for _, c := range cols {
		if c.Type() == "" || c.Len() != p.N {
			return fmt.Errorf("column %s: %d values of type %q for %d particles", c.Name, c.Len(), c.Type(), p.N)
		}
		for i, v := range c.F32 {
			if !finite(v) {
				return fmt.Errorf("particle %d (id %d) has a non-finite %s", i, p.ID[i], c.Name)
			}
		}
		e.sampled(c.Type()+"[]", "primvars:"+c.Name, n, true, func() {
			for i := range p.N {
				e.sep(i)
				switch {
				case c.F32 != nil:
					e.f32(c.F32[i])
				case c.I32 != nil:
					e.buf = strconv.AppendInt(e.buf, int64(c.I32[i]), 10)
				default:
					e.buf = strconv.AppendUint(e.buf, uint64(c.U32[i]), 10)
				}
			}
		})
	}
	return nil
}

// at is s[i], or def past s's end (a frame whose optional array is missing or short).
func at[T any](s []T, i int, def T) T {
	if i < len(s) {
		return s[i]
	}
	return def
}

// mesh writes a Mesh prim's samples at time code n: points, normals, faces and extent, and the velocities at its
// vertices unless vel is nil.
func (e *enc) mesh(n int, m *trimesh.Mesh, vel [][3]float32) error {
	if vel != nil {
		if len(vel) != len(m.Positions) {
			return fmt.Errorf("%d velocities for %d vertices", len(vel), len(m.Positions))
		}
		for i, u := range vel {
			if !finite(u[0]) || !finite(u[1]) || !finite(u[2]) {
				return fmt.Errorf("the velocity at vertex %d is not finite", i)
			}
		}
	}
	for i, p := range m.Positions {
		if !finite(p[0]) || !finite(p[1]) || !finite(p[2]) {
			return fmt.Errorf("vertex %d is not finite", i)
		}
	}
	if len(m.Normals) != len(m.Positions) {
		return fmt.Errorf("%d normals for %d vertices", len(m.Normals), len(m.Positions))
	}
	for t, tri := range m.Triangles {
		for _, v := range tri {
			if v < 0 || int(v) >= len(m.Positions) {
				return fmt.Errorf("triangle %d names vertex %d of %d", t, v, len(m.Positions))
			}
		}
	}
	e.sampled("point3f[]", "points", n, true, func() {
		for i, p := range m.Positions {
			e.sep(i)
			e.vec3(p[0], p[1], p[2])
		}
	})
	e.sampled("normal3f[]", "normals", n, true, func() {
		for i, v := range m.Normals {
			e.sep(i)
			e.vec3(v[0], v[1], v[2])
		}
	})
	e.sampled("int[]", "faceVertexCounts", n, true, func() {
		for i := range m.Triangles {
			e.sep(i)
			e.buf = append(e.buf, '3')
		}
	})
	e.sampled("int[]", "faceVertexIndices", n, true, func() {
		for i, t := range m.Triangles {
			e.sep(i)
			e.buf = strconv.AppendInt(e.buf, int64(t[0]), 10)
			e.buf = append(e.buf, ", "...)
			e.buf = strconv.AppendInt(e.buf, int64(t[1]), 10)
			e.buf = append(e.buf, ", "...)
			e.buf = strconv.AppendInt(e.buf, int64(t[2]), 10)
		}
	})
	if len(m.Positions) > 0 {
		lo, hi := m.Bounds()
		e.sampled("float3[]", "extent", n, true, func() {
			e.vec3(float32(lo[0]), float32(lo[1]), float32(lo[2]))
			e.str(", ")
			e.vec3(float32(hi[0]), float32(hi[1]), float32(hi[2]))
		})
	}
	if vel != nil {
		e.sampled("vector3f[]", "velocities", n, true, func() {
			for i, u := range vel {
				e.sep(i)
				e.vec3(u[0], u[1], u[2])
			}
		})
	}
	return nil
}

// transform is the body's move since the scene placed it, x ↦ Center + R·(x − Origin), as a USD matrix: row
// vectors (a point is multiplied on the left), the translation in the last row.
func transform(b sim.BodyState) ([4][4]float64, bool) {
	q := [4]float64{float64(b.Rot[0]), float64(b.Rot[1]), float64(b.Rot[2]), float64(b.Rot[3])}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !(n > 0) || math.IsInf(n, 0) {
		return [4][4]float64{}, false
	}
	x, y, z, w := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	r := [3][3]float64{ // column-vector rotation: x' = r·x
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
	var m [4][4]float64
	for i := range 3 {
		for j := range 3 {
			m[i][j] = r[j][i] // USD's rows are the images of the axes
		}
	}
	for k := range 3 {
		t := float64(b.Center[k])
		for j := range 3 {
			t -= r[k][j] * float64(b.Origin[j])
		}
		m[3][k] = t
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return m, false
		}
	}
	m[3][3] = 1
	return m, true
}

// MaxFrames is the most frames a stage plays: its clip template numbers the layers with six digits.
const MaxFrames = 999999

// WriteStage writes the root stage for s's frames, FrameName(1..s.Frames) beside it.
func WriteStage(w io.Writer, s *Stage) error {
	if s.Frames < 1 || s.Frames > MaxFrames {
		return fmt.Errorf("usd: a stage of %d frames: it plays 1 to %d", s.Frames, MaxFrames)
	}
	if !(s.FPS > 0) || math.IsInf(s.FPS, 0) {
		return fmt.Errorf("usd: frame rate %g", s.FPS)
	}
	e := newEnc(w)
	e.line("#usda 1.0")
	e.line("(")
	e.line(`    doc = ` + quote(s.Doc))
	e.line(`    defaultPrim = "World"`)
	e.line("    startTimeCode = 1")
	e.line(fmt.Sprintf("    endTimeCode = %d", s.Frames))
	e.line("    framesPerSecond = " + formatF64(s.FPS))
	e.line("    timeCodesPerSecond = " + formatF64(s.FPS))
	e.line(`    upAxis = "Y"`)
	e.line("    metersPerUnit = 1")
	e.line(")")
	e.line("")
	e.line(`def Xform "World" (`)
	e.line("    clips = {")
	e.line("        dictionary default = {")
	// a template rather than lists: the root stays a few hundred bytes however long the run, though it is
	// rewritten after every frame
	e.line(`            string templateAssetPath = "./usd.######.usda"`)
	e.line("            double templateStartTime = 1")
	e.line(fmt.Sprintf("            double templateEndTime = %d", s.Frames))
	e.line("            double templateStride = 1")
	e.line("            asset manifestAssetPath = @./" + ManifestName + "@")
	e.line(`            string primPath = "/World"`)
	e.line("        }")
	e.line("    }")
	e.line(")")
	e.line("{")
	e.prims(s, false)
	if c := s.Camera; c != nil {
		if err := e.camera(c); err != nil {
			return err
		}
	}
	e.line("}")
	return e.flush()
}

// WriteManifest writes the manifest of s's clips: the attributes the frames supply, declared without values.
func WriteManifest(w io.Writer, s *Stage) error {
	e := newEnc(w)
	e.line("#usda 1.0")
	e.line("")
	e.line(`over "World"`)
	e.line("{")
	e.prims(s, true)
	e.line("}")
	return e.flush()
}

// prims writes /World's children as the stage defines them (manifest false: typed, with the values that never
// change) or as the manifest declares the clips' attributes.
func (e *enc) prims(s *Stage, manifest bool) {
	spec := func(typ, name string) string {
		if manifest {
			return "over " + quote(name)
		}
		return "def " + typ + " " + quote(name)
	}
	e.line("    " + spec("Points", "Particles"))
	e.line("    {")
	e.line("        point3f[] points")
	e.line("        vector3f[] velocities")
	e.line("        int64[] ids")
	e.line("        float3[] extent")
	for _, p := range s.Primvars {
		if manifest {
			e.line("        " + p.Type + " primvars:" + p.Name)
		} else {
			e.line("        " + p.Type + " primvars:" + p.Name + ` (interpolation = "vertex")`)
		}
	}
	if !manifest {
		e.str("        float[] widths = [")
		e.f32(float32(2 * s.Radius))
		e.line(`] (interpolation = "constant")`)
	}
	e.line("    }")
	meshAttrs := func(indent string) {
		e.line(indent + "point3f[] points")
		if manifest {
			e.line(indent + "normal3f[] normals")
		} else {
			e.line(indent + `normal3f[] normals (interpolation = "vertex")`)
			e.line(indent + `uniform token subdivisionScheme = "none"`)
		}
		e.line(indent + "int[] faceVertexCounts")
		e.line(indent + "int[] faceVertexIndices")
		e.line(indent + "float3[] extent")
		if s.Velocities {
			e.line(indent + "vector3f[] velocities")
		}
	}
	if s.Surface {
		e.line("    " + spec("Mesh", "Surface"))
		e.line("    {")
		meshAttrs("        ")
		e.line("    }")
	}
	if len(s.Grains) > 0 {
		e.line("    " + spec("Scope", "Grains"))
		e.line("    {")
		for _, g := range s.Grains {
			e.line("        " + spec("Mesh", g))
			e.line("        {")
			meshAttrs("            ")
			e.line("        }")
		}
		e.line("    }")
	}
	if len(s.Bodies) > 0 {
		e.line("    " + spec("Scope", "Bodies"))
		e.line("    {")
		for b, m := range s.Bodies {
			e.line("        " + spec("Mesh", fmt.Sprintf("Body%d", b)))
			e.line("        {")
			if manifest {
				e.line("            matrix4d xformOp:transform")
			} else {
				e.line("            matrix4d xformOp:transform")
				e.line(`            uniform token[] xformOpOrder = ["xformOp:transform"]`)
				e.line(`            uniform token subdivisionScheme = "none"`)
				e.staticMesh(m, "            ")
			}
			e.line("        }")
		}
		e.line("    }")
	}
}

// staticMesh writes a mesh's values as defaults (a body's shape, which never changes).
func (e *enc) staticMesh(m *trimesh.Mesh, indent string) {
	e.str(indent + "point3f[] points = [")
	for i, p := range m.Positions {
		e.sep(i)
		e.vec3(p[0], p[1], p[2])
	}
	e.line("]")
	e.str(indent + "normal3f[] normals = [")
	for i, v := range m.Normals {
		e.sep(i)
		e.vec3(v[0], v[1], v[2])
	}
	e.line(`] (interpolation = "vertex")`)
	e.str(indent + "int[] faceVertexCounts = [")
	for i := range m.Triangles {
		e.sep(i)
		e.buf = append(e.buf, '3')
	}
	e.line("]")
	e.str(indent + "int[] faceVertexIndices = [")
	for i, t := range m.Triangles {
		e.sep(i)
		e.buf = fmt.Appendf(e.buf, "%d, %d, %d", t[0], t[1], t[2])
	}
	e.line("]")
	if len(m.Positions) > 0 {
		lo, hi := m.Bounds()
		e.str(indent + "float3[] extent = [")
		e.vec3(float32(lo[0]), float32(lo[1]), float32(lo[2]))
		e.str(", ")
		e.vec3(float32(hi[0]), float32(hi[1]), float32(hi[2]))
		e.line("]")
	}
}

// camera writes the Camera prim: USD's camera looks down its −Z with +Y up, as OpenGL's does, so its transform is
// the inverse of the view matrix. The apertures and focal length are in tenths of a scene unit, as USD's are;
// only their ratio (the field of view) matters.
func (e *enc) camera(c *Camera) error {
	f := [3]float64{c.Target[0] - c.Eye[0], c.Target[1] - c.Eye[1], c.Target[2] - c.Eye[2]}
	back, ok := unit([3]float64{-f[0], -f[1], -f[2]})
	if !ok {
		return fmt.Errorf("usd: the camera's eye is its target")
	}
	right, ok := unit(cross(c.Up, back))
	if !ok {
		return fmt.Errorf("usd: the camera looks along its up direction")
	}
	up := cross(back, right)
	if !(c.FovY > 0 && c.FovY < 180) || !(c.Aspect > 0) || !(c.Near > 0 && c.Far > c.Near) {
		return fmt.Errorf("usd: camera field of view %g°, aspect %g, clipping %g–%g", c.FovY, c.Aspect, c.Near, c.Far)
	}
	const focal = 50.0
	vert := 2 * focal * math.Tan(c.FovY*math.Pi/360)
	m := [4][4]float64{
		{right[0], right[1], right[2], 0},
		{up[0], up[1], up[2], 0},
		{back[0], back[1], back[2], 0},
		{c.Eye[0], c.Eye[1], c.Eye[2], 1},
	}
	e.line(`    def Camera "Camera"`)
	e.line("    {")
	e.str("        matrix4d xformOp:transform = ")
	e.matrix(m)
	e.line("")
	e.line(`        uniform token[] xformOpOrder = ["xformOp:transform"]`)
	e.line("        float focalLength = " + formatF64(focal))
	e.line("        float verticalAperture = " + formatF64(vert))
	e.line("        float horizontalAperture = " + formatF64(vert*c.Aspect))
	e.line("        float2 clippingRange = (" + formatF64(c.Near) + ", " + formatF64(c.Far) + ")")
	e.line(`        token projection = "perspective"`)
	e.line("    }")
	return nil
}

func unit(v [3]float64) ([3]float64, bool) {
	n := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	if !(n > 1e-12) || math.IsInf(n, 0) {
		return v, false
	}
	return [3]float64{v[0] / n, v[1] / n, v[2] / n}, true
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func finite(v float32) bool { return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0) }

// quote is s as a usda string literal: in double quotes, with backslashes, quotes and line breaks escaped and
// other control characters left out (a scene's name reaches the doc string).
func quote(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		switch {
		case r == '\\' || r == '"':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r < 0x20 || r == 0x7f || r == utf8.RuneError:
		default:
			b = utf8.AppendRune(b, r)
		}
	}
	return string(append(b, '"'))
}

func formatF64(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// enc writes usda text through one buffer, flushed in large pieces.
type enc struct {
	w      *bufio.Writer
	buf    []byte
	err    error
	indent string // of the attributes being written
}

func newEnc(w io.Writer) *enc {
	return &enc{w: bufio.NewWriterSize(w, 1<<20), buf: make([]byte, 0, 1<<16)}
}

func (e *enc) spill() {
	if len(e.buf) >= 1<<15 {
		e.write()
	}
}

func (e *enc) write() {
	if e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

func (e *enc) str(s string) { e.buf = append(e.buf, s...); e.spill() }

func (e *enc) line(s string) { e.buf = append(append(e.buf, s...), '\n'); e.spill() }

// sep separates array elements: nothing before the first.
func (e *enc) sep(i int) {
	if i > 0 {
		e.buf = append(e.buf, ", "...)
	}
	e.spill()
}

func (e *enc) f32(v float32) { e.buf = strconv.AppendFloat(e.buf, float64(v), 'g', -1, 32) }

func (e *enc) vec3(x, y, z float32) {
	e.buf = append(e.buf, '(')
	e.f32(x)
	e.buf = append(e.buf, ", "...)
	e.f32(y)
	e.buf = append(e.buf, ", "...)
	e.f32(z)
	e.buf = append(e.buf, ')')
}

func (e *enc) matrix(m [4][4]float64) {
	e.buf = append(e.buf, "( "...)
	for i := range 4 {
		if i > 0 {
			e.buf = append(e.buf, ", "...)
		}
		e.buf = append(e.buf, '(')
		for j := range 4 {
			if j > 0 {
				e.buf = append(e.buf, ", "...)
			}
			e.buf = strconv.AppendFloat(e.buf, m[i][j], 'g', -1, 64)
		}
		e.buf = append(e.buf, ')')
	}
	e.buf = append(e.buf, " )"...)
}

// sampled writes `typ name.timeSamples = { n: value }` at the current indent, the value written by body inside
// brackets when array.
func (e *enc) sampled(typ, name string, n int, array bool, body func()) {
	e.buf = fmt.Appendf(e.buf, "%s%s %s.timeSamples = {\n%s    %d: ", e.indent, typ, name, e.indent, n)
	if array {
		e.buf = append(e.buf, '[')
	}
	body()
	if array {
		e.buf = append(e.buf, ']')
	}
	e.str(",\n" + e.indent + "}\n")
}

func (e *enc) flush() error {
	e.write()
	if e.err == nil {
		e.err = e.w.Flush()
	}
	if e.err != nil {
		return fmt.Errorf("usd: %w", e.err)
	}
	return nil
}
