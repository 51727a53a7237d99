package export

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/slosh/slosh/internal/jsonmsg"
)

// Limits on what ReadPLY reads as a header, so that a file that is not PLY cannot make it read without end or
// allocate more than a few megabytes before its data arrives.
const (
	maxHeaderLine  = 64 << 10 // bytes in one header line
	maxHeaderLines = 10000    // lines in the header
	maxHeaderBytes = 1 << 20  // bytes in the whole header (comments included)
	maxProperties  = 256      // vertex properties (WritePLY writes nine)
	// columnBytes bounds what the columns hold before the data arrives: they grow with it beyond that.
	columnBytes = 4 << 20
)

// unsupported is the reason ReadPLY gives for a valid PLY file that it does not read.
const unsupported = "only binary_little_endian vertex elements with scalar properties are supported"

// scalar is a PLY property type as ReadPLY decodes it.
type scalar struct {
	size int
	kind byte // 'f' → F32, 'u' → U32, 'i' → I32
}

// scalars maps each PLY type name, original and sized alias, to how it is read.
var scalars = map[string]scalar{
	"char": {1, 'i'}, "int8": {1, 'i'},
	"uchar": {1, 'u'}, "uint8": {1, 'u'},
	"short": {2, 'i'}, "int16": {2, 'i'},
	"ushort": {2, 'u'}, "uint16": {2, 'u'},
	"int": {4, 'i'}, "int32": {4, 'i'},
	"uint": {4, 'u'}, "uint32": {4, 'u'},
	"float": {4, 'f'}, "float32": {4, 'f'},
	"double": {8, 'f'}, "float64": {8, 'f'},
}

// property is one property of the vertex element.
type property struct {
	name string
	typ  string
	scalar
}

// ReadPLY reads a binary little-endian PLY point cloud: the vertex count, one Column per vertex property in header
// order, and the header's comments (the text after "comment "). Float and double properties become F32 columns
// (a double is rounded to float32), unsigned ones U32 and signed ones I32; a file WritePLY wrote comes back bit
// for bit. obj_info lines are skipped.
//
// Only files with a single element, vertex, of scalar properties are read: ASCII and big-endian files, other
// elements (faces) and list properties are refused. Errors name the header line at fault, or for the data how many
// vertices were complete; data after the last vertex is an error too. Header text quoted in errors is cut to a
// readable length (jsonmsg.Quote), and a file that does not start with a line "ply" is not quoted at all.
func ReadPLY(r io.Reader) (n int, cols []Column, comments []string, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	props, n, comments, err := readHeader(br)
	if err != nil {
		return 0, nil, nil, err
	}
	cols, err = readBody(br, n, props)
	if err != nil {
		return 0, nil, nil, err
	}
	return n, cols, comments, nil
}

// readHeader reads the header through end_header and returns the vertex properties, the vertex count and the
// comments.
func readHeader(br *bufio.Reader) (props []property, n int, comments []string, err error) {
	bad := func(line int, format string, a ...any) error {
		return fmt.Errorf("PLY header line %d: %s", line, fmt.Sprintf(format, a...))
	}
	var (
		format, element bool
		names           = map[string]bool{}
	)
	read := 0
	for line := 1; ; line++ {
		if line > maxHeaderLines {
			return nil, 0, nil, fmt.Errorf("PLY header: no end_header in the first %d lines", maxHeaderLines)
		}
		if read > maxHeaderBytes {
			return nil, 0, nil, fmt.Errorf("PLY header: no end_header in the first %d bytes (line %d)", maxHeaderBytes, line)
		}
		text, err := readLine(br)
		read += len(text) + 1
		if err != nil {
			if line == 1 {
				return nil, 0, nil, errors.New("not a PLY file: it does not start with a line \"ply\"")
			}
			if errors.Is(err, io.EOF) {
				return nil, 0, nil, fmt.Errorf("PLY header: the file ends at line %d without an end_header line", line)
			}
			return nil, 0, nil, bad(line, "%v", err)
		}
		f := strings.Fields(text)
		if line == 1 {
			if text != "ply" {
				return nil, 0, nil, errors.New("not a PLY file: it does not start with a line \"ply\"")
			}
			continue
		}
		if len(f) == 0 {
			return nil, 0, nil, bad(line, "empty line")
		}
		switch f[0] {
		case "format":
			if format {
				return nil, 0, nil, bad(line, "a second format line")
			}
			if len(f) != 3 {
				return nil, 0, nil, bad(line, "%s is not \"format <encoding> 1.0\"", jsonmsg.Quote(text))
			}
			if f[1] != "binary_little_endian" {
				if f[1] != "ascii" && f[1] != "binary_big_endian" {
					return nil, 0, nil, bad(line, "unknown format %s", jsonmsg.Quote(f[1]))
				}
				return nil, 0, nil, bad(line, "format %s: %s", jsonmsg.Clip(f[1]), unsupported)
			}
			if f[2] != "1.0" {
				return nil, 0, nil, bad(line, "format version %s, want 1.0", jsonmsg.Quote(f[2]))
			}
			format = true
		case "comment":
			c := strings.TrimPrefix(strings.TrimLeft(text, " \t"), "comment")
			if c != "" && (c[0] == ' ' || c[0] == '\t') {
				c = c[1:]
			}
			comments = append(comments, c)
		case "obj_info":
		case "element":
			if !format {
				return nil, 0, nil, bad(line, "element before the format line")
			}
			if len(f) != 3 {
				return nil, 0, nil, bad(line, "%s is not \"element <name> <count>\"", jsonmsg.Quote(text))
			}
			if f[1] != "vertex" || element {
				return nil, 0, nil, bad(line, "element %s: %s", jsonmsg.Clip(f[1]), unsupported)
			}
			c, err := strconv.ParseInt(f[2], 10, 0)
			if err != nil || c < 0 {
				return nil, 0, nil, bad(line, "vertex count %s is not a whole number ≥ 0", jsonmsg.Quote(f[2]))
			}
			n, element = int(c), true
		case "property":
			if !element {
				return nil, 0, nil, bad(line, "property before any element")
			}
			if len(f) >= 2 && f[1] == "list" {
				return nil, 0, nil, bad(line, "list property: %s", unsupported)
			}
			if len(f) != 3 {
				return nil, 0, nil, bad(line, "%s is not \"property <type> <name>\"", jsonmsg.Quote(text))
			}
			s, ok := scalars[f[1]]
			if !ok {
				return nil, 0, nil, bad(line, "unknown property type %s", jsonmsg.Quote(f[1]))
			}
			if names[f[2]] {
				return nil, 0, nil, bad(line, "property %s appears twice", jsonmsg.Quote(f[2]))
			}
			if len(props) == maxProperties {
				return nil, 0, nil, bad(line, "more than %d vertex properties", maxProperties)
			}
			names[f[2]] = true
			props = append(props, property{name: f[2], typ: f[1], scalar: s})
		case "end_header":
			if len(f) != 1 {
				return nil, 0, nil, bad(line, "%s is not \"end_header\"", jsonmsg.Quote(text))
			}
			switch {
			case !format:
				return nil, 0, nil, bad(line, "end_header without a format line")
			case !element:
				return nil, 0, nil, bad(line, "end_header without an element vertex line")
			case len(props) == 0:
				return nil, 0, nil, bad(line, "the vertex element has no properties")
			}
			return props, n, comments, nil
		default:
			return nil, 0, nil, bad(line, "unknown keyword %s", jsonmsg.Quote(f[0]))
		}
	}
}

