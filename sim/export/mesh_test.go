package export

import (
	"bytes"
	"encoding/binary"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim/scene"
	"github.com/slosh/slosh/sim/trimesh"
)

// The readers below are the tests' own, written from the formats' descriptions and sharing nothing with the
// writers, so that a writer's mistake is not read back the same way.

// readOBJ parses v, vn and f lines of "a//a" triangles; anything else but comments, "o" lines and blank lines is
// an error. The objects' names are returned with the triangle each starts at.
func readOBJ(t *testing.T, data []byte) *trimesh.Mesh {
	t.Helper()
	m, _ := readOBJObjects(t, data)
	return m
}

type objStart struct {
	name     string
	triangle int
}

func readOBJObjects(t *testing.T, data []byte) (*trimesh.Mesh, []objStart) {
	t.Helper()
	m := &trimesh.Mesh{}
	var objs []objStart
	num := func(s string) float32 {
		f, err := strconv.ParseFloat(s, 32)
		if err != nil {
			t.Fatalf("OBJ number %q: %v", s, err)
		}
		return float32(f)
	}
	for i, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch {
		case f[0] == "o" && len(f) == 2:
			objs = append(objs, objStart{f[1], len(m.Triangles)})
		case f[0] == "v" && len(f) == 4:
			m.Positions = append(m.Positions, [3]float32{num(f[1]), num(f[2]), num(f[3])})
		case f[0] == "vn" && len(f) == 4:
			m.Normals = append(m.Normals, [3]float32{num(f[1]), num(f[2]), num(f[3])})
		case f[0] == "f" && len(f) == 4:
			var tri [3]int32
			for k, s := range f[1:] {
				parts := strings.Split(s, "/")
				if len(parts) != 3 || parts[1] != "" || parts[0] != parts[2] {
					t.Fatalf("OBJ line %d: face corner %q is not a//a", i+1, s)
				}
				v, err := strconv.Atoi(parts[0])
				if err != nil || v < 1 {
					t.Fatalf("OBJ line %d: index %q", i+1, parts[0])
				}
				tri[k] = int32(v - 1)
			}
			m.Triangles = append(m.Triangles, tri)
		default:
			t.Fatalf("OBJ line %d: unexpected %q", i+1, line)
		}
	}
	return m, objs
}

// readPLYMesh parses exactly the header WriteMeshPLY promises, then its binary records.
func readPLYMesh(t *testing.T, data []byte) *trimesh.Mesh {
	t.Helper()
	end := bytes.Index(data, []byte("end_header\n"))
	if end < 0 {
		t.Fatal("PLY: no end_header")
	}
	var lines []string
	for _, l := range strings.Split(string(data[:end]), "\n") {
		if l != "" && !strings.HasPrefix(l, "comment ") {
			lines = append(lines, l)
		}
	}
	var nv, nf int
	want := []string{"ply", "format binary_little_endian 1.0", "element vertex %d", "property float x", "property float y",
		"property float z", "property float nx", "property float ny", "property float nz", "element face %d",
		"property list uchar int vertex_indices"}
	if len(lines) != len(want) {
		t.Fatalf("PLY header %q", lines)
	}
	for i, w := range want {
		switch {
		case strings.HasPrefix(w, "element vertex"):
			n, err := strconv.Atoi(strings.TrimPrefix(lines[i], "element vertex "))
			if err != nil {
				t.Fatalf("PLY header line %q", lines[i])
			}
			nv = n
		case strings.HasPrefix(w, "element face"):
			n, err := strconv.Atoi(strings.TrimPrefix(lines[i], "element face "))
			if err != nil {
				t.Fatalf("PLY header line %q", lines[i])
			}
			nf = n
		case lines[i] != w:
			t.Fatalf("PLY header line %q, want %q", lines[i], w)
		}
	}
	r := bytes.NewReader(data[end+len("end_header\n"):])
	m := &trimesh.Mesh{Positions: make([][3]float32, nv), Normals: make([][3]float32, nv)}
	for i := range nv {
		var rec [6]float32
		if err := binary.Read(r, binary.LittleEndian, &rec); err != nil {
			t.Fatalf("PLY vertex %d: %v", i, err)
		}
		m.Positions[i] = [3]float32{rec[0], rec[1], rec[2]}
		m.Normals[i] = [3]float32{rec[3], rec[4], rec[5]}
	}
	for i := range nf {
		var count uint8
		var idx [3]int32
		if binary.Read(r, binary.LittleEndian, &count) != nil || count != 3 || binary.Read(r, binary.LittleEndian, &idx) != nil {
			t.Fatalf("PLY face %d: not a triangle", i)
		}
		m.Triangles = append(m.Triangles, idx)
	}
	if r.Len() != 0 {
		t.Fatalf("PLY: %d bytes after the last face", r.Len())
	}
	return m
}

