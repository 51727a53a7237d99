package export

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/slosh/slosh/sim"
	"github.com/slosh/slosh/sim/scene"
)

// randomFrame is a frame of n particles whose floats are random bit patterns (NaNs, infinities and −0 included),
// so that a round trip that is not bit-exact shows.
func randomFrame(rng *rand.Rand, n int, bodies bool) *sim.Frame {
	f := &sim.Frame{}
	f.Resize(n)
	bits := func() float32 { return math.Float32frombits(rng.Uint32()) }
	for i := range n {
		f.Pos[i] = [4]float32{bits(), bits(), bits(), bits()}
		f.Vel[i] = [4]float32{bits(), bits(), bits(), bits()}
		f.Rho[i] = bits()
		f.ID[i] = rng.Uint32()
	}
	if bodies {
		f.Body = make([]int32, n)
		for i := range f.Body {
			f.Body[i] = int32(rng.Uint32())
		}
	}
	return f
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 1000, 20000} { // 20000 spans several write and read chunks
		for _, bodies := range []bool{false, true} {
			t.Run(fmt.Sprintf("n=%d/bodies=%v", n, bodies), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(uint64(n), 7))
				f := randomFrame(rng, n, bodies)
				cols := FrameColumns(f)
				phase := make([]uint32, n)
				for i := range phase {
					phase[i] = rng.Uint32()
				}
				cols = append(cols, Column{Name: "phase", U32: phase})
				comments := []string{"slosh test", "", "  scene dam-break, t=0.5s  "}

				var buf bytes.Buffer
				if err := WritePLY(&buf, n, cols, comments...); err != nil {
					t.Fatal(err)
				}
				checkFile(t, buf.Bytes(), n, cols, comments)
				checkFrameBytes(t, buf.Bytes(), f)

				gotN, got, gotComments, err := ReadPLY(bytes.NewReader(buf.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				if gotN != n {
					t.Fatalf("read %d vertices, wrote %d", gotN, n)
				}
				if strings.Join(gotComments, "\n") != strings.Join(comments, "\n") || len(gotComments) != len(comments) {
					t.Errorf("comments: read %q, wrote %q", gotComments, comments)
				}
				if len(got) != len(cols) {
					t.Fatalf("read %d columns, wrote %d", len(got), len(cols))
				}
				for j, c := range cols {
					g := got[j]
					if g.Name != c.Name || g.Type() != c.Type() || g.Len() != n {
						t.Fatalf("column %d: read %s %s (%d values), wrote %s %s (%d)", j, g.Type(), g.Name, g.Len(), c.Type(), c.Name, n)
					}
					for i := range n {
						var w, r uint32
						switch {
						case c.F32 != nil:
							w, r = math.Float32bits(c.F32[i]), math.Float32bits(g.F32[i])
						case c.U32 != nil:
							w, r = c.U32[i], g.U32[i]
						default:
							w, r = uint32(c.I32[i]), uint32(g.I32[i])
						}
						if w != r {
							t.Fatalf("column %s, vertex %d: read %#08x, wrote %#08x", c.Name, i, r, w)
						}
					}
				}
			})
		}
	}
}

