package app

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// Off a terminal, progress is a line for each tenth of the work and the last, never a carriage return: a log of
// a long export holds a handful of lines.
func TestProgressOffATerminal(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	for i := 1; i <= 250; i++ {
		p.show(i, 250, fmt.Sprintf("slosh: done %d/250   ", i))
	}
	p.end()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if strings.Contains(b.String(), "\r") || len(lines) > 11 || lines[len(lines)-1] != "slosh: done 250/250" {
		t.Fatalf("%d lines:\n%q", len(lines), b.String())
	}
}

// slosh export into a log (not a terminal) writes its progress as lines.
func TestExportProgressInALog(t *testing.T) {
	var errs bytes.Buffer
	o := ExportOptions{Options: Options{Scene: "dambreak", Mode: "pbf-cpu", Particles: 1000, Stderr: &errs}, Frames: 3,
		Out: filepath.Join(t.TempDir(), "cache"), Stdout: io.Discard}
	if err := Export(o); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(errs.String(), "\r") || !strings.Contains(errs.String(), "exported 3/3 frames") {
		t.Fatalf("stderr: %q", errs.String())
	}
}
