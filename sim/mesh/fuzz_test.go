package mesh

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzOBJ feeds the OBJ reader arbitrary bytes: it must refuse them with a message of a readable length, or
// return a closed, consistently oriented mesh enclosing positive volume that writes back to OBJ text reading the
// same, and whose distance grid (coarse here) is finite. Run by go test on the seeds (valid meshes in the forms
// OBJ allows, and the bad cases of issue 11, plus testdata/fuzz); make fuzz runs it for longer.
func FuzzOBJ(f *testing.F) {
	for _, s := range []string{
		cubeOBJ,
		// a tetrahedron with v/vt/vn corners, negative indices, comments, ignored statements and a w coordinate
		"# tetra\nmtllib x.mtl\no t\nv 0 0 0 1\nv 1 0 0\nv 0 1 0\nv 0 0 1\nvt 0 0\nvn 0 0 1\ns off\n" +
			"f 1/1/1 3/1/1 2/1/1\nf -4//1 -3//1 -1//1\nf 1/1 4/1 3/1\nf 2 3 4\n",
		// a forward reference and a coloured vertex
		"f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\nv 0 0 0 1 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n",
		// coordinates near overflow, and too small to compute with
		strings.ReplaceAll(cubeOBJ, "1", "1e308"),
		strings.ReplaceAll(cubeOBJ, "1", "1e-300"),
		// long tokens, and many slashes
		"v 1 2 " + strings.Repeat("x", 200) + "\n",
		strings.Repeat("y", 200) + "\n",
		cubeOBJ + "f 1 2 " + strings.Repeat("/", 200) + "\n",
		// a repeated corner in a large polygon; a hole; a face used twice
		cubeOBJ + "f" + strings.Repeat(" 1 2 3 4 5 6 7 8", 3) + "\n",
		strings.TrimSuffix(cubeOBJ, "f 2 3 7 6\n"),
		cubeOBJ + "f 2 3 7 6\n",
		// encodings
		"\xEF\xBB\xBF" + cubeOBJ,
		"\xFF\xFEv\x00 \x001\x00",
		// NaN, Inf, out-of-range indices
		"v nan 0 0\nv inf 0 0\nf 1 2 9\n",
		"v 0 0 0\nf 0 1 -5\nf 9223372036854775807 1 2\n",
		// files that are not OBJ meshes, which messages must not quote (issue 24): a password file, a key, and
		// lines that are no statement after some that are
		"root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n",
		"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n",
		"v 0 0 0\nuser:password\n",
		"v 0 0 0\ncurv2 1 2\nff 1 2 3\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := load(data, "fuzz.obj")
		if err != nil {
			if len(err.Error()) > 1000 {
				t.Fatalf("a %d-byte message: %.300s", len(err.Error()), err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("load returned a mesh Validate refuses: %v", err)
		}
		if !(m.Volume() > 0) {
			t.Fatalf("volume %g after load turned the mesh outward", m.Volume())
		}
		var b bytes.Buffer
		if err := m.WriteOBJ(&b, 0); err != nil {
			t.Fatal(err)
		}
		again, err := Parse(b.Bytes(), "again.obj")
		if err != nil || len(again.Vertices) != len(m.Vertices) || len(again.Triangles) != len(m.Triangles) {
			t.Fatalf("written back: %v", err)
		}
		if err := again.Validate(); err != nil {
			t.Fatalf("written back: %v", err)
		}
		u := m.Transformed(m.Fit(1, Vec3{}, Vec3{}))
		sdf, err := BuildSDF(u, 1.0/8, 1)
		if err != nil {
			t.Fatalf("BuildSDF of a valid mesh: %v", err)
		}
		for i, v := range sdf.Values {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("SDF value %d is %g", i, v)
			}
		}
	})
}