// checkFile parses the header by hand, independently of ReadPLY, and checks it against what was written: the
// magic, the format, the comments, the vertex count, one property line per column, and a body exactly
// vertex count × record size long.
func checkFile(t *testing.T, file []byte, n int, cols []Column, comments []string) {
	t.Helper()
	head, body, ok := bytes.Cut(file, []byte("end_header\n"))
	if !ok {
		t.Fatal("no end_header line")
	}
	lines := strings.Split(strings.TrimSuffix(string(head), "\n"), "\n")
	want := []string{"ply", "format binary_little_endian 1.0"}
	for _, c := range comments {
		want = append(want, "comment "+c)
	}
	want = append(want, "element vertex "+strconv.Itoa(n))
	size := map[string]int{"float": 4, "uint": 4, "int": 4}
	rec := 0
	for _, c := range cols {
		typ := map[bool]string{true: "float"}[c.F32 != nil] + map[bool]string{true: "uint"}[c.U32 != nil] +
			map[bool]string{true: "int"}[c.I32 != nil]
		want = append(want, "property "+typ+" "+c.Name)
		rec += size[typ]
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("header:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if len(body) != n*rec {
		t.Fatalf("body is %d bytes, want %d vertices × %d bytes = %d", len(body), n, rec, n*rec)
	}
}

// checkFrameBytes decodes the first and last records by hand and compares them with the frame.
func checkFrameBytes(t *testing.T, file []byte, f *sim.Frame) {
	t.Helper()
	if f.N == 0 {
		return
	}
	_, body, _ := bytes.Cut(file, []byte("end_header\n"))
	rec := len(body) / f.N
	for _, i := range []int{0, f.N - 1} {
		r := body[i*rec:]
		word := func(k int) uint32 { return binary.LittleEndian.Uint32(r[4*k:]) }
		want := []uint32{
			math.Float32bits(f.Pos[i][0]), math.Float32bits(f.Pos[i][1]), math.Float32bits(f.Pos[i][2]),
			math.Float32bits(f.Vel[i][0]), math.Float32bits(f.Vel[i][1]), math.Float32bits(f.Vel[i][2]),
			math.Float32bits(f.Rho[i]), f.ID[i],
		}
		if f.Body != nil {
			want = append(want, uint32(f.Body[i]))
		}
		for k, w := range want {
			if word(k) != w {
				t.Fatalf("vertex %d, value %d: %#08x in the file, want %#08x", i, k, word(k), w)
			}
		}
	}
}

func TestFrameColumns(t *testing.T) {
	f := randomFrame(rand.New(rand.NewPCG(1, 2)), 3, false)
	if got := strings.Join(Names(FrameColumns(f)), " "); got != "x y z vx vy vz density id" {
		t.Errorf("columns without bodies: %s", got)
	}
	f.Body = []int32{-1, 0, 1}
	cols := FrameColumns(f)
	if got := strings.Join(Names(cols), " "); got != "x y z vx vy vz density id body" {
		t.Errorf("columns with bodies: %s", got)
	}
	for _, c := range cols {
		want := map[string]string{"id": "uint", "body": "int"}[c.Name]
		if want == "" {
			want = "float"
		}
		if c.Type() != want {
			t.Errorf("column %s is %q, want %s", c.Name, c.Type(), want)
		}
	}

	// Materials and phases: the material number and the phase of each particle (liquid where the frame gives
	// materials and no phases).
	f.Material, f.Phase = []uint8{0, 2, 1}, nil
	cols = FrameColumns(f)
	if got := strings.Join(Names(cols), " "); got != "x y z vx vy vz density id body material phase" {
		t.Errorf("columns with materials: %s", got)
	}
	if m, p := cols[9].U32, cols[10].U32; !slices.Equal(m, []uint32{0, 2, 1}) || !slices.Equal(p, []uint32{0, 0, 0}) {
		t.Errorf("materials %v phases %v", m, p)
	}
	f.Phase = []scene.Phase{scene.PhaseLiquid, scene.PhaseSolid, scene.PhaseGranular}
	if p := FrameColumns(f)[10].U32; !slices.Equal(p, []uint32{0, 2, 1}) {
		t.Errorf("phases %v", p)
	}
	f.Material, f.Phase = nil, nil

	// An empty frame whose slices were never made still has typed columns.
	var empty bytes.Buffer
	if err := WritePLY(&empty, 0, FrameColumns(&sim.Frame{})); err != nil {
		t.Errorf("empty frame: %v", err)
	}

	// A frame with a short slice is reported by WritePLY, naming the column, not a panic.
	f.Rho = f.Rho[:2]
	var buf bytes.Buffer
	err := WritePLY(&buf, f.N, FrameColumns(f))
	if err == nil || !strings.Contains(err.Error(), "density") {
		t.Errorf("short density: err = %v, want one naming density", err)
	}
	if buf.Len() != 0 {
		t.Errorf("a refused write wrote %d bytes", buf.Len())
	}
}

func TestWritePLYRejects(t *testing.T) {
	ok := []float32{1, 2}
	for _, tc := range []struct {
		name     string
		n        int
		cols     []Column
		comments []string
		want     string
	}{
		{"negative count", -1, []Column{{Name: "x", F32: []float32{}}}, nil, "negative"},
		{"no columns", 2, nil, nil, "no columns"},
		{"empty name", 2, []Column{{Name: "", F32: ok}}, nil, "name"},
		{"space in name", 2, []Column{{Name: "a b", F32: ok}}, nil, `"a b"`},
		{"leading digit", 2, []Column{{Name: "1x", F32: ok}}, nil, `"1x"`},
		{"non-ASCII name", 2, []Column{{Name: "ρ", F32: ok}}, nil, `"ρ"`},
		{"duplicate", 2, []Column{{Name: "x", F32: ok}, {Name: "x", F32: ok}}, nil, "twice"},
		{"no slice", 2, []Column{{Name: "x"}}, nil, "exactly one"},
		{"two slices", 2, []Column{{Name: "x", F32: ok, U32: []uint32{1, 2}}}, nil, "exactly one"},
		{"short column", 3, []Column{{Name: "x", F32: ok}}, nil, "column x has 2 values, want 3"},
		{"newline in comment", 2, []Column{{Name: "x", F32: ok}}, []string{"a\nend_header"}, "line break"},
		{"carriage return in comment", 2, []Column{{Name: "x", F32: ok}}, []string{"a\r"}, "line break"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WritePLY(&buf, tc.n, tc.cols, tc.comments...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("a refused write wrote %d bytes", buf.Len())
			}
		})
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, errors.New("disk full")
	}
	w.after--
	return len(p), nil
}

