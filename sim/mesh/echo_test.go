package mesh

import (
	"strings"
	"testing"
)

// A file that is not an OBJ mesh — a scene's mesh path may name any file — is refused without its content in the
// message: at most a statement's keyword when it is a short word like OBJ's own, never a line, and tokens of v
// and f lines only when they are short.
func TestErrorsDoNotEchoOtherFiles(t *testing.T) {
	passwd := "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
	for _, c := range []struct {
		name, data string
		want       []string // the message says these
		never      []string // and never these
	}{
		{"a password file", passwd, []string{"x.obj: line 1 is not an OBJ statement", "not an OBJ mesh", "slosh reads v and f"},
			[]string{"root", "bash", "daemon"}},
		{"a line of prose", "secret words here\n", []string{"x.obj: line 1 is not an OBJ statement", "not an OBJ mesh"}, []string{"secret", "words"}},
		{"a key file", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n", []string{"line 1 is not an OBJ statement"},
			[]string{"BEGIN", "MIIE"}},
		{"after comments", "# made by hand\n\ntoken=abc123\n", []string{"line 3 is not an OBJ statement", "not an OBJ mesh"}, []string{"abc123", "token"}},
		{"a long word", strings.Repeat("a", 40) + " 1 2\n", []string{"line 1 is not an OBJ statement"}, []string{"aaaaaaaaaaa"}},
		{"an OBJ keyword slosh does not read", "v 0 0 0\ncurv2 1 2 3\n", []string{`line 2: unknown statement "curv2"`, "slosh reads v and f"},
			[]string{"1 2 3", "not an OBJ mesh"}},
		{"a line later in an OBJ", "v 0 0 0\nuser:password\n", []string{"line 2 is not an OBJ statement"}, []string{"user", "password"}},
		{"a long coordinate", "v 0 " + strings.Repeat("z", 100) + " 0\n", []string{"line 1: vertex coordinate 2", "is not a finite number"},
			[]string{"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}},
		{"a long face vertex", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 " + strings.Repeat("q", 100) + "\n",
			[]string{"line 4: face vertex 3", "not a vertex index"}, []string{"qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq"}},
	} {
		_, err := Parse([]byte(c.data), "x.obj")
		if err == nil {
			t.Errorf("%s: parsed", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
		for _, n := range c.never {
			if strings.Contains(err.Error(), n) {
				t.Errorf("%s: %q repeats %q from the file", c.name, err, n)
			}
		}
	}
}
