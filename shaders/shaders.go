// Package shaders holds the GLSL sources, one file per pass, embedded in the binary, and the small preprocessor
// that assembles them: `#include "file.glsl"` pulls in shared snippets, and Go-side constants (binding indices,
// workgroup sizes) are injected as #defines so the two languages never keep two copies of a number.
//
// Expanded sources carry `#line` directives, and the file table returned with them lets a compile error be
// reported against the file and line the author wrote.
package shaders

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
)

//go:embed *
var embedded embed.FS

// FS returns the embedded shader sources. A development build may swap in os.DirFS("shaders") to reload edits.
func FS() fs.FS { return embedded }

// Define is a preprocessor constant injected after the #version line.
type Define struct {
	Name  string
	Value string
}

// Int is a Define of an integer constant.
func Int(name string, v int) Define { return Define{name, strconv.Itoa(v)} }

// Source is an expanded shader: the text to compile and the files its #line source numbers refer to.
type Source struct {
	Text  string
	Files []string // Files[k] is the file behind `#line n k`
}

var includeRE = regexp.MustCompile(`^\s*#\s*include\s+"([^"]+)"\s*$`)

// Expand reads name from fsys and resolves its includes (each file at most once). The file must begin with a
// #version line; defines are placed right after it.
func Expand(fsys fs.FS, name string, defines []Define) (Source, error) {
	e := expander{fsys: fsys, seen: map[string]bool{}}
	var b strings.Builder
	if err := e.file(&b, name, defines, 0); err != nil {
		return Source{}, err
	}
	return Source{Text: b.String(), Files: e.files}, nil
}

type expander struct {
	fsys  fs.FS
	files []string
	seen  map[string]bool
}

func (e *expander) file(b *strings.Builder, name string, defines []Define, depth int) error {
	if depth > 16 {
		return fmt.Errorf("shaders: %s: includes nested too deeply", name)
	}
	data, err := fs.ReadFile(e.fsys, name)
	if err != nil {
		return fmt.Errorf("shaders: %w", err)
	}
	e.seen[name] = true
	idx := len(e.files)
	e.files = append(e.files, name)
	lines := strings.Split(string(data), "\n")
	start := 0
	if depth == 0 {
		if len(lines) == 0 || !strings.HasPrefix(strings.TrimSpace(lines[0]), "#version") {
			return fmt.Errorf("shaders: %s:1: must begin with a #version line", name)
		}
		b.WriteString(lines[0])
		b.WriteByte('\n')
		for _, d := range defines {
			fmt.Fprintf(b, "#define %s %s\n", d.Name, d.Value)
		}
		start = 1
	}
	fmt.Fprintf(b, "#line %d %d\n", start+1, idx)
	for i := start; i < len(lines); i++ {
		line := lines[i]
		if m := includeRE.FindStringSubmatch(line); m != nil {
			inc := path.Join(path.Dir(name), m[1])
			if !e.seen[inc] {
				if err := e.file(b, inc, nil, depth+1); err != nil {
					return fmt.Errorf("%s:%d: %w", name, i+1, err)
				}
			}
			fmt.Fprintf(b, "#line %d %d\n", i+2, idx)
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return nil
}

// Mesa writes "0:12(5): error: ..."; NVIDIA writes "0(12) : error C0000: ...".
var logRE = regexp.MustCompile(`^(\d+)[:(](\d+)`)

// Annotate rewrites the source numbers at the start of info-log lines into file names, so
// "0:12(5): error: x" reads "lambda.comp:12(5): error: x".
func (s Source) Annotate(log string) string {
	var out []string
	for _, line := range strings.Split(strings.TrimRight(log, "\x00\n "), "\n") {
		if m := logRE.FindStringSubmatchIndex(line); m != nil {
			k, _ := strconv.Atoi(line[m[2]:m[3]])
			ln := line[m[4]:m[5]]
			if k >= 0 && k < len(s.Files) {
				rest := line[m[1]:]
				rest = strings.TrimPrefix(rest, ")")
				line = s.Files[k] + ":" + ln + rest
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
