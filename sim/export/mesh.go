package export

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/slosh/slosh/sim/trimesh"
)

// Mesh formats, the values of `slosh export --mesh`.
const (
	MeshOBJ = "obj"
	MeshPLY = "ply"
)

// MeshFormats lists the mesh formats in the order help text names them.
var MeshFormats = []string{MeshOBJ, MeshPLY}

// VDB is the extension of the fluid's surface as an OpenVDB level set (`slosh export --vdb`, sim/export/vdb):
// SurfaceName(dir, n, VDB) is surface_NNNNNN.vdb.
const VDB = "vdb"

// SurfaceName is the file of frame n's fluid surface mesh in dir: surface_NNNNNN.obj or .ply, numbered like
// FrameName so that Blender and Houdini read the meshes as a sequence beside the particle frames.
func SurfaceName(dir string, n int, format string) string {
	return filepath.Join(dir, fmt.Sprintf("surface_%06d.%s", n, format))
}

// BodyName is the file of rigid body b's mesh (b counting from 0, as the scene's bodies) at frame n in dir:
// body<b>_NNNNNN.obj or .ply, one sequence per body.
func BodyName(dir string, b, n int, format string) string {
	return filepath.Join(dir, fmt.Sprintf("body%d_%06d.%s", b, n, format))
}

// MaterialSurfaceName is the file of the surface mesh of material number k (a granular material, meshed apart from
// the liquid) at frame n in dir, for mesh formats that hold one object a file: material<k>_NNNNNN.ply, one sequence
// per material. In OBJ the surface file holds it as an object of its own.
func MaterialSurfaceName(dir string, k, n int, format string) string {
	return filepath.Join(dir, fmt.Sprintf("material%d_%06d.%s", k, n, format))
}

// ObjectName makes s a name WriteOBJObjects takes: each run of characters other than ASCII letters, digits and
// underscores becomes one underscore, and a name that would be empty or start with a digit gets a leading
// underscore ("wet sand" → "wet_sand", "2nd" → "_2nd").
func ObjectName(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' {
			b = append(b, c)
		} else if len(b) == 0 || b[len(b)-1] != '_' {
			b = append(b, '_')
		}
	}
	if len(b) == 0 || '0' <= b[0] && b[0] <= '9' {
		b = append([]byte{'_'}, b...)
	}
	return string(b)
}

// WriteMesh writes m in format (MeshOBJ or MeshPLY) with the comment lines given.
func WriteMesh(w io.Writer, m *trimesh.Mesh, format string, comments ...string) error {
	switch format {
	case MeshOBJ:
		return WriteOBJ(w, m, comments...)
	case MeshPLY:
		return WriteMeshPLY(w, m, comments...)
	}
	return fmt.Errorf("writing a mesh: format %q is not one of %s", format, strings.Join(MeshFormats, ", "))
}

// checkMesh says what keeps m from being written, or nil.
func checkMesh(m *trimesh.Mesh, comments []string) error {
	if m == nil {
		return fmt.Errorf("no mesh")
	}
	if len(m.Normals) != len(m.Positions) {
		return fmt.Errorf("%d normals for %d positions", len(m.Normals), len(m.Positions))
	}
	if err := m.CheckValid(); err != nil {
		return err
	}
	for i, c := range comments {
		if strings.ContainsAny(c, "\r\n") {
			return fmt.Errorf("comment %d holds a line break: %q", i, c)
		}
	}
	return nil
}

// WriteOBJ writes m as Wavefront OBJ text: "v x y z" and "vn x y z" per vertex, then "f a//a b//b c//c" per
// triangle (indices from 1, counter-clockwise seen from outside, as OBJ expects). Numbers are the shortest
// decimals that read back as the same float32, so a mesh makes the round trip bit for bit. Blender and Houdini
// import the file as it is; the normals give smooth shading.
func WriteOBJ(w io.Writer, m *trimesh.Mesh, comments ...string) error {
	return WriteOBJObjects(w, []Object{{Mesh: m}}, comments...)
}