// readLine reads one header line without its line break ("\n" or "\r\n"). A line that does not end before the
// file does is io.EOF.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		part, err := br.ReadSlice('\n')
		b = append(b, part...)
		if len(b) > maxHeaderLine {
			return "", fmt.Errorf("longer than %d bytes", maxHeaderLine)
		}
		switch {
		case err == nil:
			return strings.TrimSuffix(string(b[:len(b)-1]), "\r"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return "", io.EOF
		default:
			return "", err
		}
	}
}

// readBody reads n records of props into columns.
func readBody(br *bufio.Reader, n int, props []property) ([]Column, error) {
	rec := 0
	for _, p := range props {
		rec += p.size
	}
	if n > math.MaxInt64/rec {
		return nil, fmt.Errorf("PLY header: %d vertices of %d bytes do not fit in a file", n, rec)
	}
	// Columns grow as the data arrives, so that a header promising more vertices than the file holds costs no
	// more memory than the file: up front they hold columnBytes in all (every value takes 4 bytes).
	capacity := min(n, max(1, columnBytes/(4*len(props))))
	cols := make([]Column, len(props))
	for j, p := range props {
		cols[j].Name = p.name
		switch p.kind {
		case 'f':
			cols[j].F32 = make([]float32, 0, capacity)
		case 'u':
			cols[j].U32 = make([]uint32, 0, capacity)
		default:
			cols[j].I32 = make([]int32, 0, capacity)
		}
	}

	chunk := max(1, (64<<10)/rec)
	buf := make([]byte, min(n, chunk)*rec)
	for lo := 0; lo < n; lo += chunk {
		hi := min(lo+chunk, n)
		b := buf[:(hi-lo)*rec]
		if got, err := io.ReadFull(br, b); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, fmt.Errorf("PLY data truncated: the file ends after %d of its %d vertices (%d of %d bytes of vertex data)",
					lo+got/rec, n, int64(lo)*int64(rec)+int64(got), int64(n)*int64(rec))
			}
			return nil, fmt.Errorf("PLY data: %w", err)
		}
		off := 0
		for j, p := range props {
			decode(&cols[j], p.typ, b[off:], hi-lo, rec)
			off += p.size
		}
	}
	if _, err := br.ReadByte(); err == nil {
		return nil, fmt.Errorf("PLY data: more data after the last of the %d vertices", n)
	} else if !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("PLY data: %w", err)
	}
	return cols, nil
}

// decode appends to c the m values of PLY type typ that start at b[0] and repeat every rec bytes.
func decode(c *Column, typ string, b []byte, m, rec int) {
	le := binary.LittleEndian
	switch typ {
	case "char", "int8":
		for i := range m {
			c.I32 = append(c.I32, int32(int8(b[i*rec])))
		}
	case "uchar", "uint8":
		for i := range m {
			c.U32 = append(c.U32, uint32(b[i*rec]))
		}
	case "short", "int16":
		for i := range m {
			c.I32 = append(c.I32, int32(int16(le.Uint16(b[i*rec:]))))
		}
	case "ushort", "uint16":
		for i := range m {
			c.U32 = append(c.U32, uint32(le.Uint16(b[i*rec:])))
		}
	case "int", "int32":
		for i := range m {
			c.I32 = append(c.I32, int32(le.Uint32(b[i*rec:])))
		}
	case "uint", "uint32":
		for i := range m {
			c.U32 = append(c.U32, le.Uint32(b[i*rec:]))
		}
	case "float", "float32":
		for i := range m {
			c.F32 = append(c.F32, math.Float32frombits(le.Uint32(b[i*rec:])))
		}
	case "double", "float64":
		for i := range m {
			c.F32 = append(c.F32, float32(math.Float64frombits(le.Uint64(b[i*rec:]))))
		}
	default:
		panic("export: no decoder for PLY type " + typ) // scalars and decode disagree
	}
}
