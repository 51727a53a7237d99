package mesh

import (
	"fmt"
	"strings"
	"testing"
)

// scaledCube is cubeOBJ with every coordinate multiplied by s and moved by off.
func scaledCube(s, off float64) string {
	var b strings.Builder
	for _, line := range strings.Split(cubeOBJ, "\n") {
		var x, y, z float64
		if n, _ := fmt.Sscanf(line, "v %g %g %g", &x, &y, &z); n == 3 {
			fmt.Fprintf(&b, "v %g %g %g\n", x*s+off, y*s+off, z*s+off)
			continue
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// Coordinates that would overflow areas and volumes are out of range, with their line; a mesh too small to
// compute with says so. Both used to be reported as "12 triangles have zero area".
func TestCoordinatesOutOfRange(t *testing.T) {
	_, err := load([]byte(scaledCube(1e308, 0)), "huge.obj")
	if err == nil || !strings.Contains(err.Error(), `huge.obj: line 2: vertex coordinate "1e+308" is out of range: coordinates lie within ±1e+09`) {
		t.Errorf("1e308: %v", err)
	}
	if _, err := load([]byte("v 1e400 0 0\n"), "inf.obj"); err == nil || !strings.Contains(err.Error(), `inf.obj: line 1: vertex coordinate "1e400" is out of range`) {
		t.Errorf("1e400: %v", err)
	}
	_, err = load([]byte(scaledCube(1e-200, 0)), "tiny.obj")
	if err == nil || !strings.Contains(err.Error(), "tiny.obj: the mesh is 1e-200 units across, 1 from the origin: too small to compute with") {
		t.Errorf("1e-200: %v", err)
	}
	_, err = load([]byte(scaledCube(1e-3, 1e8)), "far.obj")
	if err == nil || !strings.Contains(err.Error(), "far.obj: the mesh is 0.001") || !strings.Contains(err.Error(), "too small to compute with") {
		t.Errorf("small and far: %v", err)
	}
	// in range and ordinary sizes load
	for _, c := range []struct{ s, off float64 }{{1, 0}, {1e8, 0}, {1e-6, 0}, {1, 1e8}} {
		if _, err := load([]byte(scaledCube(c.s, c.off)), "ok.obj"); err != nil {
			t.Errorf("scale %g at %g: %v", c.s, c.off, err)
		}
	}
	// a mesh made in code is checked the same way
	m, err := Parse([]byte(cubeOBJ), "code")
	if err != nil {
		t.Fatal(err)
	}
	m.Vertices[3][1] = 1e300
	if err := m.Validate(); err == nil || !strings.Contains(err.Error(), "code: vertex 4 has the coordinate 1e+300, out of range") {
		t.Errorf("Validate: %v", err)
	}
}

// Tokens quoted in errors are cut to a readable length; a 5 MB token was echoed whole.
func TestLongTokensAreCut(t *testing.T) {
	long := strings.Repeat("x", 5<<20)
	for _, src := range []string{
		long + " 1 2 3\n",
		"v 1 2 " + long + "\n",
		cubeOBJ + "f 1 2 " + long + "\n",
		cubeOBJ + "f 1 2 3/" + long + "\n",
		cubeOBJ + "f 1 2 " + strings.Repeat("/", 5<<20) + "\n",
	} {
		_, err := Parse([]byte(src), "long.obj")
		if err == nil || len(err.Error()) > 400 {
			t.Errorf("%d bytes of error: %.200v", len(fmt.Sprint(err)), err)
		}
	}
}

// Counts read from the file are bounded while reading: vertices, and the corners of one face.
func TestVertexAndFaceLimits(t *testing.T) {
	old := maxVertices
	maxVertices = 8
	_, err := Parse([]byte(cubeOBJ+"v 0 0 2\n"), "many.obj")
	maxVertices = old
	if err == nil || !strings.Contains(err.Error(), "many.obj: line 15: the mesh has more than 8 vertices, the limit") {
		t.Errorf("vertex limit: %v", err)
	}
	big := cubeOBJ + "f" + strings.Repeat(" 1", MaxFaceVertices+1) + "\n"
	if _, err := Parse([]byte(big), "poly.obj"); err == nil || !strings.Contains(err.Error(), "poly.obj: line 15: a face with more than 65536 vertices, the limit") {
		t.Errorf("face limit: %v", err)
	}
}

// A repeated corner is found in polygons of any size (large ones by sorting, not by comparing every pair).
func TestRepeatedCorner(t *testing.T) {
	var scratch []int64
	for _, n := range []int{3, 16, 17, 5000} {
		idx := make([]int64, n)
		for i := range idx {
			idx[i] = int64(n - i)
		}
		if i, ok := repeated(idx, &scratch); ok {
			t.Errorf("%d distinct corners: repeated %d", n, i)
		}
		idx[n-1] = idx[0]
		if i, ok := repeated(idx, &scratch); !ok || i != int64(n) {
			t.Errorf("%d corners, the first and last the same: %d, %v", n, i, ok)
		}
		if idx[1] != int64(n-1) {
			t.Errorf("repeated reordered the face")
		}
	}
}

// A UTF-8 byte-order mark is skipped; UTF-16 is named.
func TestOBJEncoding(t *testing.T) {
	if _, err := load([]byte("\xEF\xBB\xBF"+cubeOBJ), "bom.obj"); err != nil {
		t.Errorf("byte-order mark: %v", err)
	}
	var u16 []byte
	for _, b := range []byte(cubeOBJ) {
		u16 = append(u16, b, 0)
	}
	if _, err := Parse(u16, "u16.obj"); err == nil || !strings.Contains(err.Error(), "u16.obj: the file is UTF-16 (little-endian) text") {
		t.Errorf("UTF-16: %v", err)
	}
}