// Object is a named mesh of an OBJ file with several (WriteOBJObjects).
type Object struct {
	Name string // the "o" line's name; "" writes none
	Mesh *trimesh.Mesh
}

// WriteOBJObjects writes several meshes into one OBJ file as WriteOBJ does, each after an "o name" line, so that
// Blender imports each as an object of its own and Houdini as a named group. Names must be non-empty runs of
// letters, digits and underscores (a name with a space would be cut there), except that a single object may
// have none.
func WriteOBJObjects(w io.Writer, objs []Object, comments ...string) error {
	for i, o := range objs {
		if err := checkMesh(o.Mesh, comments); err != nil {
			return fmt.Errorf("writing OBJ: object %d: %w", i, err)
		}
		if (o.Name != "" || len(objs) > 1) && !validName(o.Name) {
			return fmt.Errorf("writing OBJ: object %d: name %q is not a letter or underscore followed by letters, digits and underscores", i, o.Name)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, c := range comments {
		bw.WriteString("# " + c + "\n")
	}
	var b []byte
	vec := func(tag string, v [3]float32) {
		b = append(b[:0], tag...)
		for _, x := range v {
			b = append(b, ' ')
			b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
		}
		b = append(b, '\n')
		bw.Write(b)
	}
	base := int64(1) // OBJ indices count from 1 across the whole file
	for _, o := range objs {
		m := o.Mesh
		if o.Name != "" {
			bw.WriteString("o " + o.Name + "\n")
		}
		fmt.Fprintf(bw, "# %d vertices, %d triangles\n", len(m.Positions), len(m.Triangles))
		for _, p := range m.Positions {
			vec("v", p)
		}
		for _, n := range m.Normals {
			vec("vn", n)
		}
		for _, t := range m.Triangles {
			b = append(b[:0], 'f')
			for _, v := range t {
				b = append(b, ' ')
				b = strconv.AppendInt(b, int64(v)+base, 10)
				b = append(b, '/', '/')
				b = strconv.AppendInt(b, int64(v)+base, 10)
			}
			b = append(b, '\n')
			bw.Write(b)
		}
		base += int64(len(m.Positions))
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing OBJ: %w", err)
	}
	return nil
}

// WriteMeshPLY writes m as a binary little-endian PLY mesh: a vertex element of float x, y, z, nx, ny, nz and a
// face element of "list uchar int vertex_indices", three indices (from 0) a face, counter-clockwise seen from
// outside. Blender's and Houdini's PLY importers read these names as positions, normals and polygons.
func WriteMeshPLY(w io.Writer, m *trimesh.Mesh, comments ...string) error {
	if err := checkMesh(m, comments); err != nil {
		return fmt.Errorf("writing PLY: %w", err)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString("ply\nformat binary_little_endian 1.0\n")
	for _, c := range comments {
		bw.WriteString("comment " + c + "\n")
	}
	fmt.Fprintf(bw, "element vertex %d\n", len(m.Positions))
	for _, p := range []string{"x", "y", "z", "nx", "ny", "nz"} {
		bw.WriteString("property float " + p + "\n")
	}
	fmt.Fprintf(bw, "element face %d\n", len(m.Triangles))
	bw.WriteString("property list uchar int vertex_indices\nend_header\n")
	var rec [24]byte
	for i, p := range m.Positions {
		n := m.Normals[i]
		for k, v := range [6]float32{p[0], p[1], p[2], n[0], n[1], n[2]} {
			binary.LittleEndian.PutUint32(rec[4*k:], math.Float32bits(v))
		}
		bw.Write(rec[:])
	}
	var face [13]byte
	face[0] = 3
	for _, t := range m.Triangles {
		for k, v := range t {
			binary.LittleEndian.PutUint32(face[1+4*k:], uint32(v))
		}
		bw.Write(face[:])
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing PLY: %w", err)
	}
	return nil
}