func sameMesh(t *testing.T, name string, got, want *trimesh.Mesh) {
	t.Helper()
	if len(got.Positions) != len(want.Positions) || len(got.Normals) != len(want.Normals) || len(got.Triangles) != len(want.Triangles) {
		t.Fatalf("%s: read %d/%d/%d vertices/normals/triangles, wrote %d/%d/%d", name, len(got.Positions), len(got.Normals),
			len(got.Triangles), len(want.Positions), len(want.Normals), len(want.Triangles))
	}
	for i := range want.Positions {
		for k := range 3 {
			if math.Float32bits(got.Positions[i][k]) != math.Float32bits(want.Positions[i][k]) ||
				math.Float32bits(got.Normals[i][k]) != math.Float32bits(want.Normals[i][k]) {
				t.Fatalf("%s: vertex %d reads back as %v %v, wrote %v %v", name, i, got.Positions[i], got.Normals[i], want.Positions[i], want.Normals[i])
			}
		}
	}
	for i := range want.Triangles {
		if got.Triangles[i] != want.Triangles[i] {
			t.Fatalf("%s: triangle %d reads back as %v, wrote %v", name, i, got.Triangles[i], want.Triangles[i])
		}
	}
}

// testMesh is a capsule and a turned box, with awkward numbers: tiny, huge and negative zero coordinates.
func testMesh(t *testing.T) *trimesh.Mesh {
	m, err := trimesh.Shape(&scene.Shape{Kind: scene.ShapeCapsule, A: scene.Vec3{0.1, 0.2, 0.3}, B: scene.Vec3{0.7, 0.2, -0.1}, Radius: 1.0 / 3})
	if err != nil {
		t.Fatal(err)
	}
	box, err := trimesh.Shape(&scene.Shape{Kind: scene.ShapeBox, Center: scene.Vec3{1e-7, -3e5, 2}, Size: scene.Vec3{1, 2e-6, 3}, Rotation: scene.Vec3{10, 20, 30}})
	if err != nil {
		t.Fatal(err)
	}
	m.Append(box)
	m.Positions[0][0] = float32(math.Copysign(0, -1))
	return m
}

func TestMeshRoundTrip(t *testing.T) {
	m := testMesh(t)
	for _, format := range MeshFormats {
		var buf bytes.Buffer
		if err := WriteMesh(&buf, m, format, "slosh test", "frame 3"); err != nil {
			t.Fatal(err)
		}
		var got *trimesh.Mesh
		if format == MeshOBJ {
			got = readOBJ(t, buf.Bytes())
		} else {
			got = readPLYMesh(t, buf.Bytes())
		}
		sameMesh(t, format, got, m)
		if !bytes.Contains(buf.Bytes(), []byte("frame 3\n")) {
			t.Errorf("%s: the comment is missing", format)
		}
	}
	// an empty mesh is a valid file of no faces
	for _, format := range MeshFormats {
		var buf bytes.Buffer
		if err := WriteMesh(&buf, &trimesh.Mesh{}, format); err != nil {
			t.Fatalf("%s: empty mesh: %v", format, err)
		}
	}
}

