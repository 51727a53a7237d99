package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteSidecar(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.json")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Sidecar{
		Software:  "slosh",
		Version:   "v0.3.0",
		Mode:      "pbf",
		Scene:     "dam-break",
		SceneJSON: json.RawMessage(`{"name":"dam-break"}`),
		Params:    map[string]json.RawMessage{"iterations": json.RawMessage(`4`)},
		Frames:    2,
		FrameDt:   1.0 / 30,
		TimeStep:  "CFL 1.5, 4–32 substeps", Steps: []int{4, 9},
		Files:   []string{"frame_000001.ply", "frame_000002.ply"},
		Columns: []string{"x", "y", "z"},
	}
	if err := WriteSidecar(path, s); err != nil {
		t.Fatal(err)
	}
	if s.Format != 0 || !s.Created.IsZero() {
		t.Error("WriteSidecar changed its argument")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), fmt.Sprintf("{\n  \"format\": %d,", SidecarFormat)) {
		t.Errorf("not indented JSON starting with the format:\n%s", b)
	}
	var got Sidecar
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got.Format != SidecarFormat || got.Mode != "pbf" || got.Version != "v0.3.0" || got.Frames != 2 ||
		got.FrameDt != 1.0/30 || got.TimeStep != "CFL 1.5, 4–32 substeps" || len(got.Steps) != 2 || got.Steps[1] != 9 || len(got.Files) != 2 || string(got.Params["iterations"]) != "4" ||
		compact(t, got.SceneJSON) != `{"name":"dam-break"}` {
		t.Errorf("read back %+v", got)
	}
	if d := time.Since(got.Created); d < 0 || d > time.Minute {
		t.Errorf("created %v, want about now", got.Created)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want only the sidecar (no temporary files)", len(entries))
	}

	// Nil parameters are written as an empty object.
	if err := WriteSidecar(path, &Sidecar{Software: "slosh"}); err != nil {
		t.Fatal(err)
	}
	b, _ = os.ReadFile(path)
	if !strings.Contains(string(b), `"params": {}`) {
		t.Errorf("nil params:\n%s", b)
	}
}

// compact is raw JSON without the indentation WriteSidecar adds.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteSidecarErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(file, "export.json") // the parent is a regular file
	err := WriteSidecar(path, &Sidecar{Software: "slosh"})
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want an error naming %s", err, path)
	}
	if err := WriteSidecar(filepath.Join(dir, "s.json"), nil); err == nil {
		t.Error("a nil sidecar was written")
	}
	if err := WriteSidecar(filepath.Join(dir, "bad.json"), &Sidecar{SceneJSON: json.RawMessage("{")}); err == nil {
		t.Error("invalid scene JSON was written")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries after failed writes, want 1", len(entries))
	}
}

func TestFrameName(t *testing.T) {
	for _, tc := range []struct {
		frame int
		want  string
	}{
		{0, "frame_000000.ply"},
		{123, "frame_000123.ply"},
		{999999, "frame_999999.ply"},
		{1234567, "frame_1234567.ply"},
	} {
		if got := FrameName("out", tc.frame); got != filepath.Join("out", tc.want) {
			t.Errorf("FrameName(out, %d) = %s, want %s", tc.frame, got, filepath.Join("out", tc.want))
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a negative frame did not panic")
		}
	}()
	FrameName("out", -1)
}
