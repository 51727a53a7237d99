package scene

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/slosh/slosh/assets"
	"github.com/slosh/slosh/internal/jsonmsg"
	"github.com/slosh/slosh/sim/mesh"
)

// Mesh shapes are sampled on a signed distance grid of MeshSDFCells cells along the mesh's longest side, with
// meshSDFBand cells of margin around it.
const (
	MeshSDFCells = 64
	meshSDFBand  = 3
)

// MeshData is a loaded mesh shape's geometry in its own frame: scaled so that the longest side of its bounding box
// is 1 and centred on the origin. A shape places it in the world by Shape.MeshTransform (Extent, Rotation,
// Center). Shapes that name the same file share one MeshData; nothing modifies it after loading, so it is safe
// to read from several goroutines.
type MeshData struct {
	// Name is the file as the scene names it ("bunny.obj"); File is where it was read from, for messages.
	Name, File string
	// Mesh is the closed, outward-facing triangle mesh in the unit frame.
	Mesh *mesh.Mesh
	// SDF holds its signed distances (negative inside) on a grid over [−½, ½]³ and a few cells more: the data the
	// GPU uploads as a 3D texture.
	SDF *mesh.SDF
	// Volume is the mesh's exact volume in the unit frame (divergence theorem).
	Volume float64
}

// NewMeshData brings a valid mesh (mesh.Load checks it) into the unit frame and builds its SDF. name is what
// Shape.Mesh says.
func NewMeshData(name string, m *mesh.Mesh) (*MeshData, error) {
	u := m.Transformed(m.Fit(1, mesh.Vec3{}, mesh.Vec3{}))
	sdf, err := mesh.BuildSDF(u, 1.0/MeshSDFCells, meshSDFBand)
	if err != nil {
		return nil, err
	}
	return &MeshData{Name: name, File: m.Name, Mesh: u, SDF: sdf, Volume: u.Volume()}, nil
}

// LoadMesh reads, checks and prepares an OBJ file from fsys (for example assets.Meshes()).
func LoadMesh(fsys fs.FS, name string) (*MeshData, error) {
	m, err := mesh.Load(fsys, name)
	if err != nil {
		return nil, err
	}
	return NewMeshData(name, m)
}

// SetMesh attaches loaded geometry to a mesh shape (and sets Mesh to its name), for shapes made in code; scenes
// read from files get theirs in Validate.
func (s *Shape) SetMesh(md *MeshData) {
	s.Mesh = md.Name
	s.meshData = md
}

// MeshData is the geometry of a mesh shape, or nil when it is not a mesh or its file has not been loaded (Parse
// and Validate load it).
func (s *Shape) MeshData() *MeshData {
	if s.Kind != ShapeMesh || s.meshData == nil || s.meshData.Name != s.Mesh {
		return nil
	}
	return s.meshData
}

// MeshTransform maps the mesh's unit frame to the world: p ↦ Center + R·(Extent·p) with R = RotationMatrix();
// Inverse maps world points into the unit frame, where MeshData().SDF answers (its distances times Extent are
// world distances).
func (s *Shape) MeshTransform() mesh.Transform {
	return mesh.Transform{Scale: s.Extent, Rotate: s.RotationMatrix(), Translate: s.Center}
}

// meshSDF is SDF for a mesh shape: the unit-frame grid, scaled, rotated and moved.
func (s *Shape) meshSDF(p Vec3, normal bool) (float64, Vec3) {
	md := s.MeshData()
	if md == nil || !(s.Extent > 0) {
		return math.Inf(1), Vec3{0, 1, 0}
	}
	r := s.RotationMatrix()
	q := r.MulTVec(p.Sub(s.Center)).Scale(1 / s.Extent)
	d := md.SDF.Distance(q) * s.Extent
	if !normal {
		return d, Vec3{}
	}
	return d, r.MulVec(Vec3(md.SDF.Normal(q)))
}

// meshBounds is the box around the placed mesh's vertices.
func (s *Shape) meshBounds() Box {
	md := s.MeshData()
	if md == nil {
		return Box{s.Center, s.Center}
	}
	t := s.MeshTransform()
	inf := math.Inf(1)
	b := Box{Min: Vec3{inf, inf, inf}, Max: Vec3{-inf, -inf, -inf}}
	for _, v := range md.Mesh.Vertices {
		p := Vec3(t.Apply(v))
		b.Min, b.Max = b.Min.Min(p), b.Max.Max(p)
	}
	return b
}

// meshLoader loads the meshes a scene names, each file once, relative to the scene file; a name that is not a
// file there is looked up among the shipped meshes (assets/meshes), and shipped scenes only use those. A scene may
// name at most MaxMeshFiles files, of at most mesh.MaxTriangles triangles together.
type meshLoader struct {
	source    string
	loaded    map[string]*MeshData
	triangles int
	// maxFiles and maxTriangles are MaxMeshFiles and mesh.MaxTriangles (tests lower them)
	maxFiles, maxTriangles int
}

func newMeshLoader(source string) *meshLoader {
	return &meshLoader{source: source, loaded: map[string]*MeshData{}, maxFiles: MaxMeshFiles, maxTriangles: mesh.MaxTriangles}
}

func (l *meshLoader) load(name string) (*MeshData, error) {
	if md, ok := l.loaded[name]; ok {
		return md, nil
	}
	if len(l.loaded) >= l.maxFiles {
		return nil, fmt.Errorf("%s would be mesh file number %d, over the limit of %d a scene may name: each file gets its own distance grid, in memory and on the GPU; use fewer files (a file may be used by any number of shapes)",
			jsonmsg.Quote(name), len(l.loaded)+1, l.maxFiles)
	}
	md, err := l.read(name)
	if err != nil {
		return nil, err
	}
	if l.triangles += len(md.Mesh.Triangles); l.triangles > l.maxTriangles {
		return nil, fmt.Errorf("%s brings the scene's meshes to %d triangles, over the limit of %d for all its mesh files together; decimate them (e.g. Blender's Decimate modifier)",
			jsonmsg.Quote(name), l.triangles, l.maxTriangles)
	}
	l.loaded[name] = md
	return md, nil
}

func (l *meshLoader) read(name string) (*MeshData, error) {
	shipped := fs.ValidPath(name) && fileExists(assets.Meshes(), name)
	if strings.HasPrefix(l.source, "builtin:") {
		if !shipped {
			return nil, fmt.Errorf("%s is not a shipped mesh; the shipped meshes are %s", jsonmsg.Quote(name), shippedMeshes())
		}
		return LoadMesh(assets.Meshes(), name)
	}
	path := filepath.FromSlash(name)
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(l.source), path)
	}
	if _, err := os.Stat(path); err != nil && errors.Is(err, fs.ErrNotExist) {
		if shipped {
			return LoadMesh(assets.Meshes(), name)
		}
		return nil, fmt.Errorf("%s does not exist (mesh paths are relative to the scene file), and %s is not a shipped mesh (%s)", path, jsonmsg.Quote(name), shippedMeshes())
	}
	m, err := mesh.LoadFile(path)
	if err != nil {
		return nil, err
	}
	return NewMeshData(name, m)
}

func fileExists(fsys fs.FS, name string) bool {
	fi, err := fs.Stat(fsys, name)
	return err == nil && !fi.IsDir()
}

// shippedMeshes lists the embedded meshes for messages.
func shippedMeshes() string {
	entries, _ := fs.ReadDir(assets.Meshes(), ".")
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".obj") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
