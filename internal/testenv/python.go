package testenv

import (
	"os/exec"
	"testing"
)

// Python is a python3 that imports module (the system's /usr/bin/python3 first: a python3 of one's own on the
// PATH does not see Debian's modules). Without one the test skips, or fails where tests may not skip (Required),
// naming the Debian package debianPackage that `make deps` installs.
func Python(t testing.TB, module, debianPackage string) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import "+module).Run() == nil {
			return path
		}
	}
	msg := "no python3 with " + module + ": install the Debian package " + debianPackage + " (make deps)"
	if Required() {
		t.Fatal(msg + ", and this test may not skip here (SLOSH_REQUIRE_GL=1 or CI)")
	}
	t.Skip(msg)
	return ""
}
