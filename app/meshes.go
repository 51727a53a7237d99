package app

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/slosh/slosh/internal/atomicfile"
	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/export"
	"github.com/slosh/slosh/sim/param"
	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/surface/field"
	"github.com/slosh/slosh/sim/trimesh"
)

// frameMesher makes the meshes of a frame: the fluid's surface meshed from its particles (sim/surface/field, the
// rigid bodies' particles left out), each granular material's surface meshed from its grains, and each rigid body's
// shape at its pose. `slosh export --mesh`, the window's mesh capture and render.mode mesh use it; it keeps its
// scratch between frames and is not safe for concurrent use.
type frameMesher struct {
	mesher *field.Mesher
	pos    [][4]float32 // the fluid particles of a frame with bodies
	ids    []uint32
	// the bodies' shapes tessellated where the scene placed them, and the shapes they were made from
	rest   []*trimesh.Mesh
	shapes []scene.Shape
}

func newFrameMesher() *frameMesher { return &frameMesher{mesher: field.NewMesher()} }

// surface meshes f's fluid with the settings s (lengths in particle spacings of 2·f.Radius).
func (m *frameMesher) surface(f *sim.Frame, s field.Settings) (*trimesh.Mesh, field.Stats, error) {
	pos, _ := fluidOnly(f, &m.pos, &m.ids)
	return m.mesh(f, pos, s)
}

// grains meshes the surface of f's particles of material number k that are not liquid (sim.Frame.Phase granular
// or solid, Material k; not a body's) with the settings s, as surface meshes the liquid's: sand's or dough's own
// surface, apart from the water's. A frame without such particles gives an empty mesh.
func (m *frameMesher) grains(f *sim.Frame, k int, s field.Settings) (*trimesh.Mesh, field.Stats, error) {
	return m.mesh(f, m.grainPositions(f, k), s)
}

// grainPositions are the positions of f's particles of material number k that are not liquid and not a body's,
// copied into the mesher's scratch.
func (m *frameMesher) grainPositions(f *sim.Frame, k int) [][4]float32 {
	m.pos = m.pos[:0]
	for i, p := range f.Pos[:f.N] {
		if grainOf(f, i, k) {
			m.pos = append(m.pos, p)
		}
	}
	return m.pos
}

// grainOf says whether particle i of f is of material number k and not liquid, nor a body's: one of the particles
// that make that material's own surface.
func grainOf(f *sim.Frame, i, k int) bool {
	return i < len(f.Phase) && f.Phase[i] != scene.PhaseLiquid && i < len(f.Material) && int(f.Material[i]) == k &&
		(i >= len(f.Body) || f.Body[i] < 0)
}

// mesh meshes the surface of the particles at pos, of f's radius, with the settings s.
func (m *frameMesher) mesh(f *sim.Frame, pos [][4]float32, s field.Settings) (*trimesh.Mesh, field.Stats, error) {
	if !(f.Radius > 0) {
		return nil, field.Stats{}, fmt.Errorf("mesh: the frame has no particle radius (%g)", f.Radius)
	}
	cfg, err := s.Config(2*float64(f.Radius), 0)
	if err != nil {
		return nil, field.Stats{}, fmt.Errorf("mesh: %w", err)
	}
	mesh, st, err := m.mesher.Mesh(pos, cfg)
	if err != nil {
		return nil, st, fmt.Errorf("mesh: %w (mesh.cell is the grid's Cell, in particle spacings)", err)
	}
	return mesh, st, nil
}

// sample samples the implicit surface of f's fluid (as surface meshes it) with the settings s, without marching
// it: its blocks are then the mesher's (field.Mesher.Blocks). It returns the field's configuration.
func (m *frameMesher) sample(f *sim.Frame, s field.Settings) (field.Config, error) {
	pos, _ := fluidOnly(f, &m.pos, &m.ids)
	return m.samplePositions(f, pos, s)
}

// sampleGrains samples the implicit surface of f's particles of material number k that are not liquid, as grains
// meshes them, without marching it.
func (m *frameMesher) sampleGrains(f *sim.Frame, k int, s field.Settings) (field.Config, error) {
	return m.samplePositions(f, m.grainPositions(f, k), s)
}

// samplePositions samples the implicit surface of the particles at pos, of f's radius, with the settings s.
func (m *frameMesher) samplePositions(f *sim.Frame, pos [][4]float32, s field.Settings) (field.Config, error) {
	if !(f.Radius > 0) {
		return field.Config{}, fmt.Errorf("mesh: the frame has no particle radius (%g)", f.Radius)
	}
	cfg, err := s.Config(2*float64(f.Radius), 0)
	if err != nil {
		return cfg, fmt.Errorf("mesh: %w", err)
	}
	if _, err := m.mesher.Sample(pos, cfg); err != nil {
		return cfg, fmt.Errorf("mesh: %w (mesh.cell is the grid's Cell, in particle spacings)", err)
	}
	return cfg, nil
}