func TestWritePLYWriterError(t *testing.T) {
	cols := []Column{{Name: "x", F32: make([]float32, 100000)}}
	for after := range 3 {
		err := WritePLY(&failWriter{after: after}, 100000, cols)
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("failing after %d writes: err = %v, want the writer's error", after, err)
		}
	}
}

// header builds a PLY header from lines, each ended by "\n", the last being end_header.
func header(lines ...string) []byte {
	return []byte(strings.Join(lines, "\n") + "\n")
}

func TestReadPLYRejects(t *testing.T) {
	const le = "format binary_little_endian 1.0"
	valid := func(body []byte) []byte {
		return append(header("ply", le, "element vertex 3", "property float x", "end_header"), body...)
	}
	for _, tc := range []struct {
		name string
		file []byte
		want []string
	}{
		{"empty file", nil, []string{"not a PLY file"}},
		{"wrong magic", header("PLY", le, "element vertex 0", "property float x", "end_header"), []string{"not a PLY file"}},
		{"magic with more", header("ply x", le), []string{"not a PLY file"}},
		{"binary junk", bytes.Repeat([]byte{0xff, 0, 1}, 100000), []string{"not a PLY file"}},
		{"ascii", append(header("ply", "format ascii 1.0", "element vertex 1", "property float x", "end_header"), "1.5\n"...),
			[]string{"line 2", "ascii", unsupported}},
		{"big-endian", append(header("ply", "format binary_big_endian 1.0", "element vertex 1", "property float x", "end_header"), 0, 0, 0, 0),
			[]string{"line 2", "binary_big_endian", unsupported}},
		{"unknown format", header("ply", "format binary 1.0"), []string{"line 2", "unknown format"}},
		{"version", header("ply", "format binary_little_endian 2.0"), []string{"line 2", "version"}},
		{"list property", header("ply", le, "comment c", "element vertex 1", "property list uchar int vertex_indices", "end_header"),
			[]string{"line 5", "list property", unsupported}},
		{"face element", header("ply", le, "element vertex 0", "property float x", "element face 0", "property list uchar int vertex_indices", "end_header"),
			[]string{"line 5", "element face", unsupported}},
		{"two vertex elements", header("ply", le, "element vertex 0", "property float x", "element vertex 0", "end_header"),
			[]string{"line 5"}},
		{"missing end_header", header("ply", le, "element vertex 0", "property float x"), []string{"line 5", "without an end_header"}},
		{"end_header without newline", []byte("ply\n" + le + "\nelement vertex 0\nproperty float x\nend_header"), []string{"without an end_header"}},
		{"bad keyword", header("ply", le, "element vertex 1", "propertyx float x", "end_header"), []string{"line 4", `"propertyx"`}},
		{"unknown type", header("ply", le, "element vertex 1", "property float128 x", "end_header"), []string{"line 4", `"float128"`}},
		{"short property line", header("ply", le, "element vertex 1", "property float", "end_header"), []string{"line 4"}},
		{"duplicate property", header("ply", le, "element vertex 1", "property float x", "property int x", "end_header"), []string{"line 5", "twice"}},
		{"property before element", header("ply", le, "property float x", "element vertex 1", "end_header"), []string{"line 3"}},
		{"element before format", header("ply", "element vertex 1", "property float x", le, "end_header"), []string{"line 2"}},
		{"bad count", header("ply", le, "element vertex -3", "property float x", "end_header"), []string{"line 3", `"-3"`}},
		{"count not a number", header("ply", le, "element vertex many", "property float x", "end_header"), []string{"line 3", `"many"`}},
		{"huge count", header("ply", le, "element vertex 9223372036854775807", "property double x", "end_header"), []string{"do not fit"}},
		{"empty line", header("ply", le, "", "element vertex 1"), []string{"line 3", "empty"}},
		{"no format", header("ply", "comment c", "end_header"), []string{"line 3", "format"}},
		{"no element", header("ply", le, "end_header"), []string{"line 3", "element vertex"}},
		{"no properties", header("ply", le, "element vertex 1", "end_header"), []string{"line 4", "no properties"}},
		{"end_header with more", header("ply", le, "element vertex 0", "property float x", "end_header now"), []string{"line 5"}},
		{"truncated body", valid(make([]byte, 10)), []string{"truncated", "after 2 of its 3 vertices", "10 of 12 bytes"}},
		{"no body", valid(nil), []string{"truncated", "after 0 of its 3"}},
		{"data after the body", valid(make([]byte, 13)), []string{"after the last"}},
		{"many properties", header(append([]string{"ply", le, "element vertex 1000000"}, props(300)...)...), []string{"line 260", "more than 256 vertex properties"}},
		{"huge header", header(append([]string{"ply", le}, comments(100, 60000)...)...), []string{"no end_header in the first 1048576 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, cols, comments, err := ReadPLY(bytes.NewReader(tc.file))
			if err == nil {
				t.Fatalf("read %d vertices, %d columns, %d comments; want an error", n, len(cols), len(comments))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %q, want it to contain %q", err, w)
				}
			}
		})
	}
	if _, _, _, err := ReadPLY(bytes.NewReader(valid(make([]byte, 12)))); err != nil {
		t.Errorf("the valid file the cases above damage: %v", err)
	}
}

