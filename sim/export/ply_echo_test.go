package export

import (
	"bytes"
	"strings"
	"testing"
)

// The PLY reader quotes its header's lines and words in errors cut to a readable length, and a file that does not
// start with "ply" not at all.
func TestPLYErrorsQuoteLittle(t *testing.T) {
	long := strings.Repeat("s", 50000)
	for _, file := range [][]byte{
		header("ply", "format "+long+" 1.0"),
		header("ply", "format binary_little_endian 1.0 "+long),
		header("ply", "format binary_little_endian 1.0", "element vertex "+long),
		header("ply", "format binary_little_endian 1.0", "element vertex 1", long+" x"),
		header("ply", "format binary_little_endian 1.0", "element vertex 1", "property float x", "property int x "+long),
		header("ply", "format binary_little_endian 1.0", "element vertex 1", "property float "+long, "property int "+long),
		header("ply", "format binary_little_endian 1.0", "element "+long+" 1"),
		header("root:x:0:0:root:/root:/bin/bash"),
	} {
		_, _, _, err := ReadPLY(bytes.NewReader(file))
		if err == nil || len(err.Error()) > 300 || strings.Contains(err.Error(), "root") {
			t.Errorf("a %d-byte message: %.200s", len(err.Error()), err)
		}
	}
}