// fluidOnly is f's liquid particles' positions and ids (sim.Frame.Liquid): f's own arrays when every particle is
// liquid, else copies into *pos and *ids without the bodies' particles (their shapes are meshed and drawn instead)
// and without grains and solids (drawn as particles, never as the water's surface).
func fluidOnly(f *sim.Frame, pos *[][4]float32, ids *[]uint32) ([][4]float32, []uint32) {
	if f.Body == nil && f.Phase == nil {
		return f.Pos[:f.N], f.ID[:f.N]
	}
	*pos, *ids = (*pos)[:0], (*ids)[:0]
	for i, p := range f.Pos[:f.N] {
		if !f.Liquid(i) {
			continue
		}
		*pos = append(*pos, p)
		*ids = append(*ids, f.ID[i])
	}
	return *pos, *ids
}

// liquidVelocities are the velocities of f's liquid particles, in fluidOnly's order: f's own array when every
// particle is liquid, else a copy into *vel.
func liquidVelocities(f *sim.Frame, vel *[][4]float32) ([][4]float32, error) {
	if len(f.Vel) < f.N {
		return nil, fmt.Errorf("the frame has %d velocities for %d particles", len(f.Vel), f.N)
	}
	if f.Body == nil && f.Phase == nil {
		return f.Vel[:f.N], nil
	}
	*vel = (*vel)[:0]
	for i, v := range f.Vel[:f.N] {
		if f.Liquid(i) {
			*vel = append(*vel, v)
		}
	}
	return *vel, nil
}

// bodies returns each rigid body's shape (shapes, in the solver's order) tessellated at its pose in poses. The
// tessellations are kept while the shapes stay the same.
func (m *frameMesher) bodies(shapes []scene.Shape, poses []sim.BodyState) ([]*trimesh.Mesh, error) {
	if len(poses) != len(shapes) {
		return nil, fmt.Errorf("mesh: %d body poses for %d bodies", len(poses), len(shapes))
	}
	if !sameShapes(m.shapes, shapes) {
		m.rest, m.shapes = m.rest[:0], append(m.shapes[:0], shapes...)
		for i := range shapes {
			t, err := trimesh.Shape(&shapes[i])
			if err != nil {
				m.rest, m.shapes = nil, nil
				return nil, fmt.Errorf("mesh: bodies[%d]: %w", i, err)
			}
			m.rest = append(m.rest, t)
		}
	}
	out := make([]*trimesh.Mesh, len(shapes))
	for i, t := range m.rest {
		out[i] = t.Posed(poses[i])
	}
	return out, nil
}

// sameShapes says whether a and b hold the same shapes (a mesh shape by its file and placement).
func sameShapes(a, b []scene.Shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].String() != b[i].String() || a[i].MeshData() != b[i].MeshData() {
			return false
		}
	}
	return true
}

// meshExport writes a frame's meshes beside its particles: the fluid's surface, each granular material's and each
// rigid body, in one format.
type meshExport struct {
	format   string
	settings field.Settings
	params   map[string]json.RawMessage // the mesh.* parameters, for the sidecar
	mesher   *frameMesher
	grains   []grainObject // the scene's granular materials, meshed apart (setGrains)
	last     field.Stats   // the last frame's meshing, its triangles all its surfaces'
	took     time.Duration // and how long meshing it took
}

// grainObject is a granular material whose surface is meshed apart from the liquid's: its material number and the
// OBJ object that holds it.
type grainObject struct {
	number int
	object string
}

// grainObjects are the materials of mats with surfaces of their own (scene.Kind.OwnSurface: sand and dough), each
// with its object name: its name made an object name, with its number added when another material
// (or the liquid, liquidObject) has that name.
func grainObjects(mats []export.Material) []grainObject {
	return surfaceObjects(mats, scene.Kind.OwnSurface)
}

// surfaceObjects are the materials of mats whose kind include takes, named as grainObjects names them.
func surfaceObjects(mats []export.Material, include func(scene.Kind) bool) []grainObject {
	var out []grainObject
	used := map[string]bool{liquidObject: true}
	for _, m := range mats {
		if !include(scene.Kind(m.Kind)) {
			continue
		}
		name := export.ObjectName(m.Name)
		for used[name] {
			name += fmt.Sprintf("_%d", m.Number)
		}
		used[name] = true
		out = append(out, grainObject{number: m.Number, object: name})
	}
	return out
}