func TestMeshRefused(t *testing.T) {
	for _, c := range []struct {
		name, want string
		edit       func(m *trimesh.Mesh) (string, []string)
	}{
		{"NaN", "position 5", func(m *trimesh.Mesh) (string, []string) {
			m.Positions[5][2] = float32(math.NaN())
			return MeshOBJ, nil
		}},
		{"index", "triangle 2", func(m *trimesh.Mesh) (string, []string) { m.Triangles[2][0] = -1; return MeshPLY, nil }},
		{"normals", "normals for", func(m *trimesh.Mesh) (string, []string) { m.Normals = m.Normals[1:]; return MeshPLY, nil }},
		{"comment", "line break", func(m *trimesh.Mesh) (string, []string) { return MeshOBJ, []string{"a\nb"} }},
		{"format", "stl", func(m *trimesh.Mesh) (string, []string) { return "stl", nil }},
	} {
		m := testMesh(t)
		format, comments := c.edit(m)
		var buf bytes.Buffer
		err := WriteMesh(&buf, m, format, comments...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
		if buf.Len() != 0 {
			t.Errorf("%s: %d bytes written before the refusal", c.name, buf.Len())
		}
	}
	big := testMesh(t) // several buffers' worth, so the writer fails in the middle of the data too
	for range 6 {
		big.Append(big)
	}
	for _, format := range MeshFormats {
		for after := range 3 {
			if err := WriteMesh(&failWriter{after: after}, big, format); err == nil || !strings.Contains(err.Error(), "disk full") {
				t.Errorf("%s: a writer failing after %d writes gave %v", format, after, err)
			}
		}
	}
}

// Several objects in one OBJ read back as one mesh whose indices run across the file, each object named where its
// triangles start.
func TestOBJObjects(t *testing.T) {
	a, b := testMesh(t), testMesh(t)
	b.Triangles = b.Triangles[:7]
	var buf bytes.Buffer
	if err := WriteOBJObjects(&buf, []Object{{"surface", a}, {"body_0", b}}, "two objects"); err != nil {
		t.Fatal(err)
	}
	got, objs := readOBJObjects(t, buf.Bytes())
	want := &trimesh.Mesh{}
	want.Append(a)
	want.Append(b)
	sameMesh(t, "objects", got, want)
	if len(objs) != 2 || objs[0] != (objStart{"surface", 0}) || objs[1] != (objStart{"body_0", len(a.Triangles)}) {
		t.Errorf("objects %v", objs)
	}
	for _, bad := range [][]Object{{{"has space", a}}, {{"", a}, {"b", b}}} {
		buf.Reset()
		if err := WriteOBJObjects(&buf, bad); err == nil || buf.Len() != 0 {
			t.Errorf("objects %q, %q: %v, %d bytes written", bad[0].Name, bad[len(bad)-1].Name, err, buf.Len())
		}
	}
}

func TestMeshNames(t *testing.T) {
	if got := SurfaceName("out", 12, MeshOBJ); got != filepath.Join("out", "surface_000012.obj") {
		t.Errorf("SurfaceName: %s", got)
	}
	if got := BodyName("out", 3, 7, MeshPLY); got != filepath.Join("out", "body3_000007.ply") {
		t.Errorf("BodyName: %s", got)
	}
	if got := MaterialSurfaceName("out", 2, 7, MeshPLY); got != filepath.Join("out", "material2_000007.ply") {
		t.Errorf("MaterialSurfaceName: %s", got)
	}
}

// ObjectName makes any material name a name WriteOBJObjects takes, keeping what it can of it.
func TestObjectName(t *testing.T) {
	for in, want := range map[string]string{
		"sand": "sand", "wet sand": "wet_sand", "wet  -- sand!": "wet_sand_", "2nd": "_2nd", "": "_", "Sand_2": "Sand_2",
		"sable fin, sec": "sable_fin_sec", "Sand\nline": "Sand_line", "grès": "gr_s", "砂": "_", "_x": "_x",
	} {
		got := ObjectName(in)
		if got != want || !validName(got) {
			t.Errorf("ObjectName(%q) = %q, want %q", in, got, want)
		}
	}
}
