package mesh

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
)

// Hard limits, so that a stray scan or a typo cannot take all memory: larger meshes must be decimated first.
const (
	MaxFileBytes = 64 << 20  // an OBJ file's size
	MaxTriangles = 2_000_000 // triangles after polygons are split into fans
)

// maxTriangles is MaxTriangles; a variable so tests can reach the limit with a small file.
var maxTriangles = MaxTriangles

// Load reads an OBJ file from fsys, checks it (Validate) and turns an inside-out mesh (negative volume) right side
// out. Errors name the file and, where one is to blame, the line.
func Load(fsys fs.FS, name string) (*Mesh, error) {
	if fi, err := fs.Stat(fsys, name); err == nil && fi.Size() > MaxFileBytes {
		return nil, tooBig(name, fi.Size())
	}
	f, err := fsys.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such mesh file", name)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	return read(f, name)
}

// LoadFile is Load for a path on the file system.
func LoadFile(path string) (*Mesh, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > MaxFileBytes {
		return nil, tooBig(path, fi.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such mesh file", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	return read(f, path)
}

func read(r io.Reader, name string) (*Mesh, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > MaxFileBytes {
		return nil, tooBig(name, int64(len(data)))
	}
	m, err := Parse(data, name)
	if err != nil {
		return nil, err
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if m.Volume() < 0 {
		m.FlipFaces()
	}
	return m, nil
}

func tooBig(name string, size int64) error {
	return fmt.Errorf("%s: the file is %.1f MiB, over the limit of %d MiB for meshes; decimate it (e.g. Blender's Decimate modifier) to at most %d triangles",
		name, float64(size)/(1<<20), MaxFileBytes>>20, MaxTriangles)
}

// Parse reads Wavefront OBJ text: `v x y z` vertices (a w or a colour after them is ignored), `f` faces of three
// or more vertices (split into fans), each vertex written `v`, `v/vt`, `v//vn` or `v/vt/vn` with 1-based or
// negative (relative) indices. Comments (#) and empty lines are skipped; vt, vn, vp, o, g, s, l, p, usemtl and
// mtllib lines are ignored. Anything else is an error naming the line. Parse does not check the mesh's topology:
// call Validate (Load does both).
func Parse(data []byte, name string) (*Mesh, error) {
	if len(data) > MaxFileBytes {
		return nil, tooBig(name, int64(len(data)))
	}
	m := &Mesh{Name: name}
	text := string(data)
	var idx []int64 // the current face's vertex indices, 0-based (checked at the end: forward references are allowed)
	var pending []pendingRef
	for lineNo := 1; len(text) > 0; lineNo++ {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		var f fields
		f.s = line
		key := f.next()
		if key == "" {
			continue
		}
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s: line %d: %s", name, lineNo, fmt.Sprintf(format, args...))
		}
		switch key {
		case "v":
			var v Vec3
			n := 0
			for tok := f.next(); tok != ""; tok = f.next() {
				x, err := strconv.ParseFloat(tok, 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, bad("vertex coordinate %q is not a finite number", tok)
				}
				if n < 3 {
					v[n] = x
				}
				n++
			}
			if n != 3 && n != 4 && n != 6 && n != 7 {
				return nil, bad("a vertex needs x y z (optionally w, or r g b), got %d numbers", n)
			}
			m.Vertices = append(m.Vertices, v)
		case "f":
			idx = idx[:0]
			for tok := f.next(); tok != ""; tok = f.next() {
				i, err := faceIndex(tok, len(m.Vertices))
				if err != nil {
					return nil, bad("face vertex %q: %v", tok, err)
				}
				idx = append(idx, i)
			}
			if len(idx) < 3 {
				return nil, bad("a face needs at least 3 vertices, got %d", len(idx))
			}
			for a := range idx {
				for b := a + 1; b < len(idx); b++ {
					if idx[a] == idx[b] {
						return nil, bad("degenerate face: it uses vertex %d twice; remove it or merge the polygon's repeated corners", idx[a]+1)
					}
				}
			}
			for k := 1; k+1 < len(idx); k++ {
				if len(m.Triangles) >= maxTriangles {
					return nil, bad("the mesh has more than %d triangles, the limit; decimate it (e.g. Blender's Decimate modifier)", maxTriangles)
				}
				t := [3]int32{}
				for c, i := range [3]int64{idx[0], idx[k], idx[k+1]} {
					if i < 0 || i > math.MaxInt32 {
						return nil, bad("vertex index %d is out of range: the file has %d vertices before this line", i+1, len(m.Vertices))
					}
					t[c] = int32(i)
				}
				m.Triangles = append(m.Triangles, t)
				m.Lines = append(m.Lines, int32(lineNo))
			}
			for _, i := range idx {
				if i >= int64(len(m.Vertices)) {
					pending = append(pending, pendingRef{line: lineNo, index: i})
				}
			}
		case "vt", "vn", "vp", "o", "g", "s", "l", "p", "usemtl", "mtllib":
			// texture coordinates, normals, groups, smoothing, lines, points and materials do not change the solid
		default:
			return nil, bad("unknown statement %q; slosh reads v and f (and ignores vt, vn, vp, o, g, s, l, p, usemtl, mtllib)", key)
		}
	}
	for _, p := range pending {
		if p.index >= int64(len(m.Vertices)) {
			return nil, fmt.Errorf("%s: line %d: vertex index %d is out of range: the file has %d vertices", name, p.line, p.index+1, len(m.Vertices))
		}
	}
	return m, nil
}

type pendingRef struct {
	line  int
	index int64
}

// faceIndex parses one face vertex (v, v/vt, v//vn, v/vt/vn) into a 0-based vertex index; n is the number of
// vertices read so far (negative indices count back from it).
func faceIndex(tok string, n int) (int64, error) {
	parts := strings.Split(tok, "/")
	if len(parts) > 3 {
		return 0, errors.New("want v, v/vt, v//vn or v/vt/vn")
	}
	for k, p := range parts[1:] {
		if p == "" {
			if k == 0 && len(parts) == 2 {
				return 0, errors.New("want v, v/vt, v//vn or v/vt/vn")
			}
			continue
		}
		if _, err := strconv.ParseInt(p, 10, 64); err != nil {
			return 0, fmt.Errorf("%q is not an index", p)
		}
	}
	v, err := strconv.ParseInt(parts[0], 10, 64)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a vertex index", parts[0])
	case v == 0:
		return 0, errors.New("vertex indices start at 1 (or count back from -1)")
	case v < 0:
		if -v > int64(n) {
			return 0, fmt.Errorf("relative index %d is out of range: the file has %d vertices before this line", v, n)
		}
		return int64(n) + v, nil
	}
	return v - 1, nil
}

// fields splits a line at spaces and tabs without allocating.
type fields struct{ s string }

func (f *fields) next() string {
	s := strings.TrimLeft(f.s, " \t\r\v\f")
	i := strings.IndexAny(s, " \t\r\v\f")
	if i < 0 {
		f.s = ""
		return s
	}
	f.s = s[i:]
	return s[:i]
}

// WriteOBJ writes the mesh as OBJ text: a comment per line of header (if any), `v` lines with coordinates rounded
// to digits significant digits (0: shortest exact), then `f` lines (1-based).
func (m *Mesh) WriteOBJ(w io.Writer, digits int, header ...string) error {
	bw := bufio.NewWriter(w)
	for _, h := range header {
		for _, l := range strings.Split(h, "\n") {
			fmt.Fprintf(bw, "# %s\n", l)
		}
	}
	prec := -1
	if digits > 0 {
		prec = digits
	}
	buf := make([]byte, 0, 64)
	for _, v := range m.Vertices {
		buf = append(buf[:0], 'v')
		for _, x := range v {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, roundSig(x, prec), 'g', -1, 64)
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	for _, t := range m.Triangles {
		fmt.Fprintf(bw, "f %d %d %d\n", t[0]+1, t[1]+1, t[2]+1)
	}
	return bw.Flush()
}

// roundSig rounds x to digits significant digits (digits < 0: unchanged).
func roundSig(x float64, digits int) float64 {
	if digits < 0 || x == 0 {
		return x
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', digits, 64), 64)
	return r
}