// props is n property lines, p0 to pn−1.
func props(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("property float p%d", i))
	}
	return out
}

// comments is n comment lines of size bytes.
func comments(n, size int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, "comment "+strings.Repeat("c", size))
	}
	return out
}

// A header that declares many vertices and properties costs a few megabytes before its data arrives: 256
// properties of a million vertices allocated 64 MiB of columns for a header of 5 KB (and the 10,000 lines a
// header may have, 2.6 GB).
func TestReadPLYAllocatesAsDataArrives(t *testing.T) {
	file := header(append([]string{"ply", "format binary_little_endian 1.0", "element vertex 1000000"}, append(props(256), "end_header")...)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err := ReadPLY(bytes.NewReader(file))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "after 0 of its 1000000 vertices") {
		t.Fatalf("%v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("a %d-byte header allocated %d bytes", len(file), got)
	}
}

func TestReadPLYTypes(t *testing.T) {
	// Each type with the value vertex i holds, how it is encoded and what ReadPLY should give back.
	le := binary.LittleEndian
	type prop struct {
		types  [2]string // name and sized alias
		value  func(i int) float64
		encode func(b []byte, v float64) []byte
		kind   string // the column's type
	}
	props := []prop{
		{[2]string{"char", "int8"}, func(i int) float64 { return float64(-3 - 120*i) },
			func(b []byte, v float64) []byte { return append(b, byte(int8(v))) }, "int"},
		{[2]string{"uchar", "uint8"}, func(i int) float64 { return float64(200 + 55*i) },
			func(b []byte, v float64) []byte { return append(b, byte(v)) }, "uint"},
		{[2]string{"short", "int16"}, func(i int) float64 { return float64(-1234 - 31000*i) },
			func(b []byte, v float64) []byte { return le.AppendUint16(b, uint16(int16(v))) }, "int"},
		{[2]string{"ushort", "uint16"}, func(i int) float64 { return float64(60000 + 5535*i) },
			func(b []byte, v float64) []byte { return le.AppendUint16(b, uint16(v)) }, "uint"},
		{[2]string{"int", "int32"}, func(i int) float64 { return float64(-123456 - 2147000000*i) },
			func(b []byte, v float64) []byte { return le.AppendUint32(b, uint32(int32(v))) }, "int"},
		{[2]string{"uint", "uint32"}, func(i int) float64 { return float64(4000000000 + 294967295*i) },
			func(b []byte, v float64) []byte { return le.AppendUint32(b, uint32(v)) }, "uint"},
		{[2]string{"float", "float32"}, func(i int) float64 { return -1.5 * float64(i+1) },
			func(b []byte, v float64) []byte { return le.AppendUint32(b, math.Float32bits(float32(v))) }, "float"},
		{[2]string{"double", "float64"}, func(i int) float64 { return 0.1 * float64(i+1) },
			func(b []byte, v float64) []byte { return le.AppendUint64(b, math.Float64bits(v)) }, "float"},
	}

	lines := []string{"ply", "format binary_little_endian 1.0", "obj_info made by hand", "comment\ttabbed", "element vertex 2"}
	for _, p := range props {
		for _, typ := range p.types {
			lines = append(lines, "property "+typ+" p_"+typ)
		}
	}
	lines = append(lines, "end_header")
	file := []byte(strings.Join(lines, "\r\n") + "\r\n") // CRLF headers read too
	for i := range 2 {
		for _, p := range props {
			for range p.types {
				file = p.encode(file, p.value(i))
			}
		}
	}

	n, cols, comments, err := ReadPLY(bytes.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || len(cols) != 2*len(props) {
		t.Fatalf("read %d vertices and %d columns, want 2 and %d", n, len(cols), 2*len(props))
	}
	if len(comments) != 1 || comments[0] != "tabbed" {
		t.Errorf("comments %q, want [tabbed] (obj_info is skipped)", comments)
	}
	for k, p := range props {
		for a, typ := range p.types {
			c := cols[2*k+a]
			if c.Name != "p_"+typ || c.Type() != p.kind {
				t.Errorf("property %s read as %s %s, want %s p_%s", typ, c.Type(), c.Name, p.kind, typ)
				continue
			}
			for i := range 2 {
				var got float64
				switch p.kind {
				case "float":
					got = float64(c.F32[i])
				case "uint":
					got = float64(c.U32[i])
				default:
					got = float64(c.I32[i])
				}
				want := p.value(i)
				if p.kind == "float" {
					want = float64(float32(want)) // a double is rounded to float32
				}
				if got != want {
					t.Errorf("%s, vertex %d: read %v, want %v", typ, i, got, want)
				}
			}
		}
	}
}
