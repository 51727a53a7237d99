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
// rigid bodies' particles left out) and each rigid body's shape at its pose. `slosh export --mesh`, the window's
// mesh capture and render.mode mesh use it; it keeps its scratch between frames and is not safe for concurrent use.
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
	if !(f.Radius > 0) {
		return nil, field.Stats{}, fmt.Errorf("mesh: the frame has no particle radius (%g)", f.Radius)
	}
	cfg, err := s.Config(2*float64(f.Radius), 0)
	if err != nil {
		return nil, field.Stats{}, fmt.Errorf("mesh: %w", err)
	}
	pos, _ := fluidOnly(f, &m.pos, &m.ids)
	mesh, st, err := m.mesher.Mesh(pos, cfg)
	if err != nil {
		return nil, st, fmt.Errorf("mesh: %w (mesh.cell is the grid's Cell, in particle spacings)", err)
	}
	return mesh, st, nil
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

// meshExport writes a frame's meshes beside its particles: the fluid's surface and each rigid body, in one format.
type meshExport struct {
	format   string
	settings field.Settings
	params   map[string]json.RawMessage // the mesh.* parameters, for the sidecar
	mesher   *frameMesher
	last     field.Stats   // the last frame's meshing
	took     time.Duration // and how long meshing it took
}

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

// write meshes frame n (f, with the bodies' shapes) into dir, each file atomically, and returns the names written:
// the surface's and each body's, relative to dir.
func (e *meshExport) write(dir string, n int, f *sim.Frame, shapes []scene.Shape, comment string) (string, []string, error) {
	start := time.Now()
	surface, st, err := e.mesher.surface(f, e.settings)
	if err != nil {
		return "", nil, err
	}
	e.last, e.took = st, time.Since(start)
	if len(shapes) != len(f.Bodies) {
		// bodies were added or removed since the export began (the window's tools): the files of body b would
		// no longer be one body's, so the bodies' meshes stop and the fluid's go on
		shapes = nil
	}
	bodies, err := e.mesher.bodies(shapes, f.Bodies[:len(shapes)])
	if err != nil {
		return "", nil, err
	}
	path := export.SurfaceName(dir, n, e.format)
	if err := writeMeshFile(path, surface, e.format, comment+", fluid surface"); err != nil {
		return "", nil, err
	}
	names := make([]string, len(bodies))
	for b, m := range bodies {
		bp := export.BodyName(dir, b, n, e.format)
		if err := writeMeshFile(bp, m, e.format, fmt.Sprintf("%s, rigid body %d", comment, b)); err != nil {
			return "", nil, err
		}
		names[b] = filepath.Base(bp)
	}
	return filepath.Base(path), names, nil
}

// writeMeshFile writes m to path atomically (never through a link: atomicfile).
func writeMeshFile(path string, m *trimesh.Mesh, format, comment string) error {
	return atomicfile.Write(path, func(w io.Writer) error { return export.WriteMesh(w, m, format, comment) })
}
