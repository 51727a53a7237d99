package shaders

import (
	"strings"
	"testing"
	"testing/fstest"
)

var fsys = fstest.MapFS{
	"a.comp":         {Data: []byte("#version 430 core\n#include \"common.glsl\"\n#include \"more.glsl\"\nvoid main() {}\n")},
	"common.glsl":    {Data: []byte("float k = K;\n")},
	"more.glsl":      {Data: []byte("#include \"common.glsl\"\nfloat m = 2.0;\n")},
	"loop.glsl":      {Data: []byte("#include \"loop.glsl\"\n")},
	"noversion.comp": {Data: []byte("void main() {}\n")},
	"missing.comp":   {Data: []byte("#version 430 core\n\n#include \"nowhere.glsl\"\n")},
}

func TestExpandIncludesOnceWithDefinesAndLines(t *testing.T) {
	src, err := Expand(fsys, "a.comp", []Define{Int("K", 3)})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(src.Text, "\n")
	if lines[0] != "#version 430 core" || lines[1] != "#define K 3" {
		t.Errorf("the version line and the defines must come first:\n%s", src.Text)
	}
	if n := strings.Count(src.Text, "float k = K;"); n != 1 {
		t.Errorf("common.glsl included %d times:\n%s", n, src.Text)
	}
	if strings.Join(src.Files, ",") != "a.comp,common.glsl,more.glsl" {
		t.Errorf("files %v", src.Files)
	}
	// after each include, #line puts the including file back at the next line
	if !strings.Contains(src.Text, "#line 4 0\nvoid main() {}") {
		t.Errorf("no #line resuming a.comp after its includes:\n%s", src.Text)
	}
	if !strings.Contains(src.Text, "#line 1 1\nfloat k = K;") {
		t.Errorf("common.glsl does not start with #line 1 1:\n%s", src.Text)
	}
}

func TestExpandErrors(t *testing.T) {
	for name, want := range map[string]string{
		"noversion.comp": "noversion.comp:1: must begin with a #version line",
		"missing.comp":   "missing.comp:3:",
		"nothere.comp":   "nothere.comp",
	} {
		_, err := Expand(fsys, name, nil)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", name, err, want)
		}
	}
	// a file that includes itself is expanded once, not forever
	if _, err := Expand(fstest.MapFS{"x.comp": {Data: []byte("#version 430 core\n#include \"loop.glsl\"\n")}, "loop.glsl": fsys["loop.glsl"]}, "x.comp", nil); err != nil {
		t.Errorf("self-include: %v", err)
	}
}

func TestAnnotateNamesFiles(t *testing.T) {
	src := Source{Files: []string{"lambda.comp", "pbf_common.glsl"}}
	got := src.Annotate("0:12(5): error: x undeclared\n1:40(2): warning: unused\n0(7) : error C1008: undefined variable\nplain line")
	want := "lambda.comp:12(5): error: x undeclared\npbf_common.glsl:40(2): warning: unused\nlambda.comp:7 : error C1008: undefined variable\nplain line"
	if got != want {
		t.Errorf("Annotate:\n%s\nwant\n%s", got, want)
	}
}

// Every shader that ships expands: all its includes exist and it starts with #version.
func TestShippedShadersExpand(t *testing.T) {
	entries, err := embedded.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".comp") || strings.HasSuffix(name, ".vert") || strings.HasSuffix(name, ".frag") {
			if _, err := Expand(FS(), name, nil); err != nil {
				t.Error(err)
			}
			n++
		}
	}
	if n < 20 {
		t.Errorf("only %d shaders found", n)
	}
}
