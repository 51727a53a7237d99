// Package export writes particle caches that other programs read: one Stanford PLY file per frame and a JSON
// sidecar that says what the frames are (scene, mode, parameters, software version).
//
// # Why PLY
//
// PLY is the one point format that Blender and Houdini both import without plug-ins, that carries any number of
// named per-point values, and whose binary form is a short text header followed by the raw values: cheap to
// write every frame, and exact (a float32 goes out and comes back bit for bit). Alembic or VDB would need C
// libraries; OBJ and CSV carry no attributes or lose precision.
//
// # The files
//
// Each frame is frame_NNNNNN.ply (FrameName: six digits, zero-padded, so that file managers sort them and
// Houdini's File SOP reads the sequence as frame_$F6.ply). A frame file is
//
//	ply
//	format binary_little_endian 1.0
//	comment <free text: software, scene, simulated time, ...>
//	element vertex <N>
//	property float x
//	property float y
//	property float z
//	property float vx
//	...
//	end_header
//
// followed by N records, one per particle, each holding the properties in header order as little-endian values
// with no padding (float, uint and int are 4 bytes each). There are no faces: the file is a point cloud.
//
// The columns FrameColumns takes from a sim.Frame are
//
//	x y z       float  position, m
//	vx vy vz    float  velocity, m/s
//	density     float  ρ/ρ0, density relative to the rest density (1 at rest)
//	id          uint   stable particle identity, for matching particles across frames
//	body        int    rigid body the particle belongs to, −1 for fluid; only in scenes with bodies
//	material    uint   the scene's material number (0 its default material, k its materials[k−1]); with phase,
//	phase       uint   only in frames with materials or phases: 0 liquid, 1 granular, 2 solid (scene.Phase)
//
// and a mode adds its own (temperature, ...) by appending Columns. A frame with a material column names each
// material number in its header (MaterialComments), so that a frame read without its sidecar says what it holds:
//
//	comment material 0 "water" liquid, phase 0
//	comment material 1 "sand" granular, phase 1
//
// In Blender (File ▸ Import ▸ Stanford PLY) x, y, z become the vertex positions; Blender 4's importer can bring
// the other properties in as named mesh attributes, which Geometry Nodes read by name; older importers ignore
// them. In Houdini the File SOP reads x, y, z as P and the other properties as point attributes of the same
// name. PLY has no vector properties, so velocity arrives as three floats vx, vy, vz: an Attribute Wrangle with
// v@v = set(f@vx, f@vy, f@vz); makes the v that motion blur and trails expect. id is already the name Houdini
// uses for particle identity.
//
// # The sidecar
//
// The sidecar (Sidecar, WriteSidecar) is indented JSON beside the frames: software and version, mode, scene (its
// name and the scene itself), the mode's parameters, frame count and spacing, the frame file names, the column
// names and each material number's name, kind and phase (Material). It is written atomically, so a reader never
// sees half of it.
//
// ReadPLY reads back what WritePLY writes (and other binary little-endian point clouds with scalar properties);
// it exists for tests and tools, and is strict: its errors name the header line or the vertex at fault.
package export

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/slosh/slosh/sim"
)

// Column is one named per-particle value: exactly one of F32, U32 and I32 is non-nil (for zero particles, an empty
// non-nil slice), and its type is the column's PLY type: float, uint or int.
type Column struct {
	Name string
	F32  []float32
	U32  []uint32
	I32  []int32
}

// Type is the column's PLY property type ("float", "uint" or "int"), or "" unless exactly one slice is set.
func (c Column) Type() string {
	t, set := "", 0
	if c.F32 != nil {
		t, set = "float", set+1
	}
	if c.U32 != nil {
		t, set = "uint", set+1
	}
	if c.I32 != nil {
		t, set = "int", set+1
	}
	if set != 1 {
		return ""
	}
	return t
}

// Len is the number of values in the column's set slice.
func (c Column) Len() int {
	return len(c.F32) + len(c.U32) + len(c.I32)
}

