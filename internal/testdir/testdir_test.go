package testdir

import "testing"

func TestUnwritableRefusesNewFiles(t *testing.T) {
	if dir := Unwritable(t); canCreate(dir) {
		t.Fatalf("a file was created in %s", dir)
	}
}
