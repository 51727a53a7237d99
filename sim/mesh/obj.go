package mesh

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/slosh/slosh/internal/jsonmsg"
	"github.com/slosh/slosh/internal/safeio"
)

// Hard limits, so that a stray scan or a typo cannot take all memory: larger meshes must be decimated first.
const (
	MaxFileBytes    = 64 << 20  // an OBJ file's size
	MaxTriangles    = 2_000_000 // triangles after polygons are split into fans
	MaxVertices     = 2_000_000 // v lines
	MaxFaceVertices = 1 << 16   // corners of one f line
	// MaxCoordinate bounds a vertex coordinate (in the file's own units: a mesh is scaled when it is placed), so
	// that areas and volumes computed from them stay far from overflow.
	MaxCoordinate = 1e9
	// MinRelativeSize bounds a mesh's size from below relative to its distance from the origin (and to 1):
	// smaller meshes have areas too small for double precision to tell from zero.
	MinRelativeSize = 1e-9
)

// maxTriangles and maxVertices are MaxTriangles and MaxVertices; variables so tests can reach the limits with a
// small file.
var (
	maxTriangles = MaxTriangles
	maxVertices  = MaxVertices
)

// Load reads an OBJ file from fsys, checks it (Validate) and turns an inside-out mesh (negative volume) right side
// out. Errors name the file and, where one is to blame, the line. Only a regular file of at most MaxFileBytes is
// read (internal/safeio).
func Load(fsys fs.FS, name string) (*Mesh, error) {
	data, err := safeio.ReadFS(fsys, name, MaxFileBytes)
	if err != nil {
		return nil, readErr(name, err)
	}
	return load(data, name)
}

// LoadFile is Load for a path on the file system. A pipe, device or folder is refused without blocking.
func LoadFile(path string) (*Mesh, error) {
	data, err := safeio.ReadFile(path, MaxFileBytes)
	if err != nil {
		return nil, readErr(path, err)
	}
	return load(data, path)
}

func readErr(name string, err error) error {
	var big *safeio.TooLargeError
	var odd *safeio.NotRegularError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: no such mesh file", name)
	case errors.As(err, &big):
		return tooBig(name, big.Size)
	case errors.As(err, &odd):
		return err // names the path and what to do
	}
	return fmt.Errorf("%s: %w", name, err)
}