// Names lists the columns' names in order, as the sidecar's Columns field records them.
func Names(cols []Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// FrameColumns returns the columns of f that every mode exports: x, y, z, vx, vy, vz, density and id, then body
// when f.Body is non-nil (the scene has rigid bodies), then material (the scene's material number: 0 its default
// material, k its materials[k−1]) and phase (scene.Phase: 0 liquid, 1 granular, 2 solid) when f has materials or
// phases. Positions and velocities are copied out of their xyzw layout; density, id and body share f's slices, so
// write the columns before f is filled again.
//
// A frame whose slices are shorter than f.N gives columns of those lengths, and WritePLY then says which column
// is short rather than this function panicking in the middle of an export.
func FrameColumns(f *sim.Frame) []Column {
	n := max(f.N, 0)
	pn, vn := min(n, len(f.Pos)), min(n, len(f.Vel))
	x, y, z := make([]float32, pn), make([]float32, pn), make([]float32, pn)
	for i, p := range f.Pos[:pn] {
		x[i], y[i], z[i] = p[0], p[1], p[2]
	}
	vx, vy, vz := make([]float32, vn), make([]float32, vn), make([]float32, vn)
	for i, v := range f.Vel[:vn] {
		vx[i], vy[i], vz[i] = v[0], v[1], v[2]
	}
	cols := []Column{
		{Name: "x", F32: x},
		{Name: "y", F32: y},
		{Name: "z", F32: z},
		{Name: "vx", F32: vx},
		{Name: "vy", F32: vy},
		{Name: "vz", F32: vz},
		{Name: "density", F32: upTo(f.Rho, n)},
		{Name: "id", U32: upTo(f.ID, n)},
	}
	if f.Body != nil {
		cols = append(cols, Column{Name: "body", I32: upTo(f.Body, n)})
	}
	if f.Material != nil || f.Phase != nil {
		mat, phase := make([]uint32, n), make([]uint32, n)
		for i := range n {
			if i < len(f.Material) {
				mat[i] = uint32(f.Material[i])
			}
			if i < len(f.Phase) {
				phase[i] = uint32(f.Phase[i])
			}
		}
		cols = append(cols, Column{Name: "material", U32: mat}, Column{Name: "phase", U32: phase})
	}
	if f.Temperature != nil {
		cols = append(cols, Column{Name: "temperature", F32: upTo(f.Temperature, n)})
	}
	return cols
}

// upTo is s cut to at most n values, never nil (a nil slice would leave a column without a type).
func upTo[T any](s []T, n int) []T {
	if s == nil {
		return []T{}
	}
	return s[:min(n, len(s))]
}

// FrameName is the path of frame number frame in dir: dir/frame_000123.ply. The number is zero-padded to six
// digits (larger numbers simply grow wider); frame is numbered as the caller counts, and must not be negative.
func FrameName(dir string, frame int) string {
	if frame < 0 {
		panic(fmt.Sprintf("export.FrameName: negative frame %d", frame))
	}
	return filepath.Join(dir, fmt.Sprintf("frame_%06d.ply", frame))
}

// IsFileName reports whether name is the base name of a file an export writes beside its sidecar: a frame
// (FrameName: frame_NNNNNN.ply), a surface mesh or level set (SurfaceName: surface_NNNNNN.obj, .ply or .vdb), a body's mesh
// (BodyName: bodyB_NNNNNN.obj or .ply) or a material's surface (MaterialSurfaceName: materialK_NNNNNN.obj or
// .ply), numbered as those functions number them. An export clears the stale
// temporary files of these names only, and leaves a user's own files in its folder alone.
func IsFileName(name string) bool {
	if rest, ok := strings.CutPrefix(name, "frame_"); ok {
		n, ok := strings.CutSuffix(rest, ".ply")
		return ok && numbered(n, 6)
	}
	if rest, ok := strings.CutPrefix(name, "surface_"); ok {
		if n, ok := strings.CutSuffix(rest, "."+VDB); ok {
			return numbered(n, 6)
		}
	}
	stem, ok := cutExt(name)
	if !ok {
		return false
	}
	if n, ok := strings.CutPrefix(stem, "surface_"); ok {
		return numbered(n, 6)
	}
	for _, prefix := range []string{"body", "material"} {
		if rest, ok := strings.CutPrefix(stem, prefix); ok {
			b, n, ok := strings.Cut(rest, "_")
			return ok && numbered(b, 1) && numbered(n, 6)
		}
	}
	return false
}

// cutExt cuts a mesh format's extension off name.
func cutExt(name string) (stem string, ok bool) {
	for _, f := range MeshFormats {
		if stem, ok := strings.CutSuffix(name, "."+f); ok {
			return stem, true
		}
	}
	return "", false
}

// numbered reports whether s is a number as fmt's %0<width>d writes one that is not negative: digits only, at
// least width of them, and no leading zero beyond those the width adds.
func numbered(s string, width int) bool {
	if len(s) < width || len(s) > width && s[0] == '0' {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
