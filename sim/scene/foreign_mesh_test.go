package scene

import (
	"path/filepath"
	"strings"
	"testing"
)

// A scene's mesh path may name any file the user can read; when that file is not an OBJ mesh the error says so
// and names the field and the file, without repeating the file's content.
func TestMeshPathToAForeignFile(t *testing.T) {
	dir := writeFiles(t, map[string]string{"passwd": "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n"})
	path := filepath.Join(dir, "passwd")
	data := `{"name":"x","domain":{"min":[0,0,0],"max":[1,1,1]},"particles":{"spacing":0.1},` +
		`"fluid":[{"shape":"sphere","center":[0.5,0.5,0.5],"radius":0.2}],` +
		`"obstacles":[{"shape":"mesh","mesh":` + quoteJSON(path) + `,"center":[0.5,0.5,0.5],"extent":0.3}]}`
	_, err := Parse([]byte(data), filepath.Join(dir, "s.json"))
	if err == nil {
		t.Fatal("a scene whose mesh is a password file parsed")
	}
	msg := err.Error()
	for _, want := range []string{"obstacles[0].mesh: " + path, "line 1 is not an OBJ statement", "not an OBJ mesh"} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	for _, never := range []string{"root:", "/bin/bash", "alice"} {
		if strings.Contains(msg, never) {
			t.Errorf("%q repeats %q from the file", msg, never)
		}
	}
}

// quoteJSON writes s as a JSON string.
func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