func load(data []byte, name string) (*Mesh, error) {
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

// tooBig is the message for a file over MaxFileBytes; size < 0 when only that is known.
func tooBig(name string, size int64) error {
	what := "over"
	if size >= 0 {
		what = fmt.Sprintf("%.1f MiB, over", float64(size)/(1<<20))
	}
	return fmt.Errorf("%s: the file is %s the limit of %d MiB for meshes; decimate it (e.g. Blender's Decimate modifier) to at most %d triangles",
		name, what, MaxFileBytes>>20, MaxTriangles)
}

// Parse reads Wavefront OBJ text: `v x y z` vertices (a w or a colour after them is ignored), `f` faces of three
// or more vertices (split into fans), each vertex written `v`, `v/vt`, `v//vn` or `v/vt/vn` with 1-based or
// negative (relative) indices. Comments (#) and empty lines are skipped; vt, vn, vp, o, g, s, l, p, usemtl and
// mtllib lines are ignored. Anything else is an error naming the line, and a file that starts with anything else
// is not an OBJ mesh. Counts and coordinates are checked against the limits above as they are read. A mesh path
// may name any file, so errors never repeat a line of it: only short tokens of v and f lines and OBJ-like
// statement keywords are quoted (unknownStatement, token). A UTF-8 byte-order mark is skipped and UTF-16 text
// refused. Parse does not check the mesh's topology: call Validate (Load does both).
func Parse(data []byte, name string) (*Mesh, error) {
	if len(data) > MaxFileBytes {
		return nil, tooBig(name, int64(len(data)))
	}
	data, err := jsonmsg.Text(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m := &Mesh{Name: name}
	text := string(data)
	var idx []int64    // the current face's vertex indices, 0-based (checked at the end: forward references are allowed)
	var sorted []int64 // scratch for repeated
	var pending []pendingRef
	read := false // a statement was read: the file has shown itself an OBJ
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
				if err != nil && !errors.Is(err, strconv.ErrRange) || math.IsNaN(x) {
					return nil, bad("vertex coordinate %s is not a finite number", token(tok, n+1))
				}
				if !(math.Abs(x) <= MaxCoordinate) {
					return nil, bad("vertex coordinate %s is out of range: coordinates lie within ±%g (scale the model down in the modelling program; slosh scales it to the scene's extent)",
						token(tok, n+1), float64(MaxCoordinate))
				}
				if n < 3 {
					v[n] = x
				}
				n++
			}
			if n != 3 && n != 4 && n != 6 && n != 7 {
				return nil, bad("a vertex needs x y z (optionally w, or r g b), got %d numbers", n)
			}
			if len(m.Vertices) >= maxVertices {
				return nil, bad("the mesh has more than %d vertices, the limit; decimate it (e.g. Blender's Decimate modifier)", maxVertices)
			}
			m.Vertices = append(m.Vertices, v)
		case "f":
			idx = idx[:0]
			for tok := f.next(); tok != ""; tok = f.next() {
				if len(idx) == MaxFaceVertices {
					return nil, bad("a face with more than %d vertices, the limit; split the polygon", MaxFaceVertices)
				}
				i, err := faceIndex(tok, len(m.Vertices))
				if err != nil {
					return nil, bad("face vertex %s: %v", token(tok, len(idx)+1), err)
				}
				idx = append(idx, i)
			}
			if len(idx) < 3 {
				return nil, bad("a face needs at least 3 vertices, got %d", len(idx))
			}
			if i, ok := repeated(idx, &sorted); ok {
				return nil, bad("degenerate face: it uses vertex %d twice; remove it or merge the polygon's repeated corners", i+1)
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
			return nil, unknownStatement(name, lineNo, key, read)
		}
		read = true
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

// repeated finds a vertex a face uses twice: pairwise for small polygons, by sorting a copy (in *scratch) for
// large ones, so that a face of many thousand corners costs no more than sorting them.
func repeated(idx []int64, scratch *[]int64) (int64, bool) {
	if len(idx) <= 16 {
		for a := range idx {
			for b := a + 1; b < len(idx); b++ {
				if idx[a] == idx[b] {
					return idx[a], true
				}
			}
		}
		return 0, false
	}
	s := append((*scratch)[:0], idx...)
	*scratch = s
	slices.Sort(s)
	for k := 1; k < len(s); k++ {
		if s[k] == s[k-1] {
			return s[k], true
		}
	}
	return 0, false
}

// readsWhat is what the OBJ reader reads, for messages.
const readsWhat = "slosh reads v and f (and ignores vt, vn, vp, o, g, s, l, p, usemtl, mtllib)"

// unknownStatement is the error for line lineNo, whose first word is key, which is no statement slosh reads;
// read tells whether a statement came before it. A mesh path may name any file, and its content is not ours to
// repeat: key is quoted only when it is one of OBJ's own keywords or, in a file that has shown itself an OBJ, a
// short lowercase word like them (a typo: "ff"); else the message says the line is not an OBJ statement, and
// with nothing read before it, that the file is not an OBJ mesh.
func unknownStatement(name string, lineNo int, key string, read bool) error {
	if objKeywords[key] || read && keywordLike(key) {
		return fmt.Errorf("%s: line %d: unknown statement %s; %s", name, lineNo, jsonmsg.Quote(key), readsWhat)
	}
	if !read {
		return fmt.Errorf("%s: line %d is not an OBJ statement: the file is not an OBJ mesh (%s)", name, lineNo, readsWhat)
	}
	return fmt.Errorf("%s: line %d is not an OBJ statement: %s", name, lineNo, readsWhat)
}

// objKeywords are the OBJ format's statements that slosh does not read: free-form curves and surfaces, their
// connectivity and grouping, and display attributes.
var objKeywords = map[string]bool{
	"cstype": true, "deg": true, "bmat": true, "step": true, "curv": true, "curv2": true, "surf": true,
	"parm": true, "trim": true, "hole": true, "scrv": true, "sp": true, "end": true, "con": true, "mg": true,
	"bevel": true, "c_interp": true, "d_interp": true, "lod": true, "maplib": true, "usemap": true,
	"shadow_obj": true, "trace_obj": true, "ctech": true, "stech": true, "call": true, "csh": true,
}

// keywordLike reports whether s looks like an OBJ keyword: a lowercase letter, then at most nine lowercase
// letters, digits or underscores.
func keywordLike(s string) bool {
	if len(s) == 0 || len(s) > 10 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// maxToken is the longest token of a v or f line that a message quotes: numbers and indices are shorter.
const maxToken = 24

// token words the k-th token of a v or f line for a message: quoted when it is short and printable, as numbers
// and indices are, else by its place and length, so that a long run of a file's text is not repeated.
func token(tok string, k int) string {
	if len(tok) <= maxToken {
		printable := true
		for _, c := range []byte(tok) {
			printable = printable && c > ' ' && c < 0x7f
		}
		if printable {
			return jsonmsg.Quote(tok)
		}
	}
	return fmt.Sprintf("%d (a token of %d bytes)", k, len(tok))
}

// faceIndex parses one face vertex (v, v/vt, v//vn, v/vt/vn) into a 0-based vertex index; n is the number of
// vertices read so far (negative indices count back from it).
func faceIndex(tok string, n int) (int64, error) {
	if strings.Count(tok, "/") > 2 { // before Split: a token of a million slashes is not a million parts
		return 0, errors.New("want v, v/vt, v//vn or v/vt/vn")
	}
	parts := strings.Split(tok, "/")
	for k, p := range parts[1:] {
		if p == "" {
			if k == 0 && len(parts) == 2 {
				return 0, errors.New("want v, v/vt, v//vn or v/vt/vn")
			}
			continue
		}
		if _, err := strconv.ParseInt(p, 10, 64); err != nil {
			return 0, errors.New("its texture or normal index is not a whole number")
		}
	}
	v, err := strconv.ParseInt(parts[0], 10, 64)
	switch {
	case err != nil:
		return 0, errors.New("not a vertex index")
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
