package export

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/slosh/slosh/sim/scene"
)

// FuzzReadPLY feeds arbitrary bytes to the PLY reader: nothing panics, and what it accepts writes back (when
// WritePLY takes its columns) and reads back as the same columns.
func FuzzReadPLY(f *testing.F) {
	const le = "format binary_little_endian 1.0"
	var good bytes.Buffer
	if err := WritePLY(&good, 2, []Column{{Name: "x", F32: []float32{1, 2}}, {Name: "id", U32: []uint32{0, 1}}, {Name: "body", I32: []int32{-1, 0}}}, "slosh"); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	// a frame with materials: their columns, and the header's comments naming them (MaterialComments)
	var sand bytes.Buffer
	sc := &scene.Scene{Materials: []scene.Material{{Name: "sand", Kind: scene.KindGranular}, {Name: "line\nbreak"}}}
	mats := []Column{{Name: "material", U32: []uint32{0, 1}}, {Name: "phase", U32: []uint32{0, 1}}}
	if err := WritePLY(&sand, 2, mats, append([]string{"slosh"}, MaterialComments(SceneMaterials(sc))...)...); err != nil {
		f.Fatal(err)
	}
	f.Add(sand.Bytes())
	f.Add(append(header("ply", le, "element vertex 3", "property double x", "property uchar c", "property short s", "end_header"), make([]byte, 33)...))
	f.Add(header("ply", le, "element vertex 9223372036854775807", "property double x", "end_header"))
	f.Add(header("ply", le, "element vertex 1000000", "property float x", "end_header"))
	f.Add(header("ply", "format ascii 1.0", "element vertex 1", "property float x", "end_header"))
	f.Add(header(append([]string{"ply", le, "element vertex 10"}, props(300)...)...))
	f.Add(good.Bytes()[:good.Len()-3])
	f.Fuzz(func(t *testing.T, data []byte) {
		n, cols, comments, err := ReadPLY(bytes.NewReader(data))
		if err != nil {
			return
		}
		var out bytes.Buffer
		if WritePLY(&out, n, cols, comments...) != nil {
			return // a name or a comment WritePLY does not write (it writes what slosh makes)
		}
		m, again, comments2, err := ReadPLY(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("what was read, written again, is refused: %v", err)
		}
		// compared by their bytes written once more (NaN values do not compare equal)
		var twice bytes.Buffer
		if err := WritePLY(&twice, m, again, comments2...); err != nil || m != n || !reflect.DeepEqual(Names(again), Names(cols)) || !bytes.Equal(twice.Bytes(), out.Bytes()) {
			t.Fatalf("what was read, written again, reads differently (%v)", err)
		}
	})
}