// liquidObject names the liquid's surface in an OBJ file that holds granular materials' surfaces too.
const liquidObject = "liquid"

// newMeshExport exports meshes in format with the mesh settings s; set holds s's parameters (the sidecar records
// the mesh.* ones).
func newMeshExport(format string, s field.Settings, set *param.Set) *meshExport {
	params := map[string]json.RawMessage{}
	for name, v := range set.Preset("").Params {
		if prefixOf(name) == meshPrefix && name != splitParam { // how the window shows meshes is not how they are made
			params[name] = v
		}
	}
	return &meshExport{format: format, settings: s, params: params, mesher: newFrameMesher()}
}

// setGrains makes the export mesh each granular material of mats (export.SceneMaterials) apart from the liquid, and
// says in mats where each material's surface goes: in OBJ, the objects of the surface files (the liquids'
// liquidObject, each granular material's its name made an object name, with its number added when another material
// has that name); in PLY, files of their own (listed as they are written). Without granular materials the files are
// as they were: one unnamed surface.
func (e *meshExport) setGrains(mats []export.Material) {
	e.grains = grainObjects(mats)
	if len(e.grains) == 0 || e.format != export.MeshOBJ {
		return
	}
	for k := range mats {
		mats[k].MeshObject = liquidObject
	}
	for _, g := range e.grains {
		mats[g.number].MeshObject = g.object
	}
}

// frameMeshes are the files of a frame's meshes, relative to the export's folder.
type frameMeshes struct {
	surface string
	grains  []string // PLY: each granular material's surface (setGrains' order); OBJ: none, they are in surface
	bodies  []string
	made    surfaces // the surfaces themselves, for the USD stage
}

// write meshes frame n (f, with the bodies' shapes) into dir, each file atomically, and returns the names written.
func (e *meshExport) write(dir string, n int, f *sim.Frame, shapes []scene.Shape, comment string) (frameMeshes, error) {
	var out frameMeshes
	start := time.Now()
	surface, st, err := e.mesher.surface(f, e.settings)
	if err != nil {
		return out, err
	}
	grains := make([]*trimesh.Mesh, len(e.grains))
	for k, g := range e.grains {
		m, gst, err := e.mesher.grains(f, g.number, e.settings)
		if err != nil {
			return out, fmt.Errorf("%s: %w", g.object, err)
		}
		grains[k], st.Triangles = m, st.Triangles+gst.Triangles
	}
	e.last, e.took = st, time.Since(start)
	if len(shapes) != len(f.Bodies) {
		// bodies were added or removed since the export began (the window's tools): the files of body b would
		// no longer be one body's, so the bodies' meshes stop and the fluid's go on
		shapes = nil
	}
	bodies, err := e.mesher.bodies(shapes, f.Bodies[:len(shapes)])
	if err != nil {
		return out, err
	}
	path := export.SurfaceName(dir, n, e.format)
	if len(grains) > 0 && e.format == export.MeshOBJ {
		objs := []export.Object{{Name: liquidObject, Mesh: surface}}
		for k, g := range e.grains {
			objs = append(objs, export.Object{Name: g.object, Mesh: grains[k]})
		}
		err = atomicfile.Write(path, func(w io.Writer) error {
			return export.WriteOBJObjects(w, objs, comment+", surfaces of the liquid and each granular material")
		})
	} else {
		err = writeMeshFile(path, surface, e.format, comment+", fluid surface")
		for k, g := range e.grains {
			if err != nil {
				break
			}
			gp := export.MaterialSurfaceName(dir, g.number, n, e.format)
			err = writeMeshFile(gp, grains[k], e.format, fmt.Sprintf("%s, surface of material %d (%s)", comment, g.number, g.object))
			out.grains = append(out.grains, filepath.Base(gp))
		}
	}
	if err != nil {
		return out, err
	}
	out.surface = filepath.Base(path)
	out.made = surfaces{surface: surface, grains: grains}
	out.bodies = make([]string, len(bodies))
	for b, m := range bodies {
		bp := export.BodyName(dir, b, n, e.format)
		if err := writeMeshFile(bp, m, e.format, fmt.Sprintf("%s, rigid body %d", comment, b)); err != nil {
			return out, err
		}
		out.bodies[b] = filepath.Base(bp)
	}
	return out, nil
}

// writeMeshFile writes m to path atomically (never through a link: atomicfile).
func writeMeshFile(path string, m *trimesh.Mesh, format, comment string) error {
	return atomicfile.Write(path, func(w io.Writer) error { return export.WriteMesh(w, m, format, comment) })
}
