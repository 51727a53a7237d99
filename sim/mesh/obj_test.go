package mesh

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every index form, relative indices, polygons, comments, ignored statements and CRLF line ends give exactly the
// triangles they describe.
func TestParseForms(t *testing.T) {
	src := "# a unit cube written every way OBJ allows\r\n" +
		"mtllib cube.mtl\n" +
		"o cube\n" +
		"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n" +
		"v 0 0 1 1.0\n" + // with w
		"v 1 0 1 0.5 0.5 0.5\n" + // with a colour
		"v 1 1 1\n\tv   0 1 1   # trailing comment\n" +
		"vt 0 0\nvn 0 0 1\nvp 0.5\n" +
		"g sides\nusemtl stone\ns off\n" +
		"f 1/1 4/1 3/1 2/1\n" + // v/vt, a quad
		"f 5//1 6//1 7//1 8//1\r\n" + // v//vn
		"f 1/1/1 2/1/1 6/1/1 5/1/1\n" + // v/vt/vn
		"f -5 -1 -2 -6\n" + // relative: 4 8 7 3
		"f 1 5 8 4\n" +
		"\n" +
		"l 1 2\np 3\n" +
		"f 2 3 7 6"
	m, err := Parse([]byte(src), "cube.obj")
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]int32{
		{0, 3, 2}, {0, 2, 1},
		{4, 5, 6}, {4, 6, 7},
		{0, 1, 5}, {0, 5, 4},
		{3, 7, 6}, {3, 6, 2},
		{0, 4, 7}, {0, 7, 3},
		{1, 2, 6}, {1, 6, 5},
	}
	if !reflect.DeepEqual(m.Triangles, want) {
		t.Errorf("triangles\n got %v\nwant %v", m.Triangles, want)
	}
	if wantLines := []int32{18, 18, 19, 19, 20, 20, 21, 21, 22, 22, 26, 26}; !reflect.DeepEqual(m.Lines, wantLines) {
		t.Errorf("lines %v, want %v", m.Lines, wantLines)
	}
	if len(m.Vertices) != 8 || m.Vertices[5] != (Vec3{1, 0, 1}) || m.Vertices[7] != (Vec3{0, 1, 1}) {
		t.Errorf("vertices %v", m.Vertices)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if v := m.Volume(); math.Abs(v-1) > 1e-12 {
		t.Errorf("volume %g, want 1", v)
	}
	if a := m.Area(); math.Abs(a-6) > 1e-12 {
		t.Errorf("area %g, want 6", a)
	}

	// relative indices count back from the vertices read so far; polygons become fans
	m, err = Parse([]byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\nf -5 -4 -3 -2 -1\n"), "rel.obj")
	if err != nil {
		t.Fatal(err)
	}
	if want := [][3]int32{{0, 1, 2}, {2, 3, 4}, {2, 4, 5}, {2, 5, 6}}; !reflect.DeepEqual(m.Triangles, want) {
		t.Errorf("relative indices and fans: got %v, want %v", m.Triangles, want)
	}
	// forward references are allowed (checked at the end)
	if _, err := Parse([]byte("f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n"), "fwd.obj"); err != nil {
		t.Errorf("forward references: %v", err)
	}
}

// Each kind of bad file is an error that names the file, the line (where one is to blame) and the problem.
func TestBadFiles(t *testing.T) {
	cubeWith := func(lines ...string) string { return cubeOBJ + strings.Join(lines, "\n") + "\n" }
	missingFace := strings.Replace(cubeOBJ, "f 2 3 7 6\n", "", 1)
	flippedFace := strings.Replace(cubeOBJ, "f 2 3 7 6\n", "f 6 7 3 2\n", 1)
	// a second cube on the first one's edge from (1,1,0) to (1,1,1): vertices 3 and 7 are shared
	twoCubes := cubeOBJ + `v 2 1 0
v 2 2 0
v 1 2 0
v 2 1 1
v 2 2 1
v 1 2 1
f 3 11 10 9
f 7 12 13 14
f 3 9 12 7
f 11 14 13 10
f 3 7 14 11
f 9 10 13 12
`
	cases := []struct {
		name, obj string
		want      []string
	}{
		{"no faces", "# only points\nv 0 0 0\nv 1 0 0\nv 0 1 0\n", []string{"bad.obj: no faces"}},
		{"index out of range", cubeWith("f 1 2 9"), []string{"bad.obj: line 15: vertex index 9 is out of range", "8 vertices"}},
		{"relative out of range", "v 0 0 0\nv 1 0 0\nf -1 -2 -3\n", []string{"bad.obj: line 3:", "relative index -3 is out of range"}},
		{"zero index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", []string{"bad.obj: line 4:", "indices start at 1"}},
		{"open mesh", missingFace, []string{"bad.obj: not closed and manifold: 4 edges are used by other than exactly two triangles", "line ", "by 1:", "it has holes: close them"}},
		{"two cubes on an edge", twoCubes, []string{"bad.obj: not closed and manifold: 1 edge is used by other than exactly two triangles", "vertices 3 and 7, by 4", "line ", "parts meet along an edge"}},
		{"inconsistent winding", flippedFace, []string{"bad.obj: inconsistently oriented: at 4 edges", "line 14", "Recalculate Outside"}},
		{"repeated vertex", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 2\n", []string{"bad.obj: line 4: degenerate face: it uses vertex 2 twice"}},
		{"zero area", "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\n\nf 1 2 3\nf 1 2 4\n", []string{"bad.obj: degenerate: 1 triangle has zero area", "line 6"}},
		{"flat", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 3 2\n", []string{"bad.obj: degenerate: the mesh encloses no volume"}},
		{"unknown statement", "v 0 0 0\n\ncurv 0 1 1 2\n", []string{`bad.obj: line 3: unknown statement "curv"`}},
		{"bad number", "v 0 0 0\nv 0 x 0\n", []string{`bad.obj: line 2: vertex coordinate "x" is not a finite number`}},
		{"nan", "v nan 0 0\n", []string{`bad.obj: line 1: vertex coordinate "nan"`}},
		{"short vertex", "v 0 0\n", []string{"bad.obj: line 1: a vertex needs x y z", "got 2"}},
		{"short face", "v 0 0 0\nv 1 0 0\nf 1 2\n", []string{"bad.obj: line 3: a face needs at least 3 vertices, got 2"}},
		{"bad face vertex", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/x 2 3\n", []string{`bad.obj: line 4: face vertex "1/x"`}},
		{"bad face form", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1/1 2 3\n", []string{`bad.obj: line 4: face vertex "1/1/1/1": want v, v/vt, v//vn or v/vt/vn`}},
	}
	for _, c := range cases {
		_, err := Load(memFS(map[string]string{"bad.obj": c.obj}), "bad.obj")
		if err == nil {
			t.Errorf("%s: loaded without error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
	if _, err := Load(memFS(nil), "missing.obj"); err == nil || !strings.Contains(err.Error(), "missing.obj: no such mesh file") {
		t.Errorf("missing file: %v", err)
	}
}

// A file over the size limit is refused before it is read; the triangle limit is checked while parsing.
func TestLimits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.obj")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// a sparse file: no disk space, but Stat says it is over the limit
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = LoadFile(path)
	if err == nil || !strings.Contains(err.Error(), path+": the file is 64.0 MiB, over the limit of 64 MiB") ||
		!strings.Contains(err.Error(), "decimate") {
		t.Errorf("huge file: %v", err)
	}
	if _, err := Parse(make([]byte, MaxFileBytes+1), "big.obj"); err == nil || !strings.Contains(err.Error(), "over the limit of 64 MiB") {
		t.Errorf("huge data: %v", err)
	}

	old := maxTriangles
	maxTriangles = 10
	defer func() { maxTriangles = old }()
	_, err = Parse([]byte(cubeOBJ), "many.obj")
	if err == nil || !strings.Contains(err.Error(), "many.obj: line 14: the mesh has more than 10 triangles, the limit") {
		t.Errorf("triangle limit: %v", err)
	}
}

// Load turns an inside-out mesh right side out; WriteOBJ round-trips, rounding when asked.
func TestLoadOrientsAndWriteRoundTrips(t *testing.T) {
	inside := strings.NewReplacer("f 1 4 3 2", "f 2 3 4 1", "f 5 6 7 8", "f 8 7 6 5", "f 1 2 6 5", "f 5 6 2 1",
		"f 4 8 7 3", "f 3 7 8 4", "f 1 5 8 4", "f 4 8 5 1", "f 2 3 7 6", "f 6 7 3 2").Replace(cubeOBJ)
	raw, err := Parse([]byte(inside), "in.obj")
	if err != nil {
		t.Fatal(err)
	}
	if v := raw.Volume(); v > -0.99 {
		t.Fatalf("the inside-out cube has volume %g, want −1", v)
	}
	m, err := Load(memFS(map[string]string{"in.obj": inside}), "in.obj")
	if err != nil {
		t.Fatal(err)
	}
	if v := m.Volume(); math.Abs(v-1) > 1e-12 {
		t.Errorf("after Load the volume is %g, want 1", v)
	}

	s := icosphere(1.2345678, 1)
	var buf bytes.Buffer
	if err := s.WriteOBJ(&buf, 0, "header line"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "# header line\nv ") {
		t.Errorf("output starts %q", buf.String()[:30])
	}
	back, err := Parse(buf.Bytes(), "round.obj")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Vertices, s.Vertices) || !reflect.DeepEqual(back.Triangles, s.Triangles) {
		t.Error("WriteOBJ with full precision does not round-trip")
	}
	buf.Reset()
	s.WriteOBJ(&buf, 3)
	back, _ = Parse(buf.Bytes(), "round.obj")
	for i, v := range back.Vertices {
		for c := 0; c < 3; c++ {
			if d := math.Abs(v[c] - s.Vertices[i][c]); d > 0.005 || (d == 0 && s.Vertices[i][c] != math.Round(s.Vertices[i][c]*100)/100) {
				t.Fatalf("vertex %d: %v rounded to 3 digits gives %v", i, s.Vertices[i], v)
			}
		}
	}
}

// Fit scales the longest side to the target size, rotates about the bounding box's centre and moves that centre.
func TestFitAndBounds(t *testing.T) {
	m := unitCube(t)
	m.Vertices[6] = Vec3{1, 3, 1} // stretch one corner: the bounding box is 1×3×1
	lo, hi := m.Bounds()
	if lo != (Vec3{0, 0, 0}) || hi != (Vec3{1, 3, 1}) {
		t.Fatalf("bounds %v %v", lo, hi)
	}
	tr := m.Fit(6, Vec3{5, 5, 5}, Vec3{0, 90, 0})
	if tr.Scale != 2 {
		t.Errorf("scale %g, want 2", tr.Scale)
	}
	// the corner (1, 0, 0) is (0.5, −1.5, −0.5) from the centre (0.5, 1.5, 0.5); scaled (1, −3, −1); a quarter
	// turn about y takes x to −z and z to x: (−1, −3, −1)
	if p := tr.Apply(Vec3{1, 0, 0}); p.Sub(Vec3{4, 2, 4}).Len() > 1e-12 {
		t.Errorf("Apply(1,0,0) = %v, want [4 2 4]", p)
	}
	if p := tr.Inverse(tr.Apply(Vec3{0.3, -0.7, 2})); p.Sub(Vec3{0.3, -0.7, 2}).Len() > 1e-12 {
		t.Errorf("Inverse∘Apply = %v", p)
	}
	f := m.Transformed(tr)
	lo, hi = f.Bounds()
	if sz := hi.Sub(lo); math.Abs(sz.MaxComp()-6) > 1e-12 || lo.Add(hi).Scale(0.5).Sub(Vec3{5, 5, 5}).Len() > 1e-12 {
		t.Errorf("fitted bounds %v–%v", lo, hi)
	}
	if v0, v1 := m.Volume(), f.Volume(); math.Abs(v1-8*v0) > 1e-9 {
		t.Errorf("volume %g after scaling by 2, want 8×%g", v1, v0)
	}
	if m.Vertices[1] != (Vec3{1, 0, 0}) {
		t.Error("Transformed changed the original")
	}
}
